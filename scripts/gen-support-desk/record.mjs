// One record under construction (Rec) and the identity-verification exchange most scenarios open with.
import { policy, pick, chance, callId } from './common.mjs';

// ---------------------------------------------------------------------------------------------
// record builder

export class Rec {
  constructor(intent) {
    this.meta = { intent };
    this.messages = [{ role: 'system', content: policy }];
  }
  user(text) {
    this.messages.push({ role: 'user', content: text });
    return this;
  }
  say(text) {
    this.messages.push({ role: 'assistant', content: text });
    return this;
  }
  // one assistant round with one or more (parallel) calls, then their results in call order
  calls(list) {
    const withIds = list.map((c) => ({ ...c, id: callId() }));
    this.messages.push({
      role: 'assistant',
      content: '',
      tool_calls: withIds.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } })),
    });
    for (const c of withIds) this.messages.push({ role: 'tool', tool_call_id: c.id, content: JSON.stringify(c.result) });
    return this;
  }
  call(name, args, result) {
    return this.calls([{ name, args, result }]);
  }
}

export const ASK_VERIFY = [
  'I can help with that. First, could you confirm the email on your account and one of these: the order number, the last four digits of the card you paid with, or your postcode?',
  'Happy to look into it. To make sure I am talking to the account holder, please share your account email plus either the order number, your postcode, or the last four digits of your payment card.',
  'Sure thing. Before I open your account, I need to verify it: what is the email on the account, and can you give me your order number, billing postcode or the last four digits of your card?',
];

export function factor(c, o) {
  const m = pick(o ? ['order_number', 'card_last4', 'postcode'] : ['card_last4', 'postcode']);
  const value = m === 'order_number' ? o.order_id : m === 'card_last4' ? c.card4 : c.zip;
  const words =
    m === 'order_number'
      ? `order ${value}`
      : m === 'card_last4'
        ? pick([`card ending ${value}`, `last four of my card are ${value}`])
        : pick([`postcode ${value}`, `zip is ${value}`]);
  return { method: m, value, words };
}
export function idPhrase(c, f, o) {
  const orderBit = o && f.method !== 'order_number' ? `, order ${o.order_id}` : '';
  return pick([`My email is ${c.email}, ${f.words}${orderBit}.`, `${c.email} / ${f.words}${orderBit}`, `It's ${c.email}, ${f.words}${orderBit}.`]);
}
// verification: either the user opens with the details, or the assistant asks first (two user turns)
export function verified(r, c, opener, o, { askFirst = chance(0.4) } = {}) {
  const f = factor(c, o);
  if (askFirst) {
    r.user(opener);
    r.say(pick(ASK_VERIFY));
    r.user(idPhrase(c, f, o));
  } else {
    r.user(`${opener} ${idPhrase(c, f, o)}`);
  }
  r.call('verify_identity', { email: c.email, method: f.method, value: f.value }, { verified: true, customer_id: c.id, first_name: c.first });
}
