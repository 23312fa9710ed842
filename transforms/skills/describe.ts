import { z } from 'zod';
import { defineTransform } from '../../src/transform/define.js';
import { isDistinctive } from '../../src/transform/identifiers.js';
import { cloneState } from '../../src/transform/state.js';

/** The longest description the Agent Skills convention allows. */
const MAX_DESCRIPTION = 1024;

/**
 * The description with a lower-case first letter, for frames that continue a sentence ("Use this to
 * {lower}"). Only an ordinary capitalised word is lowered: identifiers (`ItemQa`, `load_skill`) and
 * acronyms (`FAQ`) stay as written.
 */
export function lowerFirst(text: string): string {
  const first = /^[A-Za-z0-9_-]+/.exec(text)?.[0];
  if (first === undefined || isDistinctive(first) || !/^[A-Z][a-z]*$/.test(first)) return text;
  return first[0]!.toLowerCase() + text.slice(1);
}

/** Fill a description frame: `{text}` is the description, `{lower}` it with a lower-case first letter. */
export function fillDescriptionFrame(frame: string, text: string): string {
  return frame.replace(/\{(text|lower)\}/g, (_, key: string) => (key === 'text' ? text : lowerFirst(text)));
}

/** Reword skill descriptions with sentence frames that keep the original wording inside. */
export default defineTransform({
  id: 'skills.describe',
  family: 'skills',
  class: 'semantic',
  version: 1,
  description: 'Reword skill descriptions with sentence frames ("Use this to …", "Purpose: …"), keeping the original text inside and within 1024 characters.',
  options: z.strictObject({
    p: z.number().min(0).max(1).default(0.5).describe('probability that a variant rewords skill descriptions'),
    intensity: z.number().min(0).max(1).default(0.5).describe('share of skills whose description is reworded (at least one)'),
  }),
  apply(state, ctx) {
    if (state.skills.length === 0) return null;
    const k = Math.max(1, Math.round(state.skills.length * ctx.options.intensity));
    const chosen = ctx.rng.sample(state.skills.map((s) => s.id), k).sort();
    const out = cloneState(state);
    const reworded: Record<string, string> = {};
    for (const id of chosen) {
      const skill = out.skills.find((s) => s.id === id)!;
      const text = skill.description.trim();
      const options = ctx.rng
        .shuffle(ctx.words.descriptionFrames)
        .map((frame) => ({ frame, next: fillDescriptionFrame(frame, text) }))
        .filter(({ next }) => next !== skill.description && next.trim() !== '' && next.length <= MAX_DESCRIPTION);
      const pick = options[0];
      if (!pick) continue;
      skill.description = pick.next;
      reworded[id] = pick.frame;
    }
    if (Object.keys(reworded).length === 0) return null;
    return { state: out, params: { frames: reworded } };
  },
});
