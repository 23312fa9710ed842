// BFCL-live-shaped records with their own tools, for the per-record bench (scripts/bench/inline-tools.mjs).
// Written by our own seeded generator (no public data is read or shipped); the shape follows the
// Berkeley Function-Calling Leaderboard's live sets (ShishirPatil/gorilla at 80c71907,
// berkeley-function-call-leaderboard/bfcl_eval/data/BFCL_v4_live_multiple.json): every entry carries
// its own short `function` list — one tool (live_simple) to a handful (live_multiple) — whose names
// are written in several styles at once (`get_current_weather`, `ChaFod`, `uber.ride`,
// `ChaDri.change_drink`, `Hotels_2_SearchHotel`), parameters in snake_case or camelCase with
// descriptions, `enum`s, `default`s, booleans and integers, and nested objects (`new_preferences`
// with its own properties); a system message only on some entries (the leaderboard's "Don't make
// assumptions…" line among them); user turns in English and other languages (Vietnamese,
// Chinese); and, in live_parallel, several calls in one turn. The leaderboard writes
// `"type": "dict"` for objects; its OpenAI handlers send JSON Schema `object`, which is what a
// record of an hsa input carries, so the generator writes that.
//
// No two records have the same tool list (a record's tools are drawn, renamed and varied per
// record), so every record is its own inline harness, as in xLAM/APIGen or glaive shapes.
//
// The tables it draws from are in scripts/bench/bfcl-live-data.mjs.
import { writeFileSync } from 'node:fs';
import seedrandom from 'seedrandom';
import { FAMILIES, NAMESPACES, SERVICES, SYSTEMS, USERS_EN, USERS_OTHER } from './bfcl-live-data.mjs';

const camel = (s) => s.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
const pascal = (s) => camel(s).replace(/^./, (c) => c.toUpperCase());

/** A deterministic BFCL-live-shaped input of `records` lines; returns its path, byte size and record count. */
export function writeBfclLiveInput(file, records, seed) {
  const rng = seedrandom(`${seed}/bfcl-live`);
  const int = (lo, hi) => lo + Math.floor(rng() * (hi - lo + 1));
  const pick = (a) => a[int(0, a.length - 1)];
  const chance = (p) => rng() < p;
  const lines = [];
  for (let i = 0; i < records; i++) {
    // live_simple has one tool, live_multiple a few: 1 in 4 records has one.
    const nTools = chance(0.25) ? 1 : int(2, 8);
    const style = int(0, 4); // the record's dominant naming style; a record mixes in others, as the leaderboard's do
    const paramStyle = chance(0.3) ? camel : (s) => s;
    const names = new Set();
    const tools = [];
    for (let guard = 0; tools.length < nTools && guard < 50; guard++) {
      const [stem, templates] = pick(FAMILIES);
      const [verb, obj, description, params] = pick(templates);
      const st = chance(0.7) ? style : int(0, 4);
      const base = `${verb}_${obj}`;
      const name =
        st === 0
          ? base
          : st === 1
            ? `${pick(NAMESPACES)}.${obj}${chance(0.3) ? int(2, 9) : ''}`
            : st === 2
              ? `${pick(SERVICES)}_${int(1, 3)}_${pascal(base)}`
              : st === 3
                ? camel(base)
                : `${pascal(stem).slice(0, 3)}${pascal(obj).slice(0, 3)}${chance(0.5) ? `.${base}` : ''}`;
      if (names.has(name)) continue;
      names.add(name);
      tools.push(makeTool(name, description, params, paramStyle, { rng, int, pick, chance, record: i }));
    }
    const messages = [];
    if (chance(0.4))
      messages.push({
        role: 'system',
        content: chance(0.15) ? `${pick(SYSTEMS)} Prefer \`${tools[0].function.name}\` when the user asks about it.` : pick(SYSTEMS),
      });
    const turns = chance(0.2) ? 2 : 1;
    for (let t = 0; t < turns; t++) {
      const tool = pick(tools).function;
      const pnames = Object.keys(tool.parameters.properties);
      const p = pick(pnames);
      const words = {
        v: tool.name.split(/[._]/)[0].toLowerCase(),
        o: (tool.name.split(/[._]/).pop() ?? '').toLowerCase(),
        p,
        x: `'${pick(['latte', 'Ha Noi', '2150 Shattuck Ave, Berkeley, CA', 'DevelopmentEnv', 'AAPL', 'feature-branch', '2026-12-24', 'Spring picks'])}'`,
      };
      const tpl = chance(0.2) ? pick(USERS_OTHER) : pick(USERS_EN);
      messages.push({ role: 'user', content: `${tpl.replace(/\{(\w)\}/g, (_, k) => words[k])} (request ${i}.${t}, ref ${int(1000, 99999)})` });
      // live_parallel: several calls in one turn (to the same tool or to others).
      const nCalls = chance(0.25) ? int(2, 3) : 1;
      const calls = [];
      for (let c = 0; c < nCalls; c++) {
        const callee = c === 0 ? tool : pick(tools).function;
        calls.push({
          id: `call_${i}_${t}_${c}`,
          type: 'function',
          function: { name: callee.name, arguments: JSON.stringify(argsFor(callee.parameters, { int, pick, chance })) },
        });
      }
      messages.push({ role: 'assistant', content: chance(0.3) ? 'Let me check that for you.' : '', tool_calls: calls });
      for (const c of calls)
        messages.push({
          role: 'tool',
          tool_call_id: c.id,
          content: JSON.stringify({ status: 'ok', result: { id: `R-${int(1, 999999)}`, note: pick(['done', 'queued', 'confirmed', 'no change']) } }),
        });
      messages.push({
        role: 'assistant',
        content: pick([
          'Done — the request went through.',
          'All set, here is what I found.',
          'Xong rồi, yêu cầu của bạn đã được xử lý.',
          '已经帮你处理好了。',
          `Finished: reference R-${int(1, 999999)}.`,
        ]),
      });
    }
    lines.push(JSON.stringify({ id: `live_multiple_${i}-${int(0, 999)}-${int(0, 9)}`, tools, messages }));
  }
  const text = `${lines.join('\n')}\n`;
  writeFileSync(file, text);
  return { file, bytes: Buffer.byteLength(text), records };
}

function makeTool(name, description, params, paramStyle, { int, pick, chance, record }) {
  const kept = params.filter((_, k) => k === 0 || chance(0.8));
  const properties = {};
  for (const [pname, kind, extra] of kept) properties[paramStyle(pname)] = schemaOf(pname, kind, extra, { int, pick, chance });
  const keys = Object.keys(properties);
  const required = keys.filter((k, j) => j === 0 || (properties[k].default === undefined && chance(0.4)));
  // Per-record variation of the description (no two records' tool lists alike).
  const desc = chance(0.5) ? description : `${description} Variant ${record % 97}.${int(0, 9)}.`;
  return { type: 'function', function: { name, description: desc, parameters: { type: 'object', required, properties } } };
}

function schemaOf(pname, kind, extra, { int, pick, chance }) {
  const description = `The ${pname.replace(/_/g, ' ')} of the request${chance(0.3) ? ', in the format the service expects' : ''}.`;
  switch (kind) {
    case 'e':
      return { type: 'string', description, enum: extra, ...(chance(0.4) ? { default: extra[0] } : {}) };
    case 'i':
      return { type: 'integer', description, ...(chance(0.3) ? { default: int(1, 10) } : {}) };
    case 'n':
      return { type: 'number', description };
    case 'b':
      return { type: 'boolean', description, ...(chance(0.6) ? { default: chance(0.5) } : {}) };
    case 'a':
      return { type: 'array', description, items: { type: 'string' } };
    case 'o': {
      const properties = {};
      for (const [n, k, x] of extra) if (chance(0.8)) properties[n] = schemaOf(n, k, x, { int, pick, chance });
      return { type: 'object', description, properties };
    }
    default:
      return { type: 'string', description, ...(chance(0.2) ? { default: '' } : {}) };
  }
}

function argsFor(schema, r) {
  const out = {};
  for (const [k, s] of Object.entries(schema.properties ?? {})) {
    if (!(schema.required ?? []).includes(k) && r.chance(0.4)) continue;
    out[k] = valueOf(s, r);
  }
  return out;
}

function valueOf(s, r) {
  if (s.enum) return r.pick(s.enum);
  switch (s.type) {
    case 'integer':
      return r.int(0, 20);
    case 'number':
      return r.int(1, 9999) / 100;
    case 'boolean':
      return r.chance(0.5);
    case 'array':
      return Array.from({ length: r.int(1, 3) }, () => r.pick(['Alice', 'Bob', 'Carol', 'Mon', 'Wed']));
    case 'object':
      return argsFor(s, r);
    default:
      return r.pick(['latte', 'Ha Noi', 'Berkeley, CA', 'DevelopmentEnv', 'AAPL', 'feature-branch', '2026-12-24', 'Patio', '123 Main St, Springfield, IL']);
  }
}
