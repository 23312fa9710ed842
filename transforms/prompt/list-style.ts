import { z } from 'zod';
import { restyleSection } from '../../src/harness/markdown.js';
import { catalogText } from '../../src/harness/render.js';
import type { Harness, PromptStyle } from '../../src/harness/types.js';
import { defineTransform } from '../../src/transform/define.js';
import { cloneState } from '../../src/transform/state.js';

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
    markers: z.array(z.enum(MARKERS)).min(1).default([...MARKERS]).describe('list markers to draw from'),
  }),
  apply(state, ctx) {
    const base = baseStyle(state);
    const before = preview(state, base);
    for (const listMarker of ctx.rng.shuffle(ctx.options.markers)) {
      const style: PromptStyle = { ...base, listMarker };
      if (preview(state, style) === before) continue;
      const out = cloneState(state);
      out.promptStyle = style;
      return { state: out, params: { listMarker } };
    }
    return null;
  },
});

/** The state's prompt style, or the neutral style a restyle starts from when it has none. */
function baseStyle(h: Harness): PromptStyle {
  return h.promptStyle ? { ...h.promptStyle } : { heading: 'markdown', headingLevel: 1, titleCase: 'as-is', listMarker: '-', separator: h.separator };
}

/** The prompt under a style, slots unfilled: enough to tell whether a style changes anything. */
function preview(h: Harness, style: PromptStyle): string {
  const parts: Record<'system' | 'preamble', string[]> = { system: [], preamble: [] };
  for (const s of h.sections) {
    const text = s.kind === 'catalog' ? catalogText(h) : s.text;
    if (text !== '') parts[s.placement].push(restyleSection(text, style));
  }
  return `${parts.system.join(style.separator)}\u0000${parts.preamble.join(style.separator)}`;
}
