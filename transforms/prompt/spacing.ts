import { z } from 'zod';
import { hasTitle } from '../../src/harness/markdown.js';
import { catalogText } from '../../src/harness/render.js';
import type { Harness, PromptStyle } from '../../src/harness/types.js';
import { defineTransform } from '../../src/transform/define.js';
import { baseStyle, stylePreview } from '../../src/transform/prompt-style.js';
import { shallowState } from '../../src/transform/state.js';

const SEPARATORS = ['\n\n', '\n\n---\n\n', '\n\n\n', '\n\n***\n\n', '\n\n====\n\n'];
const TITLE_CASES = ['as-is', 'upper', 'lower', 'title'] as const;

/**
 * Change the separator between rendered sections (blank line, `---`, two blank lines, `***`,
 * `====`) and, sometimes, the casing of section titles. The other style fields are kept; a
 * harness rendered as written starts from markdown level 1, as-is, `-`, its own separator.
 */
export default defineTransform({
  id: 'prompt.spacing',
  family: 'prompt',
  class: 'semantic',
  version: 1,
  description: 'Change the separator between prompt sections and the casing of section titles.',
  options: z.strictObject({
    p: z.number().min(0).max(1).default(0.5).describe('probability that a variant changes the section spacing'),
    separators: z
      .array(z.string().refine((s) => s.startsWith('\n') && s.endsWith('\n'), 'a separator starts and ends with a newline'))
      .min(1)
      .default([...SEPARATORS])
      .describe('section separators to draw from; each starts and ends with a newline'),
    titleCases: z
      .array(z.enum(TITLE_CASES))
      .min(1)
      .default([...TITLE_CASES])
      .describe('title casings to draw from'),
    recase: z.number().min(0).max(1).default(0.5).describe('probability that the title casing is redrawn as well'),
  }),
  // A separator shows only between two sections of one placement, and a title casing only on a
  // title: a prompt of one untitled section (a logged system message) previews the same under
  // every spacing.
  appliesTo: (state) => spacingShows(state),
  apply(state, ctx) {
    const base = baseStyle(state);
    const before = stylePreview(state, base);
    const titleCase = ctx.rng.chance(ctx.options.recase) ? ctx.rng.pick(ctx.options.titleCases) : base.titleCase;
    for (const separator of ctx.rng.shuffle(ctx.options.separators)) {
      if (separator === base.separator) continue;
      const style: PromptStyle = { ...base, separator, titleCase };
      // A prompt of one section shows no separator.
      if (stylePreview(state, style) === before) continue;
      const out = shallowState(state);
      out.promptStyle = style;
      return { state: out, params: { separator, titleCase } };
    }
    return null;
  },
});

function spacingShows(state: Harness): boolean {
  const parts = { system: 0, preamble: 0 };
  for (const s of state.sections) {
    const text = s.kind === 'catalog' ? catalogText(state) : s.text;
    if (text === '') continue;
    if (++parts[s.placement] >= 2 || hasTitle(text)) return true;
  }
  return false;
}
