import { z } from 'zod';
import type { HookChannel } from '../../src/harness/types.js';
import { defineTransform } from '../../src/transform/define.js';
import { cloneState } from '../../src/transform/state.js';

/**
 * Move the feedback of stop and pre_inference hooks between the user and system channels. Tool
 * hooks and the tool channel are left alone: tool-channel feedback answers a specific call.
 */
export default defineTransform({
  id: 'hooks.channel',
  family: 'hooks',
  class: 'exact',
  version: 1,
  description: 'Move the feedback of stop and pre_inference hooks between the user and system channels (never the tool channel).',
  options: z.strictObject({
    p: z.number().min(0).max(1).default(0.3).describe('probability that a variant moves hook feedback to another channel'),
    intensity: z.number().min(0).max(1).default(1).describe('share of eligible hooks whose channel is switched (at least one)'),
  }),
  appliesTo: (state) => state.hooks.length > 0,
  apply(state, ctx) {
    const eligible = state.hooks
      .filter((h) => (h.event === 'stop' || h.event === 'pre_inference') && (h.channel === 'user' || h.channel === 'system'))
      .map((h) => h.id);
    if (eligible.length === 0) return null;
    const k = Math.max(1, Math.round(eligible.length * ctx.options.intensity));
    const chosen = ctx.rng.sample(eligible, k).sort();
    const out = cloneState(state);
    const moved: Record<string, HookChannel> = {};
    for (const id of chosen) {
      const hook = out.hooks.find((h) => h.id === id)!;
      hook.channel = hook.channel === 'user' ? 'system' : 'user';
      moved[id] = hook.channel;
    }
    return { state: out, params: { moved } };
  },
});
