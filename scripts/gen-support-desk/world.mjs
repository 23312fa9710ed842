// The shop's world: customers, products, orders and how a reply names them.
import { int, pick, chance, digits, shuffle, ymd, round2 } from './common.mjs';

// ---------------------------------------------------------------------------------------------
// world data

export const FIRST = [
  'Maya',
  'Daniel',
  'Priya',
  'Tom',
  'Aisha',
  'Lucas',
  'Hannah',
  'Omar',
  'Grace',
  'Mateo',
  'Chloe',
  'Ethan',
  'Naomi',
  'Ravi',
  'Sofia',
  'Ben',
  'Leila',
  'Jonah',
  'Erin',
  'Kenji',
];
export const LAST = [
  'Okafor',
  'Lindqvist',
  'Ramirez',
  'Chen',
  'Novak',
  'Patel',
  'Brennan',
  'Haddad',
  'Kowalski',
  'Moreau',
  'Adeyemi',
  'Sato',
  'Fischer',
  'Walsh',
  'Costa',
  'Nguyen',
];
export const DOMAINS = ['example.com', 'example.org', 'example.net', 'mail.example.com'];
export const PLACES = [
  { city: 'Portland', region: 'OR', zip: '972' },
  { city: 'Austin', region: 'TX', zip: '787' },
  { city: 'Columbus', region: 'OH', zip: '432' },
  { city: 'Raleigh', region: 'NC', zip: '276' },
  { city: 'Denver', region: 'CO', zip: '802' },
  { city: 'Madison', region: 'WI', zip: '537' },
  { city: 'Tucson', region: 'AZ', zip: '857' },
  { city: 'Albany', region: 'NY', zip: '122' },
  { city: 'Boise', region: 'ID', zip: '837' },
  { city: 'Richmond', region: 'VA', zip: '232' },
];
export const STREETS = [
  'Maple Avenue',
  'Harbor Street',
  'Linden Road',
  'Cedar Lane',
  'Orchard Way',
  'Mill Street',
  'Prospect Place',
  'Willow Court',
  'Ridge Road',
  'Bay View Drive',
];

export const PRODUCTS = [
  {
    sku: 'KT-1042',
    name: 'cast-iron skillet (10 in)',
    price: 39.0,
    dims: '10 x 17 x 2 in',
    materials: 'pre-seasoned cast iron',
    care: 'hand wash, dry at once, oil lightly',
    warranty: 'lifetime',
    rating: 4.8,
  },
  {
    sku: 'KT-2210',
    name: 'chef knife (8 in)',
    price: 64.0,
    dims: '13 x 2 x 1 in',
    materials: 'stainless steel blade, walnut handle',
    care: 'hand wash only',
    warranty: '5 years',
    rating: 4.6,
  },
  {
    sku: 'KT-3305',
    name: 'glass storage set (10 pieces)',
    price: 29.5,
    dims: 'nested, 9 x 7 x 4 in',
    materials: 'borosilicate glass, BPA-free lids',
    care: 'dishwasher safe',
    warranty: '1 year',
    rating: 4.4,
  },
  {
    sku: 'KT-0871',
    name: 'silicone spatula pair',
    price: 12.0,
    dims: '11 in long',
    materials: 'food-grade silicone',
    care: 'dishwasher safe',
    warranty: '1 year',
    rating: 4.5,
  },
  {
    sku: 'KT-4410',
    name: 'pour-over coffee kettle',
    price: 48.0,
    dims: '1 liter',
    materials: 'stainless steel',
    care: 'hand wash',
    warranty: '2 years',
    rating: 4.7,
  },
  {
    sku: 'HM-1500',
    name: 'linen duvet cover (queen)',
    price: 129.0,
    dims: '90 x 92 in',
    materials: '100% washed linen',
    care: 'machine wash cold, tumble dry low',
    warranty: '1 year',
    rating: 4.3,
  },
  {
    sku: 'HM-2044',
    name: 'wool throw blanket',
    price: 85.0,
    dims: '50 x 70 in',
    materials: 'merino wool',
    care: 'dry clean or hand wash cold',
    warranty: '1 year',
    rating: 4.6,
  },
  {
    sku: 'HM-0318',
    name: 'ceramic table lamp',
    price: 72.0,
    dims: '18 in tall',
    materials: 'glazed ceramic, linen shade',
    care: 'wipe with a dry cloth',
    warranty: '2 years',
    rating: 4.2,
  },
  {
    sku: 'HM-0902',
    name: 'scented candle (pine)',
    price: 18.0,
    dims: '3 x 4 in',
    materials: 'soy wax, cotton wick',
    care: 'trim wick to 1/4 in',
    warranty: 'none',
    rating: 4.1,
  },
  {
    sku: 'HM-3371',
    name: 'bath towel set (4 pieces)',
    price: 44.0,
    dims: '30 x 56 in each',
    materials: 'organic cotton',
    care: 'machine wash warm',
    warranty: '1 year',
    rating: 4.5,
  },
  {
    sku: 'HM-5120',
    name: 'standing desk frame',
    price: 389.0,
    dims: '47-71 in wide, 28-47 in tall',
    materials: 'powder-coated steel',
    care: 'wipe clean',
    warranty: '7 years',
    rating: 4.4,
  },
  {
    sku: 'HM-5188',
    name: 'ergonomic office chair',
    price: 449.0,
    dims: '26 x 26 x 40-44 in',
    materials: 'mesh back, aluminium base',
    care: 'vacuum mesh, wipe base',
    warranty: '10 years',
    rating: 4.6,
  },
  {
    sku: 'OD-7703',
    name: 'two-person camping tent',
    price: 159.0,
    dims: '88 x 54 x 42 in',
    materials: 'ripstop nylon, aluminium poles',
    care: 'air dry before storing',
    warranty: '3 years',
    rating: 4.5,
  },
  {
    sku: 'OD-7719',
    name: 'insulated water bottle (32 oz)',
    price: 22.0,
    dims: '3.6 x 11 in',
    materials: 'double-wall stainless steel',
    care: 'hand wash',
    warranty: 'lifetime',
    rating: 4.8,
  },
  {
    sku: 'OD-6012',
    name: 'folding camp chair',
    price: 34.0,
    dims: '20 x 20 x 34 in',
    materials: 'polyester seat, steel frame',
    care: 'wipe clean',
    warranty: '1 year',
    rating: 4.3,
  },
  {
    sku: 'OD-6240',
    name: 'cedar raised garden bed',
    price: 119.0,
    dims: '48 x 24 x 11 in',
    materials: 'untreated western red cedar',
    care: 'no treatment needed',
    warranty: '2 years',
    rating: 4.4,
  },
  {
    sku: 'OD-8855',
    name: 'gas grill (3 burner)',
    price: 612.0,
    dims: '52 x 24 x 45 in',
    materials: 'stainless steel',
    care: 'clean grates after use',
    warranty: '5 years',
    rating: 4.5,
  },
  {
    sku: 'OD-5501',
    name: 'solar string lights',
    price: 24.0,
    dims: '33 ft',
    materials: 'copper wire, LED',
    care: 'store indoors in winter',
    warranty: '1 year',
    rating: 4.0,
  },
  {
    sku: 'OD-5530',
    name: 'hammock with stand',
    price: 139.0,
    dims: '9 ft stand',
    materials: 'cotton rope, steel stand',
    care: 'keep dry when stored',
    warranty: '2 years',
    rating: 4.3,
  },
  {
    sku: 'KT-5590',
    name: 'stand mixer',
    price: 529.0,
    dims: '14 x 9 x 14 in',
    materials: 'die-cast metal body',
    care: 'wipe body, bowl is dishwasher safe',
    warranty: '5 years',
    rating: 4.7,
  },
];
export const CHEAP = PRODUCTS.filter((p) => p.price < 60 && p.price >= 10);
export const PRICEY = PRODUCTS.filter((p) => p.price > 500);
export const CARRIERS = ['Parcelway', 'SwiftPost', 'Northline Freight'];

export function customer() {
  const first = pick(FIRST);
  const last = pick(LAST);
  const place = pick(PLACES);
  return {
    first,
    last,
    email: `${first.toLowerCase()}.${last.toLowerCase()}@${pick(DOMAINS)}`,
    id: `C-${digits(5)}`,
    zip: place.zip + digits(2),
    card4: digits(4),
    city: place.city,
    region: place.region,
  };
}
export const orderId = () => `NW-${int(1, 9)}${digits(5)}`;
export const refundId = () => `RF-${int(1, 9)}${digits(4)}`;
export const ticketId = () => `TK-${int(1, 9)}${digits(5)}`;
export const tracking = () => `PW${digits(10)}`;

export function orderOf(c, { status, placed, items, express = false }) {
  const lines = items.map(({ p, qty }) => ({ sku: p.sku, name: p.name, quantity: qty, unit_price: p.price }));
  const subtotal = round2(lines.reduce((s, l) => s + l.unit_price * l.quantity, 0));
  const shipping = subtotal >= 75 ? 0 : express ? 14.95 : 6.95;
  return {
    order_id: orderId(),
    status,
    placed_on: ymd(placed),
    placedDoy: placed,
    shipping_method: express ? 'express' : 'standard',
    ship_to: { city: c.city, region: c.region },
    subtotal,
    shipping,
    total: round2(subtotal + shipping),
    currency: 'USD',
    lines,
  };
}
export function orderView(o, withItems) {
  const v = {
    order_id: o.order_id,
    status: o.status,
    placed_on: o.placed_on,
    shipping_method: o.shipping_method,
    ship_to: o.ship_to,
    total: o.total,
    currency: o.currency,
  };
  if (o.shipped_on) v.shipped_on = o.shipped_on;
  if (o.delivered_on) v.delivered_on = o.delivered_on;
  if (o.estimated_delivery) v.estimated_delivery = o.estimated_delivery;
  if (withItems) v.items = o.lines;
  return v;
}
export const short = (name) => name.replace(/ \(.*\)$/, '');
export const itemPhrase = (o) =>
  o.lines.length === 1
    ? `the ${short(o.lines[0].name)}`
    : `the ${o.lines
        .slice(0, -1)
        .map((l) => short(l.name))
        .join(', ')} and ${short(o.lines[o.lines.length - 1].name)}`;
export function someItems(n) {
  return shuffle(CHEAP.concat(PRODUCTS.filter((p) => p.price < 200)))
    .slice(0, n)
    .map((p) => ({ p, qty: chance(0.2) ? 2 : 1 }));
}
