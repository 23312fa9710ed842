#!/usr/bin/env node
// Generates the live-commerce demo/test fixtures:
//   fixtures/live-commerce/trajectories.jsonl   (seeded, byte-identical on every run)
//   fixtures/live-commerce/contexts/*.json      (example trajectory contexts)
// The harness itself (fixtures/live-commerce/harness/) is hand-written; this script reads it.
// The system message of every record is rendered by the real engine, so build first:
//   npx tsc -p . && node scripts/gen-fixtures.mjs
// Randomness comes only from seedrandom('hsa-fixtures-v1'); no Math.random, no clock.
// The parts (catalogue, backend, conversation builder, scenarios, plan, checks) are in scripts/gen-fixtures/.

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadHarness, renderSystemPrompt } from '../dist/src/index.js';
import { ROOT, FIX, HARNESS_DIR, HARNESS_REF, pick, chance } from './gen-fixtures/common.mjs';
import { ROOM, HOSTS } from './gen-fixtures/catalog.mjs';
import { setBuildingGated, makeContext } from './gen-fixtures/conversation.mjs';
import { BUILD, makePlan } from './gen-fixtures/plan.mjs';
import { checkRecord } from './gen-fixtures/checks.mjs';

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

const { harness, problems } = await loadHarness(HARNESS_DIR);
const errors = problems.filter((p) => p.severity === 'error');
if (!harness || errors.length > 0) {
  for (const p of problems) console.error(`${p.file}${p.line ? `:${p.line}` : ''}: ${p.path}: ${p.message}`);
  process.exit(1);
}

const plan = makePlan();
const records = [];
plan.forEach((p, idx) => {
  const host = chance(0.8) ? pick(HOSTS) : undefined;
  setBuildingGated(p.gate);
  const { room, current, conv } = BUILD[p.intent](p.lang, { ...p, host });
  setBuildingGated(false);
  const context = makeContext(room, current, { host });
  const rec = {
    id: `lc-${String(idx + 1).padStart(6, '0')}`,
    harness: HARNESS_REF,
    context,
    meta: { intent: p.intent, lang: p.lang },
    messages: [{ role: 'system', content: renderSystemPrompt(harness, context) }, ...conv.messages],
  };
  checkRecord(rec);
  records.push(rec);
});

// Coverage these fixtures promise to the tests and the demo: fail loudly if a change breaks it.
const stats = {
  records: records.length,
  byIntent: {},
  byLang: {},
  gated: 0,
  multiTurn: 0,
  parallel: 0,
  noHost: 0,
};
for (const r of records) {
  const key = `${r.meta.intent}/${r.meta.lang}`;
  stats.byIntent[key] = (stats.byIntent[key] ?? 0) + 1;
  stats.byLang[r.meta.lang] = (stats.byLang[r.meta.lang] ?? 0) + 1;
  if (r.messages.some((m) => m.name === 'hook:stop_gate')) stats.gated++;
  if (r.messages.filter((m) => m.role === 'user' && !m.name).length >= 2) stats.multiTurn++;
  if (r.messages.some((m) => (m.tool_calls?.length ?? 0) >= 2)) stats.parallel++;
  if (!r.context.host) stats.noHost++;
}
const expect = (cond, what) => {
  if (!cond) throw new Error(`fixture coverage: ${what} (${JSON.stringify(stats)})`);
};
expect(stats.records >= 150, 'at least 150 records');
expect(stats.gated >= 12, 'at least 12 stop-gate failures');
expect(stats.multiTurn >= 30, 'at least 30 multi-turn records');
expect(stats.parallel >= 15, 'at least 15 records with parallel tool calls');
expect(stats.noHost >= 5, 'some records without host (default host.name)');

const out = records.map((r) => JSON.stringify(r) + '\n').join('');
writeFileSync(path.join(FIX, 'trajectories.jsonl'), out);

// Example contexts: the first record's, plus one without a host and one from another room.
const ctxDir = path.join(FIX, 'contexts');
mkdirSync(ctxDir, { recursive: true });
const writeCtx = (name, ctx) => writeFileSync(path.join(ctxDir, name), JSON.stringify(ctx, null, 2) + '\n');
writeCtx(`${records[0].id}.json`, records[0].context);
writeCtx('kitchen-default-host.json', makeContext(ROOM['r-4410'], 'i-13', {}));
writeCtx('gadget-hour.json', makeContext(ROOM['r-5562'], 'i-17', { host: 'Leo' }));

if (process.argv.includes('--stats')) console.log(JSON.stringify(stats, null, 2));
else console.log(`wrote ${records.length} records to ${path.relative(ROOT, path.join(FIX, 'trajectories.jsonl'))}`);
