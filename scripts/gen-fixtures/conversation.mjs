// The conversation builder (ids, tool calls, stop-gate state) and the price/deal reply phrasing.
import { MAX_CHARS, rng, pick, chance, shuffle, chars, cap } from './common.mjs';
import { SKILL_BODY, gateFeedback } from './harness.mjs';
import { ITEM, ROOMS } from './catalog.mjs';
import { promosOf, SIM } from './backend.mjs';

// ---------------------------------------------------------------------------------------------
// Conversation builder
// ---------------------------------------------------------------------------------------------

export const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

// Set while a record whose final reply first fails the stop gate is being built.
export let buildingGated = false;
export const setBuildingGated = (on) => {
  buildingGated = on;
};

export class Conv {
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
export const FILLER = {
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
export function padLong(text, lang) {
  let out = text;
  for (const f of shuffle(FILLER[lang])) {
    out += f;
    if (chars(out) > MAX_CHARS + 10) break;
  }
  return out;
}

export function itRef(item, lang, onCamera) {
  return item.it[lang][onCamera ? 0 : 1];
}
export function fill(tpl, item, lang, onCamera, { mayCap = true } = {}) {
  const s = tpl.replace('{it}', itRef(item, lang, onCamera));
  // Viewers type both "how ..." and "How ...".
  return lang === 'en' && mayCap && chance(0.5) ? cap(s) : s;
}

export function makeContext(room, currentId, { host }) {
  const ctx = { room: { id: room.id, name: room.name } };
  if (host) ctx.host = { name: host };
  ctx.current_item = { id: currentId, title: ITEM[currentId].title };
  ctx.items = room.items.map((id) => ({ id, title: ITEM[id].title, list_price: ITEM[id].price }));
  return ctx;
}
export const roomsWith = (itemId) => ROOMS.filter((r) => r.items.includes(itemId));
export const otherItem = (room, notId) => pick(room.items.filter((id) => id !== notId));

// ---------------------------------------------------------------------------------------------
// Reply phrasing for prices and deals (always from tool results)
// ---------------------------------------------------------------------------------------------

export function priceReply(res, item, lang, roomId) {
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
