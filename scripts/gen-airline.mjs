// Writes fixtures/airline/trajectories.jsonl from fixtures/airline/harness (system = the rendered harness). Run after a build.
import { writeFileSync } from 'node:fs';
const { loadHarness } = await import('../dist/src/harness/load.js');
const { renderSystemPrompt } = await import('../dist/src/harness/render.js');
const { harness } = await loadHarness('fixtures/airline/harness');
const system = renderSystemPrompt(harness, {});
const body = (id) => harness.skills.find((s) => s.id === id).body;
let n = 0;
const call = (name, args) => ({ id: `call_al${String(++n).padStart(3, '0')}`, type: 'function', function: { name, arguments: JSON.stringify(args) } });
function rec(id, intent, user, steps, reply, extra = []) {
  const messages = [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
  for (const [name, args, result] of steps) {
    const c = call(name, args);
    messages.push({ role: 'assistant', content: '', tool_calls: [c] });
    messages.push({ role: 'tool', tool_call_id: c.id, content: typeof result === 'string' ? result : JSON.stringify(result) });
  }
  messages.push({ role: 'assistant', content: reply });
  messages.push(...extra);
  return { id, harness: { name: 'airline-desk', version: '1.4.0' }, meta: { intent, lang: /[\u4e00-\u9fff]/.test(user) ? 'zh' : 'en' }, messages };
}
const order = {
  confirmation_code: 'K7QX2M',
  status: 'confirmed',
  passengers: ['Ana Lima'],
  itinerary: [{ flight: 'NW214', from: 'LIS', to: 'AMS', departs: '2026-12-04T07:10' }],
};
const records = [
  rec(
    'al-0001',
    'cancel',
    'I need to cancel my booking K7QX2M, my meeting moved.',
    [
      ['load_skill', { name: 'cancel_booking' }, body('cancel_booking')],
      ['get_order_status', { confirmation_code: 'K7QX2M' }, order],
      [
        'cancel_order',
        { confirmation_code: 'K7QX2M', reason: 'meeting moved' },
        { cancelled: true, refund: { amount: 212.4, currency: 'EUR', to: 'original card' } },
      ],
    ],
    'Your booking K7QX2M is cancelled; 212.40 EUR goes back to your card in 5-7 days.',
  ),
  rec(
    'al-0002',
    'seat',
    'Can I move Ana Lima to an aisle seat, 14C, on K7QX2M?',
    [
      ['load_skill', { name: 'seat_change' }, body('seat_change')],
      ['get_order_status', { confirmation_code: 'K7QX2M' }, order],
      ['change_seat', { confirmation_code: 'K7QX2M', passenger_name: 'Ana Lima', seat: '14C' }, { ok: true, seat: '14C', cabin: 'economy', fee: 0 }],
    ],
    'Done: Ana Lima is now in 14C, no charge.',
  ),
  rec(
    'al-0003',
    'baggage',
    'How many bags can I take on a light fare?',
    [
      ['load_skill', { name: 'baggage_reply' }, body('baggage_reply')],
      ['get_baggage_allowance', { fare_class: 'light' }, { checked: 0, cabin: '1 bag up to 8 kg', extra_bag_fee: 'from 35 EUR online' }],
    ],
    'A light fare has no checked bag and one 8 kg cabin bag; extra bags can be added online from 35 EUR.',
  ),
  rec(
    'al-0004',
    'search',
    '下周五从里斯本到阿姆斯特丹有什么航班？',
    [
      ['load_skill', { name: 'flight_search' }, body('flight_search')],
      [
        'search_flights',
        { origin: 'LIS', destination: 'AMS', date: '2026-12-11' },
        {
          flights: [
            { flight: 'NW214', departs: '07:10', fare: 129 },
            { flight: 'NW218', departs: '13:45', fare: 149 },
          ],
        },
      ],
    ],
    '12月11日有两班：NW214 07:10 起飞 129 欧元，NW218 13:45 起飞 149 欧元。',
  ),
  rec(
    'al-0005',
    'checkin',
    'Please check in Ana Lima on K7QX2M.',
    [
      [
        'check_in_passenger',
        { confirmation_code: 'K7QX2M', passenger_name: 'Ana Lima' },
        { checked_in: true, boarding_pass: 'https://nw.example/bp/K7QX2M-1', gate_closes: '06:40' },
      ],
    ],
    'Ana Lima is checked in; the boarding pass is at https://nw.example/bp/K7QX2M-1 and the gate closes at 06:40.',
  ),
  rec(
    'al-0006',
    'agent',
    'My wheelchair was damaged on the last flight, who do I talk to?',
    [['transfer_to_agent', { summary: 'Passenger reports a wheelchair damaged on a recent flight.' }, { queued: true, wait_minutes: 4 }]],
    'I am sorry about your wheelchair. I have passed this to a colleague; they will join in about 4 minutes.',
  ),
  rec(
    'al-0007',
    'search',
    'Any business class flights LIS to AMS on 2026-12-04?',
    [
      ['load_skill', { name: 'flight_search' }, body('flight_search')],
      [
        'search_flights',
        { origin: 'LIS', destination: 'AMS', date: '2026-12-04', cabin: 'business' },
        { flights: [{ flight: 'NW214', departs: '07:10', fare: 489 }] },
      ],
    ],
    'One: NW214 at 07:10, business fare 489 EUR.',
  ),
  rec(
    'al-0008',
    'status',
    'What is the status of booking K7QX2M?',
    [['get_order_status', { confirmation_code: 'K7QX2M' }, order]],
    'Booking K7QX2M is confirmed: NW214 Lisbon to Amsterdam on 4 December at 07:10, passenger Ana Lima.',
  ),
];
writeFileSync('fixtures/airline/trajectories.jsonl', records.map((r) => JSON.stringify(r)).join('\n') + '\n');
