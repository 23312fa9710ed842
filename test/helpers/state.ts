import type { Harness } from '../../src/harness/types.js';
import { validateHarness } from '../../src/harness/validate.js';
import type { AnyTransform, TransformResult } from '../../src/transform/define.js';
import { emptyPlan } from '../../src/transform/plan.js';
import { createRng } from '../../src/transform/rng.js';
import { stateIdentifiers } from '../../src/transform/state.js';
import { builtinWords } from '../../src/words/selection.js';

/** A small harness state with neutral defaults; tests override what they need. */
export function baseHarness(over: Partial<Harness> = {}): Harness {
  return {
    name: 't',
    version: '1',
    sections: [],
    pinned: [],
    unordered: [],
    separator: '\n\n',
    catalog: { id: 'skills', title: 'Skills' },
    variables: {},
    skillNaming: 'identifier',
    skillLoader: null,
    skills: [],
    tools: [],
    hooks: [],
    hookMessages: { namePrefix: 'hook:' },
    promptStyle: null,
    ...over,
  };
}

/** Apply one transform directly, the way sampleVariant does (options parsed, rng seeded per transform). */
export function applyTransform(
  def: AnyTransform,
  state: Harness,
  options: Record<string, unknown> = {},
  seed: number | string = 1,
  taken?: (n: string) => boolean,
): TransformResult | null {
  const names = stateIdentifiers(state);
  return def.apply(state, {
    options: def.options.parse(options),
    rng: createRng('test', seed, def.id),
    words: builtinWords,
    source: state,
    plan: emptyPlan(),
    isTaken: taken ?? ((n) => names.has(n)),
  });
}

/** The errors the harness validator finds in a state (origins unknown: no files). */
export function stateErrors(h: Harness) {
  return validateHarness(h, { harnessFile: 'harness.yaml', skills: {}, tools: {}, hooks: {}, sections: {} }).filter((p) => p.severity === 'error');
}
