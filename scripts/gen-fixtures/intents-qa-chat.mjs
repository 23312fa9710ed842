// Scenarios, part 1: product Q&A and chat.
import { MAX_CHARS, pick, chance, chars, nextOf, cap } from './common.mjs';
import { ITEMS, ITEM, ROOMS, ROOM, DEFAULT_HOST } from './catalog.mjs';
import { SIM } from './backend.mjs';
import { Conv, itRef, fill, roomsWith, otherItem, priceReply } from './conversation.mjs';

// ---------------------------------------------------------------------------------------------
// Scenarios, one function per intent. Each returns { room, current, conv } and fills conv.
// ---------------------------------------------------------------------------------------------

export const COMPARE = [
  {
    items: ['i-01', 'i-02'],
    fields: ['material'],
    q: { zh: '亚麻裙和雪纺裙哪个夏天穿更舒服？', en: 'linen dress or chiffon dress, which is cooler for summer?' },
    a: { zh: '怕热选亚麻裙，透气吸汗；雪纺裙有衬里更轻飘，看你喜欢哪种～', en: 'Linen breathes best in heat; the chiffon is lined and floatier.' },
  },
  {
    items: ['i-05', 'i-08'],
    fields: ['ingredients', 'suitable_for'],
    q: { zh: '玻尿酸精华和维C精华选哪个？我皮肤有点干', en: "hyaluronic or vitamin C serum? my skin's on the dry side" },
    a: { zh: '偏干选玻尿酸精华，主打补水，还有神经酰胺～', en: 'For dry skin, the hyaluronic serum: it hydrates and has ceramide.' },
  },
  {
    items: ['i-13', 'i-14'],
    fields: ['material', 'specs'],
    q: { zh: '铸铁锅和不粘锅哪个好用？', en: 'cast iron or the non-stick wok, which is easier to use?' },
    a: { zh: '想轻便好打理选不粘炒锅，1.6公斤；爱煎牛排选铸铁锅～', en: 'The wok is lighter at 1.6 kg and easy care; cast iron is best for searing.' },
  },
  {
    items: ['i-17', 'i-21'],
    fields: ['specs', 'suitable_for'],
    q: { zh: '跑步用降噪耳机还是运动耳机？', en: 'for running, the earbuds or the open-ear ones?' },
    a: { zh: '跑步选运动耳机，开放式能听到路况，挂耳不掉～', en: 'For running, the open-ear pair: you still hear traffic and they stay put.' },
  },
];

export const SEARCHES = [
  {
    room: 'r-1021',
    query: { zh: '防晒', en: 'sunscreen' },
    hits: [{ id: 'i-06', room: 'r-2048' }],
    q: { zh: '有没有防晒霜呀？', en: 'do you have any sunscreen?' },
    a: { zh: '这场没有防晒哦，美妆实验室直播间有物理防晒霜～', en: 'Not in this room, but the Beauty Lab room has a mineral sunscreen.' },
  },
  {
    room: 'r-3307',
    query: { zh: '茶', en: 'tea' },
    hits: [{ id: 'i-12', room: 'r-3307' }],
    q: { zh: '有没有适合送长辈的茶？', en: 'any tea that works as a gift for my parents?' },
    a: { zh: '有的，乌龙茶礼盒，安溪铁观音，带礼盒和手提袋～', en: 'Yes, the oolong gift box: Tieguanyin in a box with a carrier bag.' },
  },
  {
    room: 'r-6603',
    query: { zh: '耳机', en: 'headphones' },
    hits: [
      { id: 'i-21', room: 'r-6603' },
      { id: 'i-17', room: 'r-5562' },
    ],
    q: { zh: '有跑步能戴的耳机吗', en: 'any headphones I can run with?' },
    a: { zh: '有，开放式运动耳机就在这场，挂耳式跑步不掉～', en: 'Yes, the open-ear headphones in this room hook on and stay put.' },
  },
  {
    room: 'r-4410',
    query: { zh: '保温杯', en: 'thermos' },
    hits: [],
    q: { zh: '有保温杯吗？', en: 'do you sell a thermos?' },
    a: { zh: '暂时没有保温杯哦，可以看看电热水壶～', en: 'No thermos right now, sorry; the electric kettle is on today.' },
  },
  {
    room: 'r-2048',
    query: { zh: '洗面奶 敏感肌', en: 'gentle cleanser' },
    hits: [{ id: 'i-07', room: 'r-2048' }],
    q: { zh: '有没有敏感肌能用的洗面奶', en: 'is there a gentle cleanser for sensitive skin?' },
    a: { zh: '有，氨基酸洗面奶，pH5.5，不含皂基，比较温和～', en: 'Yes, the amino acid cleanser: pH 5.5, SLS-free and gentle.' },
  },
];

export const MULTI = [
  {
    room: 'r-1021',
    item: 'i-01',
    lang: 'zh',
    text: '[弹幕] 小鹿: 亚麻裙能机洗吗\n[弹幕] momo: 亚麻裙有几个颜色\n[弹幕] Kiki: 什么时候发货',
    fields: ['care', 'colors'],
    faq: { question: '什么时候发货', ids: ['faq-ship-time'] },
    a: '亚麻裙能机洗，装袋冷水轻柔洗；有燕麦、鼠尾草绿、黑三色；现货48小时内发～',
  },
  {
    room: 'r-5562',
    item: 'i-17',
    lang: 'en',
    text: '[viewer] jay_k: battery life on the earbuds?\n[viewer] mina: are they waterproof\n[viewer] tom: can I get an invoice?',
    fields: ['specs'],
    faq: { question: 'can I get an invoice', ids: ['faq-invoice'] },
    a: 'Earbuds: 8 h, 32 h with case, IPX4. E-invoices on the order page.',
  },
  {
    room: 'r-2048',
    item: 'i-06',
    lang: 'zh',
    text: '[弹幕] 阿离: 防晒防水吗\n[弹幕] 小葵: 防晒是物理的吗\n[弹幕] 猫猫: 能退吗',
    fields: ['specs', 'ingredients'],
    faq: { question: '能退吗', ids: ['faq-return-7d'] },
    a: '纯物理防晒，防水40分钟；未使用签收7天内可以退～',
  },
  {
    room: 'r-4410',
    item: 'i-20',
    lang: 'en',
    text: '[viewer] lulu: air fryer size?\n[viewer] ben: dishwasher safe?\n[viewer] amy: when does it ship?',
    fields: ['specs', 'care'],
    faq: { question: 'when does it ship', ids: ['faq-ship-time'] },
    a: 'It is 5 L for 3-5 people, dishwasher-safe basket, ships within 48 h.',
  },
  {
    room: 'r-3307',
    item: 'i-09',
    lang: 'zh',
    text: '[弹幕] 豆豆: 坚果有哪些\n[弹幕] 七七: 保质期多久\n[弹幕] 阿宁: 拆了能退吗',
    fields: ['ingredients', 'specs'],
    faq: { question: '拆了能退吗', ids: ['faq-food-return'] },
    a: '核桃腰果巴旦木榛子加莓果干，保质期180天；拆封后仅质量问题可退～',
  },
  {
    room: 'r-6603',
    item: 'i-25',
    lang: 'en',
    text: '[viewer] sky: how thick is the yoga mat\n[viewer] rae: does it smell?\n[viewer] omar: free returns?',
    fields: ['specs', 'material'],
    faq: { question: 'free returns?', ids: ['faq-return-7d'] },
    a: '6 mm thick, latex-free TPE with low odour; unused returns within 7 days.',
  },
];

export function productQa(lang, opts) {
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
      conv.reply(lang === 'zh' ? `两件一起到手¥${res.final_price}，已自动用最优优惠～` : `Both together: ¥${res.final_price} with the best deal applied.`, {
        last: true,
      });
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
    const q =
      lang === 'zh'
        ? qty
          ? `${ref}拍两件多少钱？`
          : pick([`${ref}现在多少钱？`, `${ref}到手价多少`, `${ref}今天有优惠吗，多少钱`])
        : qty
          ? onCamera
            ? pick(['how much if I buy two?', 'price for 2 pls'])
            : `how much for two of ${item.en.replace(/^the /, 'the ')}?`
          : pick([`how much ${item.plural ? 'are' : 'is'} ${ref} today?`, `what's the final price on ${ref}?`, `price for ${ref}?`]);
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

export const CHAT = {
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

export function chat(lang, opts) {
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
