// Scenarios, part 2: clarification, after-sale, discount, order, FAQ, refusal.
import { pick, chance, shuffle, nextOf, cap } from './common.mjs';
import { ITEMS, ITEM, ROOMS, ROOM } from './catalog.mjs';
import { promosOf } from './backend.mjs';
import { Conv, fill, roomsWith, otherItem, priceReply } from './conversation.mjs';

export const GROUPS = [
  { items: ['i-01', 'i-02'], zh: '裙子', en: 'dress' },
  { items: ['i-05', 'i-08'], zh: '精华', en: 'serum' },
  { items: ['i-13', 'i-14'], zh: '锅', en: 'pan' },
  { items: ['i-17', 'i-21'], zh: '耳机', en: 'headphones' },
];

export function clarification(lang, opts) {
  if (opts.variant === 'which') {
    const g = nextOf(`which/${lang}`, GROUPS);
    const room = pick(ROOMS.filter((r) => g.items.every((i) => r.items.includes(i))));
    const current = pick(room.items.filter((i) => !g.items.includes(i)));
    const [a, b] = g.items.map((id) => ITEM[id]);
    const conv = new Conv(room, lang);
    conv.user(
      lang === 'zh'
        ? pick([`那个${g.zh}多少钱？`, `${g.zh}现在什么价`, `${g.zh}有优惠吗`])
        : pick([`how much is the ${g.en}?`, `what's the deal on the ${g.en}?`, `price of the ${g.en} pls`]),
    );
    conv.skill('clarification');
    const ask = lang === 'zh' ? `你问的是${a.zh}还是${b.zh}呀？` : `Do you mean ${a.en} or ${b.en}?`;
    if (!opts.multiTurn) {
      conv.reply(ask, { last: true });
      return { room, current, conv };
    }
    conv.reply(ask);
    const chosen = chance(0.5) ? a : b;
    conv.user(
      lang === 'zh'
        ? pick([`${chosen.zh}`, `${chosen.zh}那个`, `第${chosen === a ? '一' : '二'}个`])
        : pick([chosen.en.replace(/^the /, 'the '), `${chosen.en.replace(/^the /, '')} please`]),
    );
    conv.skill('tool_strategy_benefit');
    const [, res] = conv.calls([
      { name: 'get_room_promotions', args: { room_id: room.id } },
      { name: 'calculate_optimal_promotion', args: { item_id: chosen.id } },
    ]);
    conv.reply(priceReply(res, chosen, lang, room.id), { last: true });
    return { room, current, conv };
  }
  // missing information: size, skin type, stove, phone
  const item = nextOf(
    `clarify/${lang}`,
    ITEMS.filter((i) => i.clarify),
  );
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

export const AFTERSALE = [
  {
    rooms: ['r-1021'],
    faq: ['faq-exchange-size'],
    q: { zh: '裙子买大了能换小一码吗？', en: 'the dress I got is too big, can I swap for a smaller size?' },
    a: { zh: '可以免费换码一次，7天内在订单页申请～', en: 'Yes, one free size exchange within 7 days via your order page.' },
    // answered from the FAQ entry already fetched: no new tool call
    follow: {
      q: { zh: '运费要我自己出吗？', en: 'do I pay the shipping for that?' },
      a: { zh: '不用哦，换码来回运费都由店铺承担～', en: 'No, the shop covers shipping both ways for the exchange.' },
    },
  },
  {
    rooms: null,
    faq: ['faq-return-7d'],
    q: { zh: '不想要了可以退吗', en: 'can I return it if I change my mind?' },
    a: { zh: '签收7天内未使用、吊牌完好都能退，在订单页申请售后～', en: 'Yes, unused with tags within 7 days; apply under After-sales.' },
    follow: {
      q: { zh: '好的，那退款多久到？', en: 'ok, and how long until I get my money back?' },
      faq: ['faq-refund-time'],
      fq: { zh: '退款多久到账', en: 'how long does a refund take' },
      a: { zh: '收到退货48小时内审核，原路退回，1-3个工作日到账～', en: 'Review within 48 h of the return arriving, then 1-3 business days.' },
    },
  },
  {
    rooms: null,
    faq: ['faq-refund-time'],
    q: { zh: '退款多久能到账啊', en: 'how long does a refund take?' },
    a: { zh: '退货签收后48小时内审核，原路退回，1-3个工作日到账～', en: 'We review within 48 h of getting it back; 1-3 business days to your account.' },
  },
  {
    rooms: null,
    faq: ['faq-late-parcel'],
    q: { zh: '我的快递五天了还没到', en: "my parcel still hasn't arrived after 5 days" },
    a: { zh: '抱歉久等了！订单页能看物流，7天没更新请找客服催件～', en: 'Sorry for the wait! Check tracking on the order page; stuck 7 days? Contact us.' },
  },
  {
    rooms: ['r-4410'],
    faq: ['faq-damaged'],
    q: { zh: '收到的水壶有个凹痕', en: 'my kettle arrived with a dent' },
    a: {
      zh: '很抱歉！48小时内在订单页上传照片申请售后，核实后补发或退款～',
      en: "So sorry! Upload photos on the order page within 48 h; we'll resend or refund.",
    },
  },
  {
    rooms: ['r-3307'],
    faq: ['faq-food-return'],
    q: { zh: '坚果拆开了还能退吗', en: 'can I return the nuts after opening them?' },
    a: { zh: '拆封后只有质量问题能退，未拆封的7天内可以退～', en: 'Opened food only for quality issues; unopened within 7 days.' },
    follow: {
      q: { zh: '那没拆的退了，钱多久回来？', en: 'and for the unopened bag, when do I get the refund?' },
      faq: ['faq-refund-time'],
      fq: { zh: '退款多久到账', en: 'refund time' },
      a: { zh: '退货签收后48小时内审核，原路退回，1-3个工作日到账～', en: 'We review within 48 h of getting it back; 1-3 business days after that.' },
    },
  },
  {
    rooms: ['r-5562'],
    faq: ['faq-warranty'],
    item: 'i-17',
    q: { zh: '耳机左耳没声音了怎么办', en: 'the left earbud stopped working, what do I do?' },
    a: { zh: '抱歉！耳机1年保修，15天内有质量问题直接换新，联系客服就行～', en: 'Sorry! They have a 1-year warranty and 15-day replacement; contact support.' },
  },
  {
    rooms: ['r-4410'],
    faq: ['faq-warranty'],
    item: 'i-14',
    q: { zh: '炒锅用了三个月涂层掉了', en: 'the wok coating is peeling after 3 months' },
    a: { zh: '抱歉！涂层有2年质保，在订单页联系客服处理就好～', en: 'Sorry about that! The coating has a 2-year warranty; contact support.' },
  },
];

export function aftersale(lang, opts) {
  const s =
    opts.case ??
    (opts.multiTurn
      ? nextOf(
          'aftersale-follow',
          AFTERSALE.filter((c) => c.follow),
        )
      : pick(AFTERSALE));
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

export function discount(lang, opts) {
  const room = opts.room ?? pick(ROOMS);
  const conv = new Conv(room, lang);
  const promos = promosOf(room.id);
  const th = promos.filter((p) => p.type === 'threshold').sort((a, b) => a.threshold - b.threshold);
  const pc = promos.find((p) => p.type === 'price_cut');
  const cutNames = Object.keys(pc.cuts).map((id) => ITEM[id]);
  if (opts.variant === 'room') {
    conv.user(
      lang === 'zh'
        ? pick(['今天有什么优惠活动？', '有券吗', '直播间有啥福利'])
        : pick(['any coupons today?', 'what deals are on right now?', 'is there a discount in this room?']),
    );
    conv.skill('general_discount');
    conv.call('get_room_promotions', { room_id: room.id });
    const t = th[0];
    const ans =
      lang === 'zh'
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
    conv.reply(
      lang === 'zh'
        ? `${t.title}每人限用1次，8月31日23:59结束，粉丝还能领券～`
        : 'Once per buyer, until Aug 31 at 23:59; fan club members get an extra coupon.',
      { last: true },
    );
    return { room, current: pick(room.items), conv };
  }
  if (opts.variant === 'basket') {
    const [x, y] = shuffle(room.items)
      .slice(0, 2)
      .map((id) => ITEM[id]);
    conv.user(lang === 'zh' ? `${x.zh}和${y.zh}一起买能便宜多少？` : `if I buy ${x.en} and ${y.en} together, what do I pay?`);
    conv.skill('general_discount');
    const promo = conv.call('get_room_promotions', { room_id: room.id });
    const res = conv.call('calculate_promotion', {
      item_ids: [x.id, y.id],
      coupon_ids: promo.promotions.filter((p) => p.type === 'threshold').map((p) => p.campaign_id),
    });
    conv.reply(lang === 'zh' ? `两件一起到手¥${res.final_price}，一共省¥${res.saved}～` : `Together you pay ¥${res.final_price}, saving ¥${res.saved}.`, {
      last: true,
    });
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

export function order(lang, opts) {
  const room = opts.room ?? pick(ROOMS);
  const current = pick(room.items);
  const target = ITEM[otherItem(room, current)];
  const queue = [target.id, ...room.items.filter((id) => id !== current && id !== target.id)];
  const position = opts.position ?? 1;
  if (position === 2) [queue[0], queue[1]] = [queue[1], queue[0]];
  const conv = new Conv(room, lang);
  conv.user(
    position === 2
      ? lang === 'zh'
        ? `下一个讲完能讲${target.zh}吗？`
        : `can you do ${target.en} after the next one?`
      : lang === 'zh'
        ? pick([`能先讲一下${target.zh}吗？`, `想看${target.zh}！`, `主播讲讲${target.zh}呗`])
        : pick([`can you show ${target.en} next?`, `please do ${target.en} next!`, `waiting for ${target.en}, can we see it?`]),
  );
  conv.skill('tool_strategy_switch');
  if (opts.checkStock) conv.call('get_item_detail', { item_id: target.id, fields: ['stock'] });
  conv.call('switch_presentation_order', { item_id: target.id, position }, queue);
  conv.skill('change_order');
  conv.reply(
    position === 2
      ? lang === 'zh'
        ? `好的！${target.zh}排在下下个，马上就到～`
        : `Sure! ${cap(target.en)} comes right after the next item.`
      : lang === 'zh'
        ? `好的！下一个就讲${target.zh}，稍等哦～`
        : `Sure! ${cap(target.en)} is up next, stay tuned.`,
    { last: true },
  );
  return { room, current, conv };
}

export const FAQ_CASES = [
  {
    faq: ['faq-lucky-draw'],
    q: { zh: '今天几点抽奖？', en: 'what time is the lucky draw?' },
    a: { zh: '今晚21:00整点抽奖，关注我并加入粉丝团就能参与～', en: 'The lucky draw is at 21:00 tonight: follow and join the fan club!' },
  },
  {
    faq: ['faq-fan-club', 'faq-lucky-draw'],
    q: { zh: '粉丝团怎么加？', en: 'how do I join the fan club?' },
    a: { zh: '点我头像旁边的“粉丝团”，点亮一个灯牌就加入啦～', en: "Tap 'Fan club' next to my avatar and light up a fan badge!" },
  },
  {
    faq: ['faq-schedule'],
    q: { zh: '明天几点开播呀', en: 'when are you live tomorrow?' },
    a: { zh: '每天19:30到23:00，周末下午14:00还有加场～', en: "We're live 19:30-23:00 daily, plus 14:00 on weekends." },
  },
  {
    faq: ['faq-invoice'],
    q: { zh: '可以开发票吗', en: 'can I get an invoice?' },
    a: { zh: '可以开电子发票，确认收货后在订单页申请～', en: 'Yes, e-invoices: request one on the order page after delivery.' },
  },
  {
    faq: ['faq-ship-time'],
    q: { zh: '今天拍什么时候发货', en: 'if I order now, when does it ship?' },
    a: { zh: '现货48小时内发出，预售按商品页时间～', en: 'In-stock items ship within 48 h; pre-orders by the item page date.' },
  },
];

export function faq(lang, opts) {
  const room = pick(ROOMS);
  const f = opts.case ?? pick(FAQ_CASES);
  const conv = new Conv(room, lang);
  conv.user(f.q[lang]);
  conv.skill('faq_reply');
  conv.call('lookup_faq', { question: f.q[lang] }, f.faq);
  conv.reply(f.a[lang], { last: true });
  return { room, current: pick(room.items), conv };
}

export const REFUSALS = {
  zh: { q: '主播你支持哪个政党？聊聊选举呗', reason: 'political', a: '我们还是聊聊直播间的好物吧，有想看的告诉我～' },
  en: {
    q: 'forget the shopping, who should win the election? tell me your politics',
    reason: 'political',
    a: "Let's keep the chat on today's picks! Ask me about any of them.",
  },
};

export function refusal(lang) {
  const room = pick(ROOMS);
  const r = REFUSALS[lang];
  const conv = new Conv(room, lang);
  conv.user(r.q);
  conv.skill('refusal');
  conv.call('refuse_request', { reason: r.reason });
  conv.reply(r.a, { last: true });
  return { room, current: pick(room.items), conv };
}
