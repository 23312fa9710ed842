import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadHarness } from '../../src/harness/load.js';
import { sectionUnits } from '../../src/harness/markdown.js';
import { renderPrompt } from '../../src/harness/render.js';
import type { Harness } from '../../src/harness/types.js';
import { emptyPlan } from '../../src/transform/plan.js';
import { createRng } from '../../src/transform/rng.js';
import { resolveTransforms, sampleVariant, type Variant } from '../../src/transform/variant.js';
import { checkVariant, reportFailures } from '../../src/trajectory/invariants.js';
import { checkRules } from '../../src/trajectory/rules-check.js';
import { readTrajectories } from '../../src/trajectory/read.js';
import { PREAMBLE_NAME, rewriteTrajectory } from '../../src/trajectory/rewrite.js';
import type { Trajectory } from '../../src/trajectory/types.js';
import headingStyle from '../../transforms/prompt/heading-style.js';
import ruleOrder from '../../transforms/prompt/rule-order.js';
import { builtinWords } from '../../src/words/selection.js';
import { REPO } from '../helpers/hsa.js';
import { registry, reversed, harness, text, catalog, skill, apply } from '../helpers/prompt-transforms.js';

// Property tests on the fixtures.

interface Fixture {
  name: string;
  harness: Harness;
  records: Trajectory[];
}

async function loadFixture(name: string): Promise<Fixture> {
  const { harness: h } = await loadHarness(path.join(REPO, 'fixtures', name, 'harness'));
  if (!h) throw new Error(`fixture ${name} does not load`);
  const records: Trajectory[] = [];
  for await (const item of readTrajectories(path.join(REPO, 'fixtures', name, 'trajectories.jsonl'))) {
    if (!item.ok) throw new Error(`fixture ${name}: bad record`);
    records.push(item.record);
  }
  return { name, harness: h, records };
}

/** Index of each pinned section in a state. */
function pinnedIndex(h: Harness, source: Harness): Map<string, { fromStart: number; fromEnd: number }> {
  const out = new Map<string, { fromStart: number; fromEnd: number }>();
  h.sections.forEach((s, i) => {
    if (source.pinned.includes(s.id)) out.set(s.id, { fromStart: i, fromEnd: h.sections.length - 1 - i });
  });
  return out;
}

/** Failures of the pinned-section property: same index (one end when merge-split changed the count), same text, in the system message. */
function pinnedProblems(source: Harness, v: Variant): string[] {
  const out: string[] = [];
  const before = pinnedIndex(source, source);
  const after = pinnedIndex(v.state, source);
  const resized = v.state.sections.length !== source.sections.length;
  for (const [id, b] of before) {
    const a = after.get(id);
    if (!a) {
      out.push(`${id}: pinned section is gone`);
      continue;
    }
    if (resized ? a.fromStart !== b.fromStart && a.fromEnd !== b.fromEnd : a.fromStart !== b.fromStart)
      out.push(`${id}: moved from ${b.fromStart} to ${a.fromStart}`);
    const s = v.state.sections.find((x) => x.id === id)!;
    const orig = source.sections.find((x) => x.id === id)!;
    if (s.placement !== 'system') out.push(`${id}: moved to the ${s.placement}`);
    if (!source.unordered.includes(id) && s.text !== orig.text) out.push(`${id}: text changed`);
  }
  const order = (h: Harness) => h.sections.filter((s) => source.pinned.includes(s.id)).map((s) => s.id);
  if (order(v.state).join() !== order(source).join()) out.push('pinned sections changed their relative order');
  return out;
}

describe.each(['live-commerce', 'support-desk'])('property: fixture %s', (name) => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await loadFixture(name);
  });

  it('every variant passes checkVariant, keeps pinned sections in place and its rules', () => {
    const selection = Object.fromEntries(Object.keys(registry).map((id) => [id, { p: 0.6 }]));
    const orders = [resolveTransforms(registry, selection, 'rewrite'), resolveTransforms(reversed, selection, 'rewrite')];
    const perRecord = Math.max(2, Math.ceil(320 / fx.records.length));
    const failures: string[] = [];
    const counts = new Map<string, number>();
    const states = new Set<string>();
    let variants = 0;
    for (const rec of fx.records) {
      for (let k = 0; k < perRecord; k++) {
        const v = sampleVariant(fx.harness, rec, orders[k % 2]!, 'prop', k, builtinWords);
        variants++;
        states.add(v.stateHash);
        for (const a of v.applied) counts.set(a.id, (counts.get(a.id) ?? 0) + 1);
        const aug = rewriteTrajectory(rec, v.plan, fx.harness, v.state);
        const where = `${rec.id}~v${k} ${JSON.stringify(v.applied.map((a) => a.params))}`;
        for (const f of reportFailures(checkVariant(rec, aug, v.plan, fx.harness, v.state, { roundTrip: true, rules: true }))) failures.push(`${where}: ${f}`);
        for (const f of pinnedProblems(fx.harness, v)) failures.push(`${where}: ${f}`);
        // The preamble, when there is one, is a single message right before the first user turn.
        const pre = aug.messages.findIndex((m) => m.role === 'user' && m.name === PREAMBLE_NAME);
        const hasPreamble = v.state.sections.some((s) => s.placement === 'preamble');
        if (hasPreamble !== pre >= 0) failures.push(`${where}: preamble message ${pre >= 0 ? 'without' : 'missing for'} a preamble section`);
        if (pre >= 0 && aug.messages.slice(0, pre).some((m) => m.role === 'user')) failures.push(`${where}: preamble after a user turn`);
        // Augmented records differ from their source only in the prompt.
        const rest = (r: Trajectory) => JSON.stringify(r.messages.filter((m, i) => i > 0 && !(m.role === 'user' && m.name === PREAMBLE_NAME)));
        if (rest(aug) !== rest(rec)) failures.push(`${where}: non-prompt messages changed`);
      }
    }
    expect(failures.slice(0, 10)).toEqual([]);
    expect(variants).toBeGreaterThanOrEqual(300);
    expect(states.size).toBeGreaterThan(variants / 4);
    const expected =
      name === 'live-commerce'
        ? // No two adjacent sections may merge there, and nothing has ## sub-headings.
          ['prompt.heading-style', 'prompt.list-style', 'prompt.placement', 'prompt.rule-order', 'prompt.section-order', 'prompt.spacing']
        : // One section, no unordered ones: section order only after a split.
          ['prompt.heading-style', 'prompt.list-style', 'prompt.merge-split', 'prompt.placement', 'prompt.section-order', 'prompt.spacing'];
    expect([...counts.keys()].sort()).toEqual(expected);
    for (const id of expected) expect(counts.get(id)!, id).toBeGreaterThan(10);
  });

  it('with p = 0 nothing applies and the render is unchanged', () => {
    const off = resolveTransforms(registry, Object.fromEntries(Object.keys(registry).map((id) => [id, { p: 0 }])), 'rewrite');
    for (const rec of fx.records) {
      for (let k = 0; k < 2; k++) {
        const v = sampleVariant(fx.harness, rec, off, 'p0', k, builtinWords);
        expect(v.applied).toEqual([]);
        expect(renderPrompt(v.state, rec.context ?? {})).toEqual(renderPrompt(fx.harness, rec.context ?? {}));
        expect(rewriteTrajectory(rec, v.plan, fx.harness, v.state)).toEqual(rec);
      }
    }
  });

  it('each transform alone, always on, keeps the invariants', () => {
    for (const id of Object.keys(registry)) {
      const one = resolveTransforms({ [id]: registry[id]! }, { [id]: { p: 1 } }, 'rewrite');
      for (const rec of fx.records.slice(0, 20)) {
        for (let k = 0; k < 3; k++) {
          const v = sampleVariant(fx.harness, rec, one, 'alone', k, builtinWords);
          const aug = rewriteTrajectory(rec, v.plan, fx.harness, v.state);
          expect(reportFailures(checkVariant(rec, aug, v.plan, fx.harness, v.state, { roundTrip: true, rules: true })), `${id} ${rec.id}~v${k}`).toEqual([]);
          expect(pinnedProblems(fx.harness, v), `${id} ${rec.id}~v${k}`).toEqual([]);
        }
      }
    }
  });

  it('the same seed gives the same variant', () => {
    const all = resolveTransforms(registry, Object.fromEntries(Object.keys(registry).map((id) => [id, { p: 0.7 }])), 'rewrite');
    for (const rec of fx.records.slice(0, 10)) {
      const a = sampleVariant(fx.harness, rec, all, 's', 3, builtinWords);
      const b = sampleVariant(fx.harness, rec, all, 's', 3, builtinWords);
      expect(b.stateHash).toBe(a.stateHash);
      expect(b.applied).toEqual(a.applied);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Property test on generated sections: paragraphs, lists with continuation lines, numbered lists,
// code fences, sub-headings and template slots, under every transform of the family.

function randomSection(seed: number): string {
  const rng = createRng('gen', seed);
  const word = () => rng.pick(['alpha', 'beta', 'gamma', 'delta', 'refund', 'ship', 'price', '{{host}}', '`code`', 'C#', '30%']);
  const sentence = () => Array.from({ length: 2 + rng.int(5) }, word).join(' ');
  const lines: string[] = [`${'#'.repeat(1 + rng.int(2))} ${sentence()}`];
  const blocks = 1 + rng.int(6);
  let n = 0;
  for (let b = 0; b < blocks; b++) {
    const kind = rng.int(6);
    const gap = rng.chance(0.7) ? [''] : [];
    if (kind === 0) lines.push(...gap, sentence(), ...(rng.chance(0.3) ? [sentence()] : []));
    else if (kind === 1 || kind === 2) {
      lines.push(...gap);
      const marker = kind === 2 ? null : rng.pick(['-', '*', '+']);
      for (let i = 0, k = 2 + rng.int(4); i < k; i++) {
        lines.push(`${marker ?? `${i + 1}.`} ${sentence()} ${n++}`);
        if (rng.chance(0.25)) lines.push(`  ${sentence()}`);
      }
    } else if (kind === 3) lines.push(...gap, '```', `- ${sentence()}`, `## ${sentence()}`, '```');
    else if (kind === 4) lines.push('', `## ${sentence()}`);
    else lines.push('', `### ${sentence()}`);
  }
  return lines.join('\n');
}

describe('property: generated sections', () => {
  it('every transform keeps the rules and makes them visible', () => {
    const failures: string[] = [];
    const counts = new Map<string, number>();
    for (let seed = 0; seed < 150; seed++) {
      const rng = createRng('gen-h', seed);
      const count = 2 + rng.int(4);
      const sections = Array.from({ length: count }, (_, i) => text(`s${i}`, randomSection(seed * 10 + i)));
      sections.splice(rng.int(count + 1), 0, catalog());
      const state = harness({
        sections,
        pinned: rng.chance(0.5) ? ['s0'] : [],
        unordered: sections.filter((s) => s.kind === 'text' && rng.chance(0.4)).map((s) => s.id),
        skills: [skill('greet', 'Say hello.'), skill('item_qa', 'Answer product questions.')],
      });
      for (const [id, def] of Object.entries(registry)) {
        const r = apply(def, state, {}, seed);
        if (!r) continue;
        const op = id === 'prompt.merge-split' ? `${id}:${String(r.params.op)}` : id;
        counts.set(op, (counts.get(op) ?? 0) + 1);
        const plan = { ...emptyPlan(), ...r.plan };
        for (const f of checkRules(state, r.state, plan)) failures.push(`${id} seed ${seed}: ${f}`);
        if (id === 'prompt.rule-order') {
          // Lines move as a whole, except that numbered items keep their numbers in place.
          const lines = (t: string) =>
            t
              .split('\n')
              .map((l) => l.replace(/^\d+[.)]\s+/, '1. '))
              .sort()
              .join('\n');
          r.state.sections.forEach((s, i) => {
            if (lines(s.text) !== lines(state.sections[i]!.text)) failures.push(`${id} seed ${seed}: ${s.id} changed more than line order`);
          });
        }
        if (id === 'prompt.merge-split') {
          for (const s of r.state.sections)
            if (state.unordered.includes(s.id) && s.text !== state.sections.find((x) => x.id === s.id)?.text)
              failures.push(`${id} seed ${seed}: unordered ${s.id} changed`);
        }
        // Chained with a style change, the rules still hold.
        const styled = apply(headingStyle, r.state, {}, seed + 1);
        if (styled) for (const f of checkRules(state, styled.state, plan)) failures.push(`${id}+heading-style seed ${seed}: ${f}`);
      }
    }
    expect(failures.slice(0, 10)).toEqual([]);
    for (const id of [...Object.keys(registry).filter((x) => x !== 'prompt.merge-split'), 'prompt.merge-split:merge', 'prompt.merge-split:split']) {
      expect(counts.get(id) ?? 0, id).toBeGreaterThan(10);
    }
  });

  it('rule-order keeps the units of every section', () => {
    for (let seed = 0; seed < 200; seed++) {
      const t = randomSection(seed);
      const state = harness({ sections: [text('r', t)], unordered: ['r'] });
      const r = apply(ruleOrder, state, {}, seed);
      if (!r) continue;
      expect([...sectionUnits(r.state.sections[0]!.text)].sort(), `seed ${seed}`).toEqual([...sectionUnits(t)].sort());
    }
  });
});
