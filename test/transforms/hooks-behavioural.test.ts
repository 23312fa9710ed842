import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseFeedback, renderFeedback } from '../../src/harness/feedback.js';
import { loadHarness } from '../../src/harness/load.js';
import { renderSystemPrompt } from '../../src/harness/render.js';
import type { Harness, Hook } from '../../src/harness/types.js';
import type { AnyTransform } from '../../src/transform/define.js';
import { resolveTransforms, sampleVariant, TransformRefusedError } from '../../src/transform/variant.js';
import { checkTrajectory } from '../../src/trajectory/check.js';
import { checkVariant, reportFailures } from '../../src/trajectory/invariants.js';
import { readTrajectories } from '../../src/trajectory/read.js';
import { rewriteTrajectory } from '../../src/trajectory/rewrite.js';
import { textOf, type Message, type Trajectory } from '../../src/trajectory/types.js';
import threshold from '../../transforms/hooks/threshold.js';
import toggle from '../../transforms/hooks/toggle.js';
import { builtinWords } from '../../src/words/selection.js';
import { REPO } from '../helpers/hsa.js';
import {
  exactAndSemantic,
  behavioural,
  family,
  hook,
  harness,
  stopGate,
  stopLoop,
  whitelist,
  schemaValid,
  allHooks,
  run,
  problems,
} from '../helpers/hook-transforms.js';

describe('hooks.threshold (behavioural)', () => {
  it.each([
    ['stricter reply gate', [stopGate], { minFactor: 0.5, maxFactor: 0.5 }, 'max_chars', 80, 40],
    ['looser tool budget', [stopLoop], { minFactor: 1.5, maxFactor: 1.5 }, 'max_tool_rounds', 4, 6],
    ['a factor that rounds back moves one step', [stopLoop], { minFactor: 0.9, maxFactor: 0.9 }, 'max_tool_rounds', 4, 3],
    ['never below 1', [hook('g', { checks: [{ type: 'max_chars', value: 1 }] })], { minFactor: 0.1, maxFactor: 0.1 }, 'max_chars', 1, 2],
    ['only the chosen kinds', [stopGate, stopLoop], { checks: ['max_tool_rounds'], minFactor: 2, maxFactor: 2 }, 'max_tool_rounds', 4, 8],
  ] as const)('%s', (_, hooks, options, check, from, to) => {
    const state = harness([...hooks]);
    const r = run(threshold, state, { p: 1, ...options })!;
    expect(r.params).toMatchObject({ check, from, to });
    const h = r.state.hooks.find((k) => k.id === r.params.hook)!;
    expect(h.checks.find((c) => c.type === check)).toEqual({ type: check, value: to });
    expect(problems(r.state)).toEqual([]);
  });

  it('draws factors from the range', () => {
    for (let seed = 0; seed < 50; seed++) {
      const r = run(threshold, harness([hook('g', { checks: [{ type: 'max_chars', value: 1000 }] })]), { p: 1, minFactor: 0.6, maxFactor: 0.8 }, seed)!;
      expect(r.params.factor as number).toBeGreaterThanOrEqual(0.6);
      expect(r.params.factor as number).toBeLessThanOrEqual(0.8);
      expect(r.params.to as number).toBeGreaterThanOrEqual(600);
      expect(r.params.to as number).toBeLessThanOrEqual(800);
    }
  });

  it('rejects minFactor > maxFactor and returns null without numeric thresholds', () => {
    expect(threshold.options.safeParse({ minFactor: 2, maxFactor: 1 }).success).toBe(false);
    expect(run(threshold, harness([whitelist, schemaValid]), { p: 1 })).toBeNull();
  });
});

describe('hooks.toggle (behavioural)', () => {
  it('removes only non-essential hooks', () => {
    const state = allHooks();
    const removed = new Set<string>();
    for (let seed = 0; seed < 60; seed++) {
      const r = run(toggle, state, { p: 1, mode: 'remove' }, seed)!;
      const id = r.params.removed as string;
      removed.add(id);
      expect(r.state.hooks.map((h) => h.id)).toEqual(state.hooks.map((h) => h.id).filter((x) => x !== id));
    }
    expect([...removed].sort()).toEqual(['refusal_whitelist', 'stop_gate', 'stop_loop']);
    expect(run(toggle, harness([schemaValid]), { p: 1, mode: 'remove' })).toBeNull();
    expect(run(toggle, harness([stopGate, schemaValid]), { p: 1, mode: 'remove', keep: ['stop_gate'] })).toBeNull();
  });

  it('adds a built-in hook only when no hook does its job, valid and with a fresh id', () => {
    const added = new Set<string>();
    for (let seed = 0; seed < 60; seed++) {
      const state = harness([stopGate]);
      const r = run(toggle, state, { p: 1, mode: 'add' }, seed)!;
      const h = r.params.added as Hook;
      added.add(h.id);
      expect(r.state.hooks).toHaveLength(2);
      expect(r.state.hooks).toContainEqual(h);
      expect(h.feedback.startsWith(`[${h.id}] `)).toBe(true);
      expect(problems(r.state)).toEqual([]);
    }
    expect([...added].sort()).toEqual(['args_schema_check', 'forbid_phrases', 'tool_round_limit']);
    const full = harness([stopGate, stopLoop, schemaValid, hook('f', { checks: [{ type: 'forbid', phrases: ['x'], regex: [], target: 'reply' }] })]);
    expect(run(toggle, full, { p: 1, mode: 'add' })).toBeNull();
  });

  it('a taken id gets a numbered suffix; options shape the added hook', () => {
    const r = run(toggle, harness([]), { p: 1, mode: 'add', add: ['reply_length'], maxChars: 50 }, 1, (n) => n === 'reply_length')!;
    const h = r.params.added as Hook;
    expect(h.id).toBe('reply_length_2');
    expect(h.checks).toEqual([{ type: 'max_chars', value: 50 }]);
    const f = run(toggle, harness([]), { p: 1, mode: 'add', add: ['forbid_phrases'], phrases: ['cheapest'] })!.params.added as Hook;
    expect(f.checks).toEqual([{ type: 'forbid', phrases: ['cheapest'], regex: [], target: 'reply' }]);
  });
});

describe('behavioural transforms in rewrite mode', () => {
  it.each(Object.keys(behavioural))('%s is refused with a message naming it', (id) => {
    let err: unknown;
    try {
      resolveTransforms(family, { [id]: { p: 1 } }, 'rewrite');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TransformRefusedError);
    expect((err as Error).message).toContain(id);
    expect((err as Error).message).toMatch(/teacher/);
    expect(resolveTransforms(family, { [id]: { p: 1 } }, 'teacher').map((t) => t.def.id)).toEqual([id]);
  });

  it('are off by default, so the default selection resolves in rewrite mode', () => {
    expect(resolveTransforms(family, undefined, 'rewrite').map((t) => t.def.id)).toEqual(Object.keys(exactAndSemantic));
  });
});

describe('hooks family on the live-commerce fixture', () => {
  let lc: Harness;
  let records: Trajectory[];

  /**
   * The fixture's trajectories only show stop_gate feedback. These add records where every hook
   * speaks: the stop_loop notice on its system channel and both tool-channel hooks answering calls.
   */
  function synthetic(base: Trajectory, n: number): Trajectory {
    const fb = (id: string, vars: Record<string, unknown>) => renderFeedback(lc.hooks.find((h) => h.id === id)!.feedback, vars);
    const ctx = base.context ?? {};
    const messages: Message[] = [
      { role: 'system', content: renderSystemPrompt(lc, ctx) },
      { role: 'user', content: 'what sizes does the dress come in?' },
      { role: 'assistant', content: '', tool_calls: [{ id: `r${n}`, type: 'function', function: { name: 'refuse_request', arguments: '{"reason":"spam"}' } }] },
      { role: 'tool', tool_call_id: `r${n}`, content: fb('refusal_whitelist', { tool: 'refuse_request' }) },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: `d${n}`, type: 'function', function: { name: 'get_item_detail', arguments: '{"item_id":"i-01","fields":["sizes"]}' } }],
      },
      { role: 'tool', tool_call_id: `d${n}`, content: fb('schema_valid', { tool: 'get_item_detail', reason: `must have required property 'item_id' (${n})` }) },
      { role: 'system', name: 'hook:stop_loop', content: fb('stop_loop', { rounds: 4 + (n % 3), max_tool_rounds: 4 }) },
      { role: 'assistant', content: 'It comes in S, M and L, and the linen is very breathable for summer days on the go!' },
      { role: 'user', name: 'hook:stop_gate', content: fb('stop_gate', { chars: 83, max_chars: 80 }) },
      { role: 'assistant', content: 'It comes in S, M and L!' },
    ];
    return { id: `syn-${n}`, ...(base.context ? { context: base.context } : {}), messages };
  }

  beforeAll(async () => {
    lc = (await loadHarness(path.join(REPO, 'fixtures/live-commerce/harness'))).harness!;
    records = [];
    for await (const item of readTrajectories(path.join(REPO, 'fixtures/live-commerce/trajectories.jsonl'))) if (item.ok) records.push(item.record);
    expect(records.length).toBeGreaterThan(100);
    const extra = records.slice(0, 40).map((r, i) => synthetic(r, i));
    for (const r of extra) expect(checkTrajectory(r, lc, { file: 'synthetic', line: 1 }).filter((p) => p.severity === 'error')).toEqual([]);
    records.push(...extra);
  });

  /**
   * sampleVariant → rewriteTrajectory → checkVariant over every record, plus: the state validates,
   * the augmented record checks clean against it, and every hook message carries the new hook's
   * name, channel and template. Returns failures, counts of applied transforms and hook messages.
   */
  function property(registry: Record<string, AnyTransform>, selection: Record<string, unknown>, seeds: (string | number)[], variants: number) {
    const resolved = resolveTransforms(registry, selection, 'rewrite');
    const failures: string[] = [];
    const applied: Record<string, number> = {};
    let total = 0;
    let hookMessages = 0;
    for (const seed of seeds) {
      for (const rec of records) {
        for (let k = 0; k < variants; k++) {
          const v = sampleVariant(lc, rec, resolved, seed, k, builtinWords);
          for (const a of v.applied) applied[a.id] = (applied[a.id] ?? 0) + 1;
          const aug = rewriteTrajectory(rec, v.plan, lc, v.state);
          const out = [
            ...reportFailures(checkVariant(rec, aug, v.plan, lc, v.state, { roundTrip: true, rules: true })),
            ...problems(v.state).map((p) => `state: ${p.path}: ${p.message}`),
            ...checkTrajectory(aug, v.state, { file: 'augmented', line: 1 })
              .filter((p) => p.severity === 'error')
              .map((p) => `record: ${p.path}: ${p.message}`),
          ];
          const calls = new Map<string, string>();
          aug.messages.forEach((m, i) => {
            if (m.role === 'assistant') for (const c of m.tool_calls ?? []) calls.set(c.id, c.function.name);
            const named =
              (m.role === 'user' || m.role === 'system') && m.name?.startsWith('hook:') ? v.state.hooks.find((h) => `hook:${h.id}` === m.name) : undefined;
            if ((m.role === 'user' || m.role === 'system') && m.name?.startsWith('hook:')) {
              hookMessages++;
              if (!named) out.push(`messages.${i}: no hook "${m.name}" in the state`);
              else if (named.channel !== m.role) out.push(`messages.${i}: on ${m.role}, hook channel is ${named.channel}`);
              else if (parseFeedback(named.feedback, textOf(m.content)) === null) out.push(`messages.${i}: not written from ${JSON.stringify(named.feedback)}`);
            }
            if (m.role === 'tool' && rec.id.startsWith('syn-') && calls.get(m.tool_call_id) !== 'load_skill') {
              hookMessages++;
              if (!v.state.hooks.some((h) => h.channel === 'tool' && parseFeedback(h.feedback, textOf(m.content)) !== null))
                out.push(`messages.${i}: tool feedback matches no tool-channel hook`);
            }
          });
          for (const f of out) failures.push(`${rec.id}~v${k} seed ${seed} ${JSON.stringify(v.applied.map((a) => [a.id, a.params]))}: ${f}`);
          total++;
        }
      }
    }
    return { failures, applied, total, hookMessages };
  }

  it('all exact and semantic hooks transforms together: 0 leaks, invalid calls, round-trip or rule failures', () => {
    const selection = Object.fromEntries(Object.keys(exactAndSemantic).map((id) => [id, { p: 0.7 }]));
    const r = property(exactAndSemantic, selection, ['h1', 'h2'], 1);
    expect(r.total).toBeGreaterThanOrEqual(300);
    expect(r.hookMessages).toBeGreaterThan(300);
    expect(r.failures.slice(0, 5)).toEqual([]);
    for (const id of Object.keys(exactAndSemantic)) expect(r.applied[id], id).toBeGreaterThan(r.total / 3);
  });

  it('in reverse registry order too (restyle before rename)', () => {
    const reversed = Object.fromEntries(Object.entries(exactAndSemantic).reverse());
    const selection = Object.fromEntries(Object.keys(exactAndSemantic).map((id) => [id, { p: 0.8, ...(id === 'hooks.order' ? {} : { intensity: 1 }) }]));
    const r = property(reversed, selection, ['r1'], 2);
    expect(r.total).toBeGreaterThanOrEqual(300);
    expect(r.failures.slice(0, 5)).toEqual([]);
  });

  it.each(Object.keys(exactAndSemantic))('%s alone at p=1 on every record', (id) => {
    const r = property({ [id]: family[id]! }, { [id]: { p: 1 } }, ['one'], 1);
    expect(r.failures.slice(0, 5)).toEqual([]);
    expect(r.applied[id]).toBe(records.length);
  });

  it('a renamed, restyled, moved stop gate: the feedback message follows', () => {
    const rec = records.find((r) => r.messages.some((m) => m.role === 'user' && m.name === 'hook:stop_gate'))!;
    const resolved = resolveTransforms(
      family,
      { 'hooks.rename': { p: 1, intensity: 1 }, 'hooks.feedback-style': { p: 1, intensity: 1 }, 'hooks.channel': { p: 1 } },
      'rewrite',
    );
    const v = sampleVariant(lc, rec, resolved, 3, 0, builtinWords);
    const aug = rewriteTrajectory(rec, v.plan, lc, v.state);
    const newId = v.plan.hooks.stop_gate!;
    const gate = v.state.hooks.find((h) => h.id === newId)!;
    const i = rec.messages.findIndex((m) => m.role === 'user' && m.name === 'hook:stop_gate');
    const vars = parseFeedback(lc.hooks[0]!.feedback, textOf(rec.messages[i]!.content))!;
    expect(aug.messages[i]).toEqual({ role: 'system', name: `hook:${newId}`, content: renderFeedback(gate.feedback, vars) });
    expect(textOf(aug.messages[i]!.content)).toContain(newId);
    expect(textOf(aug.messages[i]!.content)).not.toMatch(/(?<![\w-])stop_gate(?![\w-])/);
  });

  it('does nothing on a harness without hooks (support-desk), except toggle adding one', async () => {
    const { harness: sd } = await loadHarness(path.join(REPO, 'fixtures/support-desk/harness'));
    for (const def of Object.values(exactAndSemantic)) expect(run(def, sd!, { p: 1 }), def.id).toBeNull();
    expect(run(threshold, sd!, { p: 1 })).toBeNull();
    expect(run(toggle, sd!, { p: 1, mode: 'remove' })).toBeNull();
    const added = run(toggle, sd!, { p: 1, mode: 'add' })!;
    expect(added.state.hooks).toHaveLength(1);
    expect(problems(added.state)).toEqual([]);
  });
});
