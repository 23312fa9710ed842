import { z } from 'zod';
import type { PromptStyle } from '../../src/harness/types.js';
import { defineTransform } from '../../src/transform/define.js';
import { baseStyle, neutralTitles, stylePreview } from '../../src/transform/prompt-style.js';
import { shallowState } from '../../src/transform/state.js';
import { hasTitle } from '../../src/harness/markdown.js';
import { catalogText } from '../../src/harness/render.js';

const HEADINGS = ['markdown', 'xml', 'bracket', 'caps', 'colon'] as const;
const TITLE_CASES = ['as-is', 'upper', 'lower', 'title'] as const;

/**
 * Restyle section titles: markdown `#`/`##`/`###`, `<xml>` tags, `[Bracket]`, CAPS or `Title:`,
 * with a title casing. An XML tag is made from the title's words; a title whose tag would spell a
 * harness name (a heading "Cancel pending order" beside a tool `cancel_pending_order`) gets a
 * neutral `<section title="…">` instead, so a rename of that name leaves nothing behind. The other style fields (list marker, separator) are kept; a harness
 * rendered as written starts from markdown level 1, as-is, `-`, its own separator.
 */
export default defineTransform({
  id: 'prompt.heading-style',
  family: 'prompt',
  class: 'semantic',
  version: 2,
  description: 'Restyle section headings (markdown levels 1-3, xml tags, [bracket], CAPS, Title:) and their casing.',
  options: z.strictObject({
    p: z.number().min(0).max(1).default(0.6).describe('probability that a variant restyles the section headings'),
    headings: z
      .array(z.enum(HEADINGS))
      .min(1)
      .default([...HEADINGS])
      .describe('heading styles to draw from'),
    levels: z.array(z.number().int().min(1).max(3)).min(1).default([1, 2, 3]).describe('markdown heading levels to draw from'),
    titleCases: z
      .array(z.enum(TITLE_CASES))
      .min(1)
      .default([...TITLE_CASES])
      .describe('title casings to draw from (xml and CAPS ignore it)'),
  }),
  // Only titles show a heading style: a prompt without one (a logged system message, mostly)
  // previews the same under every style, so the search in apply would try them all to find none.
  appliesTo: (state) => state.sections.some((s) => hasTitle(s.kind === 'catalog' ? catalogText(state) : s.text)),
  apply(state, ctx) {
    if (!state.sections.some((s) => hasTitle(s.kind === 'catalog' ? catalogText(state) : s.text))) return null;
    const base = baseStyle(state);
    const before = stylePreview(state, base);
    // Heading kind first (uniform over kinds), then its level and casing.
    for (const heading of ctx.rng.shuffle(ctx.options.headings)) {
      const levels = heading === 'markdown' ? ctx.options.levels : [base.headingLevel];
      // xml tags and CAPS do not show the title casing: keep the current one.
      const cases = heading === 'xml' || heading === 'caps' ? [base.titleCase] : ctx.options.titleCases;
      const combos = levels.flatMap((headingLevel) => cases.map((titleCase) => ({ headingLevel, titleCase })));
      for (const c of ctx.rng.shuffle(combos)) {
        const style: PromptStyle = { ...base, heading, headingLevel: c.headingLevel, titleCase: c.titleCase };
        delete style.neutralTitles;
        if (heading === 'xml') {
          const neutral = neutralTitles(state, ctx.source);
          if (neutral.length > 0) style.neutralTitles = neutral;
        }
        if (stylePreview(state, style) === before) continue;
        const out = shallowState(state);
        out.promptStyle = style;
        return { state: out, params: { heading, headingLevel: style.headingLevel, titleCase: style.titleCase } };
      }
    }
    return null;
  },
});
