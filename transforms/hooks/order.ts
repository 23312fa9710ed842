import { z } from 'zod';
import { defineTransform } from '../../src/transform/define.js';
import { cloneState } from '../../src/transform/state.js';

/** Shuffle the order of hooks that share an event; hooks of other events keep their places. */
export default defineTransform({
  id: 'hooks.order',
  family: 'hooks',
  class: 'exact',
  version: 1,
  description: 'Shuffle the order of hooks within the same lifecycle event.',
  options: z.strictObject({
    p: z.number().min(0).max(1).default(0.5).describe('probability that a variant reorders hooks'),
  }),
  appliesTo: (state) => state.hooks.length > 1,
  apply(state, ctx) {
    const byEvent = new Map<string, number[]>(); // event → positions in state.hooks
    state.hooks.forEach((h, i) => byEvent.set(h.event, [...(byEvent.get(h.event) ?? []), i]));
    const groups = [...byEvent.entries()].filter(([, pos]) => pos.length > 1);
    if (groups.length === 0) return null;
    const out = cloneState(state);
    const order = out.hooks.map((_, i) => i);
    for (const [, pos] of groups) {
      const next = ctx.rng.shuffle(pos);
      next.forEach((from, k) => (order[pos[k]!] = from));
    }
    // A shuffle may give every group back unchanged: then rotate one group, so something moves.
    if (order.every((from, i) => from === i)) {
      const [, pos] = ctx.rng.pick(groups);
      pos.forEach((p, k) => (order[p] = pos[(k + 1) % pos.length]!));
    }
    const hooks = out.hooks;
    out.hooks = order.map((from) => hooks[from]!);
    const events: Record<string, string[]> = {};
    for (const [event] of groups) events[event] = out.hooks.filter((h) => h.event === event).map((h) => h.id);
    return { state: out, params: { order: events } };
  },
});
