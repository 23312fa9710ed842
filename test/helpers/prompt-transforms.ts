// The prompt family and a small hand-made harness, shared by the prompt transform tests.
import { baseHarness } from './state.js';
import { expect } from 'vitest';
import { renderPrompt } from '../../src/harness/render.js';
import type { Harness, PromptStyle, Section, Skill } from '../../src/harness/types.js';
import type { AnyTransform } from '../../src/transform/define.js';
import { emptyPlan, type RewritePlan } from '../../src/transform/plan.js';
import { createRng } from '../../src/transform/rng.js';
import { stateIdentifiers } from '../../src/transform/state.js';
import { checkRules } from '../../src/trajectory/rules-check.js';
import headingStyle from '../../transforms/prompt/heading-style.js';
import listStyle from '../../transforms/prompt/list-style.js';
import mergeSplit from '../../transforms/prompt/merge-split.js';
import placement from '../../transforms/prompt/placement.js';
import ruleOrder from '../../transforms/prompt/rule-order.js';
import sectionOrder from '../../transforms/prompt/section-order.js';
import spacing from '../../transforms/prompt/spacing.js';
import { builtinWords } from '../../src/words/selection.js';

/** The prompt family, in the order the property tests apply them. */
export const registry: Record<string, AnyTransform> = {
  'prompt.section-order': sectionOrder,
  'prompt.merge-split': mergeSplit,
  'prompt.placement': placement,
  'prompt.rule-order': ruleOrder,
  'prompt.heading-style': headingStyle,
  'prompt.list-style': listStyle,
  'prompt.spacing': spacing,
};
export const reversed: Record<string, AnyTransform> = Object.fromEntries(Object.entries(registry).reverse());

// ---------------------------------------------------------------------------------------------
// A small hand-made harness.

export function harness(over: Partial<Harness> = {}): Harness {
  return baseHarness({ name: 'mini', variables: { host: { default: 'Mia' } }, ...over });
}
export const text = (id: string, t: string): Section => ({ id, kind: 'text', text: t, placement: 'system' });
export const catalog = (id = 'skills'): Section => ({ id, kind: 'catalog', text: '', placement: 'system' });
export const skill = (id: string, description: string): Skill => ({ id, description, kind: 'reply', tools: [], body: `Body of ${id}.`, extra: {} });

export const ROLE = text('role', '# Role\nYou are {{host}}.');
export const RULES = text('rules', '# Rules\n- Be brief.\n- Be kind.');
export const STYLE = text('style', '# Style\nSpeak plainly.');
export const TAIL = text('tail', '# Tail\nThanks.');

/** role[pinned], rules[unordered], skills[catalog], style, tail[pinned]. */
export function mini(over: Partial<Harness> = {}): Harness {
  return harness({
    sections: [ROLE, RULES, catalog(), STYLE, TAIL],
    pinned: ['role', 'tail'],
    unordered: ['rules'],
    skills: [skill('greet', 'Say hello.')],
    ...over,
  });
}

export const style = (over: Partial<PromptStyle> = {}): PromptStyle => ({
  heading: 'markdown',
  headingLevel: 1,
  titleCase: 'as-is',
  listMarker: '-',
  separator: '\n\n',
  ...over,
});

/** Apply one transform directly, with its options parsed (defaults filled) and a seeded rng. */
export function apply(def: AnyTransform, state: Harness, options: Record<string, unknown> = {}, seed: string | number = 1) {
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
export function applied(def: AnyTransform, state: Harness, options: Record<string, unknown> = {}, seed: string | number = 1) {
  const before = JSON.stringify(state);
  const r = apply(def, state, options, seed);
  expect(JSON.stringify(state), 'the input state is never mutated').toBe(before);
  if (!r) throw new Error(`${def.id} did not apply`);
  const plan: RewritePlan = { ...emptyPlan(), ...r.plan };
  expect(checkRules(state, r.state, plan), 'rules kept').toEqual([]);
  return { ...r, plan, ...renderPrompt(r.state, {}) };
}

export const ALL_SEEDS = Array.from({ length: 40 }, (_, i) => i);
