// Scenarios, part 2: policy and product questions, handoffs, credits, order history, account.
import { int, pick, chance, digits, shuffle, ymd, nice, money, round2 } from './common.mjs';
import { PLACES, PRODUCTS, PRICEY, customer, ticketId, orderOf, orderView, short, itemPhrase, someItems } from './world.mjs';
import { Rec, factor, idPhrase, verified } from './record.mjs';

const S = {};

export const POLICY_Q = [
  {
    q: 'How long do I have to return something?',
    query: 'return window',
    cat: 'returns',
    art: {
      id: 'HC-118',
      title: 'Returns and refunds',
      excerpt: 'Most items can be returned within 30 days of delivery for a full refund. Clearance items and opened personal-care products are final sale.',
    },
    a: "You have 30 days from delivery to return most items for a full refund. Clearance items and opened personal-care products are final sale, so those can't come back.",
  },
  {
    q: 'Do you ship to Canada?',
    query: 'international shipping Canada',
    cat: 'shipping',
    art: {
      id: 'HC-204',
      title: 'Where we ship',
      excerpt: 'We currently ship to all 50 US states and to Canada. Orders to Canada take 6 to 10 business days and duties are collected at checkout.',
    },
    a: 'Yes, we ship to Canada. Delivery takes 6 to 10 business days, and any duties are charged at checkout so there are no surprises at the door.',
  },
  {
    q: 'What is the difference between standard and express delivery?',
    query: 'standard vs express delivery time',
    cat: 'shipping',
    art: {
      id: 'HC-201',
      title: 'Delivery options',
      excerpt: 'Standard delivery arrives in 3 to 7 business days and is free over $75. Express arrives in 1 to 2 business days for $14.95.',
    },
    a: 'Standard delivery takes 3 to 7 business days and is free on orders over $75. Express takes 1 to 2 business days and costs $14.95.',
  },
  {
    q: 'Can I pay with PayPal or only cards?',
    query: 'payment methods PayPal',
    cat: 'payments',
    art: {
      id: 'HC-310',
      title: 'Ways to pay',
      excerpt: 'We accept major credit and debit cards, PayPal, Apple Pay and Northwind gift cards. Buy-now-pay-later is not available.',
    },
    a: "Both work: we take major credit and debit cards, PayPal, Apple Pay and Northwind gift cards. Buy-now-pay-later plans aren't offered.",
  },
  {
    q: 'How do I reset my password?',
    query: 'reset password',
    cat: 'account',
    art: {
      id: 'HC-402',
      title: 'Signing in',
      excerpt: 'Choose "Forgot password" on the sign-in page. A reset link valid for 60 minutes is sent to the email on the account.',
    },
    a: 'On the sign-in page, choose "Forgot password" and we\'ll email a reset link to the address on your account. The link works for 60 minutes.',
  },
  {
    q: 'Are candles returnable if I already lit one?',
    query: 'return used candle',
    cat: 'returns',
    art: {
      id: 'HC-121',
      title: 'Items that cannot be returned',
      excerpt: 'Used or burned candles, opened personal-care items and clearance items cannot be returned unless they arrived damaged.',
    },
    a: "Unfortunately a candle that has been lit can't be returned, unless it arrived damaged. Unused candles in their packaging are fine within 30 days.",
  },
  {
    q: 'Do you price match if something goes on sale after I buy it?',
    query: 'price adjustment after purchase',
    cat: 'orders',
    art: {
      id: 'HC-133',
      title: 'Price adjustments',
      excerpt: 'If an item you bought drops in price within 14 days, we refund the difference once per item. Competitor prices are not matched.',
    },
    a: "If our price drops within 14 days of your purchase, we'll refund the difference once per item. We don't match other stores' prices, though.",
  },
];

S.policy_question = () => {
  const r = new Rec('policy_question');
  const two = chance(0.5);
  const [a, b] = shuffle(POLICY_Q);
  const search = (x) => ({
    name: 'search_help_center',
    args: chance(0.5) ? { query: x.query, category: x.cat } : { query: x.query, category: x.cat, max_results: 3 },
    result: { results: [x.art] },
  });
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
  r.user(
    pick([
      `Is the ${p.name} (${p.sku}) in stock? I'd need ${qty === 2 ? 'two' : 'one'}, shipping to ${zip}. And what is it made of?`,
      `Before I buy: what's the warranty on ${p.sku}, and do you have ${qty === 2 ? 'two' : 'one'} available for delivery to ${zip}?`,
    ]),
  );
  const restock = int(150, 170);
  const inv = inStock
    ? { sku: p.sku, available: true, quantity_available: int(6, 80), ships_from: 'Reno NV', estimated_delivery_days: int(3, 6) }
    : { sku: p.sku, available: false, quantity_available: 0, restock_expected: ymd(restock) };
  r.calls([
    {
      name: 'get_product_info',
      args: { sku: p.sku, fields: ['price', 'materials', 'warranty'] },
      result: { sku: p.sku, name: p.name, price: p.price, currency: 'USD', materials: p.materials, warranty: p.warranty },
    },
    { name: 'check_inventory', args: qty === 1 ? { sku: p.sku, postal_code: zip } : { sku: p.sku, quantity: qty, postal_code: zip }, result: inv },
  ]);
  const stockBit = inStock
    ? `It's in stock and would reach ${zip} in about ${inv.estimated_delivery_days} business days.`
    : `It's out of stock right now; more is expected around ${nice(restock)}.`;
  r.say(
    `The ${p.name} is ${money(p.price)}, made of ${p.materials}, with ${p.warranty === 'lifetime' ? 'a lifetime warranty' : p.warranty === 'none' ? 'no warranty' : `a ${p.warranty.replace(/ years?$/, '-year')} warranty`}. ${stockBit}`,
  );
  return r;
};

S.compare_products = () => {
  const r = new Rec('product_question');
  const [p, q] = shuffle(PRODUCTS).slice(0, 2);
  r.user(pick([`Which is better rated, ${p.sku} or ${q.sku}? And how big is each?`, `Can you compare ${p.sku} and ${q.sku} for me: size and reviews?`]));
  const info = (x) => ({
    name: 'get_product_info',
    args: { sku: x.sku, fields: ['dimensions', 'rating'] },
    result: { sku: x.sku, name: x.name, dimensions: x.dims, rating: x.rating, review_count: int(40, 900) },
  });
  r.calls([info(p), info(q)]);
  const [hi, lo] = p.rating >= q.rating ? [p, q] : [q, p];
  r.say(
    `${hi.rating === lo.rating ? 'They are rated the same' : `The ${hi.name} is rated higher`}: ${hi.rating} versus ${lo.rating} out of 5. Sizes: the ${p.name} is ${p.dims}, and the ${q.name} is ${q.dims}.`,
  );
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
  r.call('escalate_to_human', angry ? { reason: 'customer_request', summary: topic[1], urgency: 'high' } : { reason: 'customer_request', summary: topic[1] }, {
    queued: true,
    position: int(1, 6),
    estimated_wait_minutes: wait,
  });
  r.say(
    `Of course. I've passed your request to a member of our team with a short summary, so you won't need to repeat yourself. The expected wait is about ${wait} minutes.`,
  );
  return r;
};

S.high_value_refund = () => {
  const r = new Rec('high_value_refund');
  const c = customer();
  const p = pick(PRICEY);
  const o = orderOf(c, { status: 'delivered', placed: int(90, 130), items: [{ p, qty: 1 }] });
  o.delivered_on = ymd(o.placedDoy + 6);
  verified(
    r,
    c,
    pick([
      `My ${short(p.name)} stopped working after a week and I want a refund.`,
      `The ${short(p.name)} I bought is defective. I'd like my money back, please.`,
    ]),
    o,
  );
  r.call('get_order', { order_id: o.order_id, include_items: true }, orderView(o, true));
  const wait = int(5, 20);
  r.call(
    'escalate_to_human',
    {
      reason: 'high_value_refund',
      summary: `${c.first} reports the ${short(p.name)} on ${o.order_id} (${money(o.total)}, delivered ${o.delivered_on}) failed after a week and asks for a refund.`,
      customer_id: c.id,
    },
    { queued: true, position: int(1, 4), estimated_wait_minutes: wait },
  );
  r.say(
    `I'm sorry, ${c.first}. Because this refund is over $500, a member of our team needs to approve it. I've handed it over with the details of order ${o.order_id}, so you won't have to explain again; the wait is around ${wait} minutes.`,
  );
  return r;
};

S.late_delivery_credit = () => {
  const r = new Rec('late_delivery_credit');
  const c = customer();
  const o = orderOf(c, { status: 'delivered', placed: int(90, 130), items: someItems(int(1, 2)), express: true });
  o.delivered_on = ymd(o.placedDoy + 6);
  verified(
    r,
    c,
    pick(['I paid for express shipping and it took almost a week. That is not what I paid for.', 'Express delivery, my foot. Six days for a "1-2 day" order.']),
    o,
    { askFirst: false },
  );
  r.call('get_order', { order_id: o.order_id }, orderView(o, false));
  const amount = pick([10, 14.95, 15, 20]);
  const bal = round2(amount + pick([0, 0, 5, 12.5]));
  r.call(
    'apply_store_credit',
    { customer_id: c.id, amount, currency: 'USD', reason: `Express delivery arrived late on ${o.order_id}`, order_id: o.order_id },
    { applied: true, amount, new_balance: bal, currency: 'USD' },
  );
  r.say(
    `You're right, ${c.first}, and I'm sorry: order ${o.order_id} was sent express but arrived on ${nice(o.placedDoy + 6)}. I've added ${money(amount)} of store credit to your account, available right now; your balance is ${money(bal)}.`,
  );
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
  r.call(
    'list_orders',
    { customer_id: c.id, placed_between: { from: ymd(from), to: ymd(to) }, limit: 10 },
    { orders: os.map((o) => ({ order_id: o.order_id, placed_on: o.placed_on, status: o.status, total: o.total, currency: 'USD' })) },
  );
  const detail = chance(0.6);
  if (detail) {
    r.say(
      `Thanks, ${c.first}. You placed ${os.length} orders in that period: ${os.map((o) => `${o.order_id} on ${nice(o.placedDoy)} (${money(o.total)})`).join(', ')}. Would you like the items in any of them?`,
    );
    r.user(`Yes, what was in ${os[0].order_id} and ${os[2].order_id}?`);
    r.calls([os[0], os[2]].map((o) => ({ name: 'get_order', args: { order_id: o.order_id, include_items: true }, result: orderView(o, true) })));
    r.say(
      `${os[0].order_id} had ${itemPhrase(os[0])}, and ${os[2].order_id} had ${itemPhrase(os[2])}. Each order confirmation email also works as a receipt if you need one for expenses.`,
    );
  } else {
    const total = round2(os.reduce((s, o) => s + o.total, 0));
    r.say(
      `Thanks, ${c.first}. Between ${nice(from)} and ${nice(to)} you placed ${os.length} orders: ${os.map((o) => `${o.order_id} (${nice(o.placedDoy)}, ${money(o.total)})`).join('; ')}. Together that's ${money(total)}.`,
    );
  }
  return r;
};

S.order_history_filtered = () => {
  const r = new Rec('order_history');
  const c = customer();
  const st = pick(['shipped', 'processing']);
  const os = [0, 1].map(() => orderOf(c, { status: st, placed: int(130, 150), items: someItems(1) }));
  verified(r, c, `Which of my orders are still ${st === 'shipped' ? 'on the way' : 'waiting to ship'}?`, null);
  r.call(
    'list_orders',
    { customer_id: c.id, status: st },
    { orders: os.map((o) => ({ order_id: o.order_id, placed_on: o.placed_on, status: o.status, total: o.total, currency: 'USD' })) },
  );
  r.say(
    `You have two orders ${st === 'shipped' ? 'on the way' : 'waiting to ship'}, ${c.first}: ${os[0].order_id}, placed ${nice(os[0].placedDoy)}, and ${os[1].order_id}, placed ${nice(os[1].placedDoy)}. Want me to check either in more detail?`,
  );
  return r;
};

S.verification_failed = () => {
  const r = new Rec('verification_failed');
  const c = customer();
  const wrongZip = pick(PLACES).zip + digits(2);
  const wrongCard = digits(4);
  r.user(
    pick([
      `I need to see my account details. Email ${c.email}, zip ${wrongZip}.`,
      `Hi, can you check my account? ${c.email}, postcode ${wrongZip}.`,
      `I want to update my account info. My email is ${c.email} and my zip is ${wrongZip}.`,
    ]),
  );
  r.call('verify_identity', { email: c.email, method: 'postcode', value: wrongZip }, { verified: false, attempts_remaining: 1 });
  r.say(
    "That postcode doesn't match what we have on file. Could you try a different detail instead, such as the last four digits of the card you used or an order number?",
  );
  r.user(pick([`Hm, maybe it's the card. Last four ${wrongCard}.`, `Try my card then, it ends in ${wrongCard}.`, `Odd. Card ending ${wrongCard}?`]));
  r.call('verify_identity', { email: c.email, method: 'card_last4', value: wrongCard }, { verified: false, attempts_remaining: 0, locked_minutes: 30 });
  const tid = ticketId();
  r.call(
    'create_ticket',
    {
      subject: 'Account verification failed in chat',
      description: `Two verification attempts for ${c.email} did not match. Customer wants access to account details; please follow up by email.`,
      category: 'account_access',
      priority: 'normal',
      contact: { email: c.email, preferred_channel: 'email' },
    },
    { ticket_id: tid, status: 'open', first_response_within_hours: 24 },
  );
  r.say(
    `I'm sorry, that didn't match either, so I can't open the account in this chat. I've opened case ${tid}, and our team will contact you at the email on the account within 24 hours to confirm it's you.`,
  );
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
  const profile = {
    name: 'get_customer_profile',
    args: {},
    result: {
      customer_id: c.id,
      first_name: c.first,
      tier,
      store_credit: { balance: credit, currency: 'USD' },
      default_city: c.city,
      marketing_emails: chance(0.5),
    },
  };
  const creditBit =
    credit > 0 ? `have ${money(credit)} of store credit, which is applied automatically at checkout` : "don't have any store credit at the moment";
  if (withOrders) {
    const os = [0, 1].map((i) => orderOf(c, { status: i === 0 ? 'processing' : 'delivered', placed: 140 - i * 12, items: someItems(1) }));
    r.calls([
      profile,
      {
        name: 'list_orders',
        args: { customer_id: c.id, limit: 2 },
        result: { orders: os.map((o) => ({ order_id: o.order_id, placed_on: o.placed_on, status: o.status, total: o.total, currency: 'USD' })) },
      },
    ]);
    r.say(
      `${c.first}, you ${creditBit}. Your two most recent orders are ${os[0].order_id} from ${nice(os[0].placedDoy)} (${money(os[0].total)}, still being prepared) and ${os[1].order_id} from ${nice(os[1].placedDoy)} (${money(os[1].total)}, delivered).`,
    );
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
  r.call(
    'search_help_center',
    { query: 'cancel order refund time', category: 'orders' },
    {
      results: [
        {
          id: 'HC-109',
          title: 'Cancelling an order',
          excerpt: 'Orders can be cancelled until they ship. The payment is refunded to the original method in 5 to 10 business days.',
        },
      ],
    },
  );
  r.say(
    'You can cancel any order until it ships, and the money returns to your original payment method within 5 to 10 business days. Would you like me to cancel one for you?',
  );
  const f = factor(c, null);
  const [why, note] = pick([
    ['I ordered the wrong colour', 'Wrong colour selected.'],
    ['I picked the wrong size', 'Wrong size selected.'],
    ['I ordered it twice by accident', 'Duplicate order.'],
  ]);
  r.user(`Yes, ${o.order_id}, ${why}. ${idPhrase(c, f, null)}`);
  r.call('verify_identity', { email: c.email, method: f.method, value: f.value }, { verified: true, customer_id: c.id, first_name: c.first });
  r.call(
    'cancel_order',
    { order_id: o.order_id, reason: 'ordered_by_mistake', note },
    { order_id: o.order_id, status: 'cancelled', refund_amount: o.total, refund_to: 'original_payment', refund_eta_business_days: '5-10' },
  );
  r.say(
    `Thanks, ${c.first}. Order ${o.order_id} is cancelled and ${money(o.total)} will be back on your original payment method within 5 to 10 business days. ${note === 'Duplicate order.' ? 'Your other order is untouched.' : 'You can place it again with the right option whenever you like.'}`,
  );
  return r;
};

export const HELP_SCENARIOS = S;
