import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PromptStyle } from '../../src/harness/types.js';
import headingStyle from '../../transforms/prompt/heading-style.js';
import listStyle from '../../transforms/prompt/list-style.js';
import sectionOrder from '../../transforms/prompt/section-order.js';
import spacing from '../../transforms/prompt/spacing.js';
import { REPO } from '../helpers/hsa.js';
import { registry, harness, text, catalog, skill, ROLE, RULES, STYLE, TAIL, mini, style, apply, applied, ALL_SEEDS } from '../helpers/prompt-transforms.js';

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
    [
      'xml tags',
      { headings: ['xml'] },
      '<role>\nYou are Mia.\n</role>\n\n<rules>\n- Be brief.\n- Be kind.\n</rules>',
      { heading: 'xml', headingLevel: 1, titleCase: 'as-is' },
    ],
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
    [
      '[bracket], lower case',
      { headings: ['bracket'], titleCases: ['lower'] },
      '[role]\n\nYou are Mia.\n\n[rules]\n\n- Be brief.\n- Be kind.',
      { heading: 'bracket', headingLevel: 1, titleCase: 'lower' },
    ],
    ['CAPS', { headings: ['caps'] }, 'ROLE\n\nYou are Mia.\n\nRULES\n\n- Be brief.\n- Be kind.', { heading: 'caps', headingLevel: 1, titleCase: 'as-is' }],
    [
      'Title:',
      { headings: ['colon'], titleCases: ['as-is'] },
      'Role:\n\nYou are Mia.\n\nRules:\n\n- Be brief.\n- Be kind.',
      { heading: 'colon', headingLevel: 1, titleCase: 'as-is' },
    ],
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
    [
      '==== rule, title case upper',
      { separators: ['\n\n====\n\n'], recase: 1, titleCases: ['upper'] },
      '# ROLE\n\nYou are Mia.\n\n====\n\n# RULES\n\n- Be brief.\n- Be kind.',
    ],
    [
      '*** rule, title case lower',
      { separators: ['\n\n***\n\n'], recase: 1, titleCases: ['lower'] },
      '# role\n\nYou are Mia.\n\n***\n\n# rules\n\n- Be brief.\n- Be kind.',
    ],
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
