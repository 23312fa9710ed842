import { parseSection, restyleSection, xmlTag } from '../harness/markdown.js';
import { catalogText } from '../harness/render.js';
import type { Harness, PromptStyle } from '../harness/types.js';
import { spellsName } from './identifiers.js';
import { schemaPropertyNames } from './state.js';

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

/**
 * Section titles whose XML tag would spell a tool, parameter, skill or hook name of `source` or
 * `state` (renamed or not: a later transform may still rename it), sorted. Rendered with a neutral
 * tag (see PromptStyle.neutralTitles), they can never put an old name into the prompt.
 */
export function neutralTitles(state: Harness, source: Harness): string[] {
  const names = harnessNames(source, state);
  const out = new Set<string>();
  for (const s of state.sections) {
    const title = parseSection(s.kind === 'catalog' ? catalogText(state) : s.text).title;
    if (title !== null && spellsName(xmlTag(title), names)) out.add(title);
  }
  return [...out].sort();
}

/** Tool, parameter, skill and hook names of the given states (section ids are never shown). */
export function harnessNames(...states: Harness[]): Set<string> {
  const names = new Set<string>();
  for (const h of states) {
    for (const t of h.tools) {
      names.add(t.name);
      for (const p of schemaPropertyNames(t.parameters)) names.add(p);
    }
    for (const s of h.skills) names.add(s.id);
    for (const k of h.hooks) names.add(k.id);
  }
  return names;
}
