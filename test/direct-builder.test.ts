import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Harness } from '../src/harness/types.js';
import { deriveInlineHarness } from '../src/ingest/inline-harness.js';
import { augmentOne, StatePool } from '../src/trajectory/augment.js';
import { checkVariant, reportFailures } from '../src/trajectory/invariants.js';
import { rewriteTrajectory } from '../src/trajectory/rewrite.js';
import type { Trajectory } from '../src/trajectory/types.js';
import { directApplies, directVariant } from '../src/transform/direct.js';
import { emptyPlan } from '../src/transform/plan.js';
import { schemaPropertyNames, stateIdentifiers } from '../src/transform/state.js';
import { resolveTransforms, sampleVariant } from '../src/transform/variant.js';
import { hashState } from '../src/util/hash.js';
import { builtinWords } from '../src/words/selection.js';
import { builtinTransforms } from '../transforms/index.js';

/**
 * The direct state builder of small inline harnesses (src/transform/direct.ts): where it applies,
 * that each of its transforms' kinds of change appears in its variants, that it is deterministic
 * (and the same with --workers 1 and 2), and that its variants still meet every check (a broken one
 * is caught).
 */

const tool = (name: string, description: string, props: Record<string, object>, required: string[]) => ({
  type: 'function' as const,
  function: { name, description, parameters: { type: 'object', properties: props, required } },
});
const str = (d: string) => ({ type: 'string', description: d });

function record(id: string): Trajectory {
  return {
    id,
    tools: [
      tool('create_ticket', 'Create a ticket; call list_tickets first.', { email: str('The email.'), note: str('The note.') }, ['email']),
      tool('list_tickets', 'List tickets for an `email`.', { email: str('The email.'), date: str('The date.') }, ['email']),
      tool('get_forecast', 'Weather forecast for a city.', { city: str('The city.'), days: { type: 'integer' } }, ['city']),
    ],
    messages: [
      { role: 'system', content: 'You are a helpdesk agent.' },
      { role: 'user', content: 'Please open a ticket for me.' },
      {
        role: 'assistant',
        content: 'Checking first.',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'list_tickets', arguments: '{"email":"a@b.c","date":"2024-01-01"}' } },
          { id: 'c2', type: 'function', function: { name: 'create_ticket', arguments: '{"email":"a@b.c","note":"hi"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: '{"ok":true}' },
      { role: 'tool', tool_call_id: 'c2', content: '{"ok":true}' },
      { role: 'assistant', content: 'Done.' },
    ],
  };
}

const RENAME_SET = { 'tools.order': { p: 1 }, 'tools.rename': { p: 1 }, 'tools.param-rename': { p: 1 } };
const renameSet = resolveTransforms(builtinTransforms, RENAME_SET, 'rewrite');
const inline = (r: Trajectory): Harness => deriveInlineHarness(r, { file: 'test', line: 1 }).harness!;

describe('direct state builder', () => {
  it('applies to a tools-only inline harness under the rename set, and nowhere else', () => {
    const h = inline(record('a'));
    expect(directApplies(h, renameSet)).toBe(true);
    expect(directApplies(h, resolveTransforms(builtinTransforms, { 'tools.rename': true }, 'rewrite'))).toBe(true);
    // A harness folder's state (no literal prompt), one with skills or hooks, or two sections.
    expect(directApplies({ ...h, literalPrompt: false }, renameSet)).toBe(false);
    expect(directApplies({ ...h, literalPrompt: undefined }, renameSet)).toBe(false);
    expect(directApplies({ ...h, skills: [{ id: 's', description: 'd', body: 'b', tools: [], extra: {} } as never] }, renameSet)).toBe(false);
    expect(directApplies({ ...h, hooks: [{} as never] }, renameSet)).toBe(false);
    expect(directApplies({ ...h, sections: [...h.sections, { ...h.sections[0]!, id: 'x' }] }, renameSet)).toBe(false);
    // Any other transform (the defaults include many) takes the generic path.
    expect(directApplies(h, resolveTransforms(builtinTransforms, { ...RENAME_SET, 'tools.describe': true }, 'rewrite'))).toBe(false);
    expect(directApplies(h, resolveTransforms(builtinTransforms, undefined, 'rewrite'))).toBe(false);
    // A transform of the same id at another version is not the one it knows.
    const other = renameSet.map((t) => (t.def.id === 'tools.rename' ? { ...t, def: { ...t.def, version: t.def.version + 1 } } : t));
    expect(directApplies(h, other)).toBe(false);
  });

  it("shows each transform's kind of change, with provenance and a plan that maps back", () => {
    const source = record('b');
    const h = inline(source);
    const ids = stateIdentifiers(h);
    let reordered = 0;
    let renamed = 0;
    let params = 0;
    for (let k = 0; k < 12; k++) {
      const v = directVariant(h, renameSet, 'seed', k, builtinWords, `pool:${k}`, { isTaken: (n) => ids.has(n) })!;
      expect(v).toBeDefined();
      expect(v.applied.map((a) => a.id)).toEqual(['tools.order', 'tools.rename', 'tools.param-rename']);
      expect(v.stateHash).toBe(hashState(v.state));
      // The source state is never edited.
      expect(h.tools.map((t) => t.name)).toEqual(['create_ticket', 'list_tickets', 'get_forecast']);
      const order = v.applied[0]!.params.order as string[];
      if (order.join() !== 'create_ticket,list_tickets,get_forecast') reordered++;
      // Every state tool is a source tool under the plan's name, in the drawn order.
      expect(v.state.tools.map((t) => t.name)).toEqual(order.map((n) => v.plan.tools[n] ?? n));
      renamed += Object.keys(v.plan.tools).length;
      const map = v.applied[2]!.params.renamed as Record<string, string>;
      for (const t of v.state.tools) for (const p of schemaPropertyNames(t.parameters)) expect(Object.keys(map)).not.toContain(p);
      params += Object.keys(map).length;
      // Argument edits are keyed by source tool names.
      for (const name of Object.keys(v.plan.args)) expect(order).toContain(name);
      const rec = rewriteTrajectory(source, v.plan, h, v.state);
      expect(reportFailures(checkVariant(source, rec, v.plan, h, v.state, { roundTrip: true, rules: false }))).toEqual([]);
    }
    expect(reordered).toBeGreaterThan(0);
    expect(renamed).toBeGreaterThan(0);
    expect(params).toBeGreaterThan(0);
  });

  it('is what sampleVariant returns for such a harness, deterministically', () => {
    const source = record('c');
    const a = sampleVariant(inline(source), source, renameSet, 7, 2, builtinWords);
    const b = sampleVariant(inline(record('c')), record('c'), renameSet, 7, 2, builtinWords);
    expect(a.stateHash).toBe(b.stateHash);
    expect(JSON.stringify(a.plan)).toBe(JSON.stringify(b.plan));
    const ids = stateIdentifiers(inline(source));
    const words = new Set(['Please', 'open', 'a', 'ticket', 'for', 'me', 'Checking', 'first', 'email', 'date', 'note', 'hi', 'ok', 'true', 'Done', 'b', 'c']);
    const d = directVariant(inline(source), renameSet, 7, 2, builtinWords, 'c', { isTaken: (n) => ids.has(n) || words.has(n) })!;
    expect(d.stateHash).toBe(a.stateHash);
    // With nothing applied the source state comes back as it is.
    const none = resolveTransforms(builtinTransforms, { 'tools.rename': { p: 0 } }, 'rewrite');
    const h = inline(source);
    const n = sampleVariant(h, source, none, 7, 0, builtinWords);
    expect(n.state).toBe(h);
    expect(n.applied).toEqual([]);
    expect(n.plan).toEqual(emptyPlan());
  });

  it('a broken variant is caught by the checks', () => {
    const source = record('d');
    const h = inline(source);
    const pool = new StatePool(h, renameSet, 's', builtinWords, 4);
    const v = augmentOne(source, h, renameSet, 's', 0, builtinWords, pool);
    expect(v.failures).toEqual([]);
    // The plan without its argument edits: calls keep old keys the state no longer declares.
    const plan = { ...v.variant.plan, args: {} };
    expect(Object.keys(v.variant.plan.args).length).toBeGreaterThan(0);
    const rec = rewriteTrajectory(source, plan, h, v.variant.state);
    expect(reportFailures(checkVariant(source, rec, plan, h, v.variant.state, { roundTrip: true, rules: false })).length).toBeGreaterThan(0);
    // The plan without its tool renames: calls name tools the state does not have.
    const plan2 = { ...v.variant.plan, tools: {} };
    const rec2 = rewriteTrajectory(source, plan2, h, v.variant.state);
    expect(reportFailures(checkVariant(source, rec2, plan2, h, v.variant.state, { roundTrip: true, rules: false })).length).toBeGreaterThan(0);
  });

  it('gives the same output bytes with --workers 1 and 2', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hsa-direct-'));
    const input = join(dir, 'in.jsonl');
    const lines: string[] = [];
    for (let i = 0; i < 60; i++) {
      const r = record(`r${i}`);
      r.tools![0]!.function.name = `create_ticket_${i}`;
      const calls = (r.messages[2] as { tool_calls?: { function: { name: string } }[] }).tool_calls!;
      calls[1]!.function.name = `create_ticket_${i}`;
      lines.push(JSON.stringify(r));
    }
    writeFileSync(input, lines.join('\n') + '\n');
    const run = (workers: number) => {
      const out = join(dir, `out-${workers}`);
      const args = ['augment', '-t', input, '-o', out, '--no-gzip', '--force', '-q', '--part-size', '20', '--workers', String(workers)];
      execFileSync(process.execPath, [
        'bin/hsa',
        ...args,
        '--variants',
        '2',
        '--transforms',
        'tools.rename',
        'tools.param-rename',
        'tools.order',
        '--stages',
        'sft',
      ]);
      const sft = join(out, 'sft');
      return readdirSync(sft)
        .sort()
        .map((f) => readFileSync(join(sft, f), 'utf8'))
        .join('');
    };
    const one = run(1);
    expect(one.split('\n').filter(Boolean).length).toBe(120);
    expect(run(2)).toBe(one);
  });
});
