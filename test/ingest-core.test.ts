import path from 'node:path';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { builtinWords } from '../src/words/selection.js';
import { loadHarness } from '../src/harness/load.js';
import { messageContentJson, promptLayout, renderRecordPrompt } from '../src/harness/render.js';
import type { Harness } from '../src/harness/types.js';
import { deriveInlineHarness, InlineHarnesses } from '../src/ingest/inline-harness.js';
import { StatePool } from '../src/trajectory/augment.js';
import { checkTrajectory, type CheckContext } from '../src/trajectory/check.js';
import { parseTrajectoryLine } from '../src/trajectory/read.js';
import { rewriteTrajectory } from '../src/trajectory/rewrite.js';
import type { Trajectory } from '../src/trajectory/types.js';
import { loadRegistry } from '../src/transform/registry.js';
import { resolveTransforms } from '../src/transform/variant.js';
import { schemaErrors, setFormatMode } from '../src/util/json-schema.js';
import { quickCheck } from '../src/util/quick-schema.js';
import { REPO } from './helpers/hsa.js';

const call = (id: string, name = 'f', args: unknown = {}) => ({ id, type: 'function' as const, function: { name, arguments: JSON.stringify(args) } });
const read = (rec: unknown) => {
  const r = parseTrajectoryLine('x.jsonl', 3, JSON.stringify(rec));
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r;
};

describe('tool-call ids follow the conversation', () => {
  it('a reused id is renamed in the call and in the result that answers it, with a warning', () => {
    const r = read({
      id: 'a',
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: '', tool_calls: [call('call_0')] },
        { role: 'tool', tool_call_id: 'call_0', content: '1' },
        { role: 'assistant', content: '', tool_calls: [call('call_0'), call('call_1')] },
        { role: 'tool', tool_call_id: 'call_1', content: '3' },
        { role: 'tool', tool_call_id: 'call_0', content: '2' },
        { role: 'assistant', content: 'ok' },
      ],
    });
    const m = r.record.messages as any[];
    expect(m[3].tool_calls.map((c: any) => c.id)).toEqual(['call_0~2', 'call_1']);
    expect([m[2].tool_call_id, m[4].tool_call_id, m[5].tool_call_id]).toEqual(['call_0', 'call_1', 'call_0~2']);
    expect(r.warnings.map((w) => [w.severity, w.path, w.message])).toEqual([
      ['warning', 'messages.3.tool_calls.0.id', 'tool call id "call_0" is used again (first at messages.1.tool_calls.0); written as "call_0~2"'],
    ]);
  });

  it('parallel calls repeating an id are answered in order; a suffix already taken is skipped; an orphan result is left alone', () => {
    const r = read({
      id: 'b',
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: '', tool_calls: [call('c'), call('c'), call('c~2')] },
        { role: 'tool', tool_call_id: 'c', content: 'first' },
        { role: 'tool', tool_call_id: 'c', content: 'second' },
        { role: 'tool', tool_call_id: 'c~2', content: 'third' },
        { role: 'tool', tool_call_id: 'zz', content: 'orphan' },
      ],
    });
    const m = r.record.messages as any[];
    expect(m[1].tool_calls.map((c: any) => c.id)).toEqual(['c', 'c~3', 'c~2']);
    expect(m.slice(2).map((x: any) => x.tool_call_id)).toEqual(['c', 'c~3', 'c~2', 'zz']);
  });

  it("an SDK dump's function_call: null is dropped and its calls' ids still count as uses (one walk does both)", () => {
    const r = read({
      id: 'd',
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: '', tool_calls: [call('k')], function_call: null },
        { role: 'tool', tool_call_id: 'k', content: '1' },
        { role: 'assistant', content: 'thinking', tool_calls: null, function_call: null },
        { role: 'assistant', content: '', tool_calls: [call('k')], function_call: null },
        { role: 'tool', tool_call_id: 'k', content: '2' },
      ],
    });
    const m = r.record.messages as any[];
    expect(m[1]).toEqual({ role: 'assistant', content: '', tool_calls: [call('k')] });
    expect(m[3]).toEqual({ role: 'assistant', content: 'thinking' });
    expect(m[4]).toEqual({ role: 'assistant', content: '', tool_calls: [call('k~2')] });
    expect(m[5].tool_call_id).toBe('k~2');
    expect(r.warnings.map((w) => w.path)).toEqual(['messages.4.tool_calls.0.id']);
  });

  it('records without reused ids are returned as parsed (same message objects, no warnings)', () => {
    const text = JSON.stringify({
      id: 'c',
      messages: [
        { role: 'assistant', content: '', tool_calls: [call('k')] },
        { role: 'tool', tool_call_id: 'k', content: '' },
      ],
    });
    const r = parseTrajectoryLine('x.jsonl', 1, text);
    expect(r.ok && r.warnings).toEqual([]);
  });

  it('an SDK dump of a text reply (tool_calls and function_call null) and named tool results are accepted', () => {
    const r = read({
      id: 'sdk',
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: '', tool_calls: [call('k', 'f')], function_call: null, refusal: null },
        { role: 'tool', tool_call_id: 'k', name: 'f', content: '1' },
        { role: 'assistant', content: 'done', tool_calls: null, function_call: null },
      ],
    });
    expect(r.record.messages.slice(1)).toEqual([
      { role: 'assistant', content: '', tool_calls: [call('k', 'f')], refusal: null },
      { role: 'tool', tool_call_id: 'k', name: 'f', content: '1' },
      { role: 'assistant', content: 'done' },
    ]);
    expect(
      parseTrajectoryLine('x.jsonl', 1, JSON.stringify({ id: 'b', messages: [{ role: 'assistant', content: 'x', function_call: { name: 'f' } }] })).ok,
    ).toBe(false);
  });

  it('a system message in text parts is read as one string (it is re-rendered as one)', () => {
    const r = read({
      id: 'p',
      messages: [
        {
          role: 'system',
          content: [
            { type: 'text', text: 'a' },
            { type: 'text', text: 'b' },
          ],
        },
        { role: 'user', content: 'x' },
      ],
    });
    expect(r.record.messages[0]).toEqual({ role: 'system', content: 'ab' });
  });

  it('MCP tools in a record are read in the OpenAI shape', () => {
    const r = read({
      id: 'm',
      tools: [{ name: 'lookup', description: 'L', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } }],
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(r.record.tools).toEqual([
      { type: 'function', function: { name: 'lookup', description: 'L', parameters: { type: 'object', properties: { q: { type: 'string' } } } } },
    ]);
  });
});

describe('logged system prompts', () => {
  const HELPDESK = path.join(REPO, 'fixtures', 'ingest', 'helpdesk');
  const first = (file: string): Trajectory => JSON.parse(readFileSync(path.join(HELPDESK, file), 'utf8').split('\n')[0]!) as Trajectory;
  const harness = async (): Promise<Harness> => (await loadHarness(HELPDESK)).harness!;

  it('locate keeps the wrapper; the record renders back to its own bytes, and its JSON pieces are its JSON', async () => {
    const h = await harness();
    const rec = first('wrapped.jsonl');
    const logged = rec.messages[0]!.content as string;
    const at: CheckContext = { file: 'w', line: 1, systemPrompt: 'locate', outcome: {} };
    expect(checkTrajectory(rec, h, at)).toEqual([]);
    expect(at.outcome).toEqual({ prompt: 'located' });
    const layout = promptLayout(rec.messages[0]);
    expect(layout).toMatchObject({ kind: 'slots', ids: ['role', 'policy'] });
    expect(renderRecordPrompt(h, rec).system).toBe(logged);
    const back = rewriteTrajectory(rec, { tools: {}, skills: {}, hooks: {}, sections: {}, args: {} }, h, h);
    expect(back.messages[0]!.content).toBe(logged);
    const pieces = messageContentJson(back.messages[0]!)!;
    expect(Buffer.concat(pieces.map((p) => (typeof p === 'string' ? Buffer.from(p) : p))).toString()).toBe(JSON.stringify(logged));
    // The layout travels with the rewritten system message (the round trip reads it there).
    expect(promptLayout(back.messages[0])).toBe(layout);
  });

  it("match takes blank space around the rendered prompt as the record's own; other differences are errors", async () => {
    const h = await harness();
    const rec = first('matched.jsonl');
    const at: CheckContext = { file: 'm', line: 1, outcome: {} };
    expect(checkTrajectory(rec, h, at)).toEqual([]);
    expect(promptLayout(rec.messages[0])).toEqual({ kind: 'edges', lead: '', tail: '\n' });
    const appended = first('appended.jsonl');
    expect(checkTrajectory(appended, h, { file: 'a', line: 1 }).map((p) => p.message)).toEqual([
      expect.stringMatching(/^system message differs from the rendered harness: line 11/),
    ]);
  });

  it('locate names the section it cannot find', async () => {
    const h = await harness();
    const rec = first('wrapped.jsonl');
    (rec.messages[0] as { content: string }).content = (rec.messages[0]!.content as string).replace('- Never reveal', '- Do not reveal');
    const ps = checkTrajectory(rec, h, { file: 'w', line: 1, systemPrompt: 'locate' });
    expect(ps.map((p) => p.message)).toEqual([expect.stringMatching(/^system message: section "policy" of the harness is not in it after section "role"/)]);
  });
});

describe('format is an annotation unless asked', () => {
  afterEach(() => setFormatMode('annotation'));
  const schema = { type: 'object', properties: { due: { type: 'string', format: 'date' }, format: { type: 'string', maxLength: 3 } } };

  it('every tier agrees: annotation ignores format (and keeps a property named "format"); assertion checks it', () => {
    expect(quickCheck(schema, 'annotation')!({ due: 'next Friday' })).toBe(true);
    expect(quickCheck(schema, 'assertion')).toBeNull();
    expect(schemaErrors(schema, { due: 'next Friday' })).toEqual([]);
    expect(schemaErrors(schema, { due: 'x', format: 'toolong' })).toEqual(['arguments.format: must NOT have more than 3 characters']);
    setFormatMode('assertion');
    expect(schemaErrors(schema, { due: 'next Friday' })).toEqual([expect.stringContaining('arguments.due')]);
    expect(schemaErrors(schema, { due: '2026-03-20' })).toEqual([]);
  });
});

describe('inline harnesses', () => {
  const recs: Trajectory[] = readFileSync(path.join(REPO, 'fixtures', 'ingest', 'inline', 'records.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l, i) => (parseTrajectoryLine('r.jsonl', i + 1, l) as { record: Trajectory }).record);

  it('the same tool name with different schemas gives different harnesses; equal (tools, system) share one', () => {
    const hashes = recs.map((r) => deriveInlineHarness(r, { file: 'r', line: 1 }).hash);
    expect(new Set(hashes).size).toBeLessThan(recs.length);
    const lookups = new Set(
      recs.map((r) => JSON.stringify(deriveInlineHarness(r, { file: 'r', line: 1 }).harness!.tools.find((t) => t.name === 'get_booking')?.parameters ?? null)),
    );
    expect(lookups.size).toBeGreaterThanOrEqual(3); // two schemas, and records without the tool
  });

  it('states do not depend on the cache size or on evictions', async () => {
    const transforms = resolveTransforms(await loadRegistry(), undefined, 'rewrite');
    const statesWith = (capacity: number) => {
      const cache = new InlineHarnesses((h, hash) => new StatePool(h, transforms, `0:${hash}`, builtinWords, 8), capacity);
      return [...recs, ...recs].map((r) => {
        const { extra } = cache.for(structuredClone(r), { file: 'r', line: 1 });
        return [0, 1, 2].map((k) => extra!.get(extra!.slotFor(r.id, k)).stateHash).join(',');
      });
    };
    expect(statesWith(1)).toEqual(statesWith(64));
  });

  it("tools that cannot make a harness are errors naming the record's field", () => {
    const rec = {
      id: 'x',
      tools: [{ type: 'function', function: { name: 'a b!', parameters: {} } }],
      messages: [{ role: 'user', content: 'x' }],
    } as unknown as Trajectory;
    const r = deriveInlineHarness(rec, { file: 'f.jsonl', line: 7 });
    expect(r.harness).toBeUndefined();
    expect(r.problems.map((p) => `${p.file}:${p.line}: ${p.id}: ${p.path}: ${p.message}`)).toEqual([
      expect.stringMatching(/^f\.jsonl:7: x: tools\.0\.function\.name: "a b!" is not a usable tool name/),
    ]);
  });
});
