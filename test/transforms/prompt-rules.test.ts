import { describe, expect, it } from 'vitest';
import { renderPrompt } from '../../src/harness/render.js';
import { checkVariant, reportFailures } from '../../src/trajectory/invariants.js';
import { PREAMBLE_NAME, rewriteTrajectory } from '../../src/trajectory/rewrite.js';
import type { Trajectory } from '../../src/trajectory/types.js';
import mergeSplit from '../../transforms/prompt/merge-split.js';
import placement from '../../transforms/prompt/placement.js';
import ruleOrder from '../../transforms/prompt/rule-order.js';
import { harness, text, catalog, skill, ROLE, RULES, STYLE, TAIL, mini, apply, applied, ALL_SEEDS } from '../helpers/prompt-transforms.js';

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
      bySplit.set(
        String(r.params.heading),
        r.state.sections.map((s) => s.text),
      );
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
    [
      'merge: the sections are in different places',
      harness({ sections: [text('x', '# X\nA.'), { ...text('y', '# Y\nB.'), placement: 'preamble' }] }),
      { mode: 'merge' },
    ],
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
