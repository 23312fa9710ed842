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
import { join } from 'node:path';
import Ajv from 'ajv';
import { FIX, COUNT, HARNESS, policy, tools, shuffle } from './gen-support-desk/common.mjs';
import { ORDER_SCENARIOS } from './gen-support-desk/scenarios-orders.mjs';
import { HELP_SCENARIOS } from './gen-support-desk/scenarios-help.mjs';

// The parts (shared helpers, world data, record builder, two scenario files) are in scripts/gen-support-desk/.
// Every scenario, in the order they were written (the schedule below depends on it).
const S = { ...ORDER_SCENARIOS, ...HELP_SCENARIOS };

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
        if (!v) {
          fail(id, `unknown tool ${tc.function.name}`);
          return;
        }
        let args;
        try {
          args = JSON.parse(tc.function.arguments);
        } catch {
          fail(id, `${tc.function.name}: arguments are not JSON`);
          return;
        }
        if (!v(args)) fail(id, `${tc.function.name}: ${ajv.errorsText(v.errors)}`);
        const n = messages.filter((x) => x.role === 'tool' && x.tool_call_id === tc.id).length;
        if (n !== 1) fail(id, `${tc.id} answered ${n} times`);
        const a = answers[k];
        if (!a || a.role !== 'tool' || a.tool_call_id !== tc.id) fail(id, `${tc.id}: result does not follow its call`);
        else {
          try {
            JSON.parse(a.content);
          } catch {
            fail(id, `${tc.id}: tool content is not JSON`);
          }
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
  try {
    cur = readFileSync(target, 'utf8');
  } catch {
    /* missing */
  }
  if (cur !== out) {
    console.error(`gen-support-desk: ${target} is out of date; run node scripts/gen-support-desk.mjs`);
    process.exit(1);
  }
  console.log('gen-support-desk: up to date');
} else {
  writeFileSync(target, out);
  console.log(`gen-support-desk: wrote ${stats.records} records, ${stats.calls} tool calls to ${target}`);
}
console.log(
  `  calls per record: ${JSON.stringify(stats.perCount)}; rounds with parallel calls: ${stats.parallel}; records with 2+ user turns: ${stats.multiTurn}`,
);
console.log(`  intents: ${JSON.stringify(stats.intents)}`);
