// The fast paths added for throughput must agree exactly with what they stand in for: the hand
// shape check with the zod schema, jsonEqual with canonical JSON, recordLine with JSON.stringify,
// the validation memo and shared validators with a fresh validator.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import type { RenderedPrompt } from '../src/harness/render.js';
import { PartWriter } from '../src/output/part-writer.js';
import { isTrajectoryShape, trajectorySchema } from '../src/trajectory/schema.js';
import { canonicalJson } from '../src/util/canonical-json.js';
import { jsonEqual } from '../src/util/json-equal.js';
import { lineText, recordLine, sharedJson } from '../src/util/json-out.js';
import { schemaErrors } from '../src/util/json-schema.js';
import { REPO } from './helpers/hsa.js';
import { makeTmp } from './helpers/tmp.js';

const FIXTURE = path.join(REPO, 'fixtures/live-commerce/trajectories.jsonl');
const records = readFileSync(FIXTURE, 'utf8')
  .split('\n')
  .filter(Boolean)
  .slice(0, 40)
  .map((l) => JSON.parse(l) as unknown);

/** Every path to a value in a JSON document. */
function paths(v: unknown, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at);
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...at, i], out));
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) paths(x, [...at, k], out);
  return out;
}

const REPLACEMENTS: unknown[] = [
  null,
  '',
  'x',
  0,
  1.5,
  -1,
  true,
  false,
  [],
  {},
  [{}],
  { type: 'text', text: 'hi' },
  'function',
  'text',
  'user',
  'assistant',
  'tool',
];

function mutate(rec: unknown, rng: () => number): unknown {
  const copy = JSON.parse(JSON.stringify(rec)) as Record<string, unknown>;
  const all = paths(copy).filter((p) => p.length > 0);
  if (all.length === 0) return copy;
  const p = all[Math.floor(rng() * all.length)]!;
  let parent: Record<string | number, unknown> = copy;
  for (const k of p.slice(0, -1)) parent = parent[k] as Record<string | number, unknown>;
  const last = p[p.length - 1]!;
  const r = rng();
  if (r < 0.15 && !Array.isArray(parent)) delete parent[last];
  else if (r < 0.25 && !Array.isArray(parent)) parent[`${String(last)}_extra`] = 1;
  else parent[last] = REPLACEMENTS[Math.floor(rng() * REPLACEMENTS.length)];
  return copy;
}

describe('isTrajectoryShape', () => {
  it('accepts every fixture record, as the schema does', () => {
    for (const r of records) {
      expect(trajectorySchema().safeParse(r).success).toBe(true);
      expect(isTrajectoryShape(r)).toBe(true);
    }
  });

  it('never accepts what the schema refuses (5,000 random one-field mutations)', () => {
    const rng = seedrandom('shape-mutations');
    let refused = 0;
    for (let i = 0; i < 5_000; i++) {
      const m = mutate(records[i % records.length], rng);
      const zod = trajectorySchema().safeParse(m).success;
      const fast = isTrajectoryShape(m);
      if (!zod) refused++;
      // The fast check may send a valid record to the schema, never pass an invalid one.
      if (fast) expect(zod, JSON.stringify(m).slice(0, 300)).toBe(true);
      // And on these shapes it agrees both ways.
      expect(fast).toBe(zod);
    }
    expect(refused).toBeGreaterThan(1_000);
  });
});

describe('jsonEqual', () => {
  it('is canonical-JSON equality on records and their mutations', () => {
    const rng = seedrandom('json-equal');
    for (let i = 0; i < 2_000; i++) {
      const a = records[i % records.length];
      const b = rng() < 0.5 ? JSON.parse(JSON.stringify(a)) : mutate(a, rng);
      expect(jsonEqual(a, b)).toBe(canonicalJson(a) === canonicalJson(b));
    }
  });

  it('ignores key order and undefined members; arrays keep their order', () => {
    expect(jsonEqual({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1, u: undefined }, { a: 1 })).toBe(true);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual({ a: 1 }, { a: 1, b: null })).toBe(false);
    expect(jsonEqual([], {})).toBe(false);
  });
});

describe('recordLine', () => {
  it('writes what JSON.stringify writes, with shared members spliced in as bytes', () => {
    const tools = [{ type: 'function', function: { name: 'lookup_faq', description: '查询 FAQ \u2028 "quoted"', parameters: { type: 'object' } } }];
    for (const r of records) {
      const rec = { id: 'x', messages: (r as { messages: unknown }).messages, tools, meta: { a: 1, skip: undefined } };
      const line = recordLine(rec, ['tools']);
      expect(Array.isArray(line)).toBe(true);
      expect(lineText(line)).toBe(JSON.stringify(rec));
    }
    expect(sharedJson(tools)).toBe(JSON.stringify(tools));
    expect(lineText(recordLine({ a: 1 }, ['tools']))).toBe('{"a":1}');
    expect(lineText(recordLine({ tools: 'as text' }, ['tools']))).toBe('{"tools":"as text"}');
    expect(lineText(recordLine({}, []))).toBe('{}');
    // Members JSON.stringify leaves out (undefined, functions, inherited ones) before the first written one.
    expect(lineText(recordLine({ skip: undefined, f: () => 1, a: 1 }, []))).toBe('{"a":1}');
    expect(lineText(recordLine({ skip: undefined, tools, b: 2 }, ['tools']))).toBe(JSON.stringify({ tools, b: 2 }));
    expect(lineText(recordLine({ skip: undefined, f: () => 1 }, []))).toBe('{}');
    const child = Object.assign(Object.create({ inherited: 1 }) as Record<string, unknown>, { own: 2 });
    expect(lineText(recordLine(child, []))).toBe('{"own":2}');
  });

  it('the part writer writes pieces byte for byte like the joined string', async () => {
    const tmp = await makeTmp('hsa-pieces-');
    try {
      const tools = [{ name: '零食 🍪', lone: '\ud800' }];
      const rec = { id: '🍪', tools, text: 'x'.repeat(3_000_000) };
      const w = new PartWriter(tmp.dir, 'a.jsonl', false);
      await w.writeLine(recordLine(rec, ['tools']));
      await w.writeLine('plain');
      const part = await w.commit();
      expect(readFileSync(path.join(tmp.dir, 'a.jsonl'), 'utf8')).toBe(`${JSON.stringify(rec)}\nplain\n`);
      expect(part.records).toBe(2);
    } finally {
      await tmp.cleanup();
    }
  });
});

describe('part writer buffers', () => {
  it('lines across many buffer flushes arrive whole and in order, and the sha256 is that of the file', async () => {
    const tmp = await makeTmp('hsa-flush-');
    try {
      const w = new PartWriter(tmp.dir, 'b.jsonl', false);
      const lines: string[] = [];
      // ~20 MB: several swaps of the two plain-part buffers, with lines of varied size and script.
      for (let i = 0; i < 4_000; i++) lines.push(JSON.stringify({ i, text: `${'零食'.repeat(i % 997)}${'x'.repeat((i * 7919) % 6_000)}` }));
      lines.push('y'.repeat(9 << 20)); // one line larger than a buffer
      for (let i = 0; i < 100; i++) lines.push(`{"tail":${i}}`);
      for (const l of lines) await w.writeLine(l);
      const part = await w.commit();
      const bytes = readFileSync(path.join(tmp.dir, 'b.jsonl'));
      expect(bytes.toString('utf8')).toBe(`${lines.join('\n')}\n`);
      expect(part.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect(part.bytes).toBe(bytes.length);
      expect(part.records).toBe(lines.length);
    } finally {
      await tmp.cleanup();
    }
  });

  it('a failed write is reported, and no part appears under its final name', async () => {
    if (!existsSync('/dev/full')) return; // (Linux) writes to /dev/full fail with ENOSPC
    const tmp = await makeTmp('hsa-full-');
    try {
      symlinkSync('/dev/full', path.join(tmp.dir, 'c.jsonl.tmp'));
      const w = new PartWriter(tmp.dir, 'c.jsonl', false);
      const attempt = async () => {
        for (let i = 0; i < 3_000; i++) await w.writeLine('z'.repeat(5_000));
        await w.commit();
      };
      await expect(attempt()).rejects.toThrow(/ENOSPC/);
      await w.abort();
      expect(existsSync(path.join(tmp.dir, 'c.jsonl'))).toBe(false);
    } finally {
      await tmp.cleanup();
    }
  });
});

describe('schemaErrors fast paths', () => {
  const schema = {
    type: 'object',
    properties: { q: { type: 'string', description: 'the question', minLength: 2 } },
    required: ['q'],
    additionalProperties: false,
  };
  const sameMeaning = {
    type: 'object',
    properties: { q: { type: 'string', description: 'reworded', minLength: 2 } },
    required: ['q'],
    additionalProperties: false,
  };
  const stricter = {
    type: 'object',
    properties: { q: { type: 'string', description: 'the question', minLength: 5 } },
    required: ['q'],
    additionalProperties: false,
  };

  it('schemas that differ only in annotations share a validator; a stricter one does not', () => {
    expect(schemaErrors(schema, { q: 'abc' })).toEqual([]);
    expect(schemaErrors(sameMeaning, { q: 'abc' })).toEqual([]);
    expect(schemaErrors(stricter, { q: 'abc' })).toEqual(['arguments.q: must NOT have fewer than 5 characters']);
  });

  it('errors are the same whichever path answers', () => {
    const bad = { q: 1, extra: true };
    expect(schemaErrors(schema, bad)).toEqual(schemaErrors(JSON.parse(JSON.stringify(schema)), bad));
    expect(schemaErrors(sameMeaning, bad)).toEqual(schemaErrors(schema, bad));
  });

  it('a property named "description" is part of the meaning, not an annotation', () => {
    const a = { type: 'object', properties: { description: { type: 'string' } }, additionalProperties: false };
    const b = { type: 'object', properties: {}, additionalProperties: false };
    expect(schemaErrors(a, { description: 'x' })).toEqual([]);
    expect(schemaErrors(b, { description: 'x' })).toEqual(['arguments: unknown property "description"']);
  });
});

describe('system prompt JSON pieces', () => {
  it('written out, they are JSON.stringify of the rendered prompt (static sections as shared bytes)', async () => {
    const { loadHarness } = await import('../src/harness/load.js');
    const { renderPrompt, promptMessage, messageContentJson } = await import('../src/harness/render.js');
    const { messagesWriter } = await import('../src/util/json-out.js');
    const { harness } = await loadHarness(path.join(REPO, 'fixtures/live-commerce/harness'));
    let spliced = 0;
    const rendered = records.slice(0, 10).map((r) => renderPrompt(harness!, (r as { context?: unknown }).context ?? {}));
    // Messages made from the first renders after all ten were rendered (more than the recent
    // renders kept), and written after that: a prompt and its messages keep their pieces.
    const messages = rendered.map((p) => promptMessage({ role: 'system', content: p.system }, p));
    for (const [i, r] of (records.slice(0, 10) as { messages: unknown[] }[]).entries()) {
      const message = messages[i]!;
      const pieces = messageContentJson(message);
      if (pieces?.some((p) => typeof p !== 'string')) spliced++;
      const rec = { id: 'r', messages: [message, ...r.messages.slice(1)], tools: [] };
      expect(lineText(recordLine(rec, ['tools'], { messages: messagesWriter(messageContentJson) }))).toBe(JSON.stringify(rec));
    }
    expect(spliced).toBe(10);
    // A message not made from a render, or whose content changed since, is left to JSON.stringify.
    expect(messageContentJson({ role: 'system', content: rendered[0]!.system })).toBeUndefined();
    const fresh = renderPrompt(harness!, (records[0] as { context?: unknown }).context ?? {});
    const changed = promptMessage({ role: 'system', content: fresh.system }, fresh);
    expect(messageContentJson(changed)).toBeDefined();
    changed.content = `${fresh.system} `;
    expect(messageContentJson(changed)).toBeUndefined();
    // The association is not copied with the message's members.
    expect(messageContentJson({ ...messages[0]! })).toBeUndefined();
    expect(Object.keys(messages[0]!)).toEqual(['role', 'content']);
  });

  it('preambles and skill bodies are written from pieces too, byte for byte', async () => {
    const { renderPrompt, promptMessage, stateTextMessage, messageContentJson } = await import('../src/harness/render.js');
    const { messagesWriter } = await import('../src/util/json-out.js');
    const { baseHarness } = await import('./helpers/state.js');
    const h = baseHarness({
      sections: [
        { id: 'role', kind: 'text', placement: 'system', text: `你是主播助手 ${'a'.repeat(300)}` },
        { id: 'rules', kind: 'text', placement: 'preamble', text: `- 不要承诺 "价格"\n- room {{room.name}}` },
        { id: 'style', kind: 'text', placement: 'preamble', text: `Tone: 轻松 ${'b'.repeat(200)}` },
      ],
    });
    const p = renderPrompt(h, { room: { name: '零食 "派对"' } });
    expect(p.preamble).toContain('零食 "派对"');
    const body = `# 技能\n\n- step "one"\t${'c'.repeat(500)}`;
    const messages = [
      promptMessage({ role: 'system', content: p.system }, p),
      promptMessage({ role: 'user', name: 'harness:preamble', content: p.preamble }, p, true),
      stateTextMessage({ role: 'tool', tool_call_id: 'c1', content: body }),
      stateTextMessage({ role: 'tool', tool_call_id: 'c2', content: body }),
    ];
    expect(messageContentJson(messages[1]!)?.some((x) => typeof x !== 'string')).toBe(true);
    expect(messageContentJson(messages[2]!)).toBe(messageContentJson(messages[3]!)); // escaped once per text
    const rec = { id: 'r', messages };
    expect(lineText(recordLine(rec, [], { messages: messagesWriter(messageContentJson) }))).toBe(JSON.stringify(rec));
    // A preamble mark does not make the system text acceptable, nor the reverse.
    expect(messageContentJson(promptMessage({ role: 'user', content: p.system }, p, true))).toBeUndefined();
  });

  it('a surrogate pair split across two sections is not spliced', async () => {
    const { renderPrompt, promptMessage, messageContentJson } = await import('../src/harness/render.js');
    const json = (p: RenderedPrompt) => messageContentJson(promptMessage({ role: 'system', content: p.system }, p));
    const { baseHarness } = await import('./helpers/state.js');
    const pair = '🍪';
    const h = baseHarness({
      separator: '',
      sections: [
        { id: 'a', kind: 'text', placement: 'system', text: `first ${'a'.repeat(600)}${pair[0]}` },
        { id: 'b', kind: 'text', placement: 'system', text: `${pair[1]}${'b'.repeat(600)} {{room.name}}` },
      ],
    });
    const ok = baseHarness({ sections: h.sections.map((s) => ({ ...s, text: s.text.replace(/[\ud800-\udfff]/g, '') })) });
    const fine = renderPrompt(ok, { room: { name: 'r' } });
    expect(json(fine)?.some((p) => typeof p !== 'string')).toBe(true);
    const split = renderPrompt(h, { room: { name: 'r' } });
    expect(split.system).toContain(pair);
    expect(json(split)).toBeUndefined();
  });
});

describe('argument validation: the compiled fast path agrees with the interpreter', () => {
  it('on every call of pooled variants and on mutated arguments (valid ones included)', async () => {
    const { loadHarness } = await import('../src/harness/load.js');
    const { StatePool } = await import('../src/trajectory/augment.js');
    const { resolveTransforms } = await import('../src/transform/variant.js');
    const { builtinTransforms } = await import('../transforms/index.js');
    const { builtinWords } = await import('../src/words/selection.js');
    const { interpretedErrors } = await import('../src/util/json-schema.js');
    const { augmentOne } = await import('../src/trajectory/augment.js');
    const { harness } = await loadHarness(path.join(REPO, 'fixtures/live-commerce/harness'));
    const resolved = resolveTransforms(builtinTransforms, undefined, 'rewrite');
    const pool = new StatePool(harness!, resolved, 'fast-validate', builtinWords, 12);
    const rng = seedrandom('fast-validate');
    let checked = 0;
    let invalid = 0;
    for (const rec of records.slice(0, 30) as import('../src/trajectory/types.js').Trajectory[]) {
      for (let k = 0; k < 3; k++) {
        const v = augmentOne(rec, harness!, resolved, 'fast-validate', k, builtinWords, pool);
        for (const m of v.record.messages) {
          for (const c of m.role === 'assistant' ? (m.tool_calls ?? []) : []) {
            const schema = v.variant.state.tools.find((t) => t.name === c.function.name)?.parameters;
            if (!schema) continue;
            const args = JSON.parse(c.function.arguments) as unknown;
            for (const a of [args, mutate(args, rng), mutate(args, rng)]) {
              const fast = schemaErrors(schema, a);
              expect(fast, JSON.stringify(a)).toEqual(interpretedErrors(schema, a));
              checked++;
              if (fast.length) invalid++;
            }
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(500);
    expect(invalid).toBeGreaterThan(50);
  });
});
