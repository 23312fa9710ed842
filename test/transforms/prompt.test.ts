import path from 'node:path';
import { baseHarness } from '../helpers/state.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadHarness } from '../../src/harness/load.js';
import { sectionUnits } from '../../src/harness/markdown.js';
import { renderPrompt } from '../../src/harness/render.js';
import type { Harness, PromptStyle, Section, Skill } from '../../src/harness/types.js';
import type { AnyTransform } from '../../src/transform/define.js';
import { emptyPlan, type RewritePlan } from '../../src/transform/plan.js';
import { createRng } from '../../src/transform/rng.js';
import { stateIdentifiers } from '../../src/transform/state.js';
import { resolveTransforms, sampleVariant, type Variant } from '../../src/transform/variant.js';
import { checkVariant, reportFailures } from '../../src/trajectory/invariants.js';
import { checkRules } from '../../src/trajectory/rules-check.js';
import { readTrajectories } from '../../src/trajectory/read.js';
import { PREAMBLE_NAME, rewriteTrajectory } from '../../src/trajectory/rewrite.js';
import type { Trajectory } from '../../src/trajectory/types.js';
import headingStyle from '../../transforms/prompt/heading-style.js';
import listStyle from '../../transforms/prompt/list-style.js';
import mergeSplit from '../../transforms/prompt/merge-split.js';
import placement from '../../transforms/prompt/placement.js';
import ruleOrder from '../../transforms/prompt/rule-order.js';
import sectionOrder from '../../transforms/prompt/section-order.js';
import spacing from '../../transforms/prompt/spacing.js';
import { builtinWords } from '../../src/words/selection.js';
import { REPO } from '../helpers/hsa.js';

/** The prompt family, in the order the property tests apply them. */
const registry: Record<string, AnyTransform> = {
  'prompt.section-order': sectionOrder,
  'prompt.merge-split': mergeSplit,
  'prompt.placement': placement,
  'prompt.rule-order': ruleOrder,
  'prompt.heading-style': headingStyle,
  'prompt.list-style': listStyle,
  'prompt.spacing': spacing,
};
const reversed: Record<string, AnyTransform> = Object.fromEntries(Object.entries(registry).reverse());

// ---------------------------------------------------------------------------------------------
// A small hand-made harness.

function harness(over: Partial<Harness> = {}): Harness {
  return baseHarness({ name: 'mini', variables: { host: { default: 'Mia' } }, ...over });
}
const text = (id: string, t: string): Section => ({ id, kind: 'text', text: t, placement: 'system' });
const catalog = (id = 'skills'): Section => ({ id, kind: 'catalog', text: '', placement: 'system' });
const skill = (id: string, description: string): Skill => ({ id, description, kind: 'reply', tools: [], body: `Body of ${id}.`, extra: {} });

const ROLE = text('role', '# Role\nYou are {{host}}.');
const RULES = text('rules', '# Rules\n- Be brief.\n- Be kind.');
const STYLE = text('style', '# Style\nSpeak plainly.');
const TAIL = text('tail', '# Tail\nThanks.');

/** role[pinned], rules[unordered], skills[catalog], style, tail[pinned]. */
function mini(over: Partial<Harness> = {}): Harness {
  return harness({
    sections: [ROLE, RULES, catalog(), STYLE, TAIL],
    pinned: ['role', 'tail'],
    unordered: ['rules'],
    skills: [skill('greet', 'Say hello.')],
    ...over,
  });
}

const style = (over: Partial<PromptStyle> = {}): PromptStyle => ({ heading: 'markdown', headingLevel: 1, titleCase: 'as-is', listMarker: '-', separator: '\n\n', ...over });

/** Apply one transform directly, with its options parsed (defaults filled) and a seeded rng. */
function apply(def: AnyTransform, state: Harness, options: Record<string, unknown> = {}, seed: string | number = 1) {
  const ids = stateIdentifiers(state);
  return def.apply(state, {
    options: def.options.parse(options),
    rng: createRng('prompt-test', seed, def.id),
    words: builtinWords,
    source: state,
    plan: emptyPlan(),
    isTaken: (n) => ids.has(n),
  });
}

/** Apply and render; fails the test when the transform does not apply. */
function applied(def: AnyTransform, state: Harness, options: Record<string, unknown> = {}, seed: string | number = 1) {
  const before = JSON.stringify(state);
  const r = apply(def, state, options, seed);
  expect(JSON.stringify(state), 'the input state is never mutated').toBe(before);
  if (!r) throw new Error(`${def.id} did not apply`);
  const plan: RewritePlan = { ...emptyPlan(), ...r.plan };
  expect(checkRules(state, r.state, plan), 'rules kept').toEqual([]);
  return { ...r, plan, ...renderPrompt(r.state, {}) };
}

const ALL_SEEDS = Array.from({ length: 40 }, (_, i) => i);

// ---------------------------------------------------------------------------------------------

describe('transform definitions', () => {
  it.each(Object.entries(registry))('%s: id, family, class and options', (id, def) => {
    expect(def.id).toBe(id);
    expect(def.family).toBe('prompt');
    expect(def.class).toBe('semantic');
    expect(def.version).toBeGreaterThanOrEqual(1);
    expect(def.description.length).toBeGreaterThan(10);
    const defaults = def.options.parse({}) as { p: number };
    expect(defaults.p).toBeGreaterThan(0);
    expect(defaults.p).toBeLessThanOrEqual(1);
    expect(def.options.safeParse({ p: 1.5 }).success).toBe(false);
    expect(def.options.safeParse({ nope: 1 }).success, 'strict: unknown keys are errors').toBe(false);
    const shape = (def.options as unknown as { shape: Record<string, { description?: string }> }).shape;
    for (const [key, schema] of Object.entries(shape)) expect(schema.description, `${id}.${key} is described`).toBeTruthy();
  });

  it('never uses Math.random', async () => {
    const { readFile } = await import('node:fs/promises');
    for (const id of Object.keys(registry)) {
      const src = await readFile(path.join(REPO, 'transforms', 'prompt', `${id.slice('prompt.'.length)}.ts`), 'utf8');
      expect(src).not.toMatch(/Math\.random/);
    }
  });
});

describe('prompt.section-order', () => {
  it('swaps the two movable sections between pinned ones', () => {
    const state = harness({ sections: [ROLE, STYLE, RULES, TAIL], pinned: ['role', 'tail'] });
    for (const seed of [1, 2, 3]) {
      const r = applied(sectionOrder, state, {}, seed);
      expect(r.system).toBe('# Role\nYou are Mia.\n\n# Rules\n- Be brief.\n- Be kind.\n\n# Style\nSpeak plainly.\n\n# Tail\nThanks.');
      expect(r.params).toEqual({ order: ['role', 'rules', 'style', 'tail'] });
    }
  });

  it('keeps every pinned section at its index, moves the catalog like any section, and always changes the order', () => {
    const state = harness({
      sections: [ROLE, text('a', '# A\nAa.'), TAIL, text('b', '# B\nBb.'), catalog(), text('c', '# C\nCc.')],
      pinned: ['role', 'tail'],
      skills: [skill('greet', 'Say hello.')],
    });
    const seen = new Set<string>();
    for (const seed of ALL_SEEDS) {
      const r = applied(sectionOrder, state, {}, seed);
      const ids = r.state.sections.map((s) => s.id);
      expect(ids[0]).toBe('role');
      expect(ids[2]).toBe('tail');
      expect([...ids].sort()).toEqual(['a', 'b', 'c', 'role', 'skills', 'tail']);
      expect(ids).not.toEqual(state.sections.map((s) => s.id));
      seen.add(ids.join(','));
    }
    expect(seen.size).toBeGreaterThan(5);
  });

  it.each([
    ['one movable section', harness({ sections: [ROLE, STYLE], pinned: ['role'] })],
    ['every section pinned', harness({ sections: [ROLE, TAIL], pinned: ['role', 'tail'] })],
    ['no sections', harness()],
  ])('returns null with %s', (_, state) => {
    expect(apply(sectionOrder, state)).toBeNull();
  });
});

describe('prompt.heading-style', () => {
  const state = harness({ sections: [ROLE, RULES], pinned: ['role'], unordered: ['rules'] });
  it.each<[string, Record<string, unknown>, string, Record<string, unknown>]>([
    ['xml tags', { headings: ['xml'] }, '<role>\nYou are Mia.\n</role>\n\n<rules>\n- Be brief.\n- Be kind.\n</rules>', { heading: 'xml', headingLevel: 1, titleCase: 'as-is' }],
    [
      'markdown level 2, upper case',
      { headings: ['markdown'], levels: [2], titleCases: ['upper'] },
      '## ROLE\n\nYou are Mia.\n\n## RULES\n\n- Be brief.\n- Be kind.',
      { heading: 'markdown', headingLevel: 2, titleCase: 'upper' },
    ],
    [
      'markdown level 3',
      { headings: ['markdown'], levels: [3], titleCases: ['as-is'] },
      '### Role\n\nYou are Mia.\n\n### Rules\n\n- Be brief.\n- Be kind.',
      { heading: 'markdown', headingLevel: 3, titleCase: 'as-is' },
    ],
    ['[bracket], lower case', { headings: ['bracket'], titleCases: ['lower'] }, '[role]\n\nYou are Mia.\n\n[rules]\n\n- Be brief.\n- Be kind.', { heading: 'bracket', headingLevel: 1, titleCase: 'lower' }],
    ['CAPS', { headings: ['caps'] }, 'ROLE\n\nYou are Mia.\n\nRULES\n\n- Be brief.\n- Be kind.', { heading: 'caps', headingLevel: 1, titleCase: 'as-is' }],
    ['Title:', { headings: ['colon'], titleCases: ['as-is'] }, 'Role:\n\nYou are Mia.\n\nRules:\n\n- Be brief.\n- Be kind.', { heading: 'colon', headingLevel: 1, titleCase: 'as-is' }],
  ])('%s', (_, options, system, params) => {
    const r = applied(headingStyle, state, options);
    expect(r.system).toBe(system);
    expect(r.params).toEqual(params);
    expect(r.state.promptStyle).toEqual({ ...style(), ...params });
  });

  it('returns null when no section has a title (a logged system message), and restyles when one has', () => {
    const untitled = harness({ sections: [text('system', 'You are Mia.\n\n- Be brief.\n## Not a title\n- Be kind.'), text('more', 'Thanks.')] });
    for (const seed of ALL_SEEDS.slice(0, 8)) expect(apply(headingStyle, untitled, {}, seed)).toBeNull();
    const second = harness({ sections: [untitled.sections[0]!, text('more', '# More\nThanks.')] });
    expect(applied(headingStyle, second, { headings: ['caps'] }).system).toContain('MORE\n\nThanks.');
  });

  it('keeps the list marker and separator of the current style', () => {
    const s = { ...state, promptStyle: style({ listMarker: '*', separator: '\n\n---\n\n', titleCase: 'upper' }) };
    const r = applied(headingStyle, s, { headings: ['bracket'], titleCases: ['title'] });
    expect(r.system).toBe('[Role]\n\nYou are Mia.\n\n---\n\n[Rules]\n\n* Be brief.\n* Be kind.');
    expect(r.state.promptStyle).toEqual(style({ heading: 'bracket', listMarker: '*', separator: '\n\n---\n\n', titleCase: 'title' }));
  });

  it('starts from the harness separator when the prompt has no style yet', () => {
    const r = applied(headingStyle, { ...state, separator: '\n\n\n' }, { headings: ['caps'] });
    expect(r.state.promptStyle?.separator).toBe('\n\n\n');
  });

  it('always changes the headings and draws every kind', () => {
    const kinds = new Set<string>();
    for (const seed of ALL_SEEDS) {
      const r = applied(headingStyle, { ...state, promptStyle: style({ headingLevel: 2 }) }, {}, seed);
      expect(r.system.startsWith('## Role\n')).toBe(false);
      kinds.add(String(r.params.heading));
    }
    expect([...kinds].sort()).toEqual(['bracket', 'caps', 'colon', 'markdown', 'xml']);
  });

  it.each([
    ['the only choice is the current style', state, { headings: ['markdown'], levels: [1], titleCases: ['as-is'] }],
    ['no section has a title', harness({ sections: [text('plain', 'Just text.\n- a rule')] }), {}],
  ])('returns null when %s', (_, s, options) => {
    expect(apply(headingStyle, s, options)).toBeNull();
  });
});

describe('prompt.list-style', () => {
  const state = mini();
  it.each<[string, string, string]>([
    ['*', '* Be brief.\n* Be kind.', '* greet: Say hello.'],
    ['+', '+ Be brief.\n+ Be kind.', '+ greet: Say hello.'],
    ['•', '• Be brief.\n• Be kind.', '• greet: Say hello.'],
    ['1.', '1. Be brief.\n2. Be kind.', '1. greet: Say hello.'],
  ])('marker %s', (marker, rules, cat) => {
    const r = applied(listStyle, state, { markers: [marker] });
    expect(r.system).toBe(`# Role\n\nYou are Mia.\n\n# Rules\n\n${rules}\n\n# Skills\n\n${cat}\n\n# Style\n\nSpeak plainly.\n\n# Tail\n\nThanks.`);
    expect(r.params).toEqual({ listMarker: marker });
    expect(r.state.promptStyle).toEqual(style({ listMarker: marker as PromptStyle['listMarker'] }));
  });

  it('keeps heading and separator of the current style', () => {
    const s = harness({ sections: [RULES, STYLE], promptStyle: style({ heading: 'colon', separator: '\n\n***\n\n' }) });
    const r = applied(listStyle, s, { markers: ['+'] });
    expect(r.system).toBe('Rules:\n\n+ Be brief.\n+ Be kind.\n\n***\n\nStyle:\n\nSpeak plainly.');
  });

  it('never draws the current marker', () => {
    for (const seed of ALL_SEEDS) {
      const r = applied(listStyle, { ...state, promptStyle: style({ listMarker: '+' }) }, {}, seed);
      expect(r.params.listMarker).not.toBe('+');
    }
  });

  it.each([
    ['there is no list', harness({ sections: [ROLE, STYLE] }), {}],
    ['the only marker is the current one', { ...state, promptStyle: style({ listMarker: '*' }) }, { markers: ['*'] }],
  ])('returns null when %s', (_, s, options) => {
    expect(apply(listStyle, s, options)).toBeNull();
  });
});

describe('prompt.spacing', () => {
  const state = harness({ sections: [ROLE, RULES], pinned: ['role'] });
  it.each<[string, Record<string, unknown>, string]>([
    ['--- rule', { separators: ['\n\n---\n\n'], recase: 0 }, '# Role\n\nYou are Mia.\n\n---\n\n# Rules\n\n- Be brief.\n- Be kind.'],
    ['two blank lines', { separators: ['\n\n\n'], recase: 0 }, '# Role\n\nYou are Mia.\n\n\n# Rules\n\n- Be brief.\n- Be kind.'],
    ['==== rule, title case upper', { separators: ['\n\n====\n\n'], recase: 1, titleCases: ['upper'] }, '# ROLE\n\nYou are Mia.\n\n====\n\n# RULES\n\n- Be brief.\n- Be kind.'],
    ['*** rule, title case lower', { separators: ['\n\n***\n\n'], recase: 1, titleCases: ['lower'] }, '# role\n\nYou are Mia.\n\n***\n\n# rules\n\n- Be brief.\n- Be kind.'],
  ])('%s', (_, options, system) => {
    expect(applied(spacing, state, options).system).toBe(system);
  });

  it('records the choices and keeps heading and marker of the current style', () => {
    const r = applied(spacing, { ...state, promptStyle: style({ heading: 'xml', listMarker: '*' }) }, { separators: ['\n\n---\n\n'], recase: 0 });
    expect(r.system).toBe('<role>\nYou are Mia.\n</role>\n\n---\n\n<rules>\n* Be brief.\n* Be kind.\n</rules>');
    expect(r.params).toEqual({ separator: '\n\n---\n\n', titleCase: 'as-is' });
  });

  it('always changes the separator', () => {
    for (const seed of ALL_SEEDS) expect(applied(spacing, state, {}, seed).params.separator).not.toBe('\n\n');
  });

  it.each([
    ['the prompt has one section', harness({ sections: [ROLE] }), {}],
    ['the only separator is the current one', state, { separators: ['\n\n'] }],
  ])('returns null when %s', (_, s, options) => {
    expect(apply(spacing, s, options)).toBeNull();
  });

  it('rejects a separator that does not start and end with a newline', () => {
    expect(spacing.options.safeParse({ separators: ['---'] }).success).toBe(false);
  });
});

describe('prompt.rule-order', () => {
  it('swaps the two rules of an unordered section and changes nothing else (no style set)', () => {
    const state = mini();
    const r = applied(ruleOrder, state);
    expect(r.state.sections[1]!.text).toBe('# Rules\n- Be kind.\n- Be brief.');
    expect(r.state.promptStyle).toBeNull();
    expect(r.system).toBe(renderPrompt(state, {}).system.replace('- Be brief.\n- Be kind.', '- Be kind.\n- Be brief.'));
    expect(r.params).toEqual({ sections: { rules: [[1, 0]] } });
  });

  it.each<[string, string, string]>([
    ['continuation lines travel with their item', '# R\n- one\n  more of one\n- two', '# R\n- two\n- one\n  more of one'],
    ['star markers and blank-line-free layout are kept', 'Intro line.\n* one\n* two', 'Intro line.\n* two\n* one'],
    ['lists separated by a paragraph stay apart', '# R\n- a\n- b\n\nNote.\n\n- c', '# R\n- b\n- a\n\nNote.\n\n- c'],
    ['code fences are left alone', '# R\n```\n- x\n- y\n```\n- a\n- b', '# R\n```\n- x\n- y\n```\n- b\n- a'],
    ['sub-headings split lists', '# R\n## One\n- a\n## Two\n- b\n- c', '# R\n## One\n- a\n## Two\n- c\n- b'],
  ])('%s', (_, source, expected) => {
    const state = harness({ sections: [text('r', source)], unordered: ['r'] });
    const r = applied(ruleOrder, state);
    expect(r.state.sections[0]!.text).toBe(expected);
  });

  it.each([
    ['a numbered list', '# R\n1. one\n2. two\n3. three'],
    ['a "1)" list', '# R\n1) one\n2) two'],
    ['bullets that read as steps', '# R\n- Check the booking.\n- Then confirm the date.\n- Finally send the receipt.'],
    ['bullets numbered in their text', '# R\n- Step 1: look up\n- Step 2: confirm'],
    ['Chinese steps', '# R\n- 首先确认订单\n- 然后查询状态\n- 最后回复用户'],
    ['第…步', '# R\n- 第一步：查询\n- 第二步：回复'],
  ])('never reorders %s, even in an unordered section', (_, source) => {
    const state = harness({ sections: [text('r', source)], unordered: ['r'] });
    for (const seed of ALL_SEEDS) expect(apply(ruleOrder, state, {}, seed)).toBeNull();
  });

  it('shuffles long lists and keeps exactly the same lines', () => {
    const items = Array.from({ length: 8 }, (_, i) => `- rule ${i}`);
    const state = harness({ sections: [text('r', `# R\n${items.join('\n')}\n\nTail paragraph.`)], unordered: ['r'] });
    const orders = new Set<string>();
    for (const seed of ALL_SEEDS) {
      const r = applied(ruleOrder, state, {}, seed);
      const t = r.state.sections[0]!.text;
      expect(t).not.toBe(state.sections[0]!.text);
      expect(t.split('\n').sort()).toEqual(state.sections[0]!.text.split('\n').sort());
      expect(t.startsWith('# R\n')).toBe(true);
      expect(t.endsWith('\n\nTail paragraph.')).toBe(true);
      orders.add(t);
    }
    expect(orders.size).toBeGreaterThan(30);
  });

  it('only touches unordered sections', () => {
    const r = applied(ruleOrder, mini({ sections: [ROLE, RULES, text('more', '# More\n- x\n- y')] }));
    expect(r.state.sections[2]!.text).toBe('# More\n- x\n- y');
  });

  it.each([
    ['no section is unordered', mini({ unordered: [] })],
    ['the unordered section has one rule per list', harness({ sections: [text('r', '# R\n- a\n\nx\n\n- b')], unordered: ['r'] })],
    ['the unordered section has no list', harness({ sections: [STYLE], unordered: ['style'] })],
  ])('returns null when %s', (_, state) => {
    expect(apply(ruleOrder, state)).toBeNull();
  });
});

describe('prompt.merge-split', () => {
  it('merges two adjacent sections: "A and B", the second title a sub-heading, its sub-headings one level down', () => {
    const state = harness({ sections: [ROLE, text('x', '# X\nAlpha.'), text('y', '# Y\nBeta.\n## Deep\n- b')], pinned: ['role'] });
    const r = applied(mergeSplit, state, { mode: 'merge' });
    expect(r.state.sections.map((s) => s.id)).toEqual(['role', 'x_y']);
    expect(r.state.sections[1]!.text).toBe('# X and Y\n\nAlpha.\n\n## Y\n\nBeta.\n### Deep\n- b');
    expect(r.system).toBe('# Role\nYou are Mia.\n\n# X and Y\n\nAlpha.\n\n## Y\n\nBeta.\n### Deep\n- b');
    expect(r.plan.sections).toEqual({ x: 'x_y', y: 'x_y' });
    expect(r.params).toEqual({ op: 'merge', sections: ['x', 'y'], into: 'x_y' });
  });

  it('keeps titles as written (a closing # only after a space is dropped)', () => {
    const state = harness({ sections: [text('x', '# Use C#\nAlpha.'), text('y', '## Tips ##\nBeta.')] });
    expect(applied(mergeSplit, state, { mode: 'merge' }).state.sections[0]!.text).toBe('# Use C# and Tips\n\nAlpha.\n\n## Tips\n\nBeta.');
  });

  it('uses the joiner option and a fresh id', () => {
    const state = harness({ sections: [text('x', '# X\nAlpha.'), text('y', '# Y\nBeta.'), text('x_y', 'Taken.')], pinned: ['x_y'] });
    const r = applied(mergeSplit, state, { mode: 'merge', joiner: ' & ' });
    expect(r.state.sections.map((s) => s.id)).toEqual(['x_y_2', 'x_y']);
    expect(r.state.sections[0]!.text).toBe('# X & Y\n\nAlpha.\n\n## Y\n\nBeta.');
  });

  it('splits one ## sub-section into its own section right after its parent', () => {
    const state = harness({ sections: [text('policy', '# Policy\nIntro.\n\n## Refunds\n- r1\n### Fine print\n- r2'), TAIL], pinned: ['tail'] });
    const r = applied(mergeSplit, state, { mode: 'split' });
    expect(r.state.sections.map((s) => [s.id, s.text])).toEqual([
      ['policy', '# Policy\nIntro.'],
      ['policy_refunds', '# Refunds\n- r1\n## Fine print\n- r2'],
      ['tail', '# Tail\nThanks.'],
    ]);
    expect(r.system).toBe('# Policy\nIntro.\n\n# Refunds\n- r1\n## Fine print\n- r2\n\n# Tail\nThanks.');
    expect(r.params).toEqual({ op: 'split', section: 'policy', heading: 'Refunds', into: ['policy', 'policy_refunds'] });
  });

  it('lifts only the last sub-section out: a middle one would be read after those that followed it', () => {
    const state = harness({ sections: [text('p', '# P\n\n## A\n\n- a\n\n## B\n\n- b\n\n## C\n\n- c')] });
    const bySplit = new Map<string, string[]>();
    for (const seed of ALL_SEEDS) {
      const r = applied(mergeSplit, state, { mode: 'split' }, seed);
      bySplit.set(String(r.params.heading), r.state.sections.map((s) => s.text));
    }
    expect([...bySplit.keys()]).toEqual(['C']);
    expect(bySplit.get('C')).toEqual(['# P\n\n## A\n\n- a\n\n## B\n\n- b', '# C\n\n- c']);
  });

  it('never merges or splits pinned, unordered or catalog sections', () => {
    const state = harness({
      sections: [text('a', '# A\nA1.\n## A2\n- a'), catalog(), text('b', '# B\nB1.\n## B2\n- b'), text('c', '# C\nC1.\n## C2\n- c'), text('d', '# D\nD1.')],
      pinned: ['a', 'd'],
      unordered: ['b'],
      skills: [skill('greet', 'Say hello.')],
    });
    for (const seed of ALL_SEEDS) {
      const r = applied(mergeSplit, state, {}, seed);
      // Only c can change: split at C2 (no neighbour may merge with it).
      expect(r.params).toEqual({ op: 'split', section: 'c', heading: 'C2', into: ['c', 'c_c2'] });
      expect(r.state.unordered).toEqual(['b']);
      expect(r.state.sections.find((s) => s.id === 'b')!.text).toBe(state.sections[2]!.text);
    }
  });

  it.each([
    ['merge: the sections are in different places', harness({ sections: [text('x', '# X\nA.'), { ...text('y', '# Y\nB.'), placement: 'preamble' }] }), { mode: 'merge' }],
    ['merge: a section has no title', harness({ sections: [text('x', '# X\nA.'), text('y', 'No title.')] }), { mode: 'merge' }],
    ['split: no ## sub-heading', harness({ sections: [STYLE] }), { mode: 'split' }],
    ['split: the parent would keep no rule', harness({ sections: [text('p', '# P\n## Only\n- x')] }), { mode: 'split' }],
    ['split: the sub-heading is inside a code fence', harness({ sections: [text('p', '# P\nIntro.\n```\n## not a heading\n```')] }), { mode: 'split' }],
    ['an unordered section with sub-headings', harness({ sections: [text('p', '# P\nIntro.\n## S\n- x')], unordered: ['p'] }), {}],
  ])('returns null when %s', (_, state, options) => {
    expect(apply(mergeSplit, state, options)).toBeNull();
  });
});

describe('prompt.placement', () => {
  const state = harness({ sections: [ROLE, STYLE, catalog()], pinned: ['role'], skills: [skill('greet', 'Say hello.')] });

  it('moves the one movable section into the preamble', () => {
    const r = applied(placement, state);
    expect(r.system).toBe('# Role\nYou are Mia.\n\n# Skills\n\n- greet: Say hello.');
    expect(r.preamble).toBe('# Style\nSpeak plainly.');
    expect(r.params).toEqual({ section: 'style' });
  });

  it('puts the preamble before the first user turn, and the inverse takes it out again', () => {
    const rec: Trajectory = {
      id: 't1',
      messages: [
        { role: 'system', content: renderPrompt(state, {}).system },
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'Hello!' },
      ],
    };
    const r = applied(placement, state);
    const aug = rewriteTrajectory(rec, r.plan, state, r.state);
    expect(aug.messages).toEqual([
      { role: 'system', content: '# Role\nYou are Mia.\n\n# Skills\n\n- greet: Say hello.' },
      { role: 'user', name: PREAMBLE_NAME, content: '# Style\nSpeak plainly.' },
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'Hello!' },
    ]);
    expect(reportFailures(checkVariant(rec, aug, r.plan, state, r.state, { roundTrip: true, rules: true }))).toEqual([]);
  });

  it.each([
    ['every text section is pinned', harness({ sections: [ROLE, catalog()], pinned: ['role'], skills: [skill('greet', 'Say hello.')] })],
    ['the system message would be left empty', harness({ sections: [STYLE, catalog()] })],
    ['the movable section is already in the preamble', harness({ sections: [ROLE, { ...STYLE, placement: 'preamble' }], pinned: ['role'] })],
  ])('returns null when %s', (_, s) => {
    expect(apply(placement, s)).toBeNull();
  });
});

// ---------------------------------------------------------------------------------------------
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
    if (resized ? a.fromStart !== b.fromStart && a.fromEnd !== b.fromEnd : a.fromStart !== b.fromStart) out.push(`${id}: moved from ${b.fromStart} to ${a.fromStart}`);
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
    const off = resolveTransforms(
      registry,
      Object.fromEntries(Object.keys(registry).map((id) => [id, { p: 0 }])),
      'rewrite',
    );
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
          const lines = (t: string) => t.split('\n').map((l) => l.replace(/^\d+[.)]\s+/, '1. ')).sort().join('\n');
          r.state.sections.forEach((s, i) => {
            if (lines(s.text) !== lines(state.sections[i]!.text)) failures.push(`${id} seed ${seed}: ${s.id} changed more than line order`);
          });
        }
        if (id === 'prompt.merge-split') {
          for (const s of r.state.sections) if (state.unordered.includes(s.id) && s.text !== state.sections.find((x) => x.id === s.id)?.text) failures.push(`${id} seed ${seed}: unordered ${s.id} changed`);
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
