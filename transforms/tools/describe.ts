import { z } from 'zod';
import { defineTransform } from '../../src/transform/define.js';
import { cloneState } from '../../src/transform/state.js';

/**
 * Reword tool descriptions with sentence frames. Semantic, and a separate knob from renames:
 * description wording steers tool choice strongly.
 */
export default defineTransform({
  id: 'tools.describe',
  family: 'tools',
  class: 'semantic',
  version: 1,
  description: 'Reword tool descriptions with sentence frames from the word lists (meaning kept).',
  options: z.strictObject({
    p: z.number().min(0).max(1).default(0.3).describe('probability that a variant rewords tool descriptions'),
    intensity: z.number().min(0).max(1).default(0.5).describe('share of tools whose description is reworded'),
  }),
  apply(state, ctx) {
    const eligible = state.tools.filter((t) => t.description.trim() !== '').map((t) => t.name);
    if (eligible.length === 0) return null;
    const chosen = new Set(ctx.rng.sample(eligible, Math.max(1, Math.round(eligible.length * ctx.options.intensity))));
    const out = cloneState(state);
    const frames: Record<string, string> = {};
    for (const t of out.tools) {
      if (!chosen.has(t.name)) continue;
      const frame = ctx.rng.pick(ctx.words.descriptionFrames.filter((f) => f !== '{text}'));
      const text = t.description.trim();
      const lower = /^[A-Z][a-z]/.test(text) ? text[0]!.toLowerCase() + text.slice(1) : text;
      t.description = frame.replace('{text}', text).replace('{lower}', lower);
      frames[t.name] = frame;
    }
    return { state: out, params: { frames } };
  },
});
