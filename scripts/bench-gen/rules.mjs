// The prompt rules: mixed Chinese/English rule text drawn from word lists.
import { bytes } from './common.mjs';

// ---------------------------------------------------------------------------------------------
// vocabulary

export const TOPICS = [
  ['sizes and fit', '尺码和版型'],
  ['shipping times', '发货时效'],
  ['return windows', '退换货时限'],
  ['coupon stacking', '优惠券叠加'],
  ['fabric and materials', '面料材质'],
  ['stock levels', '库存'],
  ['gift-with-purchase offers', '赠品活动'],
  ['ingredients and allergens', '成分与过敏原'],
  ['warranty terms', '保修条款'],
  ['live-only prices', '直播间专属价'],
  ['membership tiers', '会员等级'],
  ['installment payments', '分期付款'],
  ['colour differences', '色差'],
  ['pre-orders', '预售'],
  ['bundle discounts', '组合优惠'],
  ['invoices', '发票'],
  ['cross-border duties', '跨境税费'],
  ['care and washing', '洗涤保养'],
  ['authenticity', '正品保障'],
  ['price matching', '比价'],
];
export const DOMAIN_TOOLS = [
  'get_item_detail',
  'search_items',
  'check_inventory',
  'get_room_promotions',
  'calculate_optimal_promotion',
  'get_campaign_conditions',
  'query_order_status',
  'create_aftersale_ticket',
  'lookup_faq',
  'recommend_bundle',
  'flag_comment',
];
export const EN_TRIGGERS = [
  'When a viewer asks about {t}',
  'If a comment mentions {t}',
  'Whenever someone in the chat compares {t}',
  'If a returning fan brings up {t}',
  'When several viewers ask about {t} at once',
  'If a question about {t} is ambiguous',
  'When a new viewer is unsure about {t}',
  'If a viewer complains about {t}',
];
export const EN_ACTIONS = [
  'answer in one short sentence and point to the pinned item',
  'check the facts with `{tool}` before you reply',
  'quote only the fields that `{tool}` returned',
  'say you are checking and call `{tool}` first',
  'keep the reply under the length limit and skip filler words',
  'never guess; if the tool returns nothing, say so plainly',
  'load the matching skill with `load_skill` before answering',
  "reply in the viewer's language and keep brand names as written",
  'thank them by nickname only when they are a fan club member',
  'do not promise outcomes that the after-sales team decides',
  'ask one clarifying question instead of listing every option',
  'mention the item id so the viewer can find it in the cart',
];
export const EN_QUALIFIERS = [
  '',
  ' This applies during flash sales too.',
  ' Do this even when the chat is busy.',
  ' Exceptions need an operator note.',
  ' Keep the tone warm and factual.',
  ' Do not repeat the same wording twice in a row.',
];
export const ZH_TRIGGERS = [
  '当观众询问{t}时',
  '如果弹幕提到{t}',
  '有人在评论区比较{t}时',
  '老粉问到{t}时',
  '同时有多位观众问{t}时',
  '关于{t}的问题表述不清时',
  '新观众对{t}不确定时',
  '观众抱怨{t}时',
];
export const ZH_ACTIONS = [
  '用一句话简短回答，并引导到当前讲解商品',
  '先调用 `{tool}` 核实后再回复',
  '只引用 `{tool}` 返回的字段',
  '先说明正在查询，再调用 `{tool}`',
  '回复控制在字数上限内，不要说废话',
  '不要猜测；工具没有返回结果就如实说明',
  '先用 `load_skill` 加载对应技能再回答',
  '用观众使用的语言回复，品牌名保持原文',
  '只有粉丝团成员才称呼昵称致谢',
  '不要承诺需要售后团队决定的结果',
  '只追问一个澄清问题，不要罗列所有选项',
  '说出商品编号，方便观众在购物车里找到',
];
export const ZH_QUALIFIERS = [
  '',
  '秒杀期间同样适用。',
  '弹幕很多时也要遵守。',
  '特殊情况需要运营备注。',
  '语气亲切、实事求是。',
  '不要连续两次使用同样的措辞。',
];
export const CLAIMS = [
  ['"the lowest price on the internet"', '“全网最低价”'],
  ['"100% effective"', '“百分之百有效”'],
  ['"cures"', '“根治”'],
  ['"best in the world"', '“全球第一”'],
  ['"never causes allergies"', '“绝对不会过敏”'],
  ['"doctor recommended"', '“医生推荐”'],
  ['"zero side effects"', '“零副作用”'],
  ['"national grade"', '“国家级”'],
];
export const CATEGORIES = [
  ['apparel', '服饰'],
  ['beauty', '美妆'],
  ['food', '食品'],
  ['electronics', '数码'],
  ['home', '家居'],
  ['kids', '母婴'],
];

export const ITEMS = [
  ['Linen midi dress', '亚麻中长连衣裙', 199, 'apparel'],
  ['Floral chiffon dress', '碎花雪纺连衣裙', 159, 'apparel'],
  ['High-waist wide-leg jeans', '高腰阔腿牛仔裤', 179, 'apparel'],
  ['Cashmere-blend cardigan', '羊绒混纺开衫', 329, 'apparel'],
  ['Down puffer jacket', '轻薄羽绒服', 459, 'apparel'],
  ['Running shoes', '缓震跑步鞋', 389, 'apparel'],
  ['Hydrating serum', '补水精华液', 268, 'beauty'],
  ['Sunscreen SPF50', '清爽防晒霜', 129, 'beauty'],
  ['Matte lipstick set', '哑光口红套装', 199, 'beauty'],
  ['Cleansing balm', '卸妆膏', 98, 'beauty'],
  ['Mixed nuts gift box', '每日坚果礼盒', 89, 'food'],
  ['Oolong tea tin', '乌龙茶罐装', 158, 'food'],
  ['Dark chocolate bar pack', '黑巧克力组合装', 69, 'food'],
  ['Instant noodle bundle', '方便面组合', 49, 'food'],
  ['Wireless earbuds', '无线蓝牙耳机', 299, 'electronics'],
  ['Power bank 20000mAh', '20000毫安充电宝', 149, 'electronics'],
  ['Smart watch', '智能手表', 699, 'electronics'],
  ['Portable blender', '便携榨汁杯', 139, 'home'],
  ['Memory foam pillow', '记忆棉枕头', 179, 'home'],
  ['Cast iron pan', '铸铁平底锅', 239, 'home'],
  ['Aroma diffuser', '香薰加湿器', 119, 'home'],
  ['Baby stroller', '婴儿推车', 899, 'kids'],
  ['Kids raincoat', '儿童雨衣', 79, 'kids'],
  ['Building blocks set', '积木拼装玩具', 259, 'kids'],
];
export const ROOM_NAMES = [
  'Autumn picks 秋季好物',
  'Beauty night 美妆夜',
  'Gadget hour 数码专场',
  'Kitchen live 厨房直播',
  'Weekend deals 周末特惠',
  'Mom & baby 母婴专场',
  'Snack party 零食派对',
  'Outdoor gear 户外装备',
];
export const HOSTS = ['Mia', 'Leo', '小雅', 'Ava', '阿杰', 'Nora'];
export const COLORS = ['black', 'white', 'navy', 'beige', 'olive', 'rose', 'grey'];
export const SIZES = ['XS', 'S', 'M', 'L', 'XL', 'XXL', 'one_size'];

export function enRule(g, topic) {
  const t = topic ?? g.pick(TOPICS)[0];
  return `${g.pick(EN_TRIGGERS).replace('{t}', t)}, ${g.pick(EN_ACTIONS).replace('{tool}', g.pick(DOMAIN_TOOLS))}.${g.pick(EN_QUALIFIERS)}`;
}
export function zhRule(g, topic) {
  const t = topic ?? g.pick(TOPICS)[1];
  return `${g.pick(ZH_TRIGGERS).replace('{t}', t)}，${g.pick(ZH_ACTIONS).replace('{tool}', g.pick(DOMAIN_TOOLS))}。${g.pick(ZH_QUALIFIERS)}`;
}
export function mixedRule(g) {
  const [en, zh] = g.pick(TOPICS);
  return `${zhRule(g, zh)}（EN: ${enRule(g, en)}）`;
}
export function anyRule(g) {
  const x = g.next();
  return x < 0.45 ? enRule(g) : x < 0.85 ? zhRule(g) : mixedRule(g);
}
export function complianceRule(g) {
  const [cEn, cZh] = g.pick(CLAIMS);
  const [tEn, tZh] = g.pick(TOPICS);
  return g.chance(0.5)
    ? `Do not use absolute claims such as ${cEn} when talking about ${tEn}.${g.pick(EN_QUALIFIERS)}`
    : `谈到${tZh}时，不得使用${cZh}等绝对化用语。${g.pick(ZH_QUALIFIERS)}`;
}
export function productRule(g) {
  const [catEn, catZh] = g.pick(CATEGORIES);
  const [tEn, tZh] = g.pick(TOPICS);
  return g.chance(0.5)
    ? `For ${catEn} items, when viewers ask about ${tEn}, ${g.pick(EN_ACTIONS).replace('{tool}', g.pick(DOMAIN_TOOLS))}.`
    : `${catZh}类商品被问到${tZh}时，${g.pick(ZH_ACTIONS).replace('{tool}', g.pick(DOMAIN_TOOLS))}。`;
}
/** Unique list items from `gen` until the list reaches `budget` bytes. */
export function ruleList(g, gen, budget) {
  const seen = new Set();
  const out = [];
  let size = 0;
  for (let tries = 0; size < budget && tries < 10000; tries++) {
    const r = gen(g);
    if (seen.has(r)) continue;
    seen.add(r);
    out.push(`- ${r}`);
    size += bytes(r) + 3;
  }
  return out.join('\n');
}
