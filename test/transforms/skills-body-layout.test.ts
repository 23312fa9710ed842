import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadHarness } from '../../src/harness/load.js';
import { sectionUnits } from '../../src/harness/markdown.js';
import { type Harness } from '../../src/harness/types.js';
import type { AnyTransform } from '../../src/transform/define.js';
import { createRng } from '../../src/transform/rng.js';
import { resolveTransforms, sampleVariant } from '../../src/transform/variant.js';
import { checkVariant, reportFailures } from '../../src/trajectory/invariants.js';
import { checkTrajectory } from '../../src/trajectory/check.js';
import { readTrajectories } from '../../src/trajectory/read.js';
import { rewriteTrajectory } from '../../src/trajectory/rewrite.js';
import type { Trajectory } from '../../src/trajectory/types.js';
import bodyLayout, { bodyStyle, restyleBody, type LayoutChoice } from '../../transforms/skills/body-layout.js';
import { builtinWords } from '../../src/words/selection.js';
import { REPO } from '../helpers/hsa.js';
import { family, harness, skill, run, noProblems } from '../helpers/skill-transforms.js';

describe('skills.body-layout', () => {
  const keep: LayoutChoice = { headingLevel: 1, markers: { '-': '-', '*': '*', '+': '+' }, shuffle: 0 };
  const swap: LayoutChoice = { headingLevel: 2, markers: { '-': '*', '*': '+', '+': '-' }, shuffle: 0 };
  const rng = () => createRng('layout');

  it.each([
    ['markers and heading level', '# T\n\n- a\n- b\n  more\n\n1. x\n2. y', swap, '## T\n\n* a\n* b\n  more\n\n1. x\n2. y'],
    ['sub-headings keep their distance', '# T\n## Sub\ntext\n### Deep', { ...swap, headingLevel: 3 }, '### T\n#### Sub\ntext\n##### Deep'],
    ['levels are clamped so the deepest stays at 6', '# T\n###### Deep', { ...swap, headingLevel: 3 }, '# T\n###### Deep'],
    ['nested bullets follow the permutation', '- a\n  + sub\n- b', swap, '* a\n  - sub\n* b'],
    ['fenced code is left alone', '# T\n```\n- a\n# b\n```\n- c', swap, '## T\n```\n- a\n# b\n```\n* c'],
    ['thematic breaks, hashtags and emphasis are not bullets or headings', '- - -\n#tag\n*em* text\n* * *', swap, '- - -\n#tag\n*em* text\n* * *'],
    ['an indented "- x" outside a list is left alone', 'Para:\n\n    - code', swap, 'Para:\n\n    - code'],
    ['numbered lists keep their numbers', '1. a\n2) b\n3. c', swap, '1. a\n2) b\n3. c'],
    ['no change when the choice changes nothing', '# T\n- a', keep, '# T\n- a'],
  ])('%s', (_, body, choice, expected) => {
    expect(restyleBody(body, choice, rng()).body).toBe(expected);
  });

  it('shuffles safe unordered lists, items travel with their continuation lines', () => {
    const body = '# T\n\n- a\n- b\n  b more\n- c\n- d\n\n1. one\n2. two';
    const seen = new Set<string>();
    for (let seed = 0; seed < 40; seed++) {
      const out = restyleBody(body, { ...keep, shuffle: 1 }, createRng(seed), true).body;
      const lines = out.split('\n');
      expect(lines.slice(0, 2)).toEqual(['# T', '']);
      expect(lines.slice(7)).toEqual(['', '1. one', '2. two']);
      expect(lines[lines.indexOf('- b') + 1]).toBe('  b more');
      expect([...lines.slice(2, 7)].sort()).toEqual(['  b more', '- a', '- b', '- c', '- d']);
      seen.add(out);
    }
    expect(seen.size).toBeGreaterThan(5);
  });

  it.each([
    ['a list followed by a lazy paragraph line', '- a\n- b\nExample: x'],
    ['a list with blank lines between items (each run is one item)', '- a\n\n- b\n\n- c'],
    ['a list whose last item goes on after a blank line', '- a\n- b\n\n  more about b'],
    ['lists with different markers', '- a\n* b\n+ c'],
    ['a numbered list', '1. a\n2. b\n3. c'],
  ])('never shuffles %s', (_, body) => {
    for (let seed = 0; seed < 20; seed++) expect(restyleBody(body, { ...keep, shuffle: 1 }, createRng(seed), true)).toEqual({ body, shuffled: 0 });
  });

  it.each([
    ['an unmarked list in an unmarked skill', '- a\n- b\n- c\n- d', false],
    ['a marked skill whose list reads as steps', '- Open the file.\n- Then edit it.\n- Finally save.', true],
    ['a marked list whose items are steps in Chinese', '<!-- hsa:unordered -->\n- 首先打开\n- 然后修改\n- 最后保存', false],
    ['a marked list whose items are numbered in their text', '<!-- hsa:unordered -->\n- 1) open\n- 2) save', false],
  ])('keeps the order of %s', (_, body, unorderedSkill) => {
    for (let seed = 0; seed < 20; seed++) expect(restyleBody(body, { ...keep, shuffle: 1 }, createRng(seed), unorderedSkill).shuffled).toBe(0);
  });

  it('shuffles a list marked <!-- hsa:unordered --> and leaves the next list alone', () => {
    const body = 'Tools:\n<!-- hsa:unordered -->\n- a\n- b\n- c\n\nSteps:\n\n- x\n- y\n- z';
    const seen = new Set<string>();
    for (let seed = 0; seed < 30; seed++) {
      const out = restyleBody(body, { ...keep, shuffle: 1 }, createRng(seed)).body;
      expect(out.endsWith('Steps:\n\n- x\n- y\n- z')).toBe(true);
      seen.add(out);
    }
    expect(seen.size).toBeGreaterThan(2);
  });

  it('bodyStyle reports heading range and markers outside code', () => {
    expect(bodyStyle('## A\n#### B\n- x\n```\n+ y\n```\n* z')).toEqual({ minHeading: 2, maxHeading: 4, markers: ['-', '*'] });
    expect(bodyStyle('plain')).toEqual({ minHeading: null, maxHeading: null, markers: [] });
  });

  it('keeps every unit of every body (fixture and distractor bodies, many seeds)', async () => {
    const { harness: lc } = await loadHarness(path.join(REPO, 'fixtures/live-commerce/harness'));
    const bodies = [...lc!.skills.map((s) => s.body), ...builtinWords.distractorSkills.map((d) => d.body)];
    const state = harness({ skills: bodies.map((body, i) => skill(`s_${i}`, { body, unorderedLists: true })) });
    let shuffled = 0;
    for (let seed = 0; seed < 100; seed++) {
      const r = run(bodyLayout, state, { p: 1, shuffle: 1 }, seed)!;
      expect(r).not.toBeNull();
      shuffled += Object.keys(r.params.shuffled as object).length;
      r.state.skills.forEach((s, i) => {
        const before = state.skills[i]!.body;
        expect([...sectionUnits(s.body)].sort()).toEqual([...sectionUnits(before)].sort());
        // Only markers and heading hashes differ, line for line, up to the order of bullet lines.
        const strip = (t: string) =>
          t
            .split('\n')
            .map((l) => l.replace(/^#+/, '#').replace(/^(\s*)[-*+](\s)/, '$1-$2'))
            .sort();
        expect(strip(s.body)).toEqual(strip(before));
      });
    }
    expect(shuffled).toBeGreaterThan(100);
  });

  it('moves the common top heading level and reports the choice', () => {
    const state = harness({ skills: [skill('a', { body: '# A\n- x\n- y' }), skill('b', { body: '# B\n1. z' })] });
    for (let seed = 0; seed < 30; seed++) {
      const r = run(bodyLayout, state, { p: 1, maxHeadingLevel: 3, shuffle: 0 }, seed)!;
      const level = r.params.headingLevel as number;
      expect([2, 3]).toContain(level);
      expect(r.state.skills[1]!.body).toBe(`${'#'.repeat(level)} B\n1. z`);
      expect(Object.keys(r.params.markers as object)).toContain('-');
    }
  });

  it('returns null when no body has a heading or a bullet to restyle', () => {
    expect(run(bodyLayout, harness({ skills: [skill('a', { body: 'Plain text.\n1. one' })] }), { p: 1 })).toBeNull();
  });
});

describe('skills family on the live-commerce fixture', () => {
  let lc: Harness;
  let records: Trajectory[];
  beforeAll(async () => {
    const loaded = await loadHarness(path.join(REPO, 'fixtures/live-commerce/harness'));
    lc = loaded.harness!;
    records = [];
    for await (const item of readTrajectories(path.join(REPO, 'fixtures/live-commerce/trajectories.jsonl'))) if (item.ok) records.push(item.record);
    expect(records.length).toBeGreaterThan(100);
  });

  /**
   * sampleVariant → rewriteTrajectory → checkVariant over every record, plus: the state validates and
   * the augmented record checks clean against it. Returns failures and how often each transform applied.
   */
  function property(registry: Record<string, AnyTransform>, selection: Record<string, unknown>, seeds: (string | number)[], variants: number) {
    const resolved = resolveTransforms(registry, selection, 'rewrite');
    const failures: string[] = [];
    const applied: Record<string, number> = {};
    let total = 0;
    for (const seed of seeds) {
      for (const rec of records) {
        for (let k = 0; k < variants; k++) {
          const v = sampleVariant(lc, rec, resolved, seed, k, builtinWords);
          for (const a of v.applied) applied[a.id] = (applied[a.id] ?? 0) + 1;
          const aug = rewriteTrajectory(rec, v.plan, lc, v.state);
          const report = reportFailures(checkVariant(rec, aug, v.plan, lc, v.state, { roundTrip: true, rules: true }));
          const state = noProblems(v.state).map((p) => `state: ${p.path}: ${p.message}`);
          const valid = checkTrajectory(aug, v.state, { file: 'augmented', line: 1 })
            .filter((p) => p.severity === 'error')
            .map((p) => `record: ${p.path}: ${p.message}`);
          for (const f of [...report, ...state, ...valid])
            failures.push(`${rec.id}~v${k} seed ${seed} ${JSON.stringify(v.applied.map((a) => a.params))}: ${f}`);
          total++;
        }
      }
    }
    return { failures, applied, total };
  }

  it('all skills transforms together: 0 leaks, invalid calls, round-trip or rule failures', () => {
    const selection = Object.fromEntries(Object.keys(family).map((id) => [id, { p: 0.7 }]));
    const r = property(family, selection, ['s1', 's2'], 1);
    expect(r.total).toBeGreaterThanOrEqual(300);
    expect(r.failures.slice(0, 5)).toEqual([]);
    for (const id of Object.keys(family)) expect(r.applied[id], id).toBeGreaterThan(r.total / 3);
  });

  it('in reverse registry order too (renames after restyles, distractors last)', () => {
    const reversed = Object.fromEntries(Object.entries(family).reverse());
    const selection = Object.fromEntries(Object.keys(family).map((id) => [id, { p: 0.7, ...(id === 'skills.rename' ? { intensity: 1 } : {}) }]));
    const r = property(reversed, selection, ['r1'], 2);
    expect(r.total).toBeGreaterThanOrEqual(300);
    expect(r.failures.slice(0, 5)).toEqual([]);
  });

  it.each(Object.keys(family))('%s alone at p=1 on every record', (id) => {
    const r = property({ [id]: family[id]! }, { [id]: { p: 1 } }, ['one'], 1);
    expect(r.failures.slice(0, 5)).toEqual([]);
    expect(r.applied[id]).toBe(records.length);
  });

  it('renamed skills reach the loader call, the loaded body and the catalog', () => {
    const rec = records.find((r) => r.messages.some((m) => m.role === 'assistant' && m.tool_calls?.some((c) => c.function.name === 'load_skill')))!;
    const resolved = resolveTransforms(family, { 'skills.rename': { p: 1, intensity: 1 } }, 'rewrite');
    const v = sampleVariant(lc, rec, resolved, 9, 0, builtinWords);
    const aug = rewriteTrajectory(rec, v.plan, lc, v.state);
    const call = aug.messages.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []) : [])).find((c) => c.function.name === 'load_skill')!;
    const loaded = JSON.parse(call.function.arguments).name as string;
    const oldName = Object.entries(v.plan.skills).find(([, b]) => b === loaded)![0];
    expect(lc.skills.map((s) => s.id)).toContain(oldName);
    expect(aug.messages[0]!.content).toContain(`- ${loaded}: `);
    const result = aug.messages.find((m) => m.role === 'tool' && m.tool_call_id === call.id)!;
    expect(result.content).toBe(v.state.skills.find((s) => s.id === loaded)!.body);
  });

  it('does nothing on a harness without skills (support-desk)', async () => {
    const { harness: sd } = await loadHarness(path.join(REPO, 'fixtures/support-desk/harness'));
    for (const def of Object.values(family)) expect(run(def, sd!, { p: 1 }), def.id).toBeNull();
  });
});
