#!/usr/bin/env node
// Generates fixtures/support-desk/trajectories.jsonl: 40 customer-support conversations for the
// "support-desk" harness (a foreign, minimal harness: one prompt file and a tools array).
//
// Reproducible: every random choice comes from seedrandom with a fixed seed; nothing reads the
// clock or Math.random. Running it twice writes byte-identical output.
//
// Before writing, every record is checked: the system message equals prompt/policy.md trimmed,
// every tool call names a known tool and its arguments validate against the tool's JSON Schema
// (ajv, strict mode), every call is answered by exactly one tool message, each record has 1-4
// calls, and no reply or tool result mentions a tool name. Any failure exits non-zero.
//
// Usage: node scripts/gen-support-desk.mjs [--check]   (--check: verify the file on disk matches)

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import seedrandom from 'seedrandom';
import Ajv from 'ajv';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const FIX = join(ROOT, 'fixtures', 'support-desk');
const SEED = 'support-desk/v1';
const COUNT = 40;
const HARNESS = { name: 'support-desk', version: '3.1.0' };

const policy = readFileSync(join(FIX, 'harness', 'prompt', 'policy.md'), 'utf8').trim();
const tools = JSON.parse(readFileSync(join(FIX, 'harness', 'tools', 'tools.json'), 'utf8'));

// ---------------------------------------------------------------------------------------------
// randomness

const rng = seedrandom(SEED);
const int = (lo, hi) => lo + Math.floor(rng() * (hi - lo + 1));
const pick = (arr) => arr[Math.floor(rng() * arr.length)];
const chance = (p) => rng() < p;
const digits = (n) => {
  let s = '';
  for (let i = 0; i < n; i++) s += String(Math.floor(rng() * 10));
  return s;
};
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const callId = () => {
  let s = 'call_';
  for (let i = 0; i < 24; i++) s += ALNUM[Math.floor(rng() * ALNUM.length)];
  return s;
};
function shuffle(arr) {
  const a = arr.slice();
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

// ---------------------------------------------------------------------------------------------
// dates (calendar arithmetic on day-of-year in 2026, no Date object)

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August',
  'September', 'October', 'November', 'December'];
const pad = (n) => String(n).padStart(2, '0');
function monthDay(doy) {
  let m = 0;
  let d = doy;
  while (d > MONTH_DAYS[m]) { d -= MONTH_DAYS[m]; m++; }
  return [m, d];
}
const ymd = (doy) => { const [m, d] = monthDay(doy); return `2026-${pad(m + 1)}-${pad(d)}`; };
const nice = (doy) => { const [m, d] = monthDay(doy); return `${MONTH_NAMES[m]} ${d}`; };
const stamp = (doy, hh, mm) => `${ymd(doy)}T${pad(hh)}:${pad(mm)}:00Z`;

const money = (x) => `$${x.toFixed(2)}`;
const round2 = (x) => Math.round(x * 100) / 100;

// ---------------------------------------------------------------------------------------------
// world data

const FIRST = ['Maya', 'Daniel', 'Priya', 'Tom', 'Aisha', 'Lucas', 'Hannah', 'Omar', 'Grace',
  'Mateo', 'Chloe', 'Ethan', 'Naomi', 'Ravi', 'Sofia', 'Ben', 'Leila', 'Jonah', 'Erin', 'Kenji'];
const LAST = ['Okafor', 'Lindqvist', 'Ramirez', 'Chen', 'Novak', 'Patel', 'Brennan', 'Haddad',
  'Kowalski', 'Moreau', 'Adeyemi', 'Sato', 'Fischer', 'Walsh', 'Costa', 'Nguyen'];
const DOMAINS = ['example.com', 'example.org', 'example.net', 'mail.example.com'];
const PLACES = [
  { city: 'Portland', region: 'OR', zip: '972' }, { city: 'Austin', region: 'TX', zip: '787' },
  { city: 'Columbus', region: 'OH', zip: '432' }, { city: 'Raleigh', region: 'NC', zip: '276' },
  { city: 'Denver', region: 'CO', zip: '802' }, { city: 'Madison', region: 'WI', zip: '537' },
  { city: 'Tucson', region: 'AZ', zip: '857' }, { city: 'Albany', region: 'NY', zip: '122' },
  { city: 'Boise', region: 'ID', zip: '837' }, { city: 'Richmond', region: 'VA', zip: '232' },
];
const STREETS = ['Maple Avenue', 'Harbor Street', 'Linden Road', 'Cedar Lane', 'Orchard Way',
  'Mill Street', 'Prospect Place', 'Willow Court', 'Ridge Road', 'Bay View Drive'];

const PRODUCTS = [
  { sku: 'KT-1042', name: 'cast-iron skillet (10 in)', price: 39.0, dims: '10 x 17 x 2 in', materials: 'pre-seasoned cast iron', care: 'hand wash, dry at once, oil lightly', warranty: 'lifetime', rating: 4.8 },
  { sku: 'KT-2210', name: 'chef knife (8 in)', price: 64.0, dims: '13 x 2 x 1 in', materials: 'stainless steel blade, walnut handle', care: 'hand wash only', warranty: '5 years', rating: 4.6 },
  { sku: 'KT-3305', name: 'glass storage set (10 pieces)', price: 29.5, dims: 'nested, 9 x 7 x 4 in', materials: 'borosilicate glass, BPA-free lids', care: 'dishwasher safe', warranty: '1 year', rating: 4.4 },
  { sku: 'KT-0871', name: 'silicone spatula pair', price: 12.0, dims: '11 in long', materials: 'food-grade silicone', care: 'dishwasher safe', warranty: '1 year', rating: 4.5 },
  { sku: 'KT-4410', name: 'pour-over coffee kettle', price: 48.0, dims: '1 liter', materials: 'stainless steel', care: 'hand wash', warranty: '2 years', rating: 4.7 },
  { sku: 'HM-1500', name: 'linen duvet cover (queen)', price: 129.0, dims: '90 x 92 in', materials: '100% washed linen', care: 'machine wash cold, tumble dry low', warranty: '1 year', rating: 4.3 },
  { sku: 'HM-2044', name: 'wool throw blanket', price: 85.0, dims: '50 x 70 in', materials: 'merino wool', care: 'dry clean or hand wash cold', warranty: '1 year', rating: 4.6 },
  { sku: 'HM-0318', name: 'ceramic table lamp', price: 72.0, dims: '18 in tall', materials: 'glazed ceramic, linen shade', care: 'wipe with a dry cloth', warranty: '2 years', rating: 4.2 },
  { sku: 'HM-0902', name: 'scented candle (pine)', price: 18.0, dims: '3 x 4 in', materials: 'soy wax, cotton wick', care: 'trim wick to 1/4 in', warranty: 'none', rating: 4.1 },
  { sku: 'HM-3371', name: 'bath towel set (4 pieces)', price: 44.0, dims: '30 x 56 in each', materials: 'organic cotton', care: 'machine wash warm', warranty: '1 year', rating: 4.5 },
  { sku: 'HM-5120', name: 'standing desk frame', price: 389.0, dims: '47-71 in wide, 28-47 in tall', materials: 'powder-coated steel', care: 'wipe clean', warranty: '7 years', rating: 4.4 },
  { sku: 'HM-5188', name: 'ergonomic office chair', price: 449.0, dims: '26 x 26 x 40-44 in', materials: 'mesh back, aluminium base', care: 'vacuum mesh, wipe base', warranty: '10 years', rating: 4.6 },
  { sku: 'OD-7703', name: 'two-person camping tent', price: 159.0, dims: '88 x 54 x 42 in', materials: 'ripstop nylon, aluminium poles', care: 'air dry before storing', warranty: '3 years', rating: 4.5 },
  { sku: 'OD-7719', name: 'insulated water bottle (32 oz)', price: 22.0, dims: '3.6 x 11 in', materials: 'double-wall stainless steel', care: 'hand wash', warranty: 'lifetime', rating: 4.8 },
  { sku: 'OD-6012', name: 'folding camp chair', price: 34.0, dims: '20 x 20 x 34 in', materials: 'polyester seat, steel frame', care: 'wipe clean', warranty: '1 year', rating: 4.3 },
  { sku: 'OD-6240', name: 'cedar raised garden bed', price: 119.0, dims: '48 x 24 x 11 in', materials: 'untreated western red cedar', care: 'no treatment needed', warranty: '2 years', rating: 4.4 },
  { sku: 'OD-8855', name: 'gas grill (3 burner)', price: 612.0, dims: '52 x 24 x 45 in', materials: 'stainless steel', care: 'clean grates after use', warranty: '5 years', rating: 4.5 },
  { sku: 'OD-5501', name: 'solar string lights', price: 24.0, dims: '33 ft', materials: 'copper wire, LED', care: 'store indoors in winter', warranty: '1 year', rating: 4.0 },
  { sku: 'OD-5530', name: 'hammock with stand', price: 139.0, dims: '9 ft stand', materials: 'cotton rope, steel stand', care: 'keep dry when stored', warranty: '2 years', rating: 4.3 },
  { sku: 'KT-5590', name: 'stand mixer', price: 529.0, dims: '14 x 9 x 14 in', materials: 'die-cast metal body', care: 'wipe body, bowl is dishwasher safe', warranty: '5 years', rating: 4.7 },
];
const CHEAP = PRODUCTS.filter((p) => p.price < 60 && p.price >= 10);
const PRICEY = PRODUCTS.filter((p) => p.price > 500);
const CARRIERS = ['Parcelway', 'SwiftPost', 'Northline Freight'];

function customer() {
  const first = pick(FIRST);
  const last = pick(LAST);
  const place = pick(PLACES);
  return {
    first, last,
    email: `${first.toLowerCase()}.${last.toLowerCase()}@${pick(DOMAINS)}`,
    id: `C-${digits(5)}`,
    zip: place.zip + digits(2),
    card4: digits(4),
    city: place.city, region: place.region,
  };
}
const orderId = () => `NW-${int(1, 9)}${digits(5)}`;
const refundId = () => `RF-${int(1, 9)}${digits(4)}`;
const ticketId = () => `TK-${int(1, 9)}${digits(5)}`;
const tracking = () => `PW${digits(10)}`;

function orderOf(c, { status, placed, items, express = false }) {
  const lines = items.map(({ p, qty }) => ({ sku: p.sku, name: p.name, quantity: qty, unit_price: p.price }));
  const subtotal = round2(lines.reduce((s, l) => s + l.unit_price * l.quantity, 0));
  const shipping = subtotal >= 75 ? 0 : express ? 14.95 : 6.95;
  return {
    order_id: orderId(), status, placed_on: ymd(placed), placedDoy: placed,
    shipping_method: express ? 'express' : 'standard',
    ship_to: { city: c.city, region: c.region },
    subtotal, shipping, total: round2(subtotal + shipping), currency: 'USD', lines,
  };
}
function orderView(o, withItems) {
  const v = {
    order_id: o.order_id, status: o.status, placed_on: o.placed_on,
    shipping_method: o.shipping_method, ship_to: o.ship_to,
    total: o.total, currency: o.currency,
  };
  if (o.shipped_on) v.shipped_on = o.shipped_on;
  if (o.delivered_on) v.delivered_on = o.delivered_on;
  if (o.estimated_delivery) v.estimated_delivery = o.estimated_delivery;
  if (withItems) v.items = o.lines;
  return v;
}
const short = (name) => name.replace(/ \(.*\)$/, '');
const itemPhrase = (o) => o.lines.length === 1
  ? `the ${short(o.lines[0].name)}`
  : `the ${o.lines.slice(0, -1).map((l) => short(l.name)).join(', ')} and ${short(o.lines[o.lines.length - 1].name)}`;
function someItems(n) {
  return shuffle(CHEAP.concat(PRODUCTS.filter((p) => p.price < 200))).slice(0, n).map((p) => ({ p, qty: chance(0.2) ? 2 : 1 }));
}

// ---------------------------------------------------------------------------------------------
// record builder

class Rec {
  constructor(intent) {
    this.meta = { intent };
    this.messages = [{ role: 'system', content: policy }];
  }
  user(text) { this.messages.push({ role: 'user', content: text }); return this; }
  say(text) { this.messages.push({ role: 'assistant', content: text }); return this; }
  // one assistant round with one or more (parallel) calls, then their results in call order
  calls(list) {
    const withIds = list.map((c) => ({ ...c, id: callId() }));
    this.messages.push({
      role: 'assistant', content: '',
      tool_calls: withIds.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } })),
    });
    for (const c of withIds) this.messages.push({ role: 'tool', tool_call_id: c.id, content: JSON.stringify(c.result) });
    return this;
  }
  call(name, args, result) { return this.calls([{ name, args, result }]); }
}

const ASK_VERIFY = [
  'I can help with that. First, could you confirm the email on your account and one of these: the order number, the last four digits of the card you paid with, or your postcode?',
  'Happy to look into it. To make sure I am talking to the account holder, please share your account email plus either the order number, your postcode, or the last four digits of your payment card.',
  'Sure thing. Before I open your account, I need to verify it: what is the email on the account, and can you give me your order number, billing postcode or the last four digits of your card?',
];

function factor(c, o) {
  const m = pick(o ? ['order_number', 'card_last4', 'postcode'] : ['card_last4', 'postcode']);
  const value = m === 'order_number' ? o.order_id : m === 'card_last4' ? c.card4 : c.zip;
  const words = m === 'order_number' ? `order ${value}` : m === 'card_last4' ? pick([`card ending ${value}`, `last four of my card are ${value}`]) : pick([`postcode ${value}`, `zip is ${value}`]);
  return { method: m, value, words };
}
function idPhrase(c, f, o) {
  const orderBit = o && f.method !== 'order_number' ? `, order ${o.order_id}` : '';
  return pick([`My email is ${c.email}, ${f.words}${orderBit}.`, `${c.email} / ${f.words}${orderBit}`, `It's ${c.email}, ${f.words}${orderBit}.`]);
}
// verification: either the user opens with the details, or the assistant asks first (two user turns)
function verified(r, c, opener, o, { askFirst = chance(0.4) } = {}) {
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

// ---------------------------------------------------------------------------------------------
// scenarios

const S = {};

S.order_status = () => {
  const r = new Rec('order_status');
  const c = customer();
  const status = pick(['processing', 'shipped', 'delivered']);
  const o = orderOf(c, { status, placed: int(95, 130), items: someItems(int(1, 2)), express: chance(0.3) });
  if (status !== 'processing') o.shipped_on = ymd(o.placedDoy + 1);
  if (status === 'shipped') o.estimated_delivery = ymd(o.placedDoy + (o.shipping_method === 'express' ? 3 : 6));
  if (status === 'delivered') o.delivered_on = ymd(o.placedDoy + 5);
  const opener = pick([
    'Hi, can you tell me what is going on with my order?',
    'Hello! Any update on my order? It has been a few days.',
    'I placed an order last week and want to check its status.',
  ]);
  verified(r, c, opener, o);
  r.call('get_order', { order_id: o.order_id }, orderView(o, false));
  if (status === 'processing') {
    r.say(`Thanks, ${c.first}. Order ${o.order_id} is still being prepared at our warehouse and has not shipped yet. Standard orders usually leave within two business days, and you will get a tracking email as soon as it does.`);
  } else if (status === 'shipped') {
    r.say(`Thanks, ${c.first}. Order ${o.order_id} shipped on ${nice(o.placedDoy + 1)} and is expected to arrive by ${nice(o.placedDoy + (o.shipping_method === 'express' ? 3 : 6))}. Would you like me to pull up the latest tracking scan?`);
  } else {
    r.say(`Thanks, ${c.first}. Order ${o.order_id} shows as delivered on ${nice(o.placedDoy + 5)} to your address in ${c.city}. If you cannot find it, let me know and I will look into it with you.`);
  }
  return r;
};

S.cancel_order = () => {
  const r = new Rec('cancel_order');
  const c = customer();
  const o = orderOf(c, { status: pick(['pending', 'processing']), placed: int(110, 140), items: someItems(int(1, 3)) });
  const reason = pick(['changed_mind', 'ordered_by_mistake', 'found_better_price', 'delivery_too_slow']);
  const why = {
    changed_mind: 'I changed my mind about it.',
    ordered_by_mistake: 'I ordered it by mistake, it was meant to go in my wishlist.',
    found_better_price: 'I found it cheaper somewhere else, sorry.',
    delivery_too_slow: 'The delivery estimate is too late for what I need it for.',
  }[reason];
  verified(r, c, `I'd like to cancel an order please. ${why}`, o, { askFirst: false });
  r.call('get_order', { order_id: o.order_id, include_items: true }, orderView(o, true));
  r.call('cancel_order', { order_id: o.order_id, reason }, { order_id: o.order_id, status: 'cancelled', refund_amount: o.total, refund_to: 'original_payment', refund_eta_business_days: '5-10' });
  r.call('send_email_confirmation', { customer_id: c.id, template: 'order_cancelled', reference_id: o.order_id }, { sent: true, to: c.email.replace(/^(.).*@/, '$1***@') });
  r.say(`Done, ${c.first}: order ${o.order_id}, with ${itemPhrase(o)}, is cancelled. The ${money(o.total)} goes back to your original payment method within 5 to 10 business days, and a confirmation email is on its way.`);
  return r;
};

S.return_instead_of_cancel = () => {
  const r = new Rec('return_instead_of_cancel');
  const c = customer();
  const o = orderOf(c, { status: 'shipped', placed: int(120, 140), items: someItems(1) });
  o.shipped_on = ymd(o.placedDoy + 1);
  o.estimated_delivery = ymd(o.placedDoy + 6);
  verified(r, c, pick(['Please cancel my order, I do not need it anymore.', 'Can I still cancel an order I placed a couple of days ago?']), o, { askFirst: false });
  r.call('get_order', { order_id: o.order_id }, orderView(o, false));
  r.say(`Thanks, ${c.first}. Order ${o.order_id} already shipped on ${nice(o.placedDoy + 1)}, so I can no longer cancel it. Once it arrives you can return it within 30 days of delivery for a full refund; just start the return from your order page.`);
  r.user(pick(['Ugh, okay. When is it supposed to show up then?', 'Fine. Do you know when it will get here?']));
  const ev = { status: 'in_transit', carrier: pick(CARRIERS), tracking_number: tracking(), last_scan: { location: `${pick(PLACES).city} sorting hub`, at: stamp(o.placedDoy + 3, int(6, 20), int(0, 59)) }, estimated_delivery: o.estimated_delivery };
  r.call('track_shipment', { order_id: o.order_id }, ev);
  r.say(`It was last scanned at the ${ev.last_scan.location} and is on track for delivery by ${nice(o.placedDoy + 6)}. Once it's with you, the return window starts.`);
  return r;
};

S.damaged_item_refund = () => {
  const r = new Rec('damaged_item_refund');
  const c = customer();
  const items = someItems(int(1, 3));
  const o = orderOf(c, { status: 'delivered', placed: int(60, 120), items });
  o.delivered_on = ymd(o.placedDoy + 5);
  const bad = o.lines[0];
  const returnRequired = bad.unit_price >= 25;
  const opener = pick([
    `My ${bad.name} arrived broken. I want my money back.`,
    `The ${bad.name} in my last order came damaged, the box was crushed.`,
    `Hi, one of the items I received, the ${bad.name}, is damaged. What can you do?`,
  ]);
  verified(r, c, opener, o);
  r.call('get_order', { order_id: o.order_id, include_items: true }, orderView(o, true));
  const amount = round2(bad.unit_price * 1);
  const rid = refundId();
  const refundArgs = { order_id: o.order_id, items: [{ sku: bad.sku, quantity: 1 }], reason: 'damaged', return_required: returnRequired };
  r.call('create_refund', refundArgs, { refund_id: rid, status: 'approved', amount, currency: 'USD', refund_to: 'original_payment', expected_by: ymd(o.placedDoy + 20), return_label_emailed: returnRequired });
  r.say(returnRequired
    ? `I'm sorry it arrived like that, ${c.first}. I've set up a full refund of ${money(amount)} for the ${short(bad.name)} (refund ${rid}). A prepaid return label is in your inbox; once the parcel is on its way the money reaches your card in 5 to 10 business days.`
    : `I'm sorry it arrived like that, ${c.first}. I've refunded the ${short(bad.name)} in full, ${money(amount)} (refund ${rid}), and there's no need to send it back. Expect the money on your original payment method within 5 to 10 business days.`);
  return r;
};

S.wrong_item = () => {
  const r = new Rec('wrong_item');
  const c = customer();
  const o = orderOf(c, { status: 'delivered', placed: int(80, 125), items: someItems(int(1, 2)) });
  o.delivered_on = ymd(o.placedDoy + 4);
  const ordered = o.lines[0];
  const got = pick(CHEAP.filter((p) => p.sku !== ordered.sku));
  const art = /^[aeiou]/.test(got.name) ? 'an' : 'a';
  verified(r, c, pick([
    `I ordered the ${short(ordered.name)} but got ${art} ${short(got.name)} instead.`,
    `Wrong item in my box: there's ${art} ${short(got.name)} where the ${short(ordered.name)} should be.`,
  ]), o, { askFirst: false });
  r.call('get_order', { order_id: o.order_id, include_items: true }, orderView(o, true));
  const rid = refundId();
  const amount = ordered.unit_price;
  const method = chance(0.5) ? 'store_credit' : 'original_payment';
  if (method === 'store_credit') {
    r.say(`Sorry about the mix-up, ${c.first}. I can refund the ${ordered.name} right away. It can go back to your card in 5 to 10 business days, or as store credit that is available immediately. Which would you prefer?`);
    r.user('Store credit is fine, I want to reorder it today.');
  }
  const args = { order_id: o.order_id, items: [{ sku: ordered.sku, quantity: 1 }], reason: 'wrong_item' };
  if (method === 'store_credit') args.refund_method = 'store_credit';
  args.return_required = got.price >= 25; // the wrong item goes back only when it is worth shipping
  r.call('create_refund', args, { refund_id: rid, status: method === 'store_credit' ? 'processed' : 'approved', amount, currency: 'USD', refund_to: method, return_label_emailed: args.return_required });
  r.call('send_email_confirmation', { customer_id: c.id, template: 'refund_created', reference_id: rid }, { sent: true });
  const labelBit = args.return_required ? ` A prepaid label for sending back the ${short(got.name)} is in the confirmation email.` : ` No need to send back the ${short(got.name)}.`;
  r.say(method === 'store_credit'
    ? `All set: ${money(amount)} of store credit is already on your account (refund ${rid}), so you can reorder now.${labelBit}`
    : `Sorry about the mix-up, ${c.first}. I've refunded the ${ordered.name}, ${money(amount)}, to your original payment method (refund ${rid}); it takes 5 to 10 business days to show up.${labelBit}`);
  return r;
};

S.refund_status = () => {
  const r = new Rec('refund_status');
  const c = customer();
  const rid = refundId();
  const oid = orderId();
  const state = pick(['approved', 'processed']);
  const requested = int(100, 130);
  const amount = round2(pick(CHEAP).price + pick([0, 0, 6.95]));
  const both = chance(0.6);
  const f = factor(c, null);
  r.user(`${pick(['Hi, I was promised a refund and have not seen it yet.', 'Checking on my refund please.'])} Refund number ${rid}${both ? ` for order ${oid}` : ''}. ${idPhrase(c, f, null)}`);
  r.call('verify_identity', { email: c.email, method: f.method, value: f.value }, { verified: true, customer_id: c.id, first_name: c.first });
  const refund = { refund_id: rid, order_id: oid, state, amount, currency: 'USD', refund_to: 'original_payment', requested_on: ymd(requested) };
  if (state === 'processed') refund.processed_on = ymd(requested + 3);
  if (both) {
    r.calls([
      { name: 'get_refund_status', args: { refund_id: rid }, result: refund },
      { name: 'get_order', args: { order_id: oid }, result: { order_id: oid, status: 'returned', placed_on: ymd(requested - 15), shipping_method: 'standard', ship_to: { city: c.city, region: c.region }, total: amount, currency: 'USD' } },
    ]);
  } else {
    r.call('get_refund_status', { refund_id: rid }, refund);
  }
  const lead = both ? `Thanks, ${c.first}. Your return for order ${oid} has been received, and refund` : `Thanks, ${c.first}. Refund`;
  r.say(state === 'processed'
    ? `${lead} ${rid} for ${money(amount)} was sent to your original payment method on ${nice(requested + 3)}. Banks usually take 5 to 10 business days to show it, so it should appear soon; if it's not there after that, let me know.`
    : `${lead} ${rid} for ${money(amount)} is approved and queued for payment. Once it's sent, it takes 5 to 10 business days to appear on your statement.`);
  return r;
};

S.track_shipment = () => {
  const r = new Rec('track_shipment');
  const c = customer();
  const o = orderOf(c, { status: 'shipped', placed: int(120, 145), items: someItems(int(1, 2)), express: chance(0.4) });
  const eta = o.placedDoy + (o.shipping_method === 'express' ? 3 : 6);
  verified(r, c, pick(['Where is my package?', 'Can you track my parcel for me?', 'My order says shipped but I have no idea where it is.']), o);
  const hist = [
    { status: 'label_created', location: 'Northwind warehouse, Reno NV', at: stamp(o.placedDoy, 17, int(0, 59)) },
    { status: 'picked_up', location: 'Reno NV', at: stamp(o.placedDoy + 1, 9, int(0, 59)) },
    { status: 'in_transit', location: `${pick(PLACES).city} sorting hub`, at: stamp(o.placedDoy + 2, int(4, 22), int(0, 59)) },
  ];
  const near = chance(0.5);
  if (near) hist.push({ status: 'out_for_delivery', location: c.city, at: stamp(o.placedDoy + 3, 7, int(0, 59)) });
  r.call('track_shipment', { order_id: o.order_id, include_history: true }, { carrier: pick(CARRIERS), tracking_number: tracking(), status: hist[hist.length - 1].status, events: hist, estimated_delivery: ymd(eta) });
  r.say(near
    ? `Good news, ${c.first}: your parcel is out for delivery in ${c.city} today. It left our warehouse on ${nice(o.placedDoy)} and has moved on schedule.`
    : `Thanks, ${c.first}. Your parcel was picked up on ${nice(o.placedDoy + 1)} and last scanned at the ${hist[2].location}. It's on track to arrive by ${nice(eta)}.`);
  return r;
};

S.lost_parcel = () => {
  const r = new Rec('lost_parcel');
  const c = customer();
  const o = orderOf(c, { status: 'shipped', placed: int(90, 120), items: someItems(int(1, 2)) });
  verified(r, c, pick(['My order has been stuck for over a week, tracking has not changed at all.', 'The tracking on my parcel has not moved in ages. Is it lost?']), o, { askFirst: false });
  const last = o.placedDoy + 2;
  const tn = tracking();
  const carrier = pick(CARRIERS);
  r.call('track_shipment', { order_id: o.order_id, include_history: chance(0.5) }, { carrier, tracking_number: tn, status: 'in_transit', last_scan: { location: `${pick(PLACES).city} sorting hub`, at: stamp(last, int(5, 21), int(0, 59)) }, days_since_last_scan: int(6, 10), estimated_delivery: ymd(o.placedDoy + 6) });
  const tid = ticketId();
  r.call('create_ticket', {
    subject: `No tracking movement on ${o.order_id}`,
    description: `Parcel for ${o.order_id} (tracking ${tn}, ${carrier}) has shown no scan since ${ymd(last)}. Customer asks for an investigation or replacement.`,
    category: 'lost_parcel', priority: 'high', order_id: o.order_id,
    contact: { email: c.email, preferred_channel: 'email' },
  }, { ticket_id: tid, status: 'open', first_response_within_hours: 24 });
  r.say(`I'm sorry, ${c.first}. The parcel for order ${o.order_id} hasn't been scanned since ${nice(last)}, which is longer than it should be, so I've opened case ${tid} to investigate. The team will email you within 24 hours with either a replacement or a refund.`);
  return r;
};

S.change_address = () => {
  const r = new Rec('change_address');
  const c = customer();
  const o = orderOf(c, { status: 'processing', placed: int(130, 150), items: someItems(int(1, 2)) });
  const np = pick(PLACES);
  const addr = { line1: `${int(10, 980)} ${pick(STREETS)}`, city: np.city, region: np.region, postal_code: np.zip + digits(2), country: 'US' };
  const unit = chance(0.4) ? `Apt ${int(1, 40)}${pick(['', 'B', 'C'])}` : null;
  const full = { recipient: `${c.first} ${c.last}`, line1: addr.line1 };
  if (unit) full.line2 = unit;
  Object.assign(full, { city: addr.city, region: addr.region, postal_code: addr.postal_code, country: 'US' });
  const said = `${addr.line1}${unit ? `, ${unit}` : ''}, ${addr.city}, ${addr.region} ${addr.postal_code}`;
  verified(r, c, `I just moved and need my order sent to ${said} instead.`, o);
  r.call('get_order', { order_id: o.order_id }, orderView(o, false));
  r.call('update_shipping_address', { order_id: o.order_id, address: full }, { order_id: o.order_id, updated: true, ship_to: { city: addr.city, region: addr.region } });
  const email = chance(0.5);
  if (email) r.call('send_email_confirmation', { customer_id: c.id, template: 'address_updated', reference_id: o.order_id }, { sent: true });
  r.say(`Done, ${c.first}. Order ${o.order_id} will now go to ${said}. It hasn't shipped yet, so the change is in time${email ? ', and you will get a confirmation email shortly' : ''}.`);
  return r;
};

S.change_address_too_late = () => {
  const r = new Rec('change_address');
  const c = customer();
  const o = orderOf(c, { status: 'shipped', placed: int(130, 150), items: someItems(1) });
  o.shipped_on = ymd(o.placedDoy + 1);
  o.estimated_delivery = ymd(o.placedDoy + 5);
  verified(r, c, pick(['Can I change the delivery address on my order? I typed the wrong street.', 'I put the wrong house number on my order, can you fix the address?']), o, { askFirst: false });
  r.call('get_order', { order_id: o.order_id }, orderView(o, false));
  r.say(`Thanks, ${c.first}. Order ${o.order_id} already shipped on ${nice(o.placedDoy + 1)}, so I can't change the address from here anymore. If it comes back to us as undeliverable, we'll refund or reship it; I can also open a case now so the team can try to redirect it. Would you like that?`);
  r.user(pick(['Yes please, open the case.', 'Please do.']));
  const tid = ticketId();
  r.call('create_ticket', {
    subject: `Address correction after shipping, ${o.order_id}`,
    description: `Customer entered the wrong street for ${o.order_id}, which shipped on ${o.shipped_on}. Please ask the carrier to redirect or hold the parcel.`,
    category: 'other', priority: 'normal', order_id: o.order_id,
    contact: { email: c.email },
  }, { ticket_id: tid, status: 'open', first_response_within_hours: 48 });
  r.say(`Case ${tid} is open. The team will reply by email within 48 hours, ideally before the parcel reaches the delivery stage.`);
  return r;
};

const POLICY_Q = [
  { q: 'How long do I have to return something?', query: 'return window', cat: 'returns', art: { id: 'HC-118', title: 'Returns and refunds', excerpt: 'Most items can be returned within 30 days of delivery for a full refund. Clearance items and opened personal-care products are final sale.' }, a: 'You have 30 days from delivery to return most items for a full refund. Clearance items and opened personal-care products are final sale, so those can\'t come back.' },
  { q: 'Do you ship to Canada?', query: 'international shipping Canada', cat: 'shipping', art: { id: 'HC-204', title: 'Where we ship', excerpt: 'We currently ship to all 50 US states and to Canada. Orders to Canada take 6 to 10 business days and duties are collected at checkout.' }, a: 'Yes, we ship to Canada. Delivery takes 6 to 10 business days, and any duties are charged at checkout so there are no surprises at the door.' },
  { q: 'What is the difference between standard and express delivery?', query: 'standard vs express delivery time', cat: 'shipping', art: { id: 'HC-201', title: 'Delivery options', excerpt: 'Standard delivery arrives in 3 to 7 business days and is free over $75. Express arrives in 1 to 2 business days for $14.95.' }, a: 'Standard delivery takes 3 to 7 business days and is free on orders over $75. Express takes 1 to 2 business days and costs $14.95.' },
  { q: 'Can I pay with PayPal or only cards?', query: 'payment methods PayPal', cat: 'payments', art: { id: 'HC-310', title: 'Ways to pay', excerpt: 'We accept major credit and debit cards, PayPal, Apple Pay and Northwind gift cards. Buy-now-pay-later is not available.' }, a: 'Both work: we take major credit and debit cards, PayPal, Apple Pay and Northwind gift cards. Buy-now-pay-later plans aren\'t offered.' },
  { q: 'How do I reset my password?', query: 'reset password', cat: 'account', art: { id: 'HC-402', title: 'Signing in', excerpt: 'Choose "Forgot password" on the sign-in page. A reset link valid for 60 minutes is sent to the email on the account.' }, a: 'On the sign-in page, choose "Forgot password" and we\'ll email a reset link to the address on your account. The link works for 60 minutes.' },
  { q: 'Are candles returnable if I already lit one?', query: 'return used candle', cat: 'returns', art: { id: 'HC-121', title: 'Items that cannot be returned', excerpt: 'Used or burned candles, opened personal-care items and clearance items cannot be returned unless they arrived damaged.' }, a: 'Unfortunately a candle that has been lit can\'t be returned, unless it arrived damaged. Unused candles in their packaging are fine within 30 days.' },
  { q: 'Do you price match if something goes on sale after I buy it?', query: 'price adjustment after purchase', cat: 'orders', art: { id: 'HC-133', title: 'Price adjustments', excerpt: 'If an item you bought drops in price within 14 days, we refund the difference once per item. Competitor prices are not matched.' }, a: 'If our price drops within 14 days of your purchase, we\'ll refund the difference once per item. We don\'t match other stores\' prices, though.' },
];

S.policy_question = () => {
  const r = new Rec('policy_question');
  const two = chance(0.5);
  const [a, b] = shuffle(POLICY_Q);
  const search = (x) => ({ name: 'search_help_center', args: chance(0.5) ? { query: x.query, category: x.cat } : { query: x.query, category: x.cat, max_results: 3 }, result: { results: [x.art] } });
  if (two && chance(0.6)) {
    // two questions in one message, looked up in parallel
    r.user(`Two quick questions. ${a.q} And ${b.q.charAt(0).toLowerCase()}${b.q.slice(1)}`);
    r.calls([search(a), search(b)]);
    r.say(`${a.a}\n\nAs for your second question: ${b.a.charAt(0).toLowerCase()}${b.a.slice(1)}`);
  } else {
    r.user(a.q);
    r.calls([search(a)]);
    r.say(a.a);
    if (two) {
      r.user(pick(['Thanks. One more thing: ', 'Got it. Also, ']) + b.q.charAt(0).toLowerCase() + b.q.slice(1));
      r.calls([search(b)]);
      r.say(b.a);
    }
  }
  return r;
};

S.product_question = () => {
  const r = new Rec('product_question');
  const p = pick(PRODUCTS.filter((x) => x.price < 500));
  const zip = pick(PLACES).zip + digits(2);
  const qty = chance(0.3) ? 2 : 1;
  const inStock = chance(0.7);
  r.user(pick([
    `Is the ${p.name} (${p.sku}) in stock? I'd need ${qty === 2 ? 'two' : 'one'}, shipping to ${zip}. And what is it made of?`,
    `Before I buy: what's the warranty on ${p.sku}, and do you have ${qty === 2 ? 'two' : 'one'} available for delivery to ${zip}?`,
  ]));
  const restock = int(150, 170);
  const inv = inStock
    ? { sku: p.sku, available: true, quantity_available: int(6, 80), ships_from: 'Reno NV', estimated_delivery_days: int(3, 6) }
    : { sku: p.sku, available: false, quantity_available: 0, restock_expected: ymd(restock) };
  r.calls([
    { name: 'get_product_info', args: { sku: p.sku, fields: ['price', 'materials', 'warranty'] }, result: { sku: p.sku, name: p.name, price: p.price, currency: 'USD', materials: p.materials, warranty: p.warranty } },
    { name: 'check_inventory', args: qty === 1 ? { sku: p.sku, postal_code: zip } : { sku: p.sku, quantity: qty, postal_code: zip }, result: inv },
  ]);
  const stockBit = inStock
    ? `It's in stock and would reach ${zip} in about ${inv.estimated_delivery_days} business days.`
    : `It's out of stock right now; more is expected around ${nice(restock)}.`;
  r.say(`The ${p.name} is ${money(p.price)}, made of ${p.materials}, with ${p.warranty === 'lifetime' ? 'a lifetime warranty' : p.warranty === 'none' ? 'no warranty' : `a ${p.warranty.replace(/ years?$/, '-year')} warranty`}. ${stockBit}`);
  return r;
};

S.compare_products = () => {
  const r = new Rec('product_question');
  const [p, q] = shuffle(PRODUCTS).slice(0, 2);
  r.user(pick([`Which is better rated, ${p.sku} or ${q.sku}? And how big is each?`, `Can you compare ${p.sku} and ${q.sku} for me: size and reviews?`]));
  const info = (x) => ({ name: 'get_product_info', args: { sku: x.sku, fields: ['dimensions', 'rating'] }, result: { sku: x.sku, name: x.name, dimensions: x.dims, rating: x.rating, review_count: int(40, 900) } });
  r.calls([info(p), info(q)]);
  const [hi, lo] = p.rating >= q.rating ? [p, q] : [q, p];
  r.say(`${hi.rating === lo.rating ? 'They are rated the same' : `The ${hi.name} is rated higher`}: ${hi.rating} versus ${lo.rating} out of 5. Sizes: the ${p.name} is ${p.dims}, and the ${q.name} is ${q.dims}.`);
  return r;
};

S.human_handoff = () => {
  const r = new Rec('human_handoff');
  const angry = chance(0.5);
  const topic = pick([
    ['a charge on my card I do not recognise', 'Customer reports an unrecognised charge on their card and wants to speak with a person.'],
    ['a complaint about one of your delivery drivers', 'Customer wants to file a complaint about a delivery driver and asked for a person.'],
    ['setting up a bulk order for my office', 'Customer wants to discuss a bulk order for an office and asked for a person.'],
  ]);
  r.user(angry ? `I want to talk to a real person NOW. It's about ${topic[0]}.` : `Could I speak to a human agent? It's about ${topic[0]}.`);
  const wait = int(3, 15);
  r.call('escalate_to_human', angry
    ? { reason: 'customer_request', summary: topic[1], urgency: 'high' }
    : { reason: 'customer_request', summary: topic[1] }, { queued: true, position: int(1, 6), estimated_wait_minutes: wait });
  r.say(`Of course. I've passed your request to a member of our team with a short summary, so you won't need to repeat yourself. The expected wait is about ${wait} minutes.`);
  return r;
};

S.high_value_refund = () => {
  const r = new Rec('high_value_refund');
  const c = customer();
  const p = pick(PRICEY);
  const o = orderOf(c, { status: 'delivered', placed: int(90, 130), items: [{ p, qty: 1 }] });
  o.delivered_on = ymd(o.placedDoy + 6);
  verified(r, c, pick([`My ${short(p.name)} stopped working after a week and I want a refund.`, `The ${short(p.name)} I bought is defective. I'd like my money back, please.`]), o);
  r.call('get_order', { order_id: o.order_id, include_items: true }, orderView(o, true));
  const wait = int(5, 20);
  r.call('escalate_to_human', { reason: 'high_value_refund', summary: `${c.first} reports the ${short(p.name)} on ${o.order_id} (${money(o.total)}, delivered ${o.delivered_on}) failed after a week and asks for a refund.`, customer_id: c.id }, { queued: true, position: int(1, 4), estimated_wait_minutes: wait });
  r.say(`I'm sorry, ${c.first}. Because this refund is over $500, a member of our team needs to approve it. I've handed it over with the details of order ${o.order_id}, so you won't have to explain again; the wait is around ${wait} minutes.`);
  return r;
};

S.late_delivery_credit = () => {
  const r = new Rec('late_delivery_credit');
  const c = customer();
  const o = orderOf(c, { status: 'delivered', placed: int(90, 130), items: someItems(int(1, 2)), express: true });
  o.delivered_on = ymd(o.placedDoy + 6);
  verified(r, c, pick(['I paid for express shipping and it took almost a week. That is not what I paid for.', 'Express delivery, my foot. Six days for a "1-2 day" order.']), o, { askFirst: false });
  r.call('get_order', { order_id: o.order_id }, orderView(o, false));
  const amount = pick([10, 14.95, 15, 20]);
  const bal = round2(amount + pick([0, 0, 5, 12.5]));
  r.call('apply_store_credit', { customer_id: c.id, amount, currency: 'USD', reason: `Express delivery arrived late on ${o.order_id}`, order_id: o.order_id }, { applied: true, amount, new_balance: bal, currency: 'USD' });
  r.say(`You're right, ${c.first}, and I'm sorry: order ${o.order_id} was sent express but arrived on ${nice(o.placedDoy + 6)}. I've added ${money(amount)} of store credit to your account, available right now; your balance is ${money(bal)}.`);
  return r;
};

S.order_history = () => {
  const r = new Rec('order_history');
  const c = customer();
  const from = int(60, 100);
  const to = from + 30;
  const os = [0, 1, 2].map((i) => {
    const o = orderOf(c, { status: 'delivered', placed: from + 3 + i * 8, items: someItems(1) });
    o.delivered_on = ymd(o.placedDoy + 5);
    return o;
  });
  verified(r, c, `Can you list what I ordered between ${nice(from)} and ${nice(to)}? I need it for my expenses.`, null, { askFirst: false });
  r.call('list_orders', { customer_id: c.id, placed_between: { from: ymd(from), to: ymd(to) }, limit: 10 }, { orders: os.map((o) => ({ order_id: o.order_id, placed_on: o.placed_on, status: o.status, total: o.total, currency: 'USD' })) });
  const detail = chance(0.6);
  if (detail) {
    r.say(`Thanks, ${c.first}. You placed ${os.length} orders in that period: ${os.map((o) => `${o.order_id} on ${nice(o.placedDoy)} (${money(o.total)})`).join(', ')}. Would you like the items in any of them?`);
    r.user(`Yes, what was in ${os[0].order_id} and ${os[2].order_id}?`);
    r.calls([os[0], os[2]].map((o) => ({ name: 'get_order', args: { order_id: o.order_id, include_items: true }, result: orderView(o, true) })));
    r.say(`${os[0].order_id} had ${itemPhrase(os[0])}, and ${os[2].order_id} had ${itemPhrase(os[2])}. Each order confirmation email also works as a receipt if you need one for expenses.`);
  } else {
    const total = round2(os.reduce((s, o) => s + o.total, 0));
    r.say(`Thanks, ${c.first}. Between ${nice(from)} and ${nice(to)} you placed ${os.length} orders: ${os.map((o) => `${o.order_id} (${nice(o.placedDoy)}, ${money(o.total)})`).join('; ')}. Together that's ${money(total)}.`);
  }
  return r;
};

S.order_history_filtered = () => {
  const r = new Rec('order_history');
  const c = customer();
  const st = pick(['shipped', 'processing']);
  const os = [0, 1].map(() => orderOf(c, { status: st, placed: int(130, 150), items: someItems(1) }));
  verified(r, c, `Which of my orders are still ${st === 'shipped' ? 'on the way' : 'waiting to ship'}?`, null);
  r.call('list_orders', { customer_id: c.id, status: st }, { orders: os.map((o) => ({ order_id: o.order_id, placed_on: o.placed_on, status: o.status, total: o.total, currency: 'USD' })) });
  r.say(`You have two orders ${st === 'shipped' ? 'on the way' : 'waiting to ship'}, ${c.first}: ${os[0].order_id}, placed ${nice(os[0].placedDoy)}, and ${os[1].order_id}, placed ${nice(os[1].placedDoy)}. Want me to check either in more detail?`);
  return r;
};

S.verification_failed = () => {
  const r = new Rec('verification_failed');
  const c = customer();
  const wrongZip = pick(PLACES).zip + digits(2);
  const wrongCard = digits(4);
  r.user(pick([
    `I need to see my account details. Email ${c.email}, zip ${wrongZip}.`,
    `Hi, can you check my account? ${c.email}, postcode ${wrongZip}.`,
    `I want to update my account info. My email is ${c.email} and my zip is ${wrongZip}.`,
  ]));
  r.call('verify_identity', { email: c.email, method: 'postcode', value: wrongZip }, { verified: false, attempts_remaining: 1 });
  r.say('That postcode doesn\'t match what we have on file. Could you try a different detail instead, such as the last four digits of the card you used or an order number?');
  r.user(pick([`Hm, maybe it's the card. Last four ${wrongCard}.`, `Try my card then, it ends in ${wrongCard}.`, `Odd. Card ending ${wrongCard}?`]));
  r.call('verify_identity', { email: c.email, method: 'card_last4', value: wrongCard }, { verified: false, attempts_remaining: 0, locked_minutes: 30 });
  const tid = ticketId();
  r.call('create_ticket', { subject: 'Account verification failed in chat', description: `Two verification attempts for ${c.email} did not match. Customer wants access to account details; please follow up by email.`, category: 'account_access', priority: 'normal', contact: { email: c.email, preferred_channel: 'email' } }, { ticket_id: tid, status: 'open', first_response_within_hours: 24 });
  r.say(`I'm sorry, that didn't match either, so I can't open the account in this chat. I've opened case ${tid}, and our team will contact you at the email on the account within 24 hours to confirm it's you.`);
  return r;
};

S.account_info = () => {
  const r = new Rec('account_info');
  const c = customer();
  const credit = pick([0, 12.5, 25, 40]);
  const tier = pick(['standard', 'plus']);
  const withOrders = chance(0.5);
  const opener = withOrders
    ? 'Can you show me my store credit balance and my last couple of orders?'
    : pick(['How much store credit do I have?', 'What membership level am I on, and do I have any credit?']);
  verified(r, c, opener, null);
  const profile = { name: 'get_customer_profile', args: {}, result: { customer_id: c.id, first_name: c.first, tier, store_credit: { balance: credit, currency: 'USD' }, default_city: c.city, marketing_emails: chance(0.5) } };
  const creditBit = credit > 0 ? `have ${money(credit)} of store credit, which is applied automatically at checkout` : 'don\'t have any store credit at the moment';
  if (withOrders) {
    const os = [0, 1].map((i) => orderOf(c, { status: i === 0 ? 'processing' : 'delivered', placed: 140 - i * 12, items: someItems(1) }));
    r.calls([profile, { name: 'list_orders', args: { customer_id: c.id, limit: 2 }, result: { orders: os.map((o) => ({ order_id: o.order_id, placed_on: o.placed_on, status: o.status, total: o.total, currency: 'USD' })) } }]);
    r.say(`${c.first}, you ${creditBit}. Your two most recent orders are ${os[0].order_id} from ${nice(os[0].placedDoy)} (${money(os[0].total)}, still being prepared) and ${os[1].order_id} from ${nice(os[1].placedDoy)} (${money(os[1].total)}, delivered).`);
  } else {
    r.calls([profile]);
    r.say(`${c.first}, you're on the ${tier === 'plus' ? 'Plus' : 'Standard'} membership and ${creditBit}.`);
  }
  return r;
};

S.cancel_and_help = () => {
  // two user turns: a policy question first, then an order action
  const r = new Rec('cancel_order');
  const c = customer();
  const o = orderOf(c, { status: 'pending', placed: int(140, 150), items: someItems(1) });
  r.user(pick(['If I cancel an order, how long does the refund take?', 'How long do refunds take when an order gets cancelled?']));
  r.call('search_help_center', { query: 'cancel order refund time', category: 'orders' }, { results: [{ id: 'HC-109', title: 'Cancelling an order', excerpt: 'Orders can be cancelled until they ship. The payment is refunded to the original method in 5 to 10 business days.' }] });
  r.say('You can cancel any order until it ships, and the money returns to your original payment method within 5 to 10 business days. Would you like me to cancel one for you?');
  const f = factor(c, null);
  const [why, note] = pick([['I ordered the wrong colour', 'Wrong colour selected.'], ['I picked the wrong size', 'Wrong size selected.'], ['I ordered it twice by accident', 'Duplicate order.']]);
  r.user(`Yes, ${o.order_id}, ${why}. ${idPhrase(c, f, null)}`);
  r.call('verify_identity', { email: c.email, method: f.method, value: f.value }, { verified: true, customer_id: c.id, first_name: c.first });
  r.call('cancel_order', { order_id: o.order_id, reason: 'ordered_by_mistake', note }, { order_id: o.order_id, status: 'cancelled', refund_amount: o.total, refund_to: 'original_payment', refund_eta_business_days: '5-10' });
  r.say(`Thanks, ${c.first}. Order ${o.order_id} is cancelled and ${money(o.total)} will be back on your original payment method within 5 to 10 business days. ${note === 'Duplicate order.' ? 'Your other order is untouched.' : 'You can place it again with the right option whenever you like.'}`);
  return r;
};

// ---------------------------------------------------------------------------------------------
// schedule: every scenario once, then distinct scenarios again up to COUNT, order shuffled

const KEYS = Object.keys(S);
const schedule = KEYS.slice();
while (schedule.length < COUNT) schedule.push(...shuffle(KEYS).slice(0, COUNT - schedule.length));
const order = shuffle(schedule);

const records = order.map((k, i) => {
  const r = S[k]();
  return { id: `sd-${String(i + 1).padStart(4, '0')}`, harness: HARNESS, meta: r.meta, messages: r.messages };
});

// ---------------------------------------------------------------------------------------------
// self-check

const ajv = new Ajv({ strict: true, allErrors: true });
const validators = new Map(tools.map((t) => [t.function.name, ajv.compile(t.function.parameters)]));
const NAME_RE = /^[a-zA-Z0-9_-]{1,64}$/;
const toolNameRe = new RegExp(`\\b(${[...validators.keys()].join('|')})\\b`);
const problems = [];
const fail = (id, msg) => problems.push(`${id}: ${msg}`);

if (tools.length !== 16) fail('tools.json', `expected 16 tools, found ${tools.length}`);
for (const t of tools) if (!NAME_RE.test(t.function.name)) fail('tools.json', `bad tool name ${t.function.name}`);

const stats = { records: 0, calls: 0, parallel: 0, multiTurn: 0, perCount: {}, intents: {} };
for (const rec of records) {
  const { id, messages } = rec;
  if (messages[0].role !== 'system' || messages[0].content !== policy) fail(id, 'system message is not policy.md trimmed');
  let nCalls = 0;
  let users = 0;
  for (let i = 1; i < messages.length; i++) {
    const m = messages[i];
    if (m.role === 'user') users++;
    if (m.role === 'assistant') {
      if (typeof m.content !== 'string') fail(id, `message ${i}: assistant content must be a string`);
      if (!m.tool_calls && toolNameRe.test(m.content)) fail(id, `message ${i}: reply mentions a tool name`);
      if (!m.tool_calls) continue;
      if (m.content !== '') fail(id, `message ${i}: tool-calling assistant content must be ""`);
      if (m.tool_calls.length > 1) stats.parallel++;
      const answers = messages.slice(i + 1, i + 1 + m.tool_calls.length);
      m.tool_calls.forEach((tc, k) => {
        nCalls++;
        if (!/^call_[A-Za-z0-9]+$/.test(tc.id) || tc.type !== 'function') fail(id, `message ${i}: bad call envelope`);
        const v = validators.get(tc.function.name);
        if (!v) { fail(id, `unknown tool ${tc.function.name}`); return; }
        let args;
        try { args = JSON.parse(tc.function.arguments); } catch { fail(id, `${tc.function.name}: arguments are not JSON`); return; }
        if (!v(args)) fail(id, `${tc.function.name}: ${ajv.errorsText(v.errors)}`);
        const n = messages.filter((x) => x.role === 'tool' && x.tool_call_id === tc.id).length;
        if (n !== 1) fail(id, `${tc.id} answered ${n} times`);
        const a = answers[k];
        if (!a || a.role !== 'tool' || a.tool_call_id !== tc.id) fail(id, `${tc.id}: result does not follow its call`);
        else {
          try { JSON.parse(a.content); } catch { fail(id, `${tc.id}: tool content is not JSON`); }
          if (toolNameRe.test(a.content)) fail(id, `${tc.id}: tool result mentions a tool name`);
        }
      });
    }
  }
  const last = messages[messages.length - 1];
  if (last.role !== 'assistant' || last.tool_calls || !last.content) fail(id, 'does not end with a final assistant reply');
  if (nCalls < 1 || nCalls > 4) fail(id, `${nCalls} tool calls (want 1-4)`);
  const ids = messages.flatMap((m) => (m.tool_calls || []).map((t) => t.id));
  if (new Set(ids).size !== ids.length) fail(id, 'duplicate tool call ids');
  stats.records++;
  stats.calls += nCalls;
  stats.perCount[nCalls] = (stats.perCount[nCalls] || 0) + 1;
  stats.intents[rec.meta.intent] = (stats.intents[rec.meta.intent] || 0) + 1;
  if (users >= 2) stats.multiTurn++;
}
const usedTools = new Set(records.flatMap((r) => r.messages.flatMap((m) => (m.tool_calls || []).map((t) => t.function.name))));
for (const name of validators.keys()) if (!usedTools.has(name)) fail('records', `tool ${name} is never called`);

if (problems.length) {
  console.error(`gen-support-desk: ${problems.length} problem(s):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}

const out = records.map((r) => JSON.stringify(r)).join('\n') + '\n';
const target = join(FIX, 'trajectories.jsonl');
if (process.argv.includes('--check')) {
  let cur = '';
  try { cur = readFileSync(target, 'utf8'); } catch { /* missing */ }
  if (cur !== out) {
    console.error(`gen-support-desk: ${target} is out of date; run node scripts/gen-support-desk.mjs`);
    process.exit(1);
  }
  console.log('gen-support-desk: up to date');
} else {
  writeFileSync(target, out);
  console.log(`gen-support-desk: wrote ${stats.records} records, ${stats.calls} tool calls to ${target}`);
}
console.log(`  calls per record: ${JSON.stringify(stats.perCount)}; rounds with parallel calls: ${stats.parallel}; records with 2+ user turns: ${stats.multiTurn}`);
console.log(`  intents: ${JSON.stringify(stats.intents)}`);
