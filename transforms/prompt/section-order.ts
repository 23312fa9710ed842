import { z } from 'zod';
import { defineTransform } from '../../src/transform/define.js';
import { cloneState } from '../../src/transform/state.js';

/**
 * Shuffle the order of prompt sections. Pinned sections keep their index; every other section
 * (the skill catalog included) may land in any free slot. The order always changes when it can.
 */
export default defineTransform({
  id: 'prompt.section-order',
  family: 'prompt',
  class: 'semantic',
  version: 1,
  description: 'Shuffle the order of prompt sections; pinned sections keep their index.',
  options: z.strictObject({
    p: z.number().min(0).max(1).default(0.5).describe('probability that a variant reorders the prompt sections'),
  }),
  appliesTo: (state) => movableCount(state) >= 2,
  apply(state, ctx) {
    const pinned = new Set(state.pinned);
    const slots: number[] = [];
    state.sections.forEach((s, i) => {
      if (!pinned.has(s.id)) slots.push(i);
    });
    if (slots.length < 2) return null;
    const out = cloneState(state);
    const movable = slots.map((i) => out.sections[i]!);
    let order = ctx.rng.shuffle(movable);
    if (order.every((s, k) => s === movable[k])) {
      // The shuffle left everything in place: swap two random slots so the variant differs.
      const [a, b] = ctx.rng.sample(
        order.map((_, k) => k),
        2,
      ) as [number, number];
      order = [...order];
      [order[a], order[b]] = [order[b]!, order[a]!];
    }
    slots.forEach((slot, k) => {
      out.sections[slot] = order[k]!;
    });
    return { state: out, params: { order: out.sections.map((s) => s.id) } };
  },
});

/** Sections that are not pinned (the slots apply shuffles). */
function movableCount(state: { sections: { id: string }[]; pinned: string[] }): number {
  let n = 0;
  for (const s of state.sections) if (!state.pinned.includes(s.id)) n++;
  return n;
}
