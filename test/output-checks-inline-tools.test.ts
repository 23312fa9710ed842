import { describe, expect, it } from 'vitest';
import type { Harness } from '../src/harness/types.js';
import { deriveInlineHarness } from '../src/ingest/inline-harness.js';
import { augmentOne, StatePool, type AugmentedVariant } from '../src/trajectory/augment.js';
import { checkCalls, checkLeaks, checkVariant } from '../src/trajectory/invariants.js';
import { checkRoundTrip } from '../src/trajectory/round-trip.js';
import { checkRules } from '../src/trajectory/rules-check.js';
import { rewriteTrajectory } from '../src/trajectory/rewrite.js';
import type { Message, ToolCall, Trajectory } from '../src/trajectory/types.js';
import { applyArgOps, invertPlan, netParamRenames, type RewritePlan } from '../src/transform/plan.js';
import { resolveTransforms } from '../src/transform/variant.js';
import { schemaErrors } from '../src/util/json-schema.js';
import { builtinTransforms } from '../transforms/index.js';
import { builtinWords } from '../src/words/selection.js';
import { baseHarness } from './helpers/state.js';

/**
 * The checks of an output (leaks, calls, round trip, rules) on records that carry their own tools
 * (an inline harness per record, a state per variant): each check's caches and fast paths are per
 * state or per source harness, so every check is fed variants broken after the fact — a leaked old
 * name, an invalid call, a round trip that does not come back, a lost rule — and must fail them.
 */

const tool = (name: string, description: string, props: Record<string, object>, required: string[]) => ({
  type: 'function' as const,
  function: { name, description, parameters: { type: 'object', properties: props, required } },
});

function record(id: string): Trajectory {
  const str = (d: string) => ({ type: 'string', description: d });
  return {
    id,
    tools: [
      tool(
        'create_ticket_12',
        'Create a ticket; see list_ticket_7 first.',
        { email: str('The email.'), note: str('The note.'), count: { type: 'integer', minimum: 0 } },
        ['email'],
      ),
      tool('list_ticket_7', 'List tickets for an `email`.', { email: str('The email.'), date: str('The date.') }, ['email']),
      tool('close_order_48', 'Close an order.', { reason: str('The reason.'), amount: str('The amount.') }, ['reason']),
      tool('get_meter', 'Read a meter.', { city: str('The city.'), channel: str('The channel.') }, ['city']),
    ],
    messages: [
      { role: 'system', content: 'You are a helpdesk agent. Call list_ticket_7 before create_ticket_12.\n\n- Be brief.\n- Confirm changes.' },
      { role: 'user', content: 'Please open a ticket for me.' },
      {
        role: 'assistant',
        content: 'Checking with list_ticket_7 first.',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'list_ticket_7', arguments: '{"email":"a@b.c","date":"2024-01-01"}' } },
          { id: 'c2', type: 'function', function: { name: 'create_ticket_12', arguments: '{"email":"a@b.c","note":"hi","count":2}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: '{"ok":true}' },
      { role: 'tool', tool_call_id: 'c2', content: '{"ok":true,"ref":"R-1"}' },
      { role: 'assistant', content: 'Done: create_ticket_12 made your ticket.' },
    ],
  };
}

const selection = Object.fromEntries(
  ['tools.rename', 'tools.param-rename', 'tools.describe', 'tools.distractors', 'tools.order', 'prompt.list-style'].map((id) => [id, { p: 1 }]),
);
const transforms = resolveTransforms(builtinTransforms, selection, 'rewrite');

/** Variants of fresh per-record harnesses (new states, plans and caches each time), with their source. */
function variants(n: number): { source: Trajectory; harness: Harness; v: AugmentedVariant }[] {
  const out: { source: Trajectory; harness: Harness; v: AugmentedVariant }[] = [];
  for (let r = 0; r < n; r++) {
    const source = record(`r${r}`);
    const harness = deriveInlineHarness(source, { file: 'test', line: r + 1 }).harness!;
    const pool = new StatePool(harness, transforms, `seed-${r}`, builtinWords, 16);
    for (let k = 0; k < 4; k++) out.push({ source, harness, v: augmentOne(source, harness, transforms, `seed-${r}`, k, builtinWords, pool) });
  }
  return out;
}

const copy = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;
const calls = (rec: Trajectory): ToolCall[] => rec.messages.flatMap((m) => (m.role === 'assistant' && m.tool_calls ? [m.tool_calls] : []))[0]!;
const renamedTools = (plan: RewritePlan) => Object.keys(plan.tools).filter((a) => plan.tools[a] !== a && a !== 'get_meter');

describe('output checks on records with their own tools', () => {
  const all = variants(6);

  it('pass the variants as made, which do rename tools and parameters', () => {
    expect(all.every(({ v }) => v.failures.length === 0)).toBe(true);
    expect(all.some(({ v }) => renamedTools(v.variant.plan).length > 0)).toBe(true);
    expect(all.some(({ v }) => Object.keys(netParamRenames(v.variant.plan).params).length > 0)).toBe(true);
  });

  it('leaks: an old tool name in assistant text, an old call name, an old parameter key', () => {
    let seen = 0;
    for (const { harness, v } of all) {
      const plan = v.variant.plan;
      for (const old of renamedTools(plan)) {
        const rec = copy(v.record);
        (rec.messages[5] as Message & { content: string }).content += ` Also ${old}.`;
        expect(checkLeaks(rec, plan, harness, v.variant.state)).toContain(`messages.5: mentions old name "${old}"`);
        seen++;
      }
      const net = netParamRenames(plan).params;
      for (const [i, c] of calls(v.record).entries()) {
        const original = Object.keys(plan.tools).find((a) => plan.tools[a] === c.function.name) ?? c.function.name;
        const renamed = net[original];
        if (!renamed) continue;
        const [oldKey, newKey] = Object.entries(renamed)[0]!;
        const rec = copy(v.record);
        const call = calls(rec)[i]!;
        call.function.arguments = call.function.arguments.replace(`"${newKey}"`, `"${oldKey}"`);
        expect(checkLeaks(rec, plan, harness, v.variant.state)).toContain(`messages.2.tool_calls.${i}: old parameter "${oldKey}"`);
        seen++;
      }
      const old = renamedTools(plan).find((a) => calls(copy(v.record)).some((c) => c.function.name === plan.tools[a]));
      if (old !== undefined) {
        const rec = copy(v.record);
        const call = calls(rec).find((c) => c.function.name === plan.tools[old])!;
        call.function.name = old;
        expect(checkLeaks(rec, plan, harness, v.variant.state).some((l) => l.includes(`old tool name "${old}"`))).toBe(true);
        expect(checkCalls(rec, v.variant.state).some((e) => e.includes(`tool "${old}" is not in the record's tools`))).toBe(true);
        seen++;
      }
    }
    expect(seen).toBeGreaterThan(20);
  });

  it("leaks in tool texts: an old name in a state tool description, an old parameter left in the record's tool list", () => {
    let seen = 0;
    for (const { harness, v } of all) {
      const plan = v.variant.plan;
      const state = v.variant.state;
      const old = renamedTools(plan)[0];
      if (old !== undefined) {
        const bad: Harness = { ...state, tools: state.tools.map((t, j) => (j === 0 ? { ...t, description: `${t.description} Like ${old}.` } : t)) };
        expect(checkLeaks(v.record, plan, harness, bad)).toContain(`tools.${state.tools[0]!.name}.description: mentions old name "${old}"`);
        seen++;
      }
      const net = netParamRenames(plan).params;
      const original = Object.keys(net).find((t) => !Object.values(plan.args[t] ?? []).some((op) => op.op !== 'rename'));
      if (original !== undefined) {
        const [oldKey, newKey] = Object.entries(net[original]!)[0]!;
        const name = plan.tools[original] ?? original;
        // The record's own tool list (what the model reads) keeps an old parameter.
        const rec = copy(v.record);
        const t = rec.tools!.find((x) => x.function.name === name)!;
        t.function.parameters = JSON.parse(JSON.stringify(t.function.parameters).replace(`"${newKey}":`, `"${oldKey}":`)) as typeof t.function.parameters;
        expect(checkLeaks(rec, plan, harness, state)).toContain(`tools.${name}: old parameter "${oldKey}"`);
        seen++;
      }
    }
    expect(seen).toBeGreaterThan(10);
  });

  it('calls: a tool schema the interpreter cannot use (a $ref to nothing, a pattern that is no regex) fails the check on that variant instead of ending the run', () => {
    for (const { v } of all.slice(0, 4)) {
      const name = calls(v.record)[0]!.function.name;
      // The record's tool list as written, with one property the interpreter compiles only when it meets it.
      const broken = (extra: Record<string, unknown>): Trajectory => {
        const rec = copy(v.record);
        const t = rec.tools!.find((x) => x.function.name === name)!;
        t.function.parameters = { ...t.function.parameters, properties: { ...(t.function.parameters.properties as object), bad: extra } };
        const call = calls(rec)[0]!;
        call.function.arguments = JSON.stringify({ ...(JSON.parse(call.function.arguments) as object), bad: 'x' });
        return rec;
      };
      expect(
        checkCalls(broken({ $ref: '#/$defs/Missing' }), v.variant.state).some((e) =>
          e.startsWith('messages.2.tool_calls.0: schema does not compile: Unresolved $ref'),
        ),
      ).toBe(true);
      expect(
        checkCalls(broken({ type: 'string', pattern: '(' }), v.variant.state).some((e) =>
          e.startsWith('messages.2.tool_calls.0: schema does not compile: Invalid regular expression'),
        ),
      ).toBe(true);
    }
  });

  it('calls: a wrong type, a missing required key and an unknown property of a closed schema are invalid', () => {
    for (const { v } of all) {
      const rec = copy(v.record);
      const call = calls(rec)[1]!;
      const args = JSON.parse(call.function.arguments) as Record<string, unknown>;
      const countKey = Object.keys(args).find((k) => typeof args[k] === 'number')!;
      args[countKey] = 'two';
      call.function.arguments = JSON.stringify(args);
      expect(checkCalls(rec, v.variant.state).some((e) => e.startsWith(`messages.2.tool_calls.1: arguments.${countKey}: must be integer`))).toBe(true);
      call.function.arguments = '{}';
      expect(checkCalls(rec, v.variant.state).some((e) => e.includes('missing required property'))).toBe(true);
    }
    // Two schema objects of one meaning each answer for themselves (quick tests are per object).
    const closed = () => ({ type: 'object', properties: { a: { type: 'string', description: 'x' } }, additionalProperties: false });
    const [s1, s2] = [closed(), closed()];
    expect(schemaErrors(s1, { a: 'ok' })).toEqual([]);
    expect(schemaErrors(s2, { a: 'ok', b: 1 })).toEqual(['arguments: unknown property "b"']);
    expect(schemaErrors(s1, { a: 1 })).toEqual(['arguments.a: must be string']);
  });

  it('round trip: a changed argument value, a changed assistant word and a call the inverse cannot rename back', () => {
    for (const { source, harness, v } of all) {
      const plan = v.variant.plan;
      const state = v.variant.state;
      expect(checkRoundTrip(source, v.record, plan, harness, state)).toEqual([]);
      const a = copy(v.record);
      calls(a)[0]!.function.arguments = calls(a)[0]!.function.arguments.replace('a@b.c', 'x@y.z');
      expect(checkRoundTrip(source, a, plan, harness, state)).toEqual([expect.stringMatching(/^messages\.2 differs after inverse/)]);
      const b = copy(v.record);
      (b.messages[5] as Message & { content: string }).content = 'Done.';
      expect(checkRoundTrip(source, b, plan, harness, state)).toEqual([expect.stringMatching(/^messages\.5 differs after inverse/)]);
      const old = renamedTools(plan).find((x) => calls(source).some((c) => c.function.name === x));
      if (old !== undefined) {
        const c = copy(v.record);
        calls(c).find((x) => x.function.name === plan.tools[old])!.function.name = 'someone_else';
        expect(checkRoundTrip(source, c, plan, harness, state)).toEqual([expect.stringMatching(/^messages\.2 differs after inverse/)]);
      }
    }
  });

  it('the inverse of flat and nested renames gives the arguments back', () => {
    const plan: RewritePlan = {
      tools: { a: 'b' },
      skills: {},
      hooks: {},
      sections: {},
      args: {
        a: [
          { op: 'rename', paths: { x: 'y', 'f.g': 'h', f: 'k' } },
          { op: 'wrap', key: 'w' },
          { op: 'rename', paths: { 'w.y': 'z' } },
        ],
      },
    };
    const args = { x: 1, f: { g: 2, q: 3 }, r: [4] };
    const there = applyArgOps(args, plan.args.a!);
    expect(there).toEqual({ w: { z: 1, k: { h: 2, q: 3 }, r: [4] } });
    expect(applyArgOps(there, invertPlan(plan).args.b!)).toEqual(args);
    expect(netParamRenames({ ...plan, args: { t: [{ op: 'rename', paths: { x: 'y', 'f.g': 'g', 'f.h': 'i' } }] } }).params).toEqual({
      t: { x: 'y', 'f.h': 'i' },
    });
  });

  it('rules: a rule added to or dropped from the state fails, whether or not the plan rewrote the prompt', () => {
    for (const { harness, v } of all) {
      const plan = v.variant.plan;
      const state = v.variant.state;
      const added: Harness = { ...state, sections: state.sections.map((s) => ({ ...s, text: `${s.text}\n- Never refund.` })) };
      expect(checkRules(harness, added, plan).some((r) => r.includes('new rule') && r.toLowerCase().includes('never refund'))).toBe(true);
      const dropped: Harness = { ...state, sections: state.sections.map((s) => ({ ...s, text: s.text.replace(/\n[-*+•] Be brief\.|\n1\. Be brief\./, '') })) };
      expect(checkRules(harness, dropped, plan).some((r) => r.toLowerCase().includes('be brief'))).toBe(true);
    }
    // Both kinds of plan were met: one that renames a tool the prompt names, one that does not.
    expect(all.some(({ v }) => renamedTools(v.variant.plan).some((t) => t === 'list_ticket_7' || t === 'create_ticket_12'))).toBe(true);
    expect(all.some(({ v }) => !renamedTools(v.variant.plan).some((t) => t === 'list_ticket_7' || t === 'create_ticket_12'))).toBe(true);
  });

  it('a skill body loaded in a record is read under the reference rules (the body rewriter made on first use)', () => {
    const h = baseHarness({
      skillLoader: { tool: 'load_skill', argument: 'name' },
      skills: [
        {
          id: 'refund-policy',
          description: 'Refunds.',
          body: 'Use `refund_order_9` for refunds.',
          dir: 'skills/refund-policy',
          distractor: false,
          files: [],
        } as unknown as Harness['skills'][number],
      ],
      tools: [
        {
          name: 'load_skill',
          description: 'Load a skill.',
          parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
          sourceName: 'load_skill',
          sourceFormat: 'openai',
        },
        {
          name: 'refund_order_9',
          description: 'Refund.',
          parameters: { type: 'object', properties: { order: { type: 'string' } } },
          sourceName: 'refund_order_9',
          sourceFormat: 'openai',
        },
      ],
    });
    const plan: RewritePlan = { tools: { refund_order_9: 'pay_back_9' }, skills: {}, hooks: {}, sections: {}, args: {} };
    const state: Harness = {
      ...h,
      skills: [{ ...h.skills[0]!, body: 'Use `pay_back_9` for refunds.' }],
      tools: [h.tools[0]!, { ...h.tools[1]!, name: 'pay_back_9', sourceName: 'pay_back_9' }],
    };
    const source: Trajectory = {
      id: 's',
      messages: [
        { role: 'user', content: 'refund please' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'l1', type: 'function', function: { name: 'load_skill', arguments: '{"name":"refund-policy"}' } }],
        },
        { role: 'tool', tool_call_id: 'l1', content: 'Notes: call refund_order_9 with the order.' },
      ],
    };
    const out = rewriteTrajectory(source, plan, h, state);
    expect(checkVariant(source, out, plan, h, state, { roundTrip: true, rules: false }).leaks).toEqual([]);
    const bad = copy(out);
    (bad.messages[2] as Message & { content: string }).content = 'Notes: call refund_order_9 with the order.';
    expect(checkLeaks(bad, plan, h, state)).toContain('messages.2: mentions old name "refund_order_9"');
  });
});
