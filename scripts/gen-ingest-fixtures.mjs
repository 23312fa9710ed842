#!/usr/bin/env node
// Generates the logs of fixtures/ingest/ (written for this project, not taken from public data):
//   helpdesk/matched.jsonl        system message = the prompt files as written (with and without the final newline)
//   helpdesk/appended.jsonl       the harness text plus appended deployment rules      (--system-prompt locate)
//   helpdesk/wrapped.jsonl        <instructions>…</instructions><policy>…</policy> + a dynamic line (locate)
//   helpdesk/reused-ids.jsonl     tool-call ids reused across turns (call_0, call_1 every turn), parallel calls
//   helpdesk/outer-mentions.jsonl appended rules that name a tool (variants renaming it are rejected)
//   inline/records.jsonl          airline and retail-returns records, each with its own tools (OpenAI and
//                                 MCP shapes; one tool name with different schemas in different records),
//                                 parallel calls, some records sharing (tools, system)
// Reproducible: every choice comes from seedrandom with a fixed seed. Usage: node scripts/gen-ingest-fixtures.mjs

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import seedrandom from 'seedrandom';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const FIX = join(ROOT, 'fixtures', 'ingest');
const rng = seedrandom('ingest-fixtures/v1');
const int = (lo, hi) => lo + Math.floor(rng() * (hi - lo + 1));
const pick = (a) => a[Math.floor(rng() * a.length)];
const chance = (p) => rng() < p;
const hex = (n) => Array.from({ length: n }, () => '0123456789abcdef'[int(0, 15)]).join('');
const digits = (n) => Array.from({ length: n }, () => String(int(0, 9))).join('');
const shuffle = (a) => {
  const out = [...a];
  for (let i = out.length - 1; i > 0; i--) {
    const j = int(0, i);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
};
const write = (rel, records) => writeFileSync(join(FIX, rel), records.map((r) => JSON.stringify(r)).join('\n') + '\n');

// ---------------------------------------------------------------------------------------------
// IT helpdesk (a harness folder)

const roleFile = readFileSync(join(FIX, 'helpdesk', 'prompt', 'role.md'), 'utf8');
const policyFile = readFileSync(join(FIX, 'helpdesk', 'prompt', 'policy.md'), 'utf8');
const role = roleFile.trim();
const policy = policyFile.trim();
const NAMES = ['Ana Sousa', 'Ben Okafor', 'Chen Wei', 'Dora Lind', 'Emil Novak', 'Fatima Zahra', 'Goran Ilic', 'Hana Sato'];
const OFFICES = ['Lisbon', 'Lagos', 'Osaka', 'Tallinn', 'Quito'];

/** One helpdesk conversation; `ids(turn, k)` names the k-th call of an assistant message. */
function helpdesk(system, ids) {
  const emp = `E${digits(5)}`;
  const name = pick(NAMES);
  const who = JSON.stringify({ employee_id: emp, name, team: pick(['finance', 'lab', 'sales', 'facilities']), devices: [`NW-L-${digits(3)}`] });
  const messages = system === null ? [] : [{ role: 'system', content: system }];
  let turn = 0;
  const call = (name, args) => ({ id: ids(turn, 0), type: 'function', function: { name, arguments: JSON.stringify(args) } });
  const scenario = pick(['password', 'hardware', 'both']);
  if (scenario === 'password' || scenario === 'both') {
    messages.push({ role: 'user', content: `Hi, I'm locked out of my account. My staff id is ${emp}.` });
    const c = call('lookup_employee', { employee_id: emp });
    messages.push({ role: 'assistant', content: '', tool_calls: [c] }, { role: 'tool', tool_call_id: c.id, content: who });
    messages.push({ role: 'assistant', content: `Thanks, ${name.split(' ')[0]}. Should I send the reset link by SMS or by email?` });
    turn++;
    const channel = pick(['sms', 'email']);
    messages.push({ role: 'user', content: channel === 'sms' ? 'Text me, please.' : 'Email is fine.' });
    const r = call('reset_password', { employee_id: emp, channel });
    messages.push(
      { role: 'assistant', content: '', tool_calls: [r] },
      { role: 'tool', tool_call_id: r.id, content: JSON.stringify({ sent: true, expires_in_min: 30 }) },
    );
    messages.push({ role: 'assistant', content: `Done: a reset link is on its way by ${channel === 'sms' ? 'SMS' : 'email'}; it works for 30 minutes.` });
    turn++;
  }
  if (scenario === 'hardware' || scenario === 'both') {
    const tag = `NW-L-${digits(3)}`;
    messages.push({ role: 'user', content: `My laptop ${tag} keeps flickering and shuts down. Staff id ${emp}.` });
    // Parallel calls: the employee and the device at once.
    const a = { id: ids(turn, 0), type: 'function', function: { name: 'lookup_employee', arguments: JSON.stringify({ employee_id: emp }) } };
    const b = { id: ids(turn, 1), type: 'function', function: { name: 'device_status', arguments: JSON.stringify({ asset_tag: tag }) } };
    messages.push({ role: 'assistant', content: 'Let me check you and the laptop.', tool_calls: [a, b] });
    messages.push(
      { role: 'tool', tool_call_id: a.id, content: who },
      { role: 'tool', tool_call_id: b.id, content: JSON.stringify({ asset_tag: tag, battery: 'failing', last_seen: '2026-02-27' }) },
    );
    // Real desks take free text for `due`: valid with `format` as an annotation, not as an assertion.
    const args = { employee_id: emp, category: 'laptop', summary: 'Screen flickers, then the laptop shuts down', asset_tag: tag, priority: int(1, 4) };
    if (chance(0.5)) args.due = pick(['next Friday', 'asap', '2026-03-20']);
    const t = { id: ids(turn, 2), type: 'function', function: { name: 'create_ticket', arguments: JSON.stringify(args) } };
    messages.push(
      { role: 'assistant', content: '', tool_calls: [t] },
      { role: 'tool', tool_call_id: t.id, content: JSON.stringify({ ticket: `HD-${digits(4)}` }) },
    );
    messages.push({ role: 'assistant', content: 'The battery is failing. I opened a ticket; a technician will contact you today.' });
  }
  return messages;
}

const fresh = () => `call_${hex(8)}`;
let n = 0;
const rec = (prefix, system, ids = fresh) => ({ id: `${prefix}-${String(++n).padStart(3, '0')}`, messages: helpdesk(system, ids) });

n = 0;
write('helpdesk/matched.jsonl', [
  // The files as written, joined by the separator: role.md + "\n" + policy.md (final newline kept) …
  ...Array.from({ length: 6 }, () => rec('hd-match', `${roleFile}\n${policyFile}`)),
  // … and the same text without the final newline, as many loggers store it.
  ...Array.from({ length: 6 }, () => rec('hd-match', `${role}\n\n${policy}`)),
]);

const deployment = "\n\nDeployment notes:\n- Answer in the employee's language.\n- Keep every reply under 80 words.\n";
n = 0;
write(
  'helpdesk/appended.jsonl',
  Array.from({ length: 10 }, () => rec('hd-appended', `${role}\n\n${policy}${deployment}`)),
);

n = 0;
write(
  'helpdesk/wrapped.jsonl',
  Array.from({ length: 10 }, () =>
    rec(
      'hd-wrapped',
      `<instructions>\n${role}\n</instructions>\n<policy>\n${policy}\n</policy>\nCurrent date: 2026-03-${String(int(1, 28)).padStart(2, '0')}. Office: ${pick(OFFICES)}.`,
    ),
  ),
);

n = 0;
write(
  'helpdesk/reused-ids.jsonl',
  Array.from({ length: 10 }, () => rec('hd-reused', `${role}\n\n${policy}`, (_turn, k) => `call_${k}`)),
);

n = 0;
write(
  'helpdesk/outer-mentions.jsonl',
  Array.from({ length: 4 }, () => rec('hd-mentions', `${role}\n\n${policy}\n\nWhen the employee is verified, call reset_password at once.`)),
);

// ---------------------------------------------------------------------------------------------
// Per-record tools (inline harnesses): airline and retail returns

const obj = (properties, required) => ({ type: 'object', properties, required, additionalProperties: false });
const TOOLS = {
  airline: {
    // The same name, two schemas: records of different airlines' logs.
    get_booking_a: ['get_booking', 'Look up a booking by its reference.', obj({ booking_ref: { type: 'string', pattern: '^[A-Z0-9]{6}$' } }, ['booking_ref'])],
    get_booking_b: [
      'get_booking',
      'Find a booking from the confirmation code and the passenger surname.',
      obj({ confirmation: { type: 'string', minLength: 5 }, last_name: { type: 'string' } }, ['confirmation', 'last_name']),
    ],
    flight_status: [
      'flight_status',
      'Current status of a flight.',
      obj({ flight_number: { type: 'string', pattern: '^[A-Z]{2}\\d{2,4}$' } }, ['flight_number']),
    ],
    change_flight: [
      'change_flight',
      'Move a booking to another flight.',
      obj({ booking_ref: { type: 'string' }, flight_number: { type: 'string' }, fare_difference_ok: { type: 'boolean' } }, ['booking_ref', 'flight_number']),
    ],
    add_bag: [
      'add_bag',
      'Add checked bags to a booking.',
      obj({ booking_ref: { type: 'string' }, bags: { type: 'integer', minimum: 1, maximum: 3 } }, ['booking_ref', 'bags']),
    ],
    seat_map: [
      'seat_map',
      'Free seats of a flight.',
      obj({ flight_number: { type: 'string' }, cabin: { type: 'string', enum: ['economy', 'business'] } }, ['flight_number']),
    ],
    search_flights: [
      'search_flights',
      'Search flights between two airports on a day.',
      obj(
        {
          origin: { type: 'string', minLength: 3, maxLength: 3 },
          destination: { type: 'string', minLength: 3, maxLength: 3 },
          date: { type: 'string', format: 'date' },
        },
        ['origin', 'destination', 'date'],
      ),
    ],
    transfer_to_human_agents: ['transfer_to_human_agents', 'Hand the conversation to a human agent.', obj({ summary: { type: 'string' } }, ['summary'])],
  },
  retail: {
    find_order_a: ['find_order', 'Find an order by its id.', obj({ order_id: { type: 'string', pattern: '^#W\\d{7}$' } }, ['order_id'])],
    find_order_b: [
      'find_order',
      'Find an order from the customer email and order number.',
      obj({ email: { type: 'string' }, order_number: { type: 'integer', minimum: 1 } }, ['email', 'order_number']),
    ],
    return_items: [
      'return_items',
      'Start a return for delivered items.',
      obj(
        {
          order_id: { type: 'string' },
          item_ids: { type: 'array', items: { type: 'string' }, minItems: 1 },
          refund_method: { type: 'string', enum: ['original_payment', 'gift_card'] },
        },
        ['order_id', 'item_ids', 'refund_method'],
      ),
    ],
    track_package: ['track_package', 'Where a parcel is.', obj({ tracking_id: { type: 'string' } }, ['tracking_id'])],
    return_policy: ['return_policy', 'The return policy for a product category.', obj({ category: { type: 'string' } }, [])],
    list_reasons: ['list_return_reasons', 'Return reasons the warehouse accepts.', { type: 'object', properties: {} }],
    exchange_item: [
      'exchange_item',
      'Exchange an item for another variant.',
      obj({ order_id: { type: 'string' }, item_id: { type: 'string' }, new_item_id: { type: 'string' } }, ['order_id', 'item_id', 'new_item_id']),
    ],
  },
};
const SYSTEMS = {
  airline: [
    'You are the Skyline Air assistant. Look the booking up with get_booking before you change it, and confirm every change with the passenger.',
    '# Skyline Air\nHelp passengers with bookings, bags and seats.\n\n## Rules\n- Use `get_booking` first.\n- Never change a flight without the passenger saying yes.\n',
  ],
  retail: [
    'You help customers of Marlow & Finch with returns and deliveries. Find the order with find_order first.',
    'Returns desk of Marlow & Finch. Be brief.\n',
  ],
};

function toolJson(spec, mcp) {
  const [name, description, parameters] = spec;
  return mcp ? { name, description, inputSchema: parameters } : { type: 'function', function: { name, description, parameters } };
}

function inlineRecord(i, shared) {
  // A quarter of the records repeat an earlier record's (tools, system): they share one derived harness.
  const again = shared.length > 0 && chance(0.25) ? pick(shared) : null;
  const domain = again ? again.domain : pick(['airline', 'retail']);
  let tools = again?.tools;
  const system = again ? again.system : chance(0.75) ? pick(SYSTEMS[domain]) : null;
  if (!tools) {
    const pool = TOOLS[domain];
    const lookupKey = `${domain === 'airline' ? 'get_booking' : 'find_order'}_${pick(['a', 'b'])}`;
    const needed = domain === 'airline' ? [lookupKey, 'flight_status', pick(['change_flight', 'add_bag'])] : [lookupKey, 'track_package', 'return_items'];
    const others = shuffle(Object.keys(pool).filter((k) => !needed.includes(k) && k.slice(0, -2) !== lookupKey.slice(0, -2)));
    const mcp = chance(0.3);
    tools = shuffle([...needed, ...others.slice(0, int(0, others.length))]).map((k) => toolJson(pool[k], mcp));
  }
  const toolNames = new Set(tools.map((t) => t.name ?? t.function.name));
  const lookupSpec = tools
    .map((t) => t.inputSchema ?? t.function.parameters)
    .find((_, j) => (tools[j].name ?? tools[j].function.name) === (domain === 'airline' ? 'get_booking' : 'find_order'));
  const messages = system === null ? [] : [{ role: 'system', content: system }];
  const c = (name, args) => ({ id: `call_${hex(10)}`, type: 'function', function: { name, arguments: JSON.stringify(args) } });
  if (toolNames.has('get_booking')) {
    const ref = Array.from({ length: 6 }, () => 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'[int(0, 31)]).join('');
    const flight = `SK${digits(3)}`;
    const lookupArgs = 'booking_ref' in lookupSpec.properties ? { booking_ref: ref } : { confirmation: ref, last_name: pick(['Okafor', 'Lind', 'Sato']) };
    messages.push({ role: 'user', content: `My booking ${ref} on ${flight}: is it on time, and can I add a bag?` });
    const a = c('get_booking', lookupArgs);
    const b = c('flight_status', { flight_number: flight });
    messages.push({ role: 'assistant', content: '', tool_calls: [a, b] });
    messages.push({ role: 'tool', tool_call_id: a.id, content: JSON.stringify({ booking_ref: ref, flights: [flight], bags: 0 }) });
    messages.push({ role: 'tool', tool_call_id: b.id, content: JSON.stringify({ flight_number: flight, status: 'on time' }) });
    if (toolNames.has('add_bag')) {
      const bag = c('add_bag', { booking_ref: ref, bags: int(1, 2) });
      messages.push(
        { role: 'assistant', content: 'Your flight is on time. Adding the bag now.', tool_calls: [bag] },
        { role: 'tool', tool_call_id: bag.id, content: '{"ok":true,"fee_eur":35}' },
      );
      messages.push({ role: 'assistant', content: 'Done: one bag added for 35 EUR.' });
    } else {
      messages.push({ role: 'assistant', content: 'Your flight is on time. Bags can be added at check-in for this fare.' });
    }
  } else {
    const oid = `#W${digits(7)}`;
    const lookupArgs = 'order_id' in lookupSpec.properties ? { order_id: oid } : { email: 'sam@example.org', order_number: int(1000, 9999) };
    messages.push({ role: 'user', content: `I want to return the blue mug from order ${oid}, and where is my other parcel?` });
    const a = c('find_order', lookupArgs);
    const b = c('track_package', { tracking_id: `TRK${digits(8)}` });
    messages.push({ role: 'assistant', content: 'Checking both.', tool_calls: [a, b] });
    // These logs name the tool on each result, as OpenAI-style loggers do.
    messages.push({
      role: 'tool',
      tool_call_id: a.id,
      name: 'find_order',
      content: JSON.stringify({ order_id: oid, items: [{ id: 'it-1', name: 'blue mug' }] }),
    });
    messages.push({ role: 'tool', tool_call_id: b.id, name: 'track_package', content: '{"status":"out for delivery"}' });
    const r = c('return_items', { order_id: oid, item_ids: ['it-1'], refund_method: pick(['original_payment', 'gift_card']) });
    messages.push({ role: 'assistant', content: '', tool_calls: [r] }, { role: 'tool', tool_call_id: r.id, content: '{"return_id":"R-88"}' });
    messages.push({ role: 'assistant', content: 'The return is open (R-88), and your parcel is out for delivery.' });
  }
  if (!again) shared.push({ tools, system, domain });
  return { id: `inline-${String(i + 1).padStart(3, '0')}`, tools, messages, meta: { domain } };
}

const shared = [];
write(
  'inline/records.jsonl',
  Array.from({ length: 40 }, (_, i) => inlineRecord(i, shared)),
);
