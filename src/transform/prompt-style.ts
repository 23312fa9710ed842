import { restyleSection } from '../harness/markdown.js';
import { catalogText } from '../harness/render.js';
import type { Harness, PromptStyle } from '../harness/types.js';

/** The state's prompt style, or the neutral style a restyle starts from when it has none. */
export function baseStyle(h: Harness): PromptStyle {
  return h.promptStyle ? { ...h.promptStyle } : { heading: 'markdown', headingLevel: 1, titleCase: 'as-is', listMarker: '-', separator: h.separator };
}

/** The prompt under a style, slots unfilled: enough to tell whether a style changes anything. */
export function stylePreview(h: Harness, style: PromptStyle): string {
  const parts: Record<'system' | 'preamble', string[]> = { system: [], preamble: [] };
  for (const s of h.sections) {
    const text = s.kind === 'catalog' ? catalogText(h) : s.text;
    if (text !== '') parts[s.placement].push(restyleSection(text, style));
  }
  return `${parts.system.join(style.separator)}\u0000${parts.preamble.join(style.separator)}`;
}
