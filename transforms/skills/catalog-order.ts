import { z } from 'zod';
import { defineTransform } from '../../src/transform/define.js';
import { cloneState } from '../../src/transform/state.js';

/** Shuffle the order of skills in the catalog (the catalog lists skills in state order). */
export default defineTransform({
  id: 'skills.catalog-order',
  family: 'skills',
  class: 'exact',
  version: 1,
  description: 'Shuffle the order in which the skill catalog lists skills.',
  options: z.strictObject({
    p: z.number().min(0).max(1).default(0.5).describe('probability that a variant reorders the skill catalog'),
  }),
  appliesTo: (state) => state.skills.length > 1,
  apply(state, ctx) {
    if (state.skills.length < 2) return null;
    const before = state.skills.map((s) => s.id);
    let order = ctx.rng.shuffle(before);
    // A shuffle may give the same order back; rotate by one then, so an applied transform always changes something.
    if (order.every((id, i) => id === before[i])) order = [...before.slice(1), before[0]!];
    const out = cloneState(state);
    const byId = new Map(out.skills.map((s) => [s.id, s]));
    out.skills = order.map((id) => byId.get(id)!);
    return { state: out, params: { order } };
  },
});
