#!/usr/bin/env node
// Generates the live-commerce demo/test fixtures:
//   fixtures/live-commerce/trajectories.jsonl   (seeded, byte-identical on every run)
//   fixtures/live-commerce/contexts/*.json      (example trajectory contexts)
// The harness itself (fixtures/live-commerce/harness/) is hand-written; this script reads it.
// The system message of every record is rendered by the real engine, so build first:
//   npx tsc -p . && node scripts/gen-fixtures.mjs
// Randomness comes only from seedrandom('hsa-fixtures-v1'); no Math.random, no clock.

import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv from 'ajv';
import seedrandom from 'seedrandom';
import YAML from 'yaml';
import { loadHarness, renderSystemPrompt } from '../dist/src/index.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FIX = path.join(ROOT, 'fixtures/live-commerce');
const HARNESS_DIR = path.join(FIX, 'harness');
const HARNESS_REF = { name: 'live-commerce', version: '2026.08.2' };
const SEED = 'hsa-fixtures-v1';
const MAX_CHARS = 80;

const rng = seedrandom(SEED);
const pick = (arr) => arr[Math.floor(rng() * arr.length)];
const chance = (p) => rng() < p;
function shuffle(arr) {
  const a = [...arr];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}
const chars = (s) => [...s].length;
// Cycle through a list per key, so small case lists are covered evenly instead of repeated.
const cursors = new Map();
function nextOf(key, arr) {
  const i = cursors.get(key) ?? 0;
  cursors.set(key, i + 1);
  return arr[i % arr.length];
}
const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);

// ---------------------------------------------------------------------------------------------
// Harness pieces the generator needs directly (skill bodies, tool schemas, hook templates)
// ---------------------------------------------------------------------------------------------

const SKILL_BODY = {};
for (const dir of readdirSync(path.join(HARNESS_DIR, 'skills')).sort()) {
  const text = readFileSync(path.join(HARNESS_DIR, 'skills', dir, 'SKILL.md'), 'utf8');
  const m = /^---\r?\n[\s\S]*?\r?\n---\r?\n?/.exec(text);
  SKILL_BODY[dir] = (m ? text.slice(m[0].length) : text).trim();
}

const TOOL_SCHEMA = {};
for (const file of readdirSync(path.join(HARNESS_DIR, 'tools')).filter((f) => f.endsWith('.json')).sort()) {
  const doc = JSON.parse(readFileSync(path.join(HARNESS_DIR, 'tools', file), 'utf8'));
  const list = Array.isArray(doc) ? doc : doc.tools ?? doc.result?.tools ?? [doc];
  for (const t of list) {
    if (t.type === 'function') TOOL_SCHEMA[t.function.name] = t.function.parameters;
    else TOOL_SCHEMA[t.name] = t.inputSchema;
  }
}
const ajv = new Ajv({ allErrors: true });
const VALIDATE = Object.fromEntries(Object.entries(TOOL_SCHEMA).map(([n, s]) => [n, ajv.compile(s)]));

const HOOKS = YAML.parse(readFileSync(path.join(HARNESS_DIR, 'hooks.yaml'), 'utf8')).hooks;
const STOP_GATE = HOOKS.find((h) => h.id === 'stop_gate');
const PRICE_RE = new RegExp(STOP_GATE.checks.find((c) => c.require_tool).require_tool.when_reply_matches, 'u');
const PRICE_TOOLS = new Set(STOP_GATE.checks.find((c) => c.require_tool).require_tool.tools);
const WHITELIST_RES = HOOKS.find((h) => h.id === 'refusal_whitelist').checks[0].forbid.regex.map((r) => new RegExp(r, 'u'));
const gateFeedback = (reply) =>
  STOP_GATE.feedback.replace(/\{\{\s*chars\s*\}\}/g, String(chars(reply))).replace(/\{\{\s*max_chars\s*\}\}/g, String(MAX_CHARS));

// ---------------------------------------------------------------------------------------------
// Catalogue: items, rooms, promotions, FAQ
// ---------------------------------------------------------------------------------------------
// Each item: list price, display title, short names for replies ({zh,en}), how a viewer refers to
// it when it is on camera vs. named ({it}), the detail record get_item_detail serves, Q&A facts,
// and optionally a clarification flow (the viewer's question lacks something we must ask for).

const ITEMS = [
  {
    id: 'i-01', price: 199, title: 'Linen midi dress 亚麻中长连衣裙', zh: '亚麻裙', en: 'the linen dress',
    it: { zh: ['这条裙子', '亚麻裙'], en: ['this dress', 'the linen dress'] },
    detail: {
      material: '100% linen, 160 g/m², cotton-lined bodice',
      sizes: 'S 155-160 cm/42-49 kg; M 160-165 cm/50-57 kg; L 165-170 cm/58-64 kg; XL 170-175 cm/65-72 kg',
      colors: ['oat', 'sage green', 'black'],
      care: 'gentle machine wash in a laundry bag, cold water; hang dry; no tumble dryer',
      stock: { S: 42, M: 88, L: 61, XL: 17 },
      shipping: 'ships within 48 h from Hangzhou, free shipping',
    },
    facts: [
      { fields: ['material'], q: { zh: ['{it}是什么面料呀？', '{it}亚麻的会扎皮肤吗'], en: ['what is {it} made of?', 'is {it} scratchy? linen sometimes is'] },
        a: { zh: '100%亚麻，160克厚度，上身有棉衬里，不扎皮肤～', en: "100% linen at 160 g/m² with a cotton-lined top, so it's not scratchy." } },
      { fields: ['care'], q: { zh: ['{it}能机洗吗？'], en: ['can I machine wash {it}?'] },
        a: { zh: '可以，装洗衣袋冷水轻柔洗，挂着晾干，别烘干哦～', en: 'Yes: gentle cold cycle in a laundry bag, then hang dry. No tumble dryer.' } },
      { fields: ['colors'], q: { zh: ['{it}有几个颜色？'], en: ['what colours does {it} come in?'] },
        a: { zh: '有燕麦色、鼠尾草绿和黑色三个颜色～', en: 'Three colours: oat, sage green and black.' } },
    ],
    clarify: { fields: ['sizes'], q: { zh: '{it}我穿什么码？', en: 'which size should I get in {it}?' },
      ask: { zh: '身高体重大概多少呀？我帮你看码～', en: "Happy to help! What's your height and weight?" },
      ans: { zh: '163，52公斤', en: '163 cm, 52 kg' },
      a: { zh: '163/52穿M码刚好，M码对应160-165cm、50-57kg～', en: 'M is your size: it fits 160-165 cm and 50-57 kg.' } },
  },
  {
    id: 'i-02', price: 159, title: 'Floral chiffon dress 碎花雪纺连衣裙', zh: '雪纺裙', en: 'the chiffon dress',
    it: { zh: ['这条裙子', '碎花雪纺裙'], en: ['this dress', 'the floral chiffon dress'] },
    detail: {
      material: 'polyester chiffon shell, viscose lining',
      sizes: 'S/M/L, relaxed fit; M for 48-58 kg',
      colors: ['blue floral', 'pink floral'],
      care: 'hand wash cold, do not wring',
      stock: { S: 30, M: 0, L: 25, restock: 'M back within 7 days' },
      shipping: 'ships within 72 h, free shipping',
    },
    facts: [
      { fields: ['material'], q: { zh: ['{it}透不透？', '{it}是什么料子'], en: ['is {it} see-through?'] },
        a: { zh: '外层雪纺，里面有粘胶衬里，不透的，放心～', en: "There's a viscose lining under the chiffon, so it's not see-through." } },
      { fields: ['stock'], q: { zh: ['{it}M码还有吗？'], en: ['is {it} still available in M?'] },
        a: { zh: 'M码刚抢完了，7天内补货，S和L码还有～', en: 'M just sold out and is back within 7 days; S and L are available.' } },
    ],
  },
  {
    id: 'i-03', plural: true, price: 179, title: 'High-waist wide-leg jeans 高腰阔腿牛仔裤', zh: '阔腿牛仔裤', en: 'the wide-leg jeans',
    it: { zh: ['这条裤子', '阔腿牛仔裤'], en: ['these jeans', 'the wide-leg jeans'] },
    detail: {
      material: '98% cotton, 2% elastane, 12 oz denim',
      sizes: 'waist 25-32 (inches); true to size',
      colors: ['light wash', 'mid blue'],
      care: 'wash inside out in cold water',
      stock: 'all sizes in stock',
      shipping: 'ships within 48 h',
    },
    facts: [
      { fields: ['material'], q: { zh: ['{it}有弹力吗'], en: ['do {it} have any stretch?'] },
        a: { zh: '有一点弹力，98%棉加2%氨纶，久坐也不勒～', en: "A little: 98% cotton and 2% elastane, so they're comfy sitting down." } },
      { fields: ['colors'], q: { zh: ['{it}有几个颜色'], en: ['what washes do {it} come in?'] },
        a: { zh: '有浅蓝水洗和中蓝两个颜色～', en: 'Two washes: light wash and mid blue.' } },
    ],
    clarify: { fields: ['sizes'], q: { zh: '{it}选多大码合适？', en: 'what size should I pick in {it}?' },
      ask: { zh: '平时穿几码的裤子呀？', en: 'What waist size do you usually wear?' },
      ans: { zh: '平时穿27', en: 'usually a 27' },
      a: { zh: '这款尺码标准，平时穿27就拍27～', en: "They run true to size, so go with your usual 27." } },
  },
  {
    id: 'i-04', price: 329, title: 'Cashmere-blend cardigan 羊绒混纺开衫', zh: '羊绒开衫', en: 'the cashmere cardigan',
    it: { zh: ['这件开衫', '羊绒开衫'], en: ['this cardigan', 'the cashmere cardigan'] },
    detail: {
      material: '30% cashmere, 70% merino wool',
      sizes: 'one size, fits S-L',
      colors: ['camel', 'grey', 'ivory'],
      care: 'hand wash cold or dry clean; dry flat',
      stock: 'in stock',
      shipping: 'ships within 48 h',
    },
    facts: [
      { fields: ['material'], q: { zh: ['{it}羊绒含量多少？'], en: ['how much cashmere is in {it}?'] },
        a: { zh: '30%羊绒加70%美利奴羊毛，软糯又保暖～', en: '30% cashmere and 70% merino wool: soft and warm.' } },
      { fields: ['care'], q: { zh: ['{it}怎么洗？'], en: ['how do I wash {it}?'] },
        a: { zh: '建议冷水手洗或者干洗，平铺晾干，别挂着～', en: 'Hand wash cold or dry clean, and dry it flat.' } },
    ],
  },
  {
    id: 'i-05', price: 239, title: 'Hyaluronic acid serum 30ml 玻尿酸精华', zh: '玻尿酸精华', en: 'the hyaluronic serum',
    it: { zh: ['这个精华', '玻尿酸精华'], en: ['this serum', 'the hyaluronic serum'] },
    detail: {
      ingredients: 'hyaluronic acid (3 molecular weights), panthenol, ceramide NP; fragrance-free',
      suitable_for: 'all skin types including sensitive; patch test first',
      specs: '30 ml dropper bottle; 3 years unopened, use within 6 months of opening',
      stock: 'in stock',
      shipping: 'ships within 24 h from the Shanghai warehouse',
    },
    facts: [
      { fields: ['ingredients'], q: { zh: ['{it}有香精吗？'], en: ['does {it} have fragrance?'] },
        a: { zh: '无香精，主要是三重玻尿酸，加了泛醇和神经酰胺～', en: 'No fragrance: three kinds of hyaluronic acid plus panthenol and ceramide.' } },
      { fields: ['specs'], q: { zh: ['{it}开封后能放多久'], en: ['how long does {it} last once opened?'] },
        a: { zh: '开封后建议6个月内用完，未开封保质期3年～', en: 'Use it within 6 months of opening; unopened it keeps 3 years.' } },
    ],
    clarify: { fields: ['suitable_for'], q: { zh: '{it}适合我吗？', en: 'would {it} suit my skin?' },
      ask: { zh: '你是什么肤质呀？干皮、油皮还是敏感肌？', en: "What's your skin type: dry, oily or sensitive?" },
      ans: { zh: '敏感肌', en: 'sensitive' },
      a: { zh: '敏感肌也能用，无香精，第一次建议先在耳后试一下～', en: "It's fragrance-free and fine for sensitive skin; patch test first." } },
  },
  {
    id: 'i-06', price: 129, title: 'Mineral sunscreen SPF50+ 物理防晒霜', zh: '物理防晒', en: 'the mineral sunscreen',
    it: { zh: ['这个防晒', '物理防晒霜'], en: ['this sunscreen', 'the mineral sunscreen'] },
    detail: {
      ingredients: 'zinc oxide 18%, titanium dioxide 4%; alcohol-free',
      suitable_for: 'sensitive and combination skin; may leave a slight white cast on deeper skin tones',
      specs: '50 ml, SPF50+ PA++++, water resistant for 40 minutes',
      stock: 'in stock',
      shipping: 'ships within 24 h',
    },
    facts: [
      { fields: ['specs'], q: { zh: ['{it}防水吗'], en: ['is {it} waterproof?'] },
        a: { zh: '防水40分钟，游泳或出汗多了记得补涂～', en: 'Water resistant for 40 minutes; reapply after swimming.' } },
      { fields: ['ingredients'], q: { zh: ['{it}是物理防晒还是化学的'], en: ['is {it} mineral or chemical?'] },
        a: { zh: '纯物理防晒，氧化锌加二氧化钛，不含酒精～', en: 'Pure mineral: zinc oxide and titanium dioxide, no alcohol.' } },
    ],
    clarify: { fields: ['suitable_for'], q: { zh: '{it}会不会泛白？', en: 'will {it} leave a white cast on me?' },
      ask: { zh: '你的肤色偏白还是偏深呀？', en: 'Is your skin tone fair, medium or deep?' },
      ans: { zh: '偏黄黑一点', en: 'medium-deep' },
      a: { zh: '偏深肤色可能有一点点泛白，薄涂、分次推开会好很多～', en: 'Deeper tones may see a slight cast; thin layers help a lot.' } },
  },
  {
    id: 'i-07', price: 69, title: 'Amino acid cleanser 氨基酸洗面奶', zh: '氨基酸洗面奶', en: 'the amino acid cleanser',
    it: { zh: ['这个洗面奶', '氨基酸洗面奶'], en: ['this cleanser', 'the amino acid cleanser'] },
    detail: {
      ingredients: 'amino-acid surfactants, glycerin; pH 5.5; no SLS',
      suitable_for: 'all skin types, gentle enough for twice-daily use',
      specs: '120 g tube, about 2 months with twice-daily use',
      stock: 'in stock',
      shipping: 'ships within 24 h',
    },
    facts: [
      { fields: ['ingredients'], q: { zh: ['{it}洗完会紧绷吗'], en: ['does {it} leave skin tight?'] },
        a: { zh: '氨基酸表活，pH5.5，不含皂基，洗完不紧绷～', en: "No: it's amino-acid based, pH 5.5 and SLS-free." } },
      { fields: ['specs'], q: { zh: ['{it}一支能用多久？'], en: ['how long does a tube of {it} last?'] },
        a: { zh: '一支120克，早晚都用大概两个月～', en: 'The 120 g tube lasts about two months used twice a day.' } },
    ],
  },
  {
    id: 'i-08', price: 259, title: 'Vitamin C brightening serum 30ml 维C亮肤精华', zh: '维C精华', en: 'the vitamin C serum',
    it: { zh: ['这个精华', '维C精华'], en: ['this serum', 'the vitamin C serum'] },
    detail: {
      ingredients: '10% ascorbyl glucoside, 4% niacinamide, vitamin E',
      suitable_for: 'normal, combination and oily skin; sensitive skin should start every other night',
      specs: '30 ml airless pump; use within 3 months of opening',
      stock: 'in stock',
      shipping: 'ships within 24 h',
    },
    facts: [
      { fields: ['ingredients'], q: { zh: ['{it}维C浓度多少'], en: ["what's the vitamin C concentration in {it}?"] },
        a: { zh: '10%维C衍生物加4%烟酰胺，是温和型配方～', en: '10% vitamin C derivative plus 4% niacinamide, a gentle formula.' } },
      { fields: ['suitable_for'], q: { zh: ['敏感肌能用{it}吗'], en: ['can sensitive skin use {it}?'] },
        a: { zh: '敏感肌建议先隔天晚上用，慢慢建立耐受哦～', en: "If you're sensitive, start every other night to build tolerance." } },
    ],
  },
  {
    id: 'i-09', plural: true, price: 119, title: 'Daily mixed nuts 30 packs 每日坚果30袋', zh: '每日坚果', en: 'the daily mixed nuts',
    it: { zh: ['这个坚果', '每日坚果'], en: ['these nuts', 'the daily mixed nuts'] },
    detail: {
      ingredients: 'walnuts, cashews, almonds, hazelnuts, dried cranberries, dried blueberries; contains tree nuts',
      specs: '25 g x 30 packs; shelf life 180 days',
      stock: 'in stock',
      shipping: 'ships within 24 h in a sealed box',
    },
    facts: [
      { fields: ['ingredients'], q: { zh: ['{it}里面都有什么'], en: ["what's in {it}?"] },
        a: { zh: '有核桃、腰果、巴旦木、榛子，还有蔓越莓和蓝莓干～', en: 'Walnuts, cashews, almonds, hazelnuts, plus dried cranberries and blueberries.' } },
      { fields: ['specs'], q: { zh: ['{it}保质期多久'], en: ["what's the shelf life of {it}?"] },
        a: { zh: '一袋25克，一共30袋，保质期180天～', en: '30 packs of 25 g, with a 180-day shelf life.' } },
    ],
  },
  {
    id: 'i-10', price: 59, title: 'Spicy beef jerky 200g 麻辣牛肉干', zh: '麻辣牛肉干', en: 'the spicy beef jerky',
    it: { zh: ['这个牛肉干', '麻辣牛肉干'], en: ['this jerky', 'the spicy beef jerky'] },
    detail: {
      ingredients: 'beef (at least 85%), chili, Sichuan pepper, sugar, salt',
      specs: '200 g, individually wrapped; shelf life 9 months',
      suitable_for: 'very spicy; not for young children',
      stock: 'in stock',
      shipping: 'ships within 24 h',
    },
    facts: [
      { fields: ['suitable_for'], q: { zh: ['{it}辣不辣？'], en: ['how spicy is {it}?'] },
        a: { zh: '是真的辣，麻辣味很足，小朋友就先别吃啦～', en: 'Really spicy with Sichuan pepper; not one for little kids.' } },
      { fields: ['ingredients'], q: { zh: ['{it}是纯牛肉吗'], en: ['is {it} real beef?'] },
        a: { zh: '牛肉含量85%以上，用辣椒和花椒调味～', en: 'Yes, at least 85% beef, seasoned with chili and Sichuan pepper.' } },
    ],
  },
  {
    id: 'i-11', plural: true, price: 45, title: 'Freeze-dried strawberries 50g 冻干草莓', zh: '冻干草莓', en: 'the freeze-dried strawberries',
    it: { zh: ['这个草莓干', '冻干草莓'], en: ['these strawberries', 'the freeze-dried strawberries'] },
    detail: {
      ingredients: '100% strawberries, no added sugar',
      specs: '50 g resealable pouch; shelf life 12 months',
      suitable_for: 'kids from 3 years',
      stock: 'in stock',
      shipping: 'ships within 24 h',
    },
    facts: [
      { fields: ['ingredients'], q: { zh: ['{it}加糖了吗'], en: ['do {it} have added sugar?'] },
        a: { zh: '没有加糖，配料表只有草莓～', en: 'No added sugar: the only ingredient is strawberries.' } },
      { fields: ['suitable_for'], q: { zh: ['小孩能吃{it}吗'], en: ['can kids eat {it}?'] },
        a: { zh: '3岁以上的小朋友可以吃，酥酥脆脆的～', en: 'Yes, they are fine for kids aged 3 and up.' } },
    ],
  },
  {
    id: 'i-12', price: 268, title: 'Oolong tea gift box 乌龙茶礼盒', zh: '乌龙茶礼盒', en: 'the oolong gift box',
    it: { zh: ['这个礼盒', '乌龙茶礼盒'], en: ['this gift box', 'the oolong gift box'] },
    detail: {
      ingredients: 'oolong tea leaves (Anxi Tieguanyin)',
      specs: '250 g: 50 bags x 5 g, gift box with carrier bag',
      stock: 'in stock',
      shipping: 'ships within 48 h; a gift card message can be added in the order note',
    },
    facts: [
      { fields: ['specs'], q: { zh: ['{it}有多少克？'], en: ['how much tea is in {it}?'] },
        a: { zh: '安溪铁观音一共250克，5克一泡，共50泡～', en: '250 g of Anxi Tieguanyin: 50 bags of 5 g.' } },
      { fields: ['shipping'], q: { zh: ['{it}能写贺卡吗'], en: ['can I add a gift card to {it}?'] },
        a: { zh: '可以，下单时备注祝福语，48小时内发货～', en: 'Yes, put your message in the order note; it ships within 48 h.' } },
    ],
  },
  {
    id: 'i-13', price: 189, title: 'Cast-iron skillet 26cm 铸铁煎锅', zh: '铸铁煎锅', en: 'the cast-iron skillet',
    it: { zh: ['这口锅', '铸铁煎锅'], en: ['this pan', 'the cast-iron skillet'] },
    detail: {
      material: 'pre-seasoned cast iron',
      specs: '26 cm, 2.3 kg; works on gas, induction and in the oven',
      care: 'hand wash, dry on heat, oil lightly',
      warranty: '10-year warranty',
      stock: 'in stock',
    },
    facts: [
      { fields: ['specs'], q: { zh: ['{it}重不重？'], en: ['how heavy is {it}?'] },
        a: { zh: '26厘米，2.3公斤，有点分量，但受热很稳～', en: "It's 26 cm and 2.3 kg: a bit heavy, but it heats evenly." } },
      { fields: ['care'], q: { zh: ['{it}会生锈吗'], en: ['does {it} rust?'] },
        a: { zh: '已经预开锅了，洗完上火烘干、抹点油就不容易锈～', en: 'It comes pre-seasoned; dry it on heat and oil lightly to prevent rust.' } },
    ],
    clarify: { fields: ['specs'], q: { zh: '{it}我家灶能用吗？', en: 'will {it} work on my stove?' },
      ask: { zh: '你家是燃气灶、电磁炉还是电陶炉呀？', en: 'What kind of stove do you have: gas, induction or ceramic?' },
      ans: { zh: '电磁炉', en: 'induction' },
      a: { zh: '可以的，燃气灶、电磁炉、烤箱都能用～', en: 'Yes, it works on induction, on gas and in the oven.' } },
  },
  {
    id: 'i-14', price: 229, title: 'Non-stick wok 32cm 不粘炒锅', zh: '不粘炒锅', en: 'the non-stick wok',
    it: { zh: ['这口锅', '不粘炒锅'], en: ['this wok', 'the non-stick wok'] },
    detail: {
      material: 'aluminium body, 3-layer ceramic non-stick coating, PFOA-free',
      specs: '32 cm, 1.6 kg, glass lid; gas and induction',
      care: 'no metal utensils; hand wash',
      warranty: '2-year coating warranty',
      stock: 'in stock',
    },
    facts: [
      { fields: ['material'], q: { zh: ['{it}是什么涂层？'], en: ['what coating does {it} have?'] },
        a: { zh: '三层陶瓷不粘涂层，不含PFOA～', en: "It's a 3-layer ceramic non-stick coating, PFOA-free." } },
      { fields: ['warranty'], q: { zh: ['{it}涂层掉了怎么办'], en: ['what if the coating on {it} wears off?'] },
        a: { zh: '涂层有2年质保，期间有问题可以找售后～', en: 'The coating has a 2-year warranty; after-sales will help if it fails.' } },
    ],
    clarify: { fields: ['specs'], q: { zh: '{it}我家能用吗？', en: 'can I use {it} at home?' },
      ask: { zh: '你家是燃气灶还是电磁炉呀？', en: 'Do you cook on gas or induction?' },
      ans: { zh: '电磁炉', en: 'induction' },
      a: { zh: '电磁炉可以用，燃气灶也行，还带玻璃盖～', en: 'Yes, it works on induction and gas, and comes with a glass lid.' } },
  },
  {
    id: 'i-15', price: 99, title: 'Electric kettle 1.7L 电热水壶', zh: '电热水壶', en: 'the electric kettle',
    it: { zh: ['这个水壶', '电热水壶'], en: ['this kettle', 'the electric kettle'] },
    detail: {
      material: '304 stainless steel interior, double wall',
      specs: '1.7 L, 1800 W, boils 1 L in about 4 minutes, auto shut-off, boil-dry protection',
      warranty: '1-year warranty',
      stock: 'in stock',
    },
    facts: [
      { fields: ['material'], q: { zh: ['{it}内胆是什么材质'], en: ['is the inside of {it} plastic?'] },
        a: { zh: '内胆是304不锈钢，双层防烫～', en: 'No, the inside is 304 stainless steel, with a double wall.' } },
      { fields: ['specs'], q: { zh: ['{it}烧水快吗'], en: ['how fast does {it} boil?'] },
        a: { zh: '1800瓦，一升水大概4分钟，烧开自动断电～', en: '1800 W: about 4 minutes per litre, with auto shut-off.' } },
    ],
  },
  {
    id: 'i-16', price: 259, title: 'Knife set 5-piece 刀具五件套', zh: '刀具五件套', en: 'the knife set',
    it: { zh: ['这套刀', '刀具五件套'], en: ['this set', 'the knife set'] },
    detail: {
      material: 'German 1.4116 stainless steel, pakkawood handles',
      specs: 'chef knife 20 cm, slicer, santoku, utility knife, paring knife, wooden block',
      care: 'hand wash and dry; not dishwasher safe',
      warranty: '3-year warranty',
      stock: 'in stock',
    },
    facts: [
      { fields: ['specs'], q: { zh: ['{it}都有哪几把'], en: ['which knives are in {it}?'] },
        a: { zh: '主厨刀、切片刀、三德刀、多用刀和水果刀，带刀座～', en: 'Chef, slicer, santoku, utility and paring knives, plus a block.' } },
      { fields: ['care'], q: { zh: ['{it}能进洗碗机吗'], en: ['is {it} dishwasher safe?'] },
        a: { zh: '不建议进洗碗机，手洗擦干更耐用～', en: 'Not dishwasher safe; hand wash and dry them.' } },
    ],
  },
  {
    id: 'i-17', plural: true, price: 299, title: 'Noise-cancelling wireless earbuds 降噪无线耳机', zh: '降噪耳机', en: 'the noise-cancelling earbuds',
    it: { zh: ['这个耳机', '降噪耳机'], en: ['these earbuds', 'the noise-cancelling earbuds'] },
    detail: {
      specs: 'Bluetooth 5.3, ANC up to 40 dB, 8 h per charge, 32 h with case, IPX4, USB-C and wireless charging',
      suitable_for: 'iOS and Android phones',
      warranty: '1-year warranty; replacement within 15 days for defects',
      stock: 'in stock',
    },
    facts: [
      { fields: ['specs'], q: { zh: ['{it}续航多久'], en: ['how long does the battery last on {it}?'] },
        a: { zh: '单次能用8小时，加上充电盒一共32小时～', en: '8 hours per charge, 32 hours with the case.' } },
      { fields: ['specs'], q: { zh: ['戴{it}跑步出汗会坏吗'], en: ['can I sweat in {it}?'] },
        a: { zh: 'IPX4防水，跑步出汗没问题～', en: "They're IPX4, so sweat during a run is fine." } },
    ],
    clarify: { fields: ['suitable_for'], q: { zh: '{it}我手机能连吗', en: 'will {it} work with my phone?' },
      ask: { zh: '你用的是什么手机呀？', en: 'Which phone do you use?' },
      ans: { zh: '华为Mate60', en: 'a Pixel 8' },
      a: { zh: '可以，蓝牙5.3，安卓和苹果都能连～', en: 'Yes: Bluetooth 5.3, works with Android and iPhone.' } },
  },
  {
    id: 'i-18', price: 149, title: 'Power bank 20000mAh 充电宝', zh: '充电宝', en: 'the power bank',
    it: { zh: ['这个充电宝', '充电宝'], en: ['this power bank', 'the power bank'] },
    detail: {
      specs: '20000 mAh (74 Wh), 22.5 W fast charge, USB-C in/out plus USB-A, 420 g',
      suitable_for: 'within airline carry-on limits (under 100 Wh)',
      warranty: '1-year warranty',
      stock: 'in stock',
    },
    facts: [
      { fields: ['suitable_for'], q: { zh: ['{it}能带上飞机吗'], en: ['can I take {it} on a plane?'] },
        a: { zh: '74Wh，在随身携带登机的限额以内～', en: "It's 74 Wh, within the carry-on limit for flights." } },
      { fields: ['specs'], q: { zh: ['{it}支持快充吗'], en: ['does {it} fast charge?'] },
        a: { zh: '支持22.5W快充，Type-C进出都可以～', en: 'Yes, 22.5 W fast charging, USB-C in and out.' } },
    ],
  },
  {
    id: 'i-19', price: 599, title: 'GPS smart watch 智能手表', zh: '智能手表', en: 'the smart watch',
    it: { zh: ['这个手表', '智能手表'], en: ['this watch', 'the smart watch'] },
    detail: {
      specs: '1.43" AMOLED, GPS, heart rate and SpO2 tracking (not a medical device), 14-day battery, 5 ATM',
      suitable_for: 'Android 8+ and iOS 14+',
      warranty: '1-year warranty',
      stock: 'in stock',
    },
    facts: [
      { fields: ['specs'], q: { zh: ['{it}能戴着游泳吗'], en: ['can I swim with {it}?'] },
        a: { zh: '5ATM防水，游泳可以戴，别戴去泡温泉哦～', en: "It's rated 5 ATM, so swimming is fine." } },
      { fields: ['specs'], q: { zh: ['{it}多久充一次电'], en: ['how often do I charge {it}?'] },
        a: { zh: '正常使用续航14天左右～', en: 'Up to 14 days per charge with typical use.' } },
      { fields: ['specs'], q: { zh: ['{it}能测血压吗'], en: ['does {it} measure blood pressure?'] },
        a: { zh: '不能测血压哦，有心率和血氧监测，数据仅供参考～', en: 'No blood pressure; it tracks heart rate and SpO2, for reference only.' } },
    ],
    clarify: { fields: ['suitable_for'], q: { zh: '{it}能连我的手机吗', en: 'will {it} pair with my phone?' },
      ask: { zh: '你用的是安卓还是苹果？系统版本多少呀？', en: 'Which phone and OS version do you have?' },
      ans: { zh: '苹果12，iOS 17', en: 'iPhone 12 on iOS 17' },
      a: { zh: '可以，iOS 14以上都支持～', en: 'Yes, it supports iOS 14 and up.' } },
  },
  {
    id: 'i-20', price: 359, title: 'Air fryer 5L 空气炸锅', zh: '空气炸锅', en: 'the air fryer',
    it: { zh: ['这个空气炸锅', '空气炸锅'], en: ['this air fryer', 'the air fryer'] },
    detail: {
      specs: '5 L basket, fits a whole chicken, for 3-5 people; 1500 W; 80-200 °C; viewing window',
      care: 'basket and tray are dishwasher safe',
      warranty: '2-year warranty',
      stock: 'in stock',
    },
    facts: [
      { fields: ['specs'], q: { zh: ['{it}够几个人用'], en: ['how many people is {it} good for?'] },
        a: { zh: '5升大容量，能放一整只鸡，3到5口人够用～', en: '5 litres, fits a whole chicken; good for 3-5 people.' } },
      { fields: ['care'], q: { zh: ['{it}好清洗吗'], en: ['is {it} easy to clean?'] },
        a: { zh: '炸篮和烤盘都能直接进洗碗机，很方便～', en: 'Yes, the basket and tray are dishwasher safe.' } },
    ],
  },
  {
    id: 'i-21', plural: true, price: 259, title: 'Open-ear sport headphones 开放式运动耳机', zh: '运动耳机', en: 'the open-ear headphones',
    it: { zh: ['这个耳机', '开放式运动耳机'], en: ['these headphones', 'the open-ear headphones'] },
    detail: {
      specs: 'open-ear air conduction, Bluetooth 5.3, 10 h battery, IP55, 28 g',
      suitable_for: 'running and cycling; you can still hear traffic',
      warranty: '1-year warranty',
      stock: 'in stock',
    },
    facts: [
      { fields: ['specs'], q: { zh: ['戴{it}跑步会掉吗'], en: ['will {it} fall out when I run?'] },
        a: { zh: '挂耳式设计，只有28克，跑步很稳～', en: 'They hook over the ear and weigh 28 g, so they stay put.' } },
      { fields: ['specs'], q: { zh: ['{it}续航多久'], en: ["what's the battery life of {it}?"] },
        a: { zh: '续航10小时，IP55防汗防尘～', en: "About 10 hours, and they're IP55 sweat resistant." } },
    ],
  },
  {
    id: 'i-22', price: 269, title: "Kids' down jacket 儿童羽绒服", zh: '儿童羽绒服', en: "the kids' down jacket",
    it: { zh: ['这件羽绒服', '儿童羽绒服'], en: ['this jacket', "the kids' down jacket"] },
    detail: {
      material: '90% white duck down, 120 g fill; water-repellent shell',
      sizes: '110-160 by height in cm; pick one size up to leave room to grow',
      colors: ['red', 'navy', 'yellow'],
      care: 'machine wash at 30 °C; tumble dry low with dryer balls',
      stock: 'in stock',
      shipping: 'ships within 48 h',
    },
    facts: [
      { fields: ['material'], q: { zh: ['{it}充绒量多少'], en: ['how much down is in {it}?'] },
        a: { zh: '90%白鸭绒，充绒120克，外层防泼水～', en: '90% white duck down, 120 g fill, with a water-repellent shell.' } },
      { fields: ['care'], q: { zh: ['{it}能机洗吗'], en: ['can {it} go in the washing machine?'] },
        a: { zh: '可以30度机洗，低温烘干时放几个烘干球～', en: 'Yes, 30 °C machine wash, then tumble dry low with dryer balls.' } },
    ],
    clarify: { fields: ['sizes'], q: { zh: '{it}孩子穿多大的？', en: 'which size of {it} for my kid?' },
      ask: { zh: '宝贝现在身高多少呀？', en: 'How tall is your child now?' },
      ans: { zh: '118公分', en: '118 cm' },
      a: { zh: '118建议拍130码，大一码留点长个的空间～', en: 'Go with 130: one size up from 120 leaves room to grow.' } },
  },
  {
    id: 'i-23', plural: true, price: 349, title: 'Cushioned running shoes 缓震跑步鞋', zh: '跑步鞋', en: 'the running shoes',
    it: { zh: ['这双鞋', '缓震跑步鞋'], en: ['these shoes', 'the running shoes'] },
    detail: {
      material: 'engineered mesh upper, nitrogen-infused foam midsole',
      sizes: 'EU 36-45 including half sizes; runs half a size small',
      specs: '245 g per shoe (EU 42), 8 mm drop',
      stock: 'in stock',
      shipping: 'ships within 48 h',
    },
    facts: [
      { fields: ['specs'], q: { zh: ['{it}重吗'], en: ['how light are {it}?'] },
        a: { zh: '42码一只245克，8毫米落差，很轻～', en: '245 g per shoe in EU 42, with an 8 mm drop.' } },
      { fields: ['sizes'], q: { zh: ['{it}码数正吗'], en: ['do {it} run true to size?'] },
        a: { zh: '偏小半码，建议拍大半码～', en: 'They run half a size small; go half a size up.' } },
    ],
    clarify: { fields: ['sizes'], q: { zh: '{it}我拍几码', en: 'which size should I order in {it}?' },
      ask: { zh: '你平时穿多大码的运动鞋？', en: 'What size do you usually wear in sneakers?' },
      ans: { zh: '39', en: 'EU 39' },
      a: { zh: '这款偏小半码，平时穿39建议拍39.5～', en: 'They run half a size small, so go for EU 39.5.' } },
  },
  {
    id: 'i-24', price: 139, title: 'Mulberry silk pillowcase 真丝枕套', zh: '真丝枕套', en: 'the silk pillowcase',
    it: { zh: ['这个枕套', '真丝枕套'], en: ['this pillowcase', 'the silk pillowcase'] },
    detail: {
      material: '22 momme 6A mulberry silk, envelope closure',
      specs: '48 x 74 cm, fits standard pillows',
      colors: ['champagne', 'silver grey', 'dusty pink'],
      care: 'hand wash cold with a mild detergent',
      stock: 'in stock',
    },
    facts: [
      { fields: ['material'], q: { zh: ['{it}是真丝吗'], en: ['is {it} real silk?'] },
        a: { zh: '是22姆米6A级桑蚕丝，信封式封口～', en: 'Yes, 22 momme 6A mulberry silk with an envelope closure.' } },
      { fields: ['specs'], q: { zh: ['{it}尺寸多大'], en: ['what size is {it}?'] },
        a: { zh: '48×74厘米，标准枕头都能套～', en: '48 x 74 cm, so it fits standard pillows.' } },
    ],
  },
  {
    id: 'i-25', price: 89, title: 'TPE yoga mat 6mm 瑜伽垫', zh: '瑜伽垫', en: 'the yoga mat',
    it: { zh: ['这个垫子', '瑜伽垫'], en: ['this mat', 'the yoga mat'] },
    detail: {
      material: 'TPE, latex-free, low odour, double-layer non-slip texture',
      specs: '183 x 61 cm, 6 mm thick, 0.9 kg, carry strap included',
      colors: ['lavender', 'sage', 'charcoal'],
      stock: 'in stock',
    },
    facts: [
      { fields: ['specs'], q: { zh: ['{it}多厚'], en: ['how thick is {it}?'] },
        a: { zh: '6毫米厚，183×61厘米，跪着也不硌～', en: "It's 6 mm thick and 183 x 61 cm, comfy on the knees." } },
      { fields: ['material'], q: { zh: ['{it}有味道吗'], en: ['does {it} smell?'] },
        a: { zh: 'TPE材质，不含乳胶，味道很小～', en: "It's latex-free TPE with very low odour." } },
    ],
  },
];
const ITEM = Object.fromEntries(ITEMS.map((i) => [i.id, i]));

const ROOMS = [
  { id: 'r-1021', name: 'Spring Picks 春日穿搭', items: ['i-01', 'i-02', 'i-03', 'i-04', 'i-22'] },
  { id: 'r-2048', name: 'Beauty Lab 美妆实验室', items: ['i-05', 'i-06', 'i-07', 'i-08', 'i-24'] },
  { id: 'r-3307', name: 'Snack Street 零食街', items: ['i-09', 'i-10', 'i-11', 'i-12'] },
  { id: 'r-4410', name: 'Kitchen Heroes 厨房好物', items: ['i-13', 'i-14', 'i-15', 'i-16', 'i-20'] },
  { id: 'r-5562', name: 'Gadget Hour 数码时间', items: ['i-17', 'i-18', 'i-19', 'i-21'] },
  { id: 'r-6603', name: 'Home & Active 居家运动', items: ['i-23', 'i-25', 'i-24', 'i-21', 'i-11'] },
];
const ROOM = Object.fromEntries(ROOMS.map((r) => [r.id, r]));
const HOSTS = ['小雅', 'Leo', '阿杰', 'Nina', '糖糖'];
const DEFAULT_HOST = 'Mia'; // variables.host.name.default in harness.yaml

// Promotions live in each room. threshold: spend >= threshold, get `discount` off (best one wins);
// price_cut: per-item cut applied before thresholds.
const ENDS = '2026-08-31 23:59';
const PROMOS = {
  'r-1021': [
    { campaign_id: 'cp-1021-a', type: 'threshold', title: '满199减20', en: '¥20 off orders over ¥199', threshold: 199, discount: 20 },
    { campaign_id: 'cp-1021-b', type: 'price_cut', title: '直播间专享直降', en: 'live-only price cut', cuts: { 'i-01': 30, 'i-04': 50 } },
  ],
  'r-2048': [
    { campaign_id: 'cp-2048-a', type: 'threshold', title: '满299减40', en: '¥40 off orders over ¥299', threshold: 299, discount: 40 },
    { campaign_id: 'cp-2048-b', type: 'price_cut', title: '新品直降', en: 'new-arrival price cut', cuts: { 'i-05': 40, 'i-08': 30 } },
  ],
  'r-3307': [
    { campaign_id: 'cp-3307-a', type: 'threshold', title: '满99减10', en: '¥10 off orders over ¥99', threshold: 99, discount: 10 },
    { campaign_id: 'cp-3307-b', type: 'threshold', title: '满199减30', en: '¥30 off orders over ¥199', threshold: 199, discount: 30 },
    { campaign_id: 'cp-3307-c', type: 'price_cut', title: '爆款直降', en: 'best-seller price cut', cuts: { 'i-10': 10 } },
  ],
  'r-4410': [
    { campaign_id: 'cp-4410-a', type: 'threshold', title: '满299减30', en: '¥30 off orders over ¥299', threshold: 299, discount: 30 },
    { campaign_id: 'cp-4410-b', type: 'price_cut', title: '厨房节直降', en: 'kitchen-week price cut', cuts: { 'i-14': 30, 'i-20': 60 } },
  ],
  'r-5562': [
    { campaign_id: 'cp-5562-a', type: 'threshold', title: '满399减50', en: '¥50 off orders over ¥399', threshold: 399, discount: 50 },
    { campaign_id: 'cp-5562-b', type: 'price_cut', title: '数码直降', en: 'gadget price cut', cuts: { 'i-17': 50, 'i-19': 100 } },
  ],
  'r-6603': [
    { campaign_id: 'cp-6603-a', type: 'threshold', title: '满159减15', en: '¥15 off orders over ¥159', threshold: 159, discount: 15 },
    { campaign_id: 'cp-6603-b', type: 'price_cut', title: '运动季直降', en: 'active-season price cut', cuts: { 'i-23': 50 } },
  ],
};

const FAQ = {
  'faq-return-7d': { question: '支持7天无理由退货吗？', answer: '签收后7天内，商品未使用且吊牌完好，可在订单页“申请售后”办理无理由退货。', answer_en: 'Unused items with tags can be returned within 7 days of delivery via After-sales on the order page.' },
  'faq-exchange-size': { question: '尺码不合适可以换吗？', answer: '服饰类签收7天内可免费换码一次，来回运费由店铺承担。', answer_en: 'Clothing can be exchanged for another size once within 7 days; the shop pays shipping both ways.' },
  'faq-refund-time': { question: '退款多久到账？', answer: '退货签收后48小时内审核，原路退回，一般1-3个工作日到账。', answer_en: 'Refunds are reviewed within 48 h of the return arriving and reach the original payment method in 1-3 business days.' },
  'faq-late-parcel': { question: '物流很慢/一直没收到货怎么办？', answer: '现货48小时内发出，可在订单页查看物流；物流超过7天未更新请联系客服催件。', answer_en: 'In-stock orders leave within 48 h; track them on the order page. If tracking has not moved for 7 days, contact customer service.' },
  'faq-damaged': { question: '收到的商品破损怎么办？', answer: '签收48小时内在订单页上传照片申请售后，核实后补发或退款。', answer_en: 'Upload photos on the order page within 48 h of delivery; after checking we resend or refund.' },
  'faq-food-return': { question: '食品可以退吗？', answer: '食品未拆封可7天无理由退货；拆封后仅支持质量问题退换。', answer_en: 'Unopened food can be returned within 7 days; opened food only for quality problems.' },
  'faq-warranty': { question: '数码电器怎么保修？', answer: '按商品页标注的保修期提供保修，凭订单联系客服即可。', answer_en: 'Electronics are covered for the warranty period shown on the item page; contact customer service with the order.' },
  'faq-lucky-draw': { question: '抽奖是几点？', answer: '今晚21:00整点抽奖，关注主播并加入粉丝团即可参与。', answer_en: 'The lucky draw is at 21:00 tonight; follow the host and join the fan club to take part.' },
  'faq-fan-club': { question: '怎么加入粉丝团？', answer: '点主播头像旁的“粉丝团”按钮，点亮一个粉丝灯牌即可加入。', answer_en: "Tap 'Fan club' next to the host's avatar and light up one fan badge to join." },
  'faq-schedule': { question: '每天几点开播？', answer: '每天19:30-23:00直播，周末下午14:00加场。', answer_en: 'Live every day 19:30-23:00, with an extra show at 14:00 on weekends.' },
  'faq-ship-time': { question: '什么时候发货？', answer: '现货商品48小时内发货，预售商品以商品页时间为准。', answer_en: 'In-stock items ship within 48 h; pre-orders ship on the date shown on the item page.' },
  'faq-invoice': { question: '可以开发票吗？', answer: '支持电子发票，确认收货后在订单页申请。', answer_en: 'E-invoices are available: request one on the order page after delivery.' },
};

// ---------------------------------------------------------------------------------------------
// Simulated backend: what each tool returns
// ---------------------------------------------------------------------------------------------

function promosOf(roomId) {
  return PROMOS[roomId] ?? [];
}
function unitPrice(roomId, itemId) {
  let cut = 0;
  for (const p of promosOf(roomId)) if (p.type === 'price_cut' && p.cuts[itemId]) cut += p.cuts[itemId];
  return { list: ITEM[itemId].price, cut, unit: ITEM[itemId].price - cut };
}
function bestThreshold(roomId, subtotal, only) {
  let best = null;
  for (const p of promosOf(roomId)) {
    if (p.type !== 'threshold' || subtotal < p.threshold) continue;
    if (only && !only.includes(p.campaign_id)) continue;
    if (!best || p.discount > best.discount) best = p;
  }
  return best;
}
function priceCutCampaign(roomId, itemId) {
  return promosOf(roomId).find((p) => p.type === 'price_cut' && p.cuts[itemId]);
}

const SIM = {
  get_item_detail(room, { item_id, fields }) {
    const it = ITEM[item_id];
    const out = { item_id, title: it.title };
    for (const f of fields ?? Object.keys(it.detail)) out[f] = it.detail[f] ?? null;
    return out;
  },
  search_items(room, { query, limit }, hits) {
    return { query, results: hits.slice(0, limit ?? 5).map((h) => ({ item_id: h.id, title: ITEM[h.id].title, room_id: h.room, in_this_room: h.room === room.id })) };
  },
  get_room_promotions(room) {
    return {
      room_id: room.id,
      promotions: promosOf(room.id).map((p) =>
        p.type === 'threshold'
          ? { campaign_id: p.campaign_id, type: p.type, title: p.title, threshold: p.threshold, discount: p.discount, ends_at: ENDS }
          : { campaign_id: p.campaign_id, type: p.type, title: p.title, items: Object.entries(p.cuts).map(([item_id, cut]) => ({ item_id, cut })), ends_at: ENDS },
      ),
    };
  },
  get_campaign_conditions(room, { campaign_id, item_id, include_buyer_resources }) {
    const describe = (p) => ({
      campaign_id: p.campaign_id,
      title: p.title,
      type: p.type,
      ...(p.type === 'threshold' ? { threshold: p.threshold, discount: p.discount, eligible_items: 'all items in the room', stackable_with_price_cut: true } : { items: Object.entries(p.cuts).map(([id, cut]) => ({ item_id: id, cut })) }),
      per_buyer_limit: p.type === 'threshold' ? 1 : 2,
      starts_at: '2026-08-20 19:30',
      ends_at: ENDS,
    });
    const list = campaign_id ? promosOf(room.id).filter((p) => p.campaign_id === campaign_id) : promosOf(room.id).filter((p) => p.type === 'threshold' || p.cuts[item_id]);
    const out = campaign_id ? describe(list[0]) : { item_id, campaigns: list.map(describe) };
    if (include_buyer_resources) out.buyer_resources = { claimable_coupons: [{ coupon_id: `${list[0].campaign_id}-fans`, title: '粉丝券 满99减5', condition: 'fan club members' }] };
    return out;
  },
  calculate_optimal_promotion(room, { item_id, quantity }) {
    const q = quantity ?? 1;
    const { list, cut, unit } = unitPrice(room.id, item_id);
    const subtotal = unit * q;
    const th = bestThreshold(room.id, subtotal);
    const applied = [];
    const pc = priceCutCampaign(room.id, item_id);
    if (pc) applied.push({ campaign_id: pc.campaign_id, title: pc.title, amount: cut * q });
    if (th) applied.push({ campaign_id: th.campaign_id, title: th.title, amount: th.discount });
    const final = subtotal - (th ? th.discount : 0);
    return { item_id, quantity: q, list_total: list * q, final_price: final, saved: list * q - final, applied, currency: 'CNY' };
  },
  calculate_promotion(room, { item_ids, coupon_ids }) {
    const lines = item_ids.map((id) => ({ item_id: id, ...unitPrice(room.id, id) }));
    const subtotal = lines.reduce((s, l) => s + l.unit, 0);
    const listTotal = lines.reduce((s, l) => s + l.list, 0);
    const th = bestThreshold(room.id, subtotal, coupon_ids);
    const final = subtotal - (th ? th.discount : 0);
    return {
      items: lines.map((l) => ({ item_id: l.item_id, list_price: l.list, unit_price: l.unit })),
      list_total: listTotal,
      final_price: final,
      saved: listTotal - final,
      applied: th ? [{ campaign_id: th.campaign_id, title: th.title, amount: th.discount }] : [],
      currency: 'CNY',
    };
  },
  switch_presentation_order(room, { item_id, position }, queue) {
    return { ok: true, item_id, position, queue };
  },
  lookup_faq(room, { question }, ids) {
    return { question, matches: ids.map((id) => ({ faq_id: id, ...FAQ[id] })) };
  },
  refuse_request(room, { reason }) {
    return { ok: true, reason, action: 'comment hidden from the host queue' };
  },
};

// ---------------------------------------------------------------------------------------------
// Conversation builder
// ---------------------------------------------------------------------------------------------

const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

// Set while a record whose final reply first fails the stop gate is being built.
let buildingGated = false;

class Conv {
  constructor(room, lang) {
    this.room = room;
    this.lang = lang;
    this.messages = [];
    this.ids = new Set();
    this.gate = buildingGated;
  }
  callId() {
    for (;;) {
      let s = 'call_';
      for (let i = 0; i < 24; i++) s += ID_ALPHABET[Math.floor(rng() * ID_ALPHABET.length)];
      if (!this.ids.has(s)) {
        this.ids.add(s);
        return s;
      }
    }
  }
  user(text) {
    this.messages.push({ role: 'user', content: text });
    return this;
  }
  /** One assistant message with one or more tool calls, then their results in call order. */
  calls(list) {
    const calls = list.map((c) => ({ id: this.callId(), type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } }));
    this.messages.push({ role: 'assistant', content: '', tool_calls: calls });
    const results = [];
    list.forEach((c, k) => {
      let result;
      if (c.name === 'load_skill') result = SKILL_BODY[c.args.name];
      else result = SIM[c.name](this.room, c.args, c.extra);
      if (result === undefined) throw new Error(`no result for ${c.name}`);
      results.push(result);
      this.messages.push({ role: 'tool', tool_call_id: calls[k].id, content: typeof result === 'string' ? result : JSON.stringify(result) });
    });
    return results;
  }
  call(name, args, extra) {
    return this.calls([{ name, args, extra }])[0];
  }
  skill(...names) {
    this.calls(names.map((name) => ({ name: 'load_skill', args: { name } })));
  }
  /** The final reply of a turn; when `long` is given and this is the gated turn, it fails first. */
  reply(text, { last = false } = {}) {
    if (last && this.gate) {
      const long = padLong(text, this.lang);
      this.messages.push({ role: 'assistant', content: long });
      this.messages.push({ role: 'user', name: 'hook:stop_gate', content: gateFeedback(long) });
    }
    this.messages.push({ role: 'assistant', content: text });
  }
}

// A first draft that rambles past the limit: the short answer plus chatty host filler that adds no
// new claims (no prices, no stock, no promises), so it fails the stop gate on length only.
const FILLER = {
  zh: [
    '有其他问题也可以继续在评论区问我，我会一条一条认真回复大家，喜欢的宝宝可以先加购物车慢慢挑～',
    '今天直播间好多宝宝都在问这个，我再跟大家详细说一遍，大家不用着急，有疑问随时打在公屏上哦～',
    '刚进来的宝宝也可以看一下我们的直播间商品列表，每一件我都会仔细给大家讲清楚，不懂的一定要问～',
  ],
  en: [
    " Let me know if you have any other questions, I'm happy to go through every detail with you while we're live tonight!",
    " Lots of you have been asking about this today, so feel free to drop more questions in the chat and I'll answer them one by one.",
    ' If you like it, add it to your cart and take your time deciding; I will keep answering questions as we go through the line-up.',
  ],
};
function padLong(text, lang) {
  let out = text;
  for (const f of shuffle(FILLER[lang])) {
    out += f;
    if (chars(out) > MAX_CHARS + 10) break;
  }
  return out;
}

function itRef(item, lang, onCamera) {
  return item.it[lang][onCamera ? 0 : 1];
}
function fill(tpl, item, lang, onCamera, { mayCap = true } = {}) {
  const s = tpl.replace('{it}', itRef(item, lang, onCamera));
  // Viewers type both "how ..." and "How ...".
  return lang === 'en' && mayCap && chance(0.5) ? cap(s) : s;
}

function makeContext(room, currentId, { host }) {
  const ctx = { room: { id: room.id, name: room.name } };
  if (host) ctx.host = { name: host };
  ctx.current_item = { id: currentId, title: ITEM[currentId].title };
  ctx.items = room.items.map((id) => ({ id, title: ITEM[id].title, list_price: ITEM[id].price }));
  return ctx;
}
const roomsWith = (itemId) => ROOMS.filter((r) => r.items.includes(itemId));
const otherItem = (room, notId) => pick(room.items.filter((id) => id !== notId));

// ---------------------------------------------------------------------------------------------
// Reply phrasing for prices and deals (always from tool results)
// ---------------------------------------------------------------------------------------------

function priceReply(res, item, lang, roomId) {
  const th = res.applied.find((a) => promosOf(roomId).find((p) => p.campaign_id === a.campaign_id)?.type === 'threshold');
  const pc = res.applied.find((a) => !th || a.campaign_id !== th.campaign_id);
  if (lang === 'zh') {
    const n = res.quantity > 1 ? `拍${res.quantity}件` : '';
    const how = [pc ? `直降${pc.amount}` : '', th ? `再用${th.title}` : ''].filter(Boolean).join('，');
    return `${item.zh}${n}到手¥${res.final_price}${how ? `，${how}` : ''}～`;
  }
  const th2 = th && promosOf(roomId).find((p) => p.campaign_id === th.campaign_id);
  const how = pc && th2 ? ' with the price cut and coupon' : pc ? ' with the live price cut' : th2 ? ` with ${th2.en}` : '';
  const head = res.quantity > 1 ? `${res.quantity} for ¥${res.final_price} in total` : `${cap(item.en)}: ¥${res.final_price}`;
  const s = `${head}${how}.`;
  return chars(s) <= MAX_CHARS ? s : `${head} after discounts.`;
}

// ---------------------------------------------------------------------------------------------
// Scenarios, one function per intent. Each returns { room, current, conv } and fills conv.
// ---------------------------------------------------------------------------------------------

const COMPARE = [
  { items: ['i-01', 'i-02'], fields: ['material'],
    q: { zh: '亚麻裙和雪纺裙哪个夏天穿更舒服？', en: 'linen dress or chiffon dress, which is cooler for summer?' },
    a: { zh: '怕热选亚麻裙，透气吸汗；雪纺裙有衬里更轻飘，看你喜欢哪种～', en: 'Linen breathes best in heat; the chiffon is lined and floatier.' } },
  { items: ['i-05', 'i-08'], fields: ['ingredients', 'suitable_for'],
    q: { zh: '玻尿酸精华和维C精华选哪个？我皮肤有点干', en: "hyaluronic or vitamin C serum? my skin's on the dry side" },
    a: { zh: '偏干选玻尿酸精华，主打补水，还有神经酰胺～', en: 'For dry skin, the hyaluronic serum: it hydrates and has ceramide.' } },
  { items: ['i-13', 'i-14'], fields: ['material', 'specs'],
    q: { zh: '铸铁锅和不粘锅哪个好用？', en: 'cast iron or the non-stick wok, which is easier to use?' },
    a: { zh: '想轻便好打理选不粘炒锅，1.6公斤；爱煎牛排选铸铁锅～', en: 'The wok is lighter at 1.6 kg and easy care; cast iron is best for searing.' } },
  { items: ['i-17', 'i-21'], fields: ['specs', 'suitable_for'],
    q: { zh: '跑步用降噪耳机还是运动耳机？', en: 'for running, the earbuds or the open-ear ones?' },
    a: { zh: '跑步选运动耳机，开放式能听到路况，挂耳不掉～', en: 'For running, the open-ear pair: you still hear traffic and they stay put.' } },
];

const SEARCHES = [
  { room: 'r-1021', query: { zh: '防晒', en: 'sunscreen' }, hits: [{ id: 'i-06', room: 'r-2048' }],
    q: { zh: '有没有防晒霜呀？', en: 'do you have any sunscreen?' },
    a: { zh: '这场没有防晒哦，美妆实验室直播间有物理防晒霜～', en: 'Not in this room, but the Beauty Lab room has a mineral sunscreen.' } },
  { room: 'r-3307', query: { zh: '茶', en: 'tea' }, hits: [{ id: 'i-12', room: 'r-3307' }],
    q: { zh: '有没有适合送长辈的茶？', en: 'any tea that works as a gift for my parents?' },
    a: { zh: '有的，乌龙茶礼盒，安溪铁观音，带礼盒和手提袋～', en: 'Yes, the oolong gift box: Tieguanyin in a box with a carrier bag.' } },
  { room: 'r-6603', query: { zh: '耳机', en: 'headphones' }, hits: [{ id: 'i-21', room: 'r-6603' }, { id: 'i-17', room: 'r-5562' }],
    q: { zh: '有跑步能戴的耳机吗', en: 'any headphones I can run with?' },
    a: { zh: '有，开放式运动耳机就在这场，挂耳式跑步不掉～', en: 'Yes, the open-ear headphones in this room hook on and stay put.' } },
  { room: 'r-4410', query: { zh: '保温杯', en: 'thermos' }, hits: [],
    q: { zh: '有保温杯吗？', en: 'do you sell a thermos?' },
    a: { zh: '暂时没有保温杯哦，可以看看电热水壶～', en: "No thermos right now, sorry; the electric kettle is on today." } },
  { room: 'r-2048', query: { zh: '洗面奶 敏感肌', en: 'gentle cleanser' }, hits: [{ id: 'i-07', room: 'r-2048' }],
    q: { zh: '有没有敏感肌能用的洗面奶', en: 'is there a gentle cleanser for sensitive skin?' },
    a: { zh: '有，氨基酸洗面奶，pH5.5，不含皂基，比较温和～', en: 'Yes, the amino acid cleanser: pH 5.5, SLS-free and gentle.' } },
];

const MULTI = [
  { room: 'r-1021', item: 'i-01', lang: 'zh',
    text: '[弹幕] 小鹿: 亚麻裙能机洗吗\n[弹幕] momo: 亚麻裙有几个颜色\n[弹幕] Kiki: 什么时候发货',
    fields: ['care', 'colors'], faq: { question: '什么时候发货', ids: ['faq-ship-time'] },
    a: '亚麻裙能机洗，装袋冷水轻柔洗；有燕麦、鼠尾草绿、黑三色；现货48小时内发～' },
  { room: 'r-5562', item: 'i-17', lang: 'en',
    text: '[viewer] jay_k: battery life on the earbuds?\n[viewer] mina: are they waterproof\n[viewer] tom: can I get an invoice?',
    fields: ['specs'], faq: { question: 'can I get an invoice', ids: ['faq-invoice'] },
    a: 'Earbuds: 8 h, 32 h with case, IPX4. E-invoices on the order page.' },
  { room: 'r-2048', item: 'i-06', lang: 'zh',
    text: '[弹幕] 阿离: 防晒防水吗\n[弹幕] 小葵: 防晒是物理的吗\n[弹幕] 猫猫: 能退吗',
    fields: ['specs', 'ingredients'], faq: { question: '能退吗', ids: ['faq-return-7d'] },
    a: '纯物理防晒，防水40分钟；未使用签收7天内可以退～' },
  { room: 'r-4410', item: 'i-20', lang: 'en',
    text: '[viewer] lulu: air fryer size?\n[viewer] ben: dishwasher safe?\n[viewer] amy: when does it ship?',
    fields: ['specs', 'care'], faq: { question: 'when does it ship', ids: ['faq-ship-time'] },
    a: 'It is 5 L for 3-5 people, dishwasher-safe basket, ships within 48 h.' },
  { room: 'r-3307', item: 'i-09', lang: 'zh',
    text: '[弹幕] 豆豆: 坚果有哪些\n[弹幕] 七七: 保质期多久\n[弹幕] 阿宁: 拆了能退吗',
    fields: ['ingredients', 'specs'], faq: { question: '拆了能退吗', ids: ['faq-food-return'] },
    a: '核桃腰果巴旦木榛子加莓果干，保质期180天；拆封后仅质量问题可退～' },
  { room: 'r-6603', item: 'i-25', lang: 'en',
    text: '[viewer] sky: how thick is the yoga mat\n[viewer] rae: does it smell?\n[viewer] omar: free returns?',
    fields: ['specs', 'material'], faq: { question: 'free returns?', ids: ['faq-return-7d'] },
    a: '6 mm thick, latex-free TPE with low odour; unused returns within 7 days.' },
];

function productQa(lang, opts) {
  const variant = opts.variant;
  if (variant === 'compare') {
    const c = nextOf(`compare/${lang}`, COMPARE);
    const room = pick(ROOMS.filter((r) => c.items.every((i) => r.items.includes(i))));
    const current = pick(room.items);
    const conv = new Conv(room, lang);
    conv.user(c.q[lang]);
    conv.skill('item_qa', 'tool_strategy_compare');
    conv.calls(c.items.map((id) => ({ name: 'get_item_detail', args: { item_id: id, fields: c.fields } })));
    if (opts.multiTurn) {
      conv.reply(c.a[lang]);
      conv.user(lang === 'zh' ? '两个一起买多少钱？' : 'how much for both together?');
      const res = conv.call('calculate_promotion', { item_ids: c.items });
      conv.reply(lang === 'zh' ? `两件一起到手¥${res.final_price}，已自动用最优优惠～` : `Both together: ¥${res.final_price} with the best deal applied.`, { last: true });
    } else conv.reply(c.a[lang], { last: true });
    return { room, current, conv };
  }
  if (variant === 'search') {
    const s = opts.search ?? pick(SEARCHES);
    const room = ROOM[s.room];
    const conv = new Conv(room, lang);
    conv.user(s.q[lang]);
    conv.skill('item_qa');
    conv.call('search_items', { query: s.query[lang], limit: 3 }, s.hits);
    conv.reply(s.a[lang], { last: true });
    return { room, current: pick(room.items), conv };
  }
  if (variant === 'multi') {
    const m = opts.multi;
    const room = ROOM[m.room];
    const conv = new Conv(room, lang);
    conv.user(m.text);
    conv.skill('tool_strategy_multi');
    conv.calls([
      { name: 'get_item_detail', args: { item_id: m.item, fields: m.fields } },
      { name: 'lookup_faq', args: { question: m.faq.question }, extra: m.faq.ids },
    ]);
    conv.reply(m.a, { last: true });
    return { room, current: m.item, conv };
  }
  // fact / price / fact+price, optionally with a follow-up turn
  const item = pick(ITEMS);
  const room = pick(roomsWith(item.id));
  const onCamera = chance(0.7);
  const current = onCamera ? item.id : otherItem(room, item.id);
  const conv = new Conv(room, lang);
  const fact = pick(item.facts);
  if (variant === 'price') {
    const qty = chance(0.3) ? 2 : undefined;
    const ref = itRef(item, lang, onCamera);
    const q = lang === 'zh'
      ? qty ? `${ref}拍两件多少钱？` : pick([`${ref}现在多少钱？`, `${ref}到手价多少`, `${ref}今天有优惠吗，多少钱`])
      : qty ? (onCamera ? pick(['how much if I buy two?', 'price for 2 pls']) : `how much for two of ${item.en.replace(/^the /, 'the ')}?`) : pick([`how much ${item.plural ? 'are' : 'is'} ${ref} today?`, `what's the final price on ${ref}?`, `price for ${ref}?`]);
    conv.user(q);
    conv.skill('item_qa');
    const res = conv.call('calculate_optimal_promotion', qty ? { item_id: item.id, quantity: qty } : { item_id: item.id });
    if (opts.multiTurn) {
      conv.reply(priceReply(res, item, lang, room.id));
      const f2 = pick(item.facts);
      conv.user(fill(pick(f2.q[lang]), item, lang, onCamera));
      conv.call('get_item_detail', { item_id: item.id, fields: f2.fields });
      conv.reply(f2.a[lang], { last: true });
    } else conv.reply(priceReply(res, item, lang, room.id), { last: true });
    return { room, current, conv };
  }
  if (variant === 'fact_price') {
    // One comment asks a fact and the price: both lookups go out in one round. Pick a fact whose
    // answer still fits the length limit next to the price.
    const compose = (f, price) => {
      const p = lang === 'zh' ? `到手¥${price}～` : `¥${price} now.`;
      return lang === 'zh' ? `${f.a.zh.replace(/～$/, '')}，${p}` : `${f.a.en} ${p}`;
    };
    const preview = SIM.calculate_optimal_promotion(room, { item_id: item.id }).final_price;
    const fitting = item.facts.filter((f) => chars(compose(f, preview)) <= MAX_CHARS);
    const f = fitting.length > 0 ? pick(fitting) : fact;
    const ref = itRef(item, lang, onCamera);
    const base = fill(pick(f.q[lang]), item, lang, onCamera).replace(/[？?]$/, '');
    conv.user(lang === 'zh' ? `${base}？另外${onCamera ? '现在' : ref}多少钱` : `${base}? and what's the price now?`);
    conv.skill('item_qa');
    const [, res] = conv.calls([
      { name: 'get_item_detail', args: { item_id: item.id, fields: f.fields } },
      { name: 'calculate_optimal_promotion', args: { item_id: item.id } },
    ]);
    let answer = compose(f, res.final_price);
    if (chars(answer) > MAX_CHARS) answer = lang === 'zh' ? `到手¥${res.final_price}，${f.a.zh}` : `¥${res.final_price} now; ask me for details.`;
    conv.reply(answer, { last: !opts.multiTurn });
    if (opts.multiTurn) {
      conv.user(lang === 'zh' ? '买两件呢？' : 'and if I buy two?');
      const r2 = conv.call('calculate_optimal_promotion', { item_id: item.id, quantity: 2 });
      conv.reply(priceReply(r2, item, lang, room.id), { last: true });
    }
    return { room, current, conv };
  }
  // plain fact
  conv.user(fill(pick(fact.q[lang]), item, lang, onCamera));
  conv.skill('item_qa');
  conv.call('get_item_detail', { item_id: item.id, fields: fact.fields });
  if (opts.multiTurn) {
    conv.reply(fact.a[lang]);
    const others = item.facts.filter((f) => f !== fact);
    if (others.length > 0 && chance(0.55)) {
      const f2 = pick(others);
      conv.user(pick(lang === 'zh' ? ['那', '', '还有，'] : ['', 'ok and ', 'nice, ']) + fill(pick(f2.q[lang]), item, lang, true, { mayCap: false }));
      conv.call('get_item_detail', { item_id: item.id, fields: f2.fields });
      conv.reply(f2.a[lang], { last: true });
    } else {
      conv.user(lang === 'zh' ? pick(['好的，那多少钱？', '多少钱呀', '现在买多少钱']) : pick(['ok, how much is it?', 'and the price?', 'how much today?']));
      const res = conv.call('calculate_optimal_promotion', { item_id: item.id });
      conv.reply(priceReply(res, item, lang, room.id), { last: true });
    }
  } else conv.reply(fact.a[lang], { last: true });
  return { room, current, conv };
}

const CHAT = {
  greet: {
    zh: [
      ['主播好，第一次来！', (c) => `欢迎第一次来！现在在讲${c.cur}，有问题随时问我～`],
      ['来了来了～', (c) => `欢迎欢迎！正在讲${c.cur}，先坐好听我介绍～`],
      ['晚上好呀大家', (c) => `晚上好！今晚第一个是${c.cur}，慢慢看～`],
      ['从成都来的，打个卡', (c) => `欢迎成都的朋友！现在在讲${c.cur}哦～`],
      ['我又来啦', (c) => `欢迎回来！今天在讲${c.cur}，喜欢就多看看～`],
    ],
    en: [
      ['hi from Toronto!', (c) => `Welcome, Toronto! We're on ${c.curEn} right now.`],
      ['first time here, hello', (c) => `Welcome in! Right now I'm showing ${c.curEn}.`],
      ['good evening everyone', (c) => `Good evening! ${cap(c.curEn)} is up right now.`],
      ['hello from Singapore 👋', (c) => `Hi Singapore! We're looking at ${c.curEn} now.`],
      ['back again lol', (c) => `Welcome back! Today we start with ${c.curEn}.`],
    ],
  },
  chillchat: {
    zh: [
      ['主播今天好有精神', () => '谢谢夸奖！精神满满给大家讲好物～'],
      ['你是真人吗？', (c) => `我是这个直播间的AI主播${c.host}，有问题尽管问我～`],
      ['背景音乐好好听', () => '喜欢就好！边听歌边逛，有想看的告诉我～'],
      ['今天好热啊', (c) => `注意防暑哦！先看看${c.cur}，慢慢挑～`],
      ['主播吃饭了吗', () => '谢谢关心！我是AI主播不用吃饭，陪大家逛到最后～'],
      ['哈哈哈主播好可爱', () => '被夸得不好意思啦～有想了解的随时问！'],
    ],
    en: [
      ['you look great today', () => 'Aw, thank you! Glad to have you here.'],
      ['are you a real person?', (c) => `I'm ${c.host}, the AI host of this room. Ask me anything!`],
      ['love the music', () => 'Glad you like it! Shout if you want to see anything.'],
      ["it's raining so hard here lol", () => 'Stay dry and cozy! Perfect time to browse with us.'],
      ['do you ever sleep haha', () => "I'm an AI host, so I'll be here till the end of the show!"],
      ['this stream is so chill', () => 'Thanks! Relax and ask me anything about the picks.'],
    ],
  },
  thanks: {
    zh: [
      ['买了买了，谢谢主播', () => '谢谢支持！收到后用得开心最重要～'],
      ['上次买的很好用！', () => '太开心了！谢谢你回来分享～'],
      ['谢谢你的推荐', () => '不客气！有问题随时来问我～'],
      ['已下单，期待收货', () => '谢谢下单！耐心等快递，用得开心～'],
    ],
    en: [
      ['just ordered, thanks!', () => 'Thank you so much! Enjoy it 💛'],
      ['the one I bought last week is great', () => 'So happy to hear that, thanks for coming back!'],
      ['thanks for the tips', () => "You're welcome! Ask me anytime."],
      ['ordered two, can’t wait', () => 'Thank you! Hope you love them both.'],
    ],
  },
};

function chat(lang, opts) {
  const room = pick(ROOMS);
  const current = pick(room.items);
  const conv = new Conv(room, lang);
  const c = { cur: ITEM[current].zh, curEn: ITEM[current].en, host: opts.host ?? DEFAULT_HOST };
  const first = opts.kind;
  const [text, ans] = nextOf(`chat/${first}/${lang}`, CHAT[first][lang]);
  conv.user(text);
  conv.skill(first);
  if (opts.multiTurn) {
    conv.reply(ans(c));
    const second = first === 'greet' ? 'chillchat' : first === 'chillchat' ? 'thanks' : 'chillchat';
    const [t2, a2] = nextOf(`chat/${second}/${lang}`, CHAT[second][lang]);
    conv.user(t2);
    conv.skill(second);
    conv.reply(a2(c), { last: true });
  } else conv.reply(ans(c), { last: true });
  return { room, current, conv };
}

const GROUPS = [
  { items: ['i-01', 'i-02'], zh: '裙子', en: 'dress' },
  { items: ['i-05', 'i-08'], zh: '精华', en: 'serum' },
  { items: ['i-13', 'i-14'], zh: '锅', en: 'pan' },
  { items: ['i-17', 'i-21'], zh: '耳机', en: 'headphones' },
];

function clarification(lang, opts) {
  if (opts.variant === 'which') {
    const g = nextOf(`which/${lang}`, GROUPS);
    const room = pick(ROOMS.filter((r) => g.items.every((i) => r.items.includes(i))));
    const current = pick(room.items.filter((i) => !g.items.includes(i)));
    const [a, b] = g.items.map((id) => ITEM[id]);
    const conv = new Conv(room, lang);
    conv.user(lang === 'zh' ? pick([`那个${g.zh}多少钱？`, `${g.zh}现在什么价`, `${g.zh}有优惠吗`]) : pick([`how much is the ${g.en}?`, `what's the deal on the ${g.en}?`, `price of the ${g.en} pls`]));
    conv.skill('clarification');
    const ask = lang === 'zh' ? `你问的是${a.zh}还是${b.zh}呀？` : `Do you mean ${a.en} or ${b.en}?`;
    if (!opts.multiTurn) {
      conv.reply(ask, { last: true });
      return { room, current, conv };
    }
    conv.reply(ask);
    const chosen = chance(0.5) ? a : b;
    conv.user(lang === 'zh' ? pick([`${chosen.zh}`, `${chosen.zh}那个`, `第${chosen === a ? '一' : '二'}个`]) : pick([chosen.en.replace(/^the /, 'the '), `${chosen.en.replace(/^the /, '')} please`]));
    conv.skill('tool_strategy_benefit');
    const [, res] = conv.calls([
      { name: 'get_room_promotions', args: { room_id: room.id } },
      { name: 'calculate_optimal_promotion', args: { item_id: chosen.id } },
    ]);
    conv.reply(priceReply(res, chosen, lang, room.id), { last: true });
    return { room, current, conv };
  }
  // missing information: size, skin type, stove, phone
  const item = nextOf(`clarify/${lang}`, ITEMS.filter((i) => i.clarify));
  const room = pick(roomsWith(item.id));
  const cl = item.clarify;
  const conv = new Conv(room, lang);
  conv.user(fill(cl.q[lang], item, lang, true));
  conv.skill('clarification');
  if (!opts.multiTurn) {
    conv.reply(cl.ask[lang], { last: true });
    return { room, current: item.id, conv };
  }
  conv.reply(cl.ask[lang]);
  conv.user(cl.ans[lang]);
  conv.skill('item_qa');
  conv.call('get_item_detail', { item_id: item.id, fields: cl.fields });
  conv.reply(cl.a[lang], { last: true });
  return { room, current: item.id, conv };
}

const AFTERSALE = [
  { rooms: ['r-1021'], faq: ['faq-exchange-size'], q: { zh: '裙子买大了能换小一码吗？', en: 'the dress I got is too big, can I swap for a smaller size?' },
    a: { zh: '可以免费换码一次，7天内在订单页申请～', en: 'Yes, one free size exchange within 7 days via your order page.' },
    // answered from the FAQ entry already fetched: no new tool call
    follow: { q: { zh: '运费要我自己出吗？', en: 'do I pay the shipping for that?' }, a: { zh: '不用哦，换码来回运费都由店铺承担～', en: 'No, the shop covers shipping both ways for the exchange.' } } },
  { rooms: null, faq: ['faq-return-7d'], q: { zh: '不想要了可以退吗', en: 'can I return it if I change my mind?' },
    a: { zh: '签收7天内未使用、吊牌完好都能退，在订单页申请售后～', en: 'Yes, unused with tags within 7 days; apply under After-sales.' },
    follow: { q: { zh: '好的，那退款多久到？', en: 'ok, and how long until I get my money back?' }, faq: ['faq-refund-time'], fq: { zh: '退款多久到账', en: 'how long does a refund take' },
      a: { zh: '收到退货48小时内审核，原路退回，1-3个工作日到账～', en: 'Review within 48 h of the return arriving, then 1-3 business days.' } } },
  { rooms: null, faq: ['faq-refund-time'], q: { zh: '退款多久能到账啊', en: 'how long does a refund take?' },
    a: { zh: '退货签收后48小时内审核，原路退回，1-3个工作日到账～', en: 'We review within 48 h of getting it back; 1-3 business days to your account.' } },
  { rooms: null, faq: ['faq-late-parcel'], q: { zh: '我的快递五天了还没到', en: "my parcel still hasn't arrived after 5 days" },
    a: { zh: '抱歉久等了！订单页能看物流，7天没更新请找客服催件～', en: 'Sorry for the wait! Check tracking on the order page; stuck 7 days? Contact us.' } },
  { rooms: ['r-4410'], faq: ['faq-damaged'], q: { zh: '收到的水壶有个凹痕', en: 'my kettle arrived with a dent' },
    a: { zh: '很抱歉！48小时内在订单页上传照片申请售后，核实后补发或退款～', en: "So sorry! Upload photos on the order page within 48 h; we'll resend or refund." } },
  { rooms: ['r-3307'], faq: ['faq-food-return'], q: { zh: '坚果拆开了还能退吗', en: 'can I return the nuts after opening them?' },
    a: { zh: '拆封后只有质量问题能退，未拆封的7天内可以退～', en: 'Opened food only for quality issues; unopened within 7 days.' },
    follow: { q: { zh: '那没拆的退了，钱多久回来？', en: 'and for the unopened bag, when do I get the refund?' }, faq: ['faq-refund-time'], fq: { zh: '退款多久到账', en: 'refund time' },
      a: { zh: '退货签收后48小时内审核，原路退回，1-3个工作日到账～', en: 'We review within 48 h of getting it back; 1-3 business days after that.' } } },
  { rooms: ['r-5562'], faq: ['faq-warranty'], item: 'i-17', q: { zh: '耳机左耳没声音了怎么办', en: 'the left earbud stopped working, what do I do?' },
    a: { zh: '抱歉！耳机1年保修，15天内有质量问题直接换新，联系客服就行～', en: 'Sorry! They have a 1-year warranty and 15-day replacement; contact support.' } },
  { rooms: ['r-4410'], faq: ['faq-warranty'], item: 'i-14', q: { zh: '炒锅用了三个月涂层掉了', en: 'the wok coating is peeling after 3 months' },
    a: { zh: '抱歉！涂层有2年质保，在订单页联系客服处理就好～', en: 'Sorry about that! The coating has a 2-year warranty; contact support.' } },
];

function aftersale(lang, opts) {
  const s = opts.case ?? (opts.multiTurn ? nextOf('aftersale-follow', AFTERSALE.filter((c) => c.follow)) : pick(AFTERSALE));
  const room = s.rooms ? ROOM[pick(s.rooms)] : pick(ROOMS);
  const conv = new Conv(room, lang);
  conv.user(s.q[lang]);
  conv.skill('aftersale');
  if (s.item) {
    conv.calls([
      { name: 'lookup_faq', args: { question: s.q[lang] }, extra: s.faq },
      { name: 'get_item_detail', args: { item_id: s.item, fields: ['warranty'] } },
    ]);
  } else conv.call('lookup_faq', { question: s.q[lang] }, s.faq);
  if (opts.multiTurn) {
    conv.reply(s.a[lang]);
    conv.user(s.follow.q[lang]);
    if (s.follow.faq) conv.call('lookup_faq', { question: s.follow.fq[lang] }, s.follow.faq);
    conv.reply(s.follow.a[lang], { last: true });
  } else conv.reply(s.a[lang], { last: true });
  return { room, current: pick(room.items), conv };
}

function discount(lang, opts) {
  const room = opts.room ?? pick(ROOMS);
  const conv = new Conv(room, lang);
  const promos = promosOf(room.id);
  const th = promos.filter((p) => p.type === 'threshold').sort((a, b) => a.threshold - b.threshold);
  const pc = promos.find((p) => p.type === 'price_cut');
  const cutNames = Object.keys(pc.cuts).map((id) => ITEM[id]);
  if (opts.variant === 'room') {
    conv.user(lang === 'zh' ? pick(['今天有什么优惠活动？', '有券吗', '直播间有啥福利']) : pick(['any coupons today?', 'what deals are on right now?', 'is there a discount in this room?']));
    conv.skill('general_discount');
    conv.call('get_room_promotions', { room_id: room.id });
    const t = th[0];
    const ans = lang === 'zh'
      ? `今天${th.map((x) => x.title).join('、')}，${cutNames.map((i) => i.zh).join('和')}还有直降～`
      : `Today: ${t.en}, plus a price cut on ${cutNames.length === 1 ? cutNames[0].en : `${cutNames.length} items`}.`;
    conv.reply(ans, { last: true });
    return { room, current: pick(room.items), conv };
  }
  if (opts.variant === 'conditions') {
    const t = th[0];
    conv.user(lang === 'zh' ? `${t.title}的券什么时候结束？能用几次` : `until when is the ¥${t.discount}-off coupon valid? can I use it twice?`);
    conv.skill('general_discount');
    conv.call('get_room_promotions', { room_id: room.id });
    conv.call('get_campaign_conditions', { campaign_id: t.campaign_id, include_buyer_resources: true });
    conv.reply(lang === 'zh' ? `${t.title}每人限用1次，8月31日23:59结束，粉丝还能领券～` : 'Once per buyer, until Aug 31 at 23:59; fan club members get an extra coupon.', { last: true });
    return { room, current: pick(room.items), conv };
  }
  if (opts.variant === 'basket') {
    const [x, y] = shuffle(room.items).slice(0, 2).map((id) => ITEM[id]);
    conv.user(lang === 'zh' ? `${x.zh}和${y.zh}一起买能便宜多少？` : `if I buy ${x.en} and ${y.en} together, what do I pay?`);
    conv.skill('general_discount');
    const promo = conv.call('get_room_promotions', { room_id: room.id });
    const res = conv.call('calculate_promotion', { item_ids: [x.id, y.id], coupon_ids: promo.promotions.filter((p) => p.type === 'threshold').map((p) => p.campaign_id) });
    conv.reply(lang === 'zh' ? `两件一起到手¥${res.final_price}，一共省¥${res.saved}～` : `Together you pay ¥${res.final_price}, saving ¥${res.saved}.`, { last: true });
    return { room, current: x.id, conv };
  }
  // item benefit: parallel promotions + optimal price
  const item = ITEM[pick(room.items)];
  conv.user(lang === 'zh' ? `${item.zh}最便宜能多少拿？` : `what's the lowest I can pay for ${item.en}?`);
  conv.skill('tool_strategy_benefit');
  const [, res] = conv.calls([
    { name: 'get_room_promotions', args: { room_id: room.id } },
    { name: 'calculate_optimal_promotion', args: { item_id: item.id } },
  ]);
  conv.reply(priceReply(res, item, lang, room.id), { last: true });
  return { room, current: item.id, conv };
}

function order(lang, opts) {
  const room = opts.room ?? pick(ROOMS);
  const current = pick(room.items);
  const target = ITEM[otherItem(room, current)];
  const queue = [target.id, ...room.items.filter((id) => id !== current && id !== target.id)];
  const position = opts.position ?? 1;
  if (position === 2) [queue[0], queue[1]] = [queue[1], queue[0]];
  const conv = new Conv(room, lang);
  conv.user(position === 2
    ? lang === 'zh' ? `下一个讲完能讲${target.zh}吗？` : `can you do ${target.en} after the next one?`
    : lang === 'zh' ? pick([`能先讲一下${target.zh}吗？`, `想看${target.zh}！`, `主播讲讲${target.zh}呗`]) : pick([`can you show ${target.en} next?`, `please do ${target.en} next!`, `waiting for ${target.en}, can we see it?`]));
  conv.skill('tool_strategy_switch');
  if (opts.checkStock) conv.call('get_item_detail', { item_id: target.id, fields: ['stock'] });
  conv.call('switch_presentation_order', { item_id: target.id, position }, queue);
  conv.skill('change_order');
  conv.reply(position === 2
    ? lang === 'zh' ? `好的！${target.zh}排在下下个，马上就到～` : `Sure! ${cap(target.en)} comes right after the next item.`
    : lang === 'zh' ? `好的！下一个就讲${target.zh}，稍等哦～` : `Sure! ${cap(target.en)} is up next, stay tuned.`, { last: true });
  return { room, current, conv };
}

const FAQ_CASES = [
  { faq: ['faq-lucky-draw'], q: { zh: '今天几点抽奖？', en: 'what time is the lucky draw?' }, a: { zh: '今晚21:00整点抽奖，关注我并加入粉丝团就能参与～', en: 'The lucky draw is at 21:00 tonight: follow and join the fan club!' } },
  { faq: ['faq-fan-club', 'faq-lucky-draw'], q: { zh: '粉丝团怎么加？', en: 'how do I join the fan club?' }, a: { zh: '点我头像旁边的“粉丝团”，点亮一个灯牌就加入啦～', en: "Tap 'Fan club' next to my avatar and light up a fan badge!" } },
  { faq: ['faq-schedule'], q: { zh: '明天几点开播呀', en: 'when are you live tomorrow?' }, a: { zh: '每天19:30到23:00，周末下午14:00还有加场～', en: "We're live 19:30-23:00 daily, plus 14:00 on weekends." } },
  { faq: ['faq-invoice'], q: { zh: '可以开发票吗', en: 'can I get an invoice?' }, a: { zh: '可以开电子发票，确认收货后在订单页申请～', en: 'Yes, e-invoices: request one on the order page after delivery.' } },
  { faq: ['faq-ship-time'], q: { zh: '今天拍什么时候发货', en: 'if I order now, when does it ship?' }, a: { zh: '现货48小时内发出，预售按商品页时间～', en: 'In-stock items ship within 48 h; pre-orders by the item page date.' } },
];

function faq(lang, opts) {
  const room = pick(ROOMS);
  const f = opts.case ?? pick(FAQ_CASES);
  const conv = new Conv(room, lang);
  conv.user(f.q[lang]);
  conv.skill('faq_reply');
  conv.call('lookup_faq', { question: f.q[lang] }, f.faq);
  conv.reply(f.a[lang], { last: true });
  return { room, current: pick(room.items), conv };
}

const REFUSALS = {
  zh: { q: '主播你支持哪个政党？聊聊选举呗', reason: 'political', a: '我们还是聊聊直播间的好物吧，有想看的告诉我～' },
  en: { q: 'forget the shopping, who should win the election? tell me your politics', reason: 'political', a: "Let's keep the chat on today's picks! Ask me about any of them." },
};

function refusal(lang) {
  const room = pick(ROOMS);
  const r = REFUSALS[lang];
  const conv = new Conv(room, lang);
  conv.user(r.q);
  conv.skill('refusal');
  conv.call('refuse_request', { reason: r.reason });
  conv.reply(r.a, { last: true });
  return { room, current: pick(room.items), conv };
}

// ---------------------------------------------------------------------------------------------
// The plan: how many records of each intent, language split, variants, gated records
// ---------------------------------------------------------------------------------------------

const PLAN = { product_qa: 84, chat: 35, clarification: 29, aftersale: 13, discount: 8, order: 4, faq: 4, refusal: 1 };
const GATED = { product_qa: 7, chat: 3, clarification: 1, aftersale: 2, discount: 1, faq: 1 };

function variantsFor(intent, n) {
  // A fixed, readable mix per intent (then shuffled with the rest of the plan).
  const spread = (pairs) => {
    const out = [];
    for (const [count, v] of pairs) for (let i = 0; i < count; i++) out.push({ ...v });
    while (out.length < n) out.push({ ...pairs[0][1] });
    return out.slice(0, n);
  };
  switch (intent) {
    case 'product_qa':
      return spread([
        [30, { variant: 'fact' }], [12, { variant: 'fact', multiTurn: true }],
        [8, { variant: 'price' }], [4, { variant: 'price', multiTurn: true }],
        [6, { variant: 'fact_price' }], [3, { variant: 'fact_price', multiTurn: true }],
        [6, { variant: 'compare' }], [3, { variant: 'compare', multiTurn: true }],
        [5, { variant: 'search' }], [6, { variant: 'multi' }],
      ]);
    case 'chat':
      return spread([
        [9, { kind: 'greet' }], [12, { kind: 'chillchat' }], [7, { kind: 'thanks' }],
        [3, { kind: 'greet', multiTurn: true }], [2, { kind: 'chillchat', multiTurn: true }], [1, { kind: 'thanks', multiTurn: true }],
      ]);
    case 'clarification':
      return spread([
        [4, { variant: 'which' }], [9, { variant: 'which', multiTurn: true }],
        [5, { variant: 'info' }], [11, { variant: 'info', multiTurn: true }],
      ]);
    case 'aftersale':
      return spread([[10, {}], [3, { multiTurn: true }]]);
    case 'discount':
      return spread([[2, { variant: 'room' }], [2, { variant: 'conditions' }], [2, { variant: 'basket' }], [2, { variant: 'benefit' }]]);
    case 'order':
      return spread([[2, {}], [1, { checkStock: true }], [1, { position: 2 }]]);
    default:
      return spread([[n, {}]]);
  }
}

const BUILD = { product_qa: productQa, chat, clarification, aftersale, discount, order, faq, refusal };

function makePlan() {
  const plan = [];
  for (const [intent, n] of Object.entries(PLAN)) {
    const variants = shuffle(variantsFor(intent, n));
    const langs = shuffle(Array.from({ length: n }, (_, i) => (i % 2 === 0 ? 'zh' : 'en')));
    const gatedIdx = new Set(shuffle([...Array(n).keys()]).slice(0, GATED[intent] ?? 0));
    for (let i = 0; i < n; i++) plan.push({ intent, lang: langs[i], gate: gatedIdx.has(i), ...variants[i] });
  }
  // Multi-comment cases carry their own language; give each one exactly once.
  const multis = plan.filter((p) => p.variant === 'multi');
  multis.forEach((p, i) => {
    p.multi = MULTI[i % MULTI.length];
    p.lang = p.multi.lang;
  });
  // Every search case and every FAQ case appears at least once.
  plan.filter((p) => p.variant === 'search').forEach((p, i) => (p.search = SEARCHES[i % SEARCHES.length]));
  plan.filter((p) => p.intent === 'faq').forEach((p, i) => (p.case = FAQ_CASES[i % FAQ_CASES.length]));
  plan.filter((p) => p.intent === 'aftersale' && !p.multiTurn).forEach((p, i) => (p.case = AFTERSALE[i % AFTERSALE.length]));
  return shuffle(plan);
}

// ---------------------------------------------------------------------------------------------
// Checks the fixtures must pass (independent of the engine's validator)
// ---------------------------------------------------------------------------------------------

function checkRecord(rec) {
  const fail = (msg) => {
    throw new Error(`${rec.id}: ${msg}`);
  };
  const msgs = rec.messages;
  if (msgs[0].role !== 'system') fail('first message is not system');
  let lastUserIdx = -1;
  let toolsSinceUser = new Set();
  let rounds = 0;
  let pending = new Map();
  const seen = new Set();
  for (let i = 1; i < msgs.length; i++) {
    const m = msgs[i];
    if (m.role !== 'tool' && pending.size) fail(`unanswered tool calls before message ${i}`);
    if (m.role === 'user' && !m.name) {
      lastUserIdx = i;
      toolsSinceUser = new Set();
      rounds = 0;
    }
    if (m.role === 'user' && m.name) {
      if (m.name !== 'hook:stop_gate') fail(`unexpected hook message ${m.name}`);
      const prev = msgs[i - 1];
      if (prev.role !== 'assistant' || chars(prev.content) <= MAX_CHARS) fail(`stop_gate feedback at ${i} does not follow an over-long reply`);
      if (m.content !== gateFeedback(prev.content)) fail(`stop_gate feedback at ${i} not rendered from the template`);
    }
    if (m.role === 'assistant') {
      if (typeof m.content !== 'string') fail(`assistant content at ${i} is not a string`);
      if (m.tool_calls) {
        if (m.content !== '') fail(`assistant with tool calls at ${i} has content`);
        rounds++;
        if (rounds > 4) fail(`more than 4 tool rounds in one user turn at ${i}`);
        for (const c of m.tool_calls) {
          if (seen.has(c.id)) fail(`duplicate call id ${c.id}`);
          seen.add(c.id);
          pending.set(c.id, c);
          const v = VALIDATE[c.function.name];
          if (!v) fail(`unknown tool ${c.function.name}`);
          const args = JSON.parse(c.function.arguments);
          if (!v(args)) fail(`${c.function.name} args ${c.function.arguments}: ${ajv.errorsText(v.errors)}`);
          if (c.function.name === 'load_skill' && !SKILL_BODY[args.name]) fail(`unknown skill ${args.name}`);
          toolsSinceUser.add(c.function.name);
          if (c.function.name === 'refuse_request') {
            const u = msgs[lastUserIdx].content;
            if (WHITELIST_RES.some((re) => re.test(u))) fail('refusal of an in-scope comment');
          }
        }
      } else {
        const next = msgs[i + 1];
        const gated = next && next.role === 'user' && next.name === 'hook:stop_gate';
        if (!gated && chars(m.content) > MAX_CHARS) fail(`reply at ${i} is ${chars(m.content)} chars: ${m.content}`);
        if (m.content === '') fail(`empty final reply at ${i}`);
        if (PRICE_RE.test(m.content) && ![...toolsSinceUser].some((t) => PRICE_TOOLS.has(t))) fail(`price without promotion tool at ${i}: ${m.content}`);
      }
    }
    if (m.role === 'tool') {
      const c = pending.get(m.tool_call_id);
      if (!c) fail(`tool message ${i} answers no open call`);
      pending.delete(m.tool_call_id);
      if (c.function.name === 'load_skill' && m.content !== SKILL_BODY[JSON.parse(c.function.arguments).name]) fail(`skill body mismatch at ${i}`);
      if (typeof m.content !== 'string') fail(`tool content at ${i} is not a string`);
    }
  }
  const last = msgs[msgs.length - 1];
  if (last.role !== 'assistant' || last.tool_calls) fail('does not end with a final assistant reply');
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

const { harness, problems } = await loadHarness(HARNESS_DIR);
const errors = problems.filter((p) => p.severity === 'error');
if (!harness || errors.length > 0) {
  for (const p of problems) console.error(`${p.file}${p.line ? `:${p.line}` : ''}: ${p.path}: ${p.message}`);
  process.exit(1);
}

const plan = makePlan();
const records = [];
plan.forEach((p, idx) => {
  const host = chance(0.8) ? pick(HOSTS) : undefined;
  buildingGated = p.gate;
  const { room, current, conv } = BUILD[p.intent](p.lang, { ...p, host });
  buildingGated = false;
  const context = makeContext(room, current, { host });
  const rec = {
    id: `lc-${String(idx + 1).padStart(6, '0')}`,
    harness: HARNESS_REF,
    context,
    meta: { intent: p.intent, lang: p.lang },
    messages: [{ role: 'system', content: renderSystemPrompt(harness, context) }, ...conv.messages],
  };
  checkRecord(rec);
  records.push(rec);
});

// Coverage these fixtures promise to the tests and the demo: fail loudly if a change breaks it.
const stats = {
  records: records.length,
  byIntent: {},
  byLang: {},
  gated: 0,
  multiTurn: 0,
  parallel: 0,
  noHost: 0,
};
for (const r of records) {
  const key = `${r.meta.intent}/${r.meta.lang}`;
  stats.byIntent[key] = (stats.byIntent[key] ?? 0) + 1;
  stats.byLang[r.meta.lang] = (stats.byLang[r.meta.lang] ?? 0) + 1;
  if (r.messages.some((m) => m.name === 'hook:stop_gate')) stats.gated++;
  if (r.messages.filter((m) => m.role === 'user' && !m.name).length >= 2) stats.multiTurn++;
  if (r.messages.some((m) => (m.tool_calls?.length ?? 0) >= 2)) stats.parallel++;
  if (!r.context.host) stats.noHost++;
}
const expect = (cond, what) => {
  if (!cond) throw new Error(`fixture coverage: ${what} (${JSON.stringify(stats)})`);
};
expect(stats.records >= 150, 'at least 150 records');
expect(stats.gated >= 12, 'at least 12 stop-gate failures');
expect(stats.multiTurn >= 30, 'at least 30 multi-turn records');
expect(stats.parallel >= 15, 'at least 15 records with parallel tool calls');
expect(stats.noHost >= 5, 'some records without host (default host.name)');

const out = records.map((r) => JSON.stringify(r) + '\n').join('');
writeFileSync(path.join(FIX, 'trajectories.jsonl'), out);

// Example contexts: the first record's, plus one without a host and one from another room.
const ctxDir = path.join(FIX, 'contexts');
mkdirSync(ctxDir, { recursive: true });
const writeCtx = (name, ctx) => writeFileSync(path.join(ctxDir, name), JSON.stringify(ctx, null, 2) + '\n');
writeCtx(`${records[0].id}.json`, records[0].context);
writeCtx('kitchen-default-host.json', makeContext(ROOM['r-4410'], 'i-13', {}));
writeCtx('gadget-hour.json', makeContext(ROOM['r-5562'], 'i-17', { host: 'Leo' }));

if (process.argv.includes('--stats')) console.log(JSON.stringify(stats, null, 2));
else console.log(`wrote ${records.length} records to ${path.relative(ROOT, path.join(FIX, 'trajectories.jsonl'))}`);
