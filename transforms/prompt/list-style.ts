import { z } from 'zod';
import type { PromptStyle } from '../../src/harness/types.js';
import { defineTransform } from '../../src/transform/define.js';
import { baseStyle, stylePreview } from '../../src/transform/prompt-style.js';
import { shallowState } from '../../src/transform/state.js';

const MARKERS = ['-', '*', '+', '•', '1.'] as const;

/**
 * Restyle list markers in every prompt section (`-`, `*`, `+`, `•`, or numbered `1.`). The other
 * style fields are kept; a harness rendered as written starts from markdown level 1, as-is, `-`,
 * its own separator.
 */
export default defineTransform({
  id: 'prompt.list-style',
  family: 'prompt',
  class: 'semantic',
  version: 1,
  description: 'Restyle list markers in prompt sections (-, *, +, •, 1.).',
  options: z.strictObject({
    p: z.number().min(0).max(1).default(0.5).describe('probability that a variant restyles the list markers'),
    markers: z
      .array(z.enum(MARKERS))
      .min(1)
      .default([...MARKERS])
      .describe('list markers to draw from'),
  }),
  apply(state, ctx) {
    const base = baseStyle(state);
    const before = stylePreview(state, base);
    for (const listMarker of ctx.rng.shuffle(ctx.options.markers)) {
      const style: PromptStyle = { ...base, listMarker };
      if (stylePreview(state, style) === before) continue;
      const out = shallowState(state);
      out.promptStyle = style;
      return { state: out, params: { listMarker } };
    }
    return null;
  },
});
