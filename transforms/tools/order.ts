import { z } from 'zod';
import { defineTransform } from '../../src/transform/define.js';
import { shallowState } from '../../src/transform/state.js';

/** Shuffle the order of the tool list the model sees. */
export default defineTransform({
  id: 'tools.order',
  family: 'tools',
  class: 'exact',
  version: 1,
  description: 'Shuffle the order of the tool list.',
  options: z.strictObject({
    p: z.number().min(0).max(1).default(0.8).describe('probability that a variant reorders the tool list'),
  }),
  apply(state, ctx) {
    if (state.tools.length < 2) return null;
    const out = shallowState(state);
    out.tools = ctx.rng.shuffle(state.tools);
    return { state: out, params: { order: out.tools.map((t) => t.name) } };
  },
});
