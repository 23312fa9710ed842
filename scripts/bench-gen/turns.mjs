// What a record's turns say: filler text, tool arguments and results, user messages, replies, context.
import { MIN_TOOL, MAX_TOOL, bytes } from './common.mjs';
import { TOPICS, CATEGORIES, ITEMS, ROOM_NAMES, HOSTS, COLORS, SIZES } from './rules.mjs';
import { DETAIL_FIELDS, PROMO_TYPES, ORDER_INCLUDE, TICKET_TYPES, REASON_CODES, FAQ_CATS, FLAG_CATS } from './tools.mjs';

// ---------------------------------------------------------------------------------------------
// trajectories

export const FILLER_EN = [
  (g, t) => `Batch ${g.int(100, 999)} passed quality inspection on day ${g.int(1, 28)}; ${t} details are listed on the item page.`,
  (g, t) => `Warehouse ${g.pick(['east', 'south', 'bonded'])} reports ${g.int(0, 900)} units reserved for the live room; notes about ${t} were updated by ops.`,
  (g, t) => `Viewer feedback score ${(3 + g.next() * 2).toFixed(1)} from ${g.int(20, 5000)} reviews mentions ${t} most often.`,
  (g, t) => `Policy v${g.int(1, 9)}.${g.int(0, 9)}: ${t} follows the platform rule for category ${g.pick(CATEGORIES)[0]}.`,
];
export const FILLER_ZH = [
  (g, t) => `第${g.int(100, 999)}批次已于本月${g.int(1, 28)}日通过质检，${t}相关信息见商品详情页。`,
  (g, t) => `${g.pick(['华东', '华南', '保税'])}仓为直播间预留${g.int(0, 900)}件，运营已更新${t}说明。`,
  (g, t) => `${g.int(20, 5000)}条评价中提到最多的是${t}，平均评分${(3 + g.next() * 2).toFixed(1)}。`,
  (g, t) => `平台规则第${g.int(1, 30)}条：${g.pick(CATEGORIES)[1]}类商品的${t}按统一标准执行。`,
];
export function fillerSentence(g) {
  const [en, zh] = g.pick(TOPICS);
  return g.chance(0.5) ? g.pick(FILLER_EN)(g, en) : g.pick(FILLER_ZH)(g, zh);
}

/** A tool result object for a call, padded with notes to about `target` bytes (200–2000). */
export function toolResult(g, name, args, ctx, target) {
  const item = ctx.items.find((x) => x.id === (args.item_id ?? args.anchor_item_id)) ?? ctx.items[0];
  let base;
  switch (name) {
    case 'get_item_detail':
      base = {
        item_id: item.id,
        title: item.title,
        material: g.pick(['100% linen', '棉 95% 氨纶 5%', 'aluminium alloy', '食品级硅胶', 'recycled polyester']),
        sizes: g.sample(SIZES, 3),
        colors: g.sample(COLORS, 2),
        warranty_days: g.pick([0, 7, 30, 365]),
      };
      break;
    case 'search_items':
      base = { total: g.int(1, 40), results: g.sample(ITEMS, 3).map((x) => ({ title: `${x[0]} ${x[1]}`, list_price: x[2], in_stock: g.chance(0.8) })) };
      break;
    case 'check_inventory':
      base = { skus: args.items.map((x) => ({ item_id: x.item_id, available: g.int(0, 300), restock_days: g.pick([null, 3, 7]) })) };
      break;
    case 'get_room_promotions':
      base = {
        room_id: ctx.room.id,
        campaigns: [0, 1].map(() => ({
          campaign_id: `cmp-${g.digits(4)}`,
          type: g.pick(PROMO_TYPES),
          title: g.pick(['满300减40', 'Flash sale 8折', '第二件半价', 'Fan club coupon ¥20']),
        })),
      };
      break;
    case 'calculate_optimal_promotion': {
      const price = item.list_price * args.quantity;
      const off = Math.round(price * (0.05 + g.next() * 0.25));
      base = { item_id: item.id, quantity: args.quantity, list_total: price, final_price: price - off, applied: [`cmp-${g.digits(4)}`] };
      break;
    }
    case 'get_campaign_conditions':
      base = { campaign_id: args.campaign_id, threshold: g.pick([0, 199, 299, 399]), per_user_limit: g.int(1, 5), ends_in_minutes: g.int(5, 600) };
      break;
    case 'query_order_status':
      base = {
        order_id: args.order_id,
        status: g.pick(['paid', 'shipped', 'in_transit', 'delivered', 'returning']),
        carrier: g.pick(['SF', 'JD', 'ZTO', 'YTO']),
        last_scan: g.pick(['杭州转运中心', 'Shanghai hub', '派送中 out for delivery']),
      };
      break;
    case 'create_aftersale_ticket':
      base = { ticket_id: `as-${g.digits(10)}`, order_id: args.order_id, type: args.type, status: 'open', sla_hours: g.pick([24, 48, 72]) };
      break;
    case 'lookup_faq':
      base = { matches: [0, 1].map(() => ({ faq_id: `faq-${g.digits(3)}`, score: Number((0.5 + g.next() * 0.5).toFixed(2)) })) };
      break;
    case 'recommend_bundle':
      base = {
        anchor_item_id: args.anchor_item_id,
        suggestions: ctx.items.slice(0, 2).map((x) => ({ item_id: x.id, title: x.title, list_price: x.list_price })),
      };
      break;
    case 'flag_comment':
      base = { comment_id: args.comment_id, queued: true, moderator_eta_seconds: g.int(5, 120) };
      break;
    default:
      base = {};
  }
  base.notes = [];
  let size = bytes(JSON.stringify(base));
  const goal = Math.min(Math.max(target, MIN_TOOL), MAX_TOOL);
  while (size < goal) {
    const s = fillerSentence(g);
    const add = bytes(JSON.stringify(s)) + (base.notes.length > 0 ? 1 : 0);
    if (size + add > MAX_TOOL) break;
    base.notes.push(s);
    size += add;
  }
  return JSON.stringify(base);
}

export function toolArgs(g, name, ctx) {
  const item = () => g.pick(ctx.items);
  const orderId = () => `${g.int(1, 9)}${g.digits(15)}`;
  switch (name) {
    case 'get_item_detail': {
      const a = { item_id: item().id };
      if (g.chance(0.7)) a.fields = g.sample(DETAIL_FIELDS, g.int(1, 4));
      if (g.chance(0.3)) a.locale = g.pick(['zh-CN', 'en-US']);
      return a;
    }
    case 'search_items': {
      const [en, zh] = g.pick(ITEMS);
      const a = { query: g.chance(0.5) ? en.toLowerCase() : zh };
      if (g.chance(0.6)) {
        a.filters = { category: g.pick(CATEGORIES)[0] };
        if (g.chance(0.5)) a.filters.price_range = { min: g.int(0, 100), max: g.int(150, 900) };
        if (g.chance(0.5)) a.filters.in_stock = true;
      }
      if (g.chance(0.4)) a.sort = g.pick(['relevance', 'price_asc', 'price_desc', 'sales']);
      if (g.chance(0.3)) a.limit = g.int(1, 10);
      return a;
    }
    case 'check_inventory': {
      const a = {
        items: g.sample(ctx.items, g.int(1, Math.min(3, ctx.items.length))).map((x) => {
          const it = { item_id: x.id };
          if (g.chance(0.8)) it.sku = { color: g.pick(COLORS), size: g.pick(SIZES) };
          return it;
        }),
      };
      if (g.chance(0.3)) a.warehouse = g.pick(['auto', 'east', 'south', 'bonded']);
      return a;
    }
    case 'get_room_promotions': {
      const a = { room_id: ctx.room.id };
      if (g.chance(0.4)) a.types = g.sample(PROMO_TYPES, g.int(1, 3));
      if (g.chance(0.2)) a.include_expired = false;
      return a;
    }
    case 'calculate_optimal_promotion': {
      const a = { item_id: item().id, quantity: g.int(1, 3) };
      if (g.chance(0.4)) a.user_tier = g.pick(['guest', 'member', 'fan_club', 'vip']);
      if (g.chance(0.3)) a.coupon_codes = [g.pick(['SPRING-20', 'FANS10', 'NEW-USER', 'VIP-50'])];
      return a;
    }
    case 'get_campaign_conditions':
      return g.chance(0.6) ? { campaign_id: `cmp-${g.digits(4)}`, item_id: item().id } : { campaign_id: `cmp-${g.digits(4)}` };
    case 'query_order_status': {
      const a = { order_id: orderId() };
      if (g.chance(0.6)) a.include = g.sample(ORDER_INCLUDE, g.int(1, 3));
      return a;
    }
    case 'create_aftersale_ticket': {
      const a = {
        order_id: orderId(),
        type: g.pick(TICKET_TYPES),
        reason: { code: g.pick(REASON_CODES) },
        items: [{ item_id: item().id, quantity: g.int(1, 2) }],
      };
      if (g.chance(0.7))
        a.reason.detail = g.pick(['尺码偏小，想换大一码', 'arrived with a scratch on the lid', '颜色和直播间看到的不一样', 'parcel is 5 days late']);
      if (g.chance(0.5)) a.contact = { channel: g.pick(['in_app', 'sms', 'email']) };
      return a;
    }
    case 'lookup_faq': {
      const a = {
        question: g.pick([
          '多久发货？',
          'can I return after opening?',
          '支持分期吗',
          'when is the next giveaway?',
          '怎么开发票',
          'how do I join the fan club?',
        ]),
      };
      if (g.chance(0.5)) a.category = g.pick(FAQ_CATS);
      if (g.chance(0.3)) a.top_k = g.int(1, 5);
      return a;
    }
    case 'recommend_bundle': {
      const a = { anchor_item_id: item().id, budget: { amount: g.int(50, 1000) } };
      if (g.chance(0.4)) a.budget.currency = 'CNY';
      if (g.chance(0.5)) a.style_tags = g.sample(['casual', '通勤', 'gift', '户外', 'minimal', '甜美'], g.int(1, 3));
      return a;
    }
    case 'flag_comment': {
      const a = { comment_id: `cm-${g.digits(8)}`, category: g.pick(FLAG_CATS), severity: g.pick(['low', 'medium', 'high']) };
      if (g.chance(0.5)) a.note = g.pick(['repeated link spam', '公屏留手机号', 'insulting another viewer', '引流到其他店铺']);
      return a;
    }
    default:
      throw new Error(`no argument generator for ${name}`);
  }
}

export const USER_MSG = {
  greet: {
    en: ['hi {host}! just joined', 'hello, first time here', 'hey what are you showing now?'],
    zh: ['主播好，刚进来', '第一次来，你好呀', '现在在讲什么？'],
  },
  item_qa: {
    en: ['what is the {item} made of?', 'does the {item} come in size M?', 'is the {item} still in stock in black?'],
    zh: ['{item}是什么材质的？', '{item}有M码吗', '{item}黑色还有货吗？'],
  },
  discount: {
    en: ['any discount on the {item}?', 'how much is the {item} with coupons?', 'can I stack the fan coupon on the {item}?'],
    zh: ['{item}有优惠吗？', '{item}用券后多少钱', '{item}粉丝券能叠加吗'],
  },
  compare: {
    en: ['{item} or the other one, which is better?', 'anything similar to the {item} but cheaper?'],
    zh: ['{item}和另一款哪个好？', '有没有和{item}差不多但便宜点的'],
  },
  aftersale: { en: ['my order of the {item} has not arrived', 'I want to return the {item}, it is too small'], zh: ['我买的{item}还没到', '{item}太小了想退'] },
  bundle: {
    en: ['what goes well with the {item}? budget around 300', 'suggest something to pair with the {item}'],
    zh: ['{item}配什么好？预算300左右', '推荐点和{item}搭的'],
  },
  faq: { en: ['how long does shipping take?', 'can I get an invoice?', 'when is the next giveaway?'], zh: ['多久发货？', '能开发票吗', '下次抽奖是什么时候'] },
  moderation: { en: ['add me on wechat for cheaper prices!!!', 'this shop is a scam lol'], zh: ['加我微信更便宜！！！', '这家店都是骗人的'] },
};
export const REPLY = {
  greet: {
    en: ['Welcome in! We are showing the {item} now, ask me anything.', 'Hi! The {item} is on stage, want the size chart?'],
    zh: ['欢迎来到直播间！现在讲的是{item}，有问题随时问我～', '你好呀，正在讲{item}，需要尺码表吗？'],
  },
  item_qa: {
    en: ['The {item} is in stock; details are in the cart link.', 'Checked: the {item} has your size right now.'],
    zh: ['{item}现在有货，详情看购物车链接哦。', '查过了，{item}你要的规格有货。'],
  },
  discount: {
    en: ["With today's campaign the {item} is ¥{price}.", 'Best deal now: ¥{price} for the {item}.'],
    zh: ['{item}用上活动到手价¥{price}。', '现在{item}最优到手¥{price}哦。'],
  },
  compare: {
    en: ["For daily wear I'd pick the {item}; it is lighter.", 'The {item} is the better value of the two.'],
    zh: ['日常穿推荐{item}，更轻便。', '两款里{item}更划算。'],
  },
  aftersale: {
    en: ["I've opened a ticket; the team will contact you in the app.", 'Your parcel is on its way, tracking is in your order.'],
    zh: ['已帮你提交售后，客服会在App里联系你。', '包裹在路上了，物流在订单里能看到。'],
  },
  bundle: {
    en: ['The {item} pairs well with our cardigan, both in stock.', 'Try the {item} with the scarf, within your budget.'],
    zh: ['{item}搭配开衫很好看，都有货。', '{item}配围巾刚好在预算内。'],
  },
  faq: {
    en: ['Orders ship within 48 hours after payment.', 'Yes, invoices can be requested in your order page.'],
    zh: ['付款后48小时内发货。', '可以开发票，在订单页申请就行。'],
  },
  moderation: {
    en: ['Please keep the chat friendly, thanks!', "Let's keep it on topic, thank you."],
    zh: ['请大家文明发言，谢谢～', '咱们聊商品相关的哈，谢谢。'],
  },
};
export const LONG_TAIL = {
  en: ' Also, remember that the campaign ends soon, stock is limited, and fan club members get an extra gift in the parcel, so do not wait too long!',
  zh: '另外活动马上结束了，库存也有限，粉丝团成员下单还会额外送一份小礼物，大家千万别错过，喜欢的赶紧拍下来吧，拍下后记得看一下订单里的赠品信息！',
};

export function makeContext(g) {
  const n = g.int(3, 6);
  const items = g.sample(ITEMS, n).map((x) => ({ id: `i-${g.int(10, 9999)}`, title: `${x[0]} ${x[1]}`, list_price: x[2], _en: x[0], _zh: x[1] }));
  const ids = new Set();
  for (const it of items) {
    while (ids.has(it.id)) it.id = `i-${g.int(10, 9999)}`;
    ids.add(it.id);
  }
  const ctx = { room: { id: `room-${g.digits(6)}`, name: g.pick(ROOM_NAMES) }, current_item: { title: items[0].title } };
  if (g.chance(0.7)) ctx.host = { name: g.pick(HOSTS) };
  ctx.items = items.map(({ id, title, list_price }) => ({ id, title, list_price }));
  return { ctx, items };
}

export const fill = (s, vars) => s.replace(/\{(\w+)\}/g, (_, k) => String(vars[k]));

/**
 * One record. `g` drives every choice; `target` is the record size to aim for.
 */
