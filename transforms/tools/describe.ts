import { z } from 'zod';
import { defineTransform } from '../../src/transform/define.js';
import { cloneState } from '../../src/transform/state.js';
import { reword } from '../words/reword.js';
import { dict } from '../../src/util/dict.js';

/**
 * Reword tool descriptions with sentence frames. Semantic, and a separate knob from renames:
 * description wording steers tool choice strongly.
 */
export default defineTransform({
  id: 'tools.describe',
  family: 'tools',
  class: 'semantic',
  version: 2,
  description: 'Reword tool descriptions with grammatical sentence frames chosen by the shape of the first sentence (verb, "This tool …", noun phrase, "Use this when …", Chinese); meaning and the rest of the text kept.',
  options: z.strictObject({
    p: z.number().min(0).max(1).default(0.3).describe('probability that a variant rewords tool descriptions'),
    intensity: z.number().min(0).max(1).default(0.5).describe('share of tools whose description is reworded'),
  }),
  apply(state, ctx) {
    const eligible = state.tools.filter((t) => t.description.trim() !== '').map((t) => t.name);
    if (eligible.length === 0) return null;
    const chosen = new Set(ctx.rng.sample(eligible, Math.max(1, Math.round(eligible.length * ctx.options.intensity))));
    const out = cloneState(state);
    const frames = dict();
    for (const t of out.tools) {
      if (!chosen.has(t.name)) continue;
      const next = reword(t.description.trim(), ctx.words, 'tool', ctx.rng);
      if (!next) continue;
      t.description = next.text;
      frames[t.name] = next.frame;
    }
    if (Object.keys(frames).length === 0) return null;
    return { state: out, params: { frames } };
  },
});
