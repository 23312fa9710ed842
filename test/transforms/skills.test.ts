import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadHarness } from '../../src/harness/load.js';
import { catalogText } from '../../src/harness/render.js';
import { sectionUnits } from '../../src/harness/markdown.js';
import { SKILL_NAME_MAX, SKILL_NAME_PATTERNS, type Harness, type Skill, type SkillNaming } from '../../src/harness/types.js';
import type { AnyTransform } from '../../src/transform/define.js';
import { createRng } from '../../src/transform/rng.js';
import { resolveTransforms, sampleVariant } from '../../src/transform/variant.js';
import { checkVariant, reportFailures } from '../../src/trajectory/invariants.js';
import { checkTrajectory } from '../../src/trajectory/check.js';
import { readTrajectories } from '../../src/trajectory/read.js';
import { rewriteTrajectory } from '../../src/trajectory/rewrite.js';
import type { Trajectory } from '../../src/trajectory/types.js';
import bodyLayout, { bodyStyle, restyleBody, type LayoutChoice } from '../../transforms/skills/body-layout.js';
import catalogOrder from '../../transforms/skills/catalog-order.js';
import describeSkills from '../../transforms/skills/describe.js';
import { lowerFirst, rewordings } from '../../src/words/reword.js';
import distractors from '../../transforms/skills/distractors.js';
import rename from '../../transforms/skills/rename.js';
import { builtinWords } from '../../src/words/selection.js';
import { REPO } from '../helpers/hsa.js';
import { applyTransform, baseHarness, stateErrors } from '../helpers/state.js';

/** The skills family, in the order a registry would apply it. Built here: transforms/index.ts is the lead's. */
const family: Record<string, AnyTransform> = {
  [distractors.id]: distractors,
  [rename.id]: rename,
  [catalogOrder.id]: catalogOrder,
  [describeSkills.id]: describeSkills,
  [bodyLayout.id]: bodyLayout,
};

function harness(over: Partial<Harness> = {}): Harness {
  return baseHarness({
    sections: [
      { id: 'role', kind: 'text', text: '# Role\nYou host the room. Load `item_qa` for product questions.', placement: 'system' },
      { id: 'skills', kind: 'catalog', text: '', placement: 'system' },
    ],
    skillLoader: { tool: 'load_skill', argument: 'name' },
    tools: [
      {
        name: 'load_skill',
        description: 'Load a skill.',
        parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        sourceName: 'load_skill',
        sourceFormat: 'openai',
      },
    ],
    ...over,
  });
}

const skill = (id: string, over: Partial<Skill> = {}): Skill => ({
  id,
  description: `The ${id} skill.`,
  kind: 'reply',
  tools: [],
  body: `# ${id}\n- step one\n- step two`,
  extra: {},
  ...over,
});

const run = applyTransform;

const noProblems = stateErrors;

const validFor = (naming: SkillNaming, id: string) => SKILL_NAME_PATTERNS[naming].test(id) && id.length <= SKILL_NAME_MAX;

describe('every skills transform', () => {
  it.each(Object.values(family))('$id: id, family, strict options with a described p', (def) => {
    expect(def.id.startsWith('skills.')).toBe(true);
    expect(def.family).toBe('skills');
    const parsed = def.options.parse({}) as { p: number };
    expect(parsed.p).toBeGreaterThanOrEqual(0);
    expect(def.options.safeParse({ p: 2 }).success).toBe(false);
    expect(def.options.safeParse({ nope: 1 }).success).toBe(false);
    const shape = (def.options as unknown as { shape: Record<string, { description?: string }> }).shape;
    for (const [key, opt] of Object.entries(shape)) expect(opt.description, `${def.id}.${key}`).toBeTruthy();
  });

  it.each(Object.values(family))('$id: never mutates its input and is deterministic', (def) => {
    const state = harness({ skills: [skill('item_qa'), skill('greet'), skill('tool_strategy_benefit', { body: '# B\n\n- a\n- b\n- c\n- d' })] });
    const before = structuredClone(state);
    for (let seed = 0; seed < 20; seed++) {
      const a = run(def, state, { p: 1 }, seed);
      const b = run(def, state, { p: 1 }, seed);
      expect(a).toEqual(b);
    }
    expect(state).toEqual(before);
  });

  it.each(Object.values(family))('$id: nothing to do without skills', (def) => {
    expect(run(def, harness(), { p: 1 })).toBeNull();
  });
});

describe('skills.rename', () => {
  const namings: SkillNaming[] = ['identifier', 'snake', 'kebab', 'agent-skills'];
  const idsFor: Record<SkillNaming, string[]> = {
    identifier: ['item_qa', 'tool_strategy_benefit', 'greet', 'faqReply'],
    snake: ['item_qa', 'tool_strategy_benefit', 'greet', 'faq_reply'],
    kebab: ['item-qa', 'tool-strategy-benefit', 'greet', 'faq-reply'],
    'agent-skills': ['item-qa', 'tool-strategy-benefit', 'greet', 'faq-reply2'],
  };

  it.each(namings)('renames with valid, fresh, distinct names under %s naming', (naming) => {
    const ids = idsFor[naming];
    const state = harness({ skillNaming: naming, skills: ids.map((id) => skill(id)) });
    let renamed = 0;
    for (let seed = 0; seed < 200; seed++) {
      const r = run(rename, state, { p: 1, intensity: 1 }, seed)!;
      expect(r).not.toBeNull();
      const map = r.plan!.skills!;
      expect(r.params).toEqual({ renamed: map });
      const news = Object.values(map);
      expect(new Set(news).size).toBe(news.length);
      for (const [old, next] of Object.entries(map)) {
        expect(ids).toContain(old);
        expect(validFor(naming, next), `${next} under ${naming}`).toBe(true);
        expect(ids).not.toContain(next);
        expect(r.state.skills.map((s) => s.id)).toContain(next);
        expect(r.state.skills.map((s) => s.id)).not.toContain(old);
        renamed++;
      }
      expect(noProblems(r.state)).toEqual([]);
    }
    expect(renamed).toBeGreaterThan(200);
  });

  it('follows through code-span mentions in bodies and the prompt', () => {
    const state = harness({ skills: [skill('item_qa'), skill('switch', { body: 'Then load `item_qa` to answer.' })] });
    const r = run(rename, state, { p: 1, intensity: 1, styles: ['opaque'] }, 3)!;
    const map = r.plan!.skills!;
    expect(Object.keys(map).sort()).toEqual(['item_qa', 'switch']);
    expect(map.item_qa).toMatch(/^skill(?:[_-][0-9a-f]{4}|[_-][0-9]{3}|[a-z]{2}[0-9]{2})$/);
    expect(r.state.skills.find((s) => s.id === map.switch)!.body).toBe(`Then load \`${map.item_qa}\` to answer.`);
    expect(r.state.sections[0]!.text).toContain(`\`${map.item_qa}\``);
  });

  it.each([
    ['intensity 0 still renames one', { intensity: 0 }, 1],
    ['intensity 0.5 of 4 renames 2', { intensity: 0.5 }, 2],
    ['intensity 1 renames all', { intensity: 1 }, 4],
  ])('%s', (_, options, count) => {
    const state = harness({ skills: ['item_qa', 'tool_strategy_benefit', 'general_discount', 'faq_reply'].map((id) => skill(id)) });
    const r = run(rename, state, { p: 1, ...options }, 5)!;
    expect(Object.keys(r.plan!.skills!)).toHaveLength(count);
  });

  it('leaves distractors alone and returns null when only distractors exist', () => {
    expect(run(rename, harness({ skills: [skill('size_advice', { distractor: true })] }), { p: 1 })).toBeNull();
    const r = run(rename, harness({ skills: [skill('size_advice', { distractor: true }), skill('item_qa')] }), { p: 1, intensity: 1 })!;
    expect(Object.keys(r.plan!.skills!)).toEqual(['item_qa']);
  });

  it('returns null when every proposed name is taken', () => {
    expect(run(rename, harness({ skills: [skill('item_qa')] }), { p: 1 }, 1, () => true)).toBeNull();
  });

  it('never proposes a name the record or state already uses', () => {
    const state = harness({ skills: [skill('item_qa')] });
    const taken = new Set(['product_qa', 'goods_qa', 'sku_qa', 'merch_qa', 'shangpin_qa', 'itemQa', 'item-qa', 'ItemQa']);
    for (let seed = 0; seed < 100; seed++) {
      const r = run(rename, state, { p: 1, styles: ['synonym', 'case'] }, seed, (n) => taken.has(n) || n === 'item_qa');
      if (r) expect(taken.has(r.plan!.skills!.item_qa!)).toBe(false);
    }
  });
});

describe('skills.catalog-order', () => {
  it('shuffles the catalog, keeps every skill, needs no plan', () => {
    const ids = ['a_1', 'b_2', 'c_3', 'd_4', 'e_5'];
    const state = harness({ skills: ids.map((id) => skill(id)) });
    const orders = new Set<string>();
    for (let seed = 0; seed < 50; seed++) {
      const r = run(catalogOrder, state, { p: 1 }, seed)!;
      const order = r.state.skills.map((s) => s.id);
      expect(order).not.toEqual(ids);
      expect([...order].sort()).toEqual(ids);
      expect(r.params).toEqual({ order });
      expect(r.plan).toBeUndefined();
      expect(catalogText(r.state).split('\n').filter((l) => l.startsWith('- ')).map((l) => l.slice(2, l.indexOf(':')))).toEqual(order);
      orders.add(order.join());
    }
    expect(orders.size).toBeGreaterThan(20);
  });

  it('two skills always swap; one skill is nothing to do', () => {
    expect(run(catalogOrder, harness({ skills: [skill('a'), skill('b')] }), { p: 1 })!.state.skills.map((s) => s.id)).toEqual(['b', 'a']);
    expect(run(catalogOrder, harness({ skills: [skill('a')] }), { p: 1 })).toBeNull();
  });
});

describe('skills.distractors', () => {
  it.each(['identifier', 'snake', 'kebab', 'agent-skills'] as SkillNaming[])('adds 1..max never-loaded skills valid for %s naming', (naming) => {
    const state = harness({ skillNaming: naming, skills: [skill(naming === 'snake' || naming === 'identifier' ? 'item_qa' : 'item-qa')] });
    const counts = new Set<number>();
    for (let seed = 0; seed < 60; seed++) {
      const r = run(distractors, state, { p: 1, max: 4 }, seed)!;
      const added = r.state.skills.filter((s) => s.distractor);
      expect([...(r.params.added as string[])].sort()).toEqual(added.map((s) => s.id).sort());
      expect(added.length).toBeGreaterThanOrEqual(1);
      expect(added.length).toBeLessThanOrEqual(4);
      counts.add(added.length);
      for (const s of added) {
        expect(validFor(naming, s.id), s.id).toBe(true);
        expect(s.tools).toEqual([]);
        expect(s.description.length).toBeLessThanOrEqual(1024);
        expect(builtinWords.distractorSkills.map((d) => d.description)).toContain(s.description);
      }
      expect(new Set(r.state.skills.map((s) => s.id)).size).toBe(r.state.skills.length);
      expect(r.state.skills.filter((s) => !s.distractor)).toEqual(state.skills);
      expect(r.plan).toBeUndefined();
      expect(noProblems(r.state)).toEqual([]);
    }
    expect(counts).toEqual(new Set([1, 2, 3, 4]));
  });

  it('converts names to the naming rule: unit_conversion under agent-skills is unit-conversion', () => {
    const names = new Set<string>();
    for (let seed = 0; seed < 40; seed++) for (const s of run(distractors, harness({ skillNaming: 'agent-skills', skills: [skill('item-qa')] }), { p: 1, max: 9 }, seed)!.state.skills) names.add(s.id);
    expect(names).toContain('unit-conversion');
    expect([...names].every((n) => !n.includes('_'))).toBe(true);
  });

  it('skips names already taken and returns null when all are', () => {
    const all = builtinWords.distractorSkills.map((d) => d.name);
    const state = harness({ skills: [skill('size_advice')] });
    for (let seed = 0; seed < 30; seed++) {
      const ids = run(distractors, state, { p: 1, max: 20 }, seed)!.state.skills.map((s) => s.id);
      expect(ids.filter((i) => i === 'size_advice')).toHaveLength(1);
    }
    expect(run(distractors, state, { p: 1 }, 1, (n) => all.includes(n))).toBeNull();
  });

  it('puts distractors at varied places in the catalog', () => {
    const state = harness({ skills: ['a_1', 'b_2', 'c_3'].map((id) => skill(id)) });
    const places = new Set<number>();
    for (let seed = 0; seed < 40; seed++) {
      const r = run(distractors, state, { p: 1, max: 1 }, seed)!;
      places.add(r.state.skills.findIndex((s) => s.distractor));
    }
    expect(places.size).toBeGreaterThanOrEqual(3);
  });
});

describe('skills.describe', () => {
  it.each([
    ['Returns, exchanges and refunds.', 'returns, exchanges and refunds.'],
    ['FAQ entries of the room.', 'FAQ entries of the room.'],
    ['ItemQa answers.', 'ItemQa answers.'],
    ['Tool_chain for x.', 'Tool_chain for x.'],
    ['load_skill first.', 'load_skill first.'],
    ['A short one.', 'a short one.'],
    ['', ''],
  ])('lowerFirst(%j) = %j', (input, expected) => expect(lowerFirst(input)).toBe(expected));

  // Frames follow the shape of the sentence (the full table is test/words-reword.test.ts).
  it.each([
    ['Recommends a size from height and weight.', 'This skill recommends a size from height and weight.'],
    ['Answers $1 questions.', 'Purpose: Answers $1 questions.'],
    ['Greets.', 'When called, it greets.'],
  ])('rewords %j grammatically, e.g. %j', (text, expected) => expect(rewordings(text, builtinWords.descriptionFrames, 'skill').map((r) => r.text)).toContain(expected));

  it('rewords a share of descriptions, keeping the original words inside', () => {
    const ids = ['item_qa', 'greet', 'thanks', 'refusal'];
    const state = harness({ skills: ids.map((id) => skill(id, { description: `Handles ${id} comments.` })) });
    for (let seed = 0; seed < 50; seed++) {
      const r = run(describeSkills, state, { p: 1, intensity: 0.5 }, seed)!;
      const frames = r.params.frames as Record<string, string>;
      expect(Object.keys(frames)).toHaveLength(2);
      for (const s of r.state.skills) {
        const old = state.skills.find((x) => x.id === s.id)!.description;
        if (s.id in frames) {
          expect(s.description).not.toBe(old);
          expect(rewordings(old, builtinWords.descriptionFrames, 'skill').find((r) => r.frame === frames[s.id])?.text).toBe(s.description);
          expect(s.description).toContain(old.split(' ').slice(1).join(' '));
        } else expect(s.description).toBe(old);
      }
      expect(r.plan).toBeUndefined();
    }
  });

  it('keeps descriptions within 1024 characters (null when no frame fits)', () => {
    const long = `${'x'.repeat(1019)}.`;
    expect(run(describeSkills, harness({ skills: [skill('a', { description: long })] }), { p: 1, intensity: 1 })).toBeNull();
    const r = run(describeSkills, harness({ skills: [skill('a', { description: 'y'.repeat(1000) })] }), { p: 1, intensity: 1 }, 2)!;
    expect(r.state.skills[0]!.description.length).toBeLessThanOrEqual(1024);
  });
});

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
        const strip = (t: string) => t.split('\n').map((l) => l.replace(/^#+/, '#').replace(/^(\s*)[-*+](\s)/, '$1-$2')).sort();
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
          for (const f of [...report, ...state, ...valid]) failures.push(`${rec.id}~v${k} seed ${seed} ${JSON.stringify(v.applied.map((a) => a.params))}: ${f}`);
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
