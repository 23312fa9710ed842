// The pydantic-airline fixture's trajectories (fixtures/pydantic-airline, written for this project):
// a reservation agent whose tool schemas are pydantic `model_json_schema()` output — shared models
// under `$defs` (and pydantic v1's `definitions`), arrays of referenced models, Optional models in
// `anyOf`, a model nested in a model, a recursive model — and calls that fill them. Three files:
//   trajectories.jsonl   system message = the rendered harness (match mode)
//   located.jsonl        the harness's sections inside a longer logged system message (--system-prompt locate)
//   inline.jsonl         records carrying their own tools and system message (no harness folder), with
//                        call keys their schema does not declare
// Run: node scripts/gen-pydantic-airline.mjs (after npm run build).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
const D = 'fixtures/pydantic-airline';
const H = `${D}/harness`;
const sys = execFileSync(process.execPath, ['bin/hsa', 'inspect', H, '--render'], { encoding: 'utf8' });
const tools = JSON.parse(readFileSync(`${H}/tools/tools.json`, 'utf8'));
const skill = readFileSync(`${H}/skills/rebook/SKILL.md`, 'utf8').split('---\n').slice(2).join('---\n').trim();
const tc = (id, name, args) => ({ id, type: 'function', function: { name, arguments: JSON.stringify(args) } });
const res = (id, v) => ({ role: 'tool', tool_call_id: id, content: JSON.stringify(v) });
const FL = (n, d) => ({ flight_number: n, date: d });

const conversations = [
  [
    'pa-01',
    'book',
    [
      { role: 'user', content: 'Book me and my son on HAT170 to LAX on 2026-05-20, economy, one way. I am sara_doe_496.' },
      { role: 'assistant', content: '', tool_calls: [tc('c1', 'search_direct_flight', { origin: 'JFK', destination: 'LAX', date: '2026-05-20' })] },
      res('c1', [{ flight_number: 'HAT170', seats: { economy: 9 }, price: 231 }]),
      {
        role: 'assistant',
        content: 'HAT170 has seats. I will book it with `book_reservation`.',
        tool_calls: [
          tc('c2', 'book_reservation', {
            user_id: 'sara_doe_496',
            origin: 'JFK',
            destination: 'LAX',
            flight_type: 'one_way',
            cabin: 'economy',
            flights: [FL('HAT170', '2026-05-20')],
            passengers: [
              { first_name: 'Sara', last_name: 'Doe', dob: '1988-03-02', contact: { email: 'sara@example.com', phone_number: '+1 555 0100' } },
              { first_name: 'Leo', last_name: 'Doe', dob: '2016-07-30', contact: null },
            ],
            payment_methods: [{ payment_id: 'credit_card_7815826', amount: 462 }],
            total_baggages: 1,
            insurance: { plan_code: 'basic', covered_passengers: [0, 1] },
          }),
        ],
      },
      res('c2', { reservation_id: '8JX2WO', status: 'confirmed' }),
      { role: 'assistant', content: 'Booked: reservation 8JX2WO on HAT170, 2026-05-20, for Sara and Leo, with basic insurance.' },
    ],
  ],
  [
    'pa-02',
    'status',
    [
      { role: 'user', content: 'Is HAT045 on time today, 2026-05-21? My app calls it flight_number HAT045.' },
      { role: 'assistant', content: '', tool_calls: [tc('c1', 'get_flight_status', FL('HAT045', '2026-05-21'))] },
      res('c1', { status: 'delayed', minutes: 35 }),
      { role: 'assistant', content: 'HAT045 is delayed by 35 minutes.' },
    ],
  ],
  [
    'pa-03',
    'rebook',
    [
      { role: 'user', content: 'Move reservation 4WQ150 to the HAT268 flight on 2026-06-02, same cabin. Pay with gift_card_2209.' },
      { role: 'assistant', content: '', tool_calls: [tc('c1', 'load_skill', { skill_name: 'rebook' })] },
      { role: 'tool', tool_call_id: 'c1', content: skill },
      // The call carries `user_id`, a key its schema does not declare (another tool declares it).
      { role: 'assistant', content: '', tool_calls: [tc('c2', 'get_reservation_details', { reservation_id: '4WQ150', user_id: 'mia_li_3668' })] },
      res('c2', { reservation_id: '4WQ150', cabin: 'economy', flights: [FL('HAT011', '2026-06-01')] }),
      { role: 'assistant', content: '', tool_calls: [tc('c3', 'search_direct_flight', { origin: 'SFO', destination: 'SEA', date: '2026-06-02' })] },
      res('c3', [{ flight_number: 'HAT268', price: 120 }]),
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          tc('c4', 'update_reservation_flights', {
            reservation_id: '4WQ150',
            cabin: 'economy',
            flights: [FL('HAT268', '2026-06-02')],
            standby: FL('HAT270', '2026-06-02'),
            payment_id: 'gift_card_2209',
          }),
        ],
      },
      res('c4', { ok: true }),
      { role: 'assistant', content: 'Done: 4WQ150 now flies HAT268 on 2026-06-02, standby on HAT270.' },
    ],
  ],
  [
    'pa-04',
    'baggage',
    [
      { role: 'user', content: 'Add two bags to 8JX2WO: a 23 kg suitcase and skis of 12 kg. Use credit_card_7815826.' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          tc('c1', 'add_baggage', {
            reservation_id: '8JX2WO',
            bags: [
              { weight_kg: 23, bag_kind: 'checked' },
              { weight_kg: 12, bag_kind: 'sports' },
            ],
            payment_id: 'credit_card_7815826',
          }),
        ],
      },
      res('c1', { ok: true, charged: 70 }),
      { role: 'assistant', content: 'Both bags are added; 70 was charged to the card.' },
    ],
  ],
  [
    'pa-05',
    'plan',
    [
      { role: 'user', content: 'File my trip: Lisbon 3 nights, then Porto 2 nights and from Porto Madrid 1 night, and also Faro from Lisbon. I am noah_k_12.' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          tc('c1', 'file_travel_plan', {
            user_id: 'noah_k_12',
            first_stop: {
              airport_code: 'LIS',
              nights: 3,
              onward: [
                { airport_code: 'OPO', nights: 2, onward: [{ airport_code: 'MAD', nights: 1 }] },
                { airport_code: 'FAO', onward: [] },
              ],
            },
          }),
        ],
      },
      res('c1', { plan_id: 'TP-77' }),
      { role: 'assistant', content: 'Your plan TP-77 is filed.' },
    ],
  ],
  [
    'pa-06',
    'book',
    [
      {
        role: 'user',
        content: 'Round trip BOS-ORD for me, business, HAT301 on 2026-07-01 and HAT302 on 2026-07-05. User omar_s_90, split the payment over my two cards.',
      },
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          tc('c1', 'book_reservation', {
            user_id: 'omar_s_90',
            origin: 'BOS',
            destination: 'ORD',
            flight_type: 'round_trip',
            cabin: 'business',
            flights: [FL('HAT301', '2026-07-01'), FL('HAT302', '2026-07-05')],
            passengers: [{ first_name: 'Omar', last_name: 'Saleh', dob: '1979-11-19' }],
            payment_methods: [
              { payment_id: 'credit_card_111', amount: 500 },
              { payment_id: 'credit_card_222', amount: 340.5 },
            ],
            total_baggages: 0,
          }),
        ],
      },
      res('c1', { reservation_id: 'Q9P1ZZ' }),
      { role: 'assistant', content: 'Booked Q9P1ZZ: HAT301 out, HAT302 back.' },
    ],
  ],
];

const meta = (intent) => ({ intent, lang: 'en' });
const matched = conversations.map(([id, intent, msgs]) => ({
  id,
  harness: { name: 'pydantic-airline', version: '0.3.0' },
  meta: meta(intent),
  messages: [{ role: 'system', content: sys }, ...msgs],
}));
// A logged prompt with text of the deployment around and between the harness's sections.
const parts = sys.split('\n\n# ');
const located = conversations.map(([id, intent, msgs], k) => ({
  id: `${id}-loc`,
  meta: meta(intent),
  messages: [
    {
      role: 'system',
      content: `Session ${k + 1} of desk SKY-${40 + k}. Today is 2026-05-2${k}.\n\n${parts[0]}\n\n(Agent note: escalate refunds over 1000.)\n\n# ${parts.slice(1).join('\n\n# ')}\n\nEnd of instructions.`,
    },
    ...msgs,
  ],
}));
// Inline: each record carries its tools and its own system message; no harness folder.
const inline = conversations.map(([id, intent, msgs]) => ({
  id: `${id}-in`,
  meta: meta(intent),
  tools: tools.filter((t) => t.function.name !== 'load_skill'),
  messages: [
    { role: 'system', content: 'You are the reservation agent of Skyline Air. Call the tools with arguments that follow their schemas.' },
    ...msgs.filter(
      (m, i, all) => !(m.tool_calls?.[0]?.function.name === 'load_skill' || (m.role === 'tool' && all[i - 1]?.tool_calls?.[0]?.function.name === 'load_skill')),
    ),
  ],
}));
// An inline call with undeclared keys inside a referenced model (a `fare_class` in a FlightInfo item).
inline[5].messages[2].tool_calls[0].function.arguments = JSON.stringify({
  ...JSON.parse(inline[5].messages[2].tool_calls[0].function.arguments),
  flights: [{ ...FL('HAT301', '2026-07-01'), fare_class: 'J' }, FL('HAT302', '2026-07-05')],
});
const write = (f, recs) => writeFileSync(`${D}/${f}`, recs.map((r) => JSON.stringify(r)).join('\n') + '\n');
write('trajectories.jsonl', matched);
write('located.jsonl', located);
write('inline.jsonl', inline);
