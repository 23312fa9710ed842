// Scenarios, part 1: order status, cancellation, returns, refunds, shipping, address changes.
import { int, pick, chance, digits, ymd, nice, stamp, money, round2 } from './common.mjs';
import {
  PLACES,
  STREETS,
  CHEAP,
  CARRIERS,
  customer,
  orderId,
  refundId,
  ticketId,
  tracking,
  orderOf,
  orderView,
  short,
  itemPhrase,
  someItems,
} from './world.mjs';
import { Rec, factor, idPhrase, verified } from './record.mjs';

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
    r.say(
      `Thanks, ${c.first}. Order ${o.order_id} is still being prepared at our warehouse and has not shipped yet. Standard orders usually leave within two business days, and you will get a tracking email as soon as it does.`,
    );
  } else if (status === 'shipped') {
    r.say(
      `Thanks, ${c.first}. Order ${o.order_id} shipped on ${nice(o.placedDoy + 1)} and is expected to arrive by ${nice(o.placedDoy + (o.shipping_method === 'express' ? 3 : 6))}. Would you like me to pull up the latest tracking scan?`,
    );
  } else {
    r.say(
      `Thanks, ${c.first}. Order ${o.order_id} shows as delivered on ${nice(o.placedDoy + 5)} to your address in ${c.city}. If you cannot find it, let me know and I will look into it with you.`,
    );
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
  r.call(
    'cancel_order',
    { order_id: o.order_id, reason },
    { order_id: o.order_id, status: 'cancelled', refund_amount: o.total, refund_to: 'original_payment', refund_eta_business_days: '5-10' },
  );
  r.call(
    'send_email_confirmation',
    { customer_id: c.id, template: 'order_cancelled', reference_id: o.order_id },
    { sent: true, to: c.email.replace(/^(.).*@/, '$1***@') },
  );
  r.say(
    `Done, ${c.first}: order ${o.order_id}, with ${itemPhrase(o)}, is cancelled. The ${money(o.total)} goes back to your original payment method within 5 to 10 business days, and a confirmation email is on its way.`,
  );
  return r;
};

S.return_instead_of_cancel = () => {
  const r = new Rec('return_instead_of_cancel');
  const c = customer();
  const o = orderOf(c, { status: 'shipped', placed: int(120, 140), items: someItems(1) });
  o.shipped_on = ymd(o.placedDoy + 1);
  o.estimated_delivery = ymd(o.placedDoy + 6);
  verified(r, c, pick(['Please cancel my order, I do not need it anymore.', 'Can I still cancel an order I placed a couple of days ago?']), o, {
    askFirst: false,
  });
  r.call('get_order', { order_id: o.order_id }, orderView(o, false));
  r.say(
    `Thanks, ${c.first}. Order ${o.order_id} already shipped on ${nice(o.placedDoy + 1)}, so I can no longer cancel it. Once it arrives you can return it within 30 days of delivery for a full refund; just start the return from your order page.`,
  );
  r.user(pick(['Ugh, okay. When is it supposed to show up then?', 'Fine. Do you know when it will get here?']));
  const ev = {
    status: 'in_transit',
    carrier: pick(CARRIERS),
    tracking_number: tracking(),
    last_scan: { location: `${pick(PLACES).city} sorting hub`, at: stamp(o.placedDoy + 3, int(6, 20), int(0, 59)) },
    estimated_delivery: o.estimated_delivery,
  };
  r.call('track_shipment', { order_id: o.order_id }, ev);
  r.say(
    `It was last scanned at the ${ev.last_scan.location} and is on track for delivery by ${nice(o.placedDoy + 6)}. Once it's with you, the return window starts.`,
  );
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
  r.call('create_refund', refundArgs, {
    refund_id: rid,
    status: 'approved',
    amount,
    currency: 'USD',
    refund_to: 'original_payment',
    expected_by: ymd(o.placedDoy + 20),
    return_label_emailed: returnRequired,
  });
  r.say(
    returnRequired
      ? `I'm sorry it arrived like that, ${c.first}. I've set up a full refund of ${money(amount)} for the ${short(bad.name)} (refund ${rid}). A prepaid return label is in your inbox; once the parcel is on its way the money reaches your card in 5 to 10 business days.`
      : `I'm sorry it arrived like that, ${c.first}. I've refunded the ${short(bad.name)} in full, ${money(amount)} (refund ${rid}), and there's no need to send it back. Expect the money on your original payment method within 5 to 10 business days.`,
  );
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
  verified(
    r,
    c,
    pick([
      `I ordered the ${short(ordered.name)} but got ${art} ${short(got.name)} instead.`,
      `Wrong item in my box: there's ${art} ${short(got.name)} where the ${short(ordered.name)} should be.`,
    ]),
    o,
    { askFirst: false },
  );
  r.call('get_order', { order_id: o.order_id, include_items: true }, orderView(o, true));
  const rid = refundId();
  const amount = ordered.unit_price;
  const method = chance(0.5) ? 'store_credit' : 'original_payment';
  if (method === 'store_credit') {
    r.say(
      `Sorry about the mix-up, ${c.first}. I can refund the ${ordered.name} right away. It can go back to your card in 5 to 10 business days, or as store credit that is available immediately. Which would you prefer?`,
    );
    r.user('Store credit is fine, I want to reorder it today.');
  }
  const args = { order_id: o.order_id, items: [{ sku: ordered.sku, quantity: 1 }], reason: 'wrong_item' };
  if (method === 'store_credit') args.refund_method = 'store_credit';
  args.return_required = got.price >= 25; // the wrong item goes back only when it is worth shipping
  r.call('create_refund', args, {
    refund_id: rid,
    status: method === 'store_credit' ? 'processed' : 'approved',
    amount,
    currency: 'USD',
    refund_to: method,
    return_label_emailed: args.return_required,
  });
  r.call('send_email_confirmation', { customer_id: c.id, template: 'refund_created', reference_id: rid }, { sent: true });
  const labelBit = args.return_required
    ? ` A prepaid label for sending back the ${short(got.name)} is in the confirmation email.`
    : ` No need to send back the ${short(got.name)}.`;
  r.say(
    method === 'store_credit'
      ? `All set: ${money(amount)} of store credit is already on your account (refund ${rid}), so you can reorder now.${labelBit}`
      : `Sorry about the mix-up, ${c.first}. I've refunded the ${ordered.name}, ${money(amount)}, to your original payment method (refund ${rid}); it takes 5 to 10 business days to show up.${labelBit}`,
  );
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
  r.user(
    `${pick(['Hi, I was promised a refund and have not seen it yet.', 'Checking on my refund please.'])} Refund number ${rid}${both ? ` for order ${oid}` : ''}. ${idPhrase(c, f, null)}`,
  );
  r.call('verify_identity', { email: c.email, method: f.method, value: f.value }, { verified: true, customer_id: c.id, first_name: c.first });
  const refund = { refund_id: rid, order_id: oid, state, amount, currency: 'USD', refund_to: 'original_payment', requested_on: ymd(requested) };
  if (state === 'processed') refund.processed_on = ymd(requested + 3);
  if (both) {
    r.calls([
      { name: 'get_refund_status', args: { refund_id: rid }, result: refund },
      {
        name: 'get_order',
        args: { order_id: oid },
        result: {
          order_id: oid,
          status: 'returned',
          placed_on: ymd(requested - 15),
          shipping_method: 'standard',
          ship_to: { city: c.city, region: c.region },
          total: amount,
          currency: 'USD',
        },
      },
    ]);
  } else {
    r.call('get_refund_status', { refund_id: rid }, refund);
  }
  const lead = both ? `Thanks, ${c.first}. Your return for order ${oid} has been received, and refund` : `Thanks, ${c.first}. Refund`;
  r.say(
    state === 'processed'
      ? `${lead} ${rid} for ${money(amount)} was sent to your original payment method on ${nice(requested + 3)}. Banks usually take 5 to 10 business days to show it, so it should appear soon; if it's not there after that, let me know.`
      : `${lead} ${rid} for ${money(amount)} is approved and queued for payment. Once it's sent, it takes 5 to 10 business days to appear on your statement.`,
  );
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
  r.call(
    'track_shipment',
    { order_id: o.order_id, include_history: true },
    { carrier: pick(CARRIERS), tracking_number: tracking(), status: hist[hist.length - 1].status, events: hist, estimated_delivery: ymd(eta) },
  );
  r.say(
    near
      ? `Good news, ${c.first}: your parcel is out for delivery in ${c.city} today. It left our warehouse on ${nice(o.placedDoy)} and has moved on schedule.`
      : `Thanks, ${c.first}. Your parcel was picked up on ${nice(o.placedDoy + 1)} and last scanned at the ${hist[2].location}. It's on track to arrive by ${nice(eta)}.`,
  );
  return r;
};

S.lost_parcel = () => {
  const r = new Rec('lost_parcel');
  const c = customer();
  const o = orderOf(c, { status: 'shipped', placed: int(90, 120), items: someItems(int(1, 2)) });
  verified(
    r,
    c,
    pick(['My order has been stuck for over a week, tracking has not changed at all.', 'The tracking on my parcel has not moved in ages. Is it lost?']),
    o,
    { askFirst: false },
  );
  const last = o.placedDoy + 2;
  const tn = tracking();
  const carrier = pick(CARRIERS);
  r.call(
    'track_shipment',
    { order_id: o.order_id, include_history: chance(0.5) },
    {
      carrier,
      tracking_number: tn,
      status: 'in_transit',
      last_scan: { location: `${pick(PLACES).city} sorting hub`, at: stamp(last, int(5, 21), int(0, 59)) },
      days_since_last_scan: int(6, 10),
      estimated_delivery: ymd(o.placedDoy + 6),
    },
  );
  const tid = ticketId();
  r.call(
    'create_ticket',
    {
      subject: `No tracking movement on ${o.order_id}`,
      description: `Parcel for ${o.order_id} (tracking ${tn}, ${carrier}) has shown no scan since ${ymd(last)}. Customer asks for an investigation or replacement.`,
      category: 'lost_parcel',
      priority: 'high',
      order_id: o.order_id,
      contact: { email: c.email, preferred_channel: 'email' },
    },
    { ticket_id: tid, status: 'open', first_response_within_hours: 24 },
  );
  r.say(
    `I'm sorry, ${c.first}. The parcel for order ${o.order_id} hasn't been scanned since ${nice(last)}, which is longer than it should be, so I've opened case ${tid} to investigate. The team will email you within 24 hours with either a replacement or a refund.`,
  );
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
  r.call(
    'update_shipping_address',
    { order_id: o.order_id, address: full },
    { order_id: o.order_id, updated: true, ship_to: { city: addr.city, region: addr.region } },
  );
  const email = chance(0.5);
  if (email) r.call('send_email_confirmation', { customer_id: c.id, template: 'address_updated', reference_id: o.order_id }, { sent: true });
  r.say(
    `Done, ${c.first}. Order ${o.order_id} will now go to ${said}. It hasn't shipped yet, so the change is in time${email ? ', and you will get a confirmation email shortly' : ''}.`,
  );
  return r;
};

S.change_address_too_late = () => {
  const r = new Rec('change_address');
  const c = customer();
  const o = orderOf(c, { status: 'shipped', placed: int(130, 150), items: someItems(1) });
  o.shipped_on = ymd(o.placedDoy + 1);
  o.estimated_delivery = ymd(o.placedDoy + 5);
  verified(
    r,
    c,
    pick(['Can I change the delivery address on my order? I typed the wrong street.', 'I put the wrong house number on my order, can you fix the address?']),
    o,
    { askFirst: false },
  );
  r.call('get_order', { order_id: o.order_id }, orderView(o, false));
  r.say(
    `Thanks, ${c.first}. Order ${o.order_id} already shipped on ${nice(o.placedDoy + 1)}, so I can't change the address from here anymore. If it comes back to us as undeliverable, we'll refund or reship it; I can also open a case now so the team can try to redirect it. Would you like that?`,
  );
  r.user(pick(['Yes please, open the case.', 'Please do.']));
  const tid = ticketId();
  r.call(
    'create_ticket',
    {
      subject: `Address correction after shipping, ${o.order_id}`,
      description: `Customer entered the wrong street for ${o.order_id}, which shipped on ${o.shipped_on}. Please ask the carrier to redirect or hold the parcel.`,
      category: 'other',
      priority: 'normal',
      order_id: o.order_id,
      contact: { email: c.email },
    },
    { ticket_id: tid, status: 'open', first_response_within_hours: 48 },
  );
  r.say(`Case ${tid} is open. The team will reply by email within 48 hours, ideally before the parcel reaches the delivery stage.`);
  return r;
};

export const ORDER_SCENARIOS = S;
