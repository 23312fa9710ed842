// The clinic-desk fixture's trajectories (fixtures/clinic, written for this project): an outpatient
// front desk with Chinese rules and skills, skills full of code examples, nested schemas ($defs and
// $ref, oneOf, a top-level wrapper, enums with defaults), a dotted tool name and hook feedback.
// Run: node scripts/gen-clinic.mjs (after npm run build).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
const H = 'fixtures/clinic/harness';
const ctx = path.join(mkdtempSync(path.join(tmpdir(), 'hsa-clinic-')), 'context.json');
writeFileSync(ctx, JSON.stringify({ patient: { name: 'Wei Zhang' } }));
const sys = execFileSync(process.execPath, ['bin/hsa', 'inspect', H, '--render', '--context', ctx], { encoding: 'utf8' });
const tc = (id, name, args) => ({ id, type: 'function', function: { name, arguments: JSON.stringify(args) } });
const recs = [];
const S = (n) => sys.replace('Wei Zhang.', n + '.');
recs.push({
  id: 'cl-1',
  context: { patient: { name: 'Wei Zhang' } },
  messages: [
    { role: 'system', content: S('Wei Zhang') },
    {
      role: 'user',
      content:
        'Hi, I am Wei Zhang, born 1980-02-11. Can I book an urgent visit tomorrow 09:30 for 30 minutes? My phone is +44 20 7946 0018. Please note "find_patient" is what my old app called it.',
    },
    {
      role: 'assistant',
      content: 'Let me verify you first with `find_patient`.',
      tool_calls: [tc('c1', 'find_patient', { full_name: 'Wei Zhang', date_of_birth: '1980-02-11' })],
    },
    { role: 'tool', tool_call_id: 'c1', content: '{"patient_id": "PT-004512", "full_name": "Wei Zhang", "note": "use book_appointment next"}' },
    { role: 'assistant', content: '', tool_calls: [tc('c2', 'list_slots', { day: '2026-03-02', doctor: 'dr_chen' })] },
    { role: 'tool', tool_call_id: 'c2', content: '[{"start": "2026-03-02T09:30:00", "minutes": 30}]' },
    {
      role: 'assistant',
      content: '',
      tool_calls: [
        tc('c3', 'book_appointment', {
          patient_id: 'PT-004512',
          slot: { start: '2026-03-02T09:30:00', minutes: 30 },
          urgency: 'urgent',
          reasons: ['persistent cough'],
          contact: { phone: '+44 20 7946 0018' },
        }),
      ],
    },
    { role: 'tool', tool_call_id: 'c3', content: '{"ok": true, "booking": "BK-9921"}' },
    {
      role: 'assistant',
      content:
        'Booked: 2026-03-02 09:30 with Dr Chen for 30 minutes (booking BK-9921). I used book_appointment with urgency `urgent`; the `slot` came from list_slots.',
    },
  ],
});
recs.push({
  id: 'cl-2',
  context: { patient: { name: '李娜' } },
  messages: [
    { role: 'system', content: S('李娜') },
    { role: 'user', content: '我胸口有点闷，已经两天了，能帮我预约吗？' },
    { role: 'assistant', content: '', tool_calls: [tc('c1', 'load_skill', { name: 'triage-zh' })] },
    { role: 'tool', tool_call_id: 'c1', content: readFileSync(`${H}/skills/triage-zh/SKILL.md`, 'utf8').split('---\n').slice(2).join('---\n').trim() },
    { role: 'assistant', content: '如有胸痛，请立即拨打 112。若只是胸闷，我先用 `find_patient` 核实您的身份，再用 `book_appointment` 预约。' },
  ],
});
recs.push({
  id: 'cl-3',
  context: { patient: { name: 'Ana Alves' } },
  messages: [
    { role: 'system', content: S('Ana Alves') },
    { role: 'user', content: 'Can I take 1000 mg paracetamol 5 times a day? Also export my HBA1C result as csv.' },
    { role: 'assistant', content: '', tool_calls: [tc('c1', 'load_skill', { name: 'dose-check' })] },
    { role: 'tool', tool_call_id: 'c1', content: '__BODY__' },
    {
      role: 'assistant',
      content: '',
      tool_calls: [
        tc('c2', 'get_leaflet', { drug: 'paracetamol', language: null }),
        tc('c3', 'lab.get_result', { patient_id: 'PT-000777', test_code: 'HBA1C', format: 'csv' }),
      ],
    },
    { role: 'tool', tool_call_id: 'c2', content: '{"max_daily_mg": 4000, "unit": "mg", "warning": "Do not exceed 4000 mg in 24 hours."}' },
    { role: 'tool', tool_call_id: 'c3', content: 'test_code,value,unit\nHBA1C,6.1,%' },
    {
      role: 'assistant',
      content:
        'No: 5 × 1000 mg = 5000 mg, above the leaflet maximum of 4000 mg per day (`max_daily_mg`). Your HbA1c is 6.1 %. Per lab.get_result, format was csv.',
    },
    {
      role: 'user',
      content:
        'ok thanks, that is a long answer though, you wrote way too much text for me to read on my phone at the bus stop, really. Can you shorten it to one line please, and keep the numbers exactly as they are because I will write them down. Thanks a lot!',
    },
    { role: 'assistant', content: 'Max 4000 mg/day; 5000 mg is too much. HbA1c 6.1 %.' },
  ],
});
const long =
  'Your appointment is booked for 2026-03-04 at 10:15 with Dr Alves for 15 minutes; please bring your insurance card, a list of the medicines you take, and arrive ten minutes early so that the desk can check your details. I have also sent a referral to cardiology with the note you gave me, and they will call you within a week.';
recs.push({
  id: 'cl-4',
  context: { patient: { name: 'Ana Alves' } },
  messages: [
    { role: 'system', content: S('Ana Alves') },
    { role: 'user', content: 'Refer me to cardiology (patient PT-000777), note: "palpitations at night, 3 weeks".' },
    {
      role: 'assistant',
      content: '',
      tool_calls: [tc('r1', 'submit_referral', { referral: { patient_id: 'PT-000777', specialty: 'cardiology', note: 'palpitations at night, 3 weeks' } })],
    },
    { role: 'tool', tool_call_id: 'r1', content: '{"referral_id": "RF-3310", "status": "sent"}' },
    { role: 'assistant', content: long },
    {
      role: 'user',
      name: 'hook:reply_length',
      content: `[reply_length] The reply has ${[...long].length} characters (limit 300). Shorten it; keep \`find_patient\` results.`,
    },
    { role: 'assistant', content: 'Referral RF-3310 to cardiology is sent; they call within a week.' },
  ],
});
recs.push({
  id: 'cl-5',
  context: { patient: { name: 'Wei Zhang' } },
  messages: [
    { role: 'system', content: S('Wei Zhang') },
    { role: 'user', content: 'Nurse here: move PT-004512 from ward B bed 4 to ward C bed 12.' },
    {
      role: 'assistant',
      content: '',
      tool_calls: [tc('m1', 'move_patient', { patient_id: 'PT-004512', from_bed: { ward: 'B', bed: 4 }, to_bed: { ward: 'C', bed: 12 } })],
    },
    { role: 'tool', tool_call_id: 'm1', content: '{"ok": true}' },
    { role: 'assistant', content: 'Moved: ward B bed 4 → ward C bed 12.' },
  ],
});
recs.push({
  id: 'cl-6',
  context: { patient: { name: '李娜' } },
  messages: [
    { role: 'system', content: S('李娜') },
    { role: 'user', content: 'Will the new tablets fix my migraine?' },
    { role: 'assistant', content: 'They are a cure for most migraines.' },
    {
      role: 'system',
      name: 'hook:no_cure_words',
      content: JSON.stringify({ hook: 'no_cure_words', problem: 'the reply says "cure" \\ a forbidden word', fix: 'Say it without that word.' }),
    },
    { role: 'assistant', content: 'They help many patients; ask Dr Chen whether they suit you.' },
  ],
});
const dose = readFileSync(`${H}/skills/dose-check/SKILL.md`, 'utf8').split('---\n').slice(2).join('---\n').trim();
recs[2].messages[3].content = dose;
writeFileSync('fixtures/clinic/trajectories.jsonl', recs.map((r) => JSON.stringify(r)).join('\n') + '\n');
