import { z } from 'zod';
import { defineTransform } from '../../src/transform/define.js';
import { cloneState } from '../../src/transform/state.js';
import { reword } from '../../src/words/reword.js';

/** The longest description the Agent Skills convention allows. */
const MAX_DESCRIPTION = 1024;

/** Reword skill descriptions with grammatical sentence frames that keep the original meaning. */
export default defineTransform({
  id: 'skills.describe',
  family: 'skills',
  class: 'semantic',
  version: 2,
  description:
    'Reword skill descriptions with grammatical sentence frames chosen by the shape of the first sentence ("Use this skill when …", "This skill …", "Purpose: …", Chinese frames for Chinese text), within 1024 characters.',
  options: z.strictObject({
    p: z.number().min(0).max(1).default(0.5).describe('probability that a variant rewords skill descriptions'),
    intensity: z.number().min(0).max(1).default(0.5).describe('share of skills whose description is reworded (at least one)'),
  }),
  appliesTo: (state) => state.skills.length > 0,
  apply(state, ctx) {
    if (state.skills.length === 0) return null;
    const k = Math.max(1, Math.round(state.skills.length * ctx.options.intensity));
    const chosen = ctx.rng
      .sample(
        state.skills.map((s) => s.id),
        k,
      )
      .sort();
    const out = cloneState(state);
    const reworded: Record<string, string> = {};
    for (const id of chosen) {
      const skill = out.skills.find((s) => s.id === id)!;
      const next = reword(skill.description.trim(), ctx.words, 'skill', ctx.rng, MAX_DESCRIPTION);
      if (!next || next.text.trim() === '') continue;
      skill.description = next.text;
      reworded[id] = next.frame;
    }
    if (Object.keys(reworded).length === 0) return null;
    return { state: out, params: { frames: reworded } };
  },
});
