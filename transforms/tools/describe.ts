import { z } from 'zod';
import { defineTransform } from '../../src/transform/define.js';
import { shallowState } from '../../src/transform/state.js';
import { reword } from '../../src/words/reword.js';
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
  description:
    'Reword tool descriptions with grammatical sentence frames chosen by the shape of the first sentence (verb, "This tool …", noun phrase, "Use this when …", Chinese); meaning and the rest of the text kept.',
  options: z.strictObject({
    p: z.number().min(0).max(1).default(0.3).describe('probability that a variant rewords tool descriptions'),
    intensity: z.number().min(0).max(1).default(0.5).describe('share of tools whose description is reworded'),
  }),
  apply(state, ctx) {
    const eligible = state.tools.filter((t) => t.description.trim() !== '').map((t) => t.name);
    if (eligible.length === 0) return null;
    const chosen = new Set(ctx.rng.sample(eligible, Math.max(1, Math.round(eligible.length * ctx.options.intensity))));
    const out = shallowState(state);
    const frames = dict();
    // A reworded tool is a new object; the others are shared with the state before.
    out.tools = state.tools.map((t) => {
      if (!chosen.has(t.name)) return t;
      const next = reword(t.description.trim(), ctx.words, 'tool', ctx.rng);
      if (!next) return t;
      frames[t.name] = next.frame;
      return { ...t, description: next.text };
    });
    if (Object.keys(frames).length === 0) return null;
    return { state: out, params: { frames } };
  },
});
