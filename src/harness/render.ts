import { parseSection, renderSection as renderMarkdownSection, restyleSection } from './markdown.js';
import { fillTemplate, hasSlots } from './template.js';
import type { Harness, OpenAiTool, Section } from './types.js';

/**
 * What the model sees under a harness state, for one trajectory context: the system prompt, an
 * optional preamble (sections a transform moved in front of the first user turn) and the tools.
 * Pure and deterministic.
 */
export interface RenderedPrompt {
  system: string;
  preamble: string;
}

export function renderPrompt(h: Harness, context: unknown): RenderedPrompt {
  // A record's prompt is rendered under its source state (input check, round trip) and under its
  // target state: the last few renders are kept, keyed by state and the context's JSON.
  const key = context === undefined ? '' : JSON.stringify(context);
  for (const r of recentPrompts) if (r.h === h && r.key === key) return r.out;
  const out = computePrompt(h, context);
  recentPrompts[recentNext] = { h, key, out };
  recentNext = (recentNext + 1) % RECENT_PROMPTS;
  return out;
}

const RECENT_PROMPTS = 4;
const recentPrompts: { h: Harness; key: string; out: RenderedPrompt }[] = [];
let recentNext = 0;

function computePrompt(h: Harness, context: unknown): RenderedPrompt {
  const defaults = variableDefaults(h);
  const system: string[] = [];
  const preamble: string[] = [];
  for (const s of h.sections) {
    const text = renderSection(h, s, context, defaults);
    if (text === '') continue;
    (s.placement === 'preamble' ? preamble : system).push(text);
  }
  const sep = h.promptStyle?.separator ?? h.separator;
  return { system: system.join(sep), preamble: preamble.join(sep) };
}

/** The system message content for a trajectory with this `context`. */
export function renderSystemPrompt(h: Harness, context: unknown): string {
  return renderPrompt(h, context).system;
}

const toolLists = new WeakMap<Harness, OpenAiTool[]>();

/**
 * The tool list the model sees, in OpenAI Chat Completions shape and harness order. The same list
 * object is returned for the same state (callers never mutate it), so what is derived from it —
 * canonical text, cache keys — is computed once per state.
 */
export function renderTools(h: Harness): OpenAiTool[] {
  let list = toolLists.get(h);
  if (!list) {
    list = h.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
    toolLists.set(h, list);
  }
  return list;
}

const staticSections = new WeakMap<Harness, Map<string, string>>();

function renderSection(h: Harness, s: Section, context: unknown, defaults: Record<string, unknown>): string {
  // A section without template slots renders the same for every record: once per state.
  let cache = staticSections.get(h);
  const hit = cache?.get(s.id);
  if (hit !== undefined) return hit;
  const text = s.kind === 'catalog' ? catalogText(h) : s.text;
  if (!hasSlots(text)) {
    const out = h.promptStyle ? restyleSection(text, h.promptStyle) : text;
    if (!cache) staticSections.set(h, (cache = new Map()));
    cache.set(s.id, out);
    return out;
  }
  if (text === '') return '';
  // Fill first, then restyle: a list written with {{#each}} becomes a list like any other.
  const filled = fillTemplate(text, context ?? {}, defaults);
  // (Filled texts are the record's own: restyled without the per-text cache.)
  return h.promptStyle ? renderMarkdownSection(parseSection(filled), h.promptStyle) : filled;
}

/** The generated skill catalog in markdown; empty when there are no skills. */
export function catalogText(h: Harness): string {
  if (h.skills.length === 0) return '';
  const lines = [`# ${h.catalog.title}`, ''];
  if (h.catalog.intro) lines.push(h.catalog.intro, '');
  for (const s of h.skills) lines.push(`- ${s.id}: ${s.description.replace(/\s*\n\s*/g, ' ').trim()}`);
  return lines.join('\n');
}

/** Declared defaults of template variables. */
export function variableDefaults(h: Harness): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(h.variables)) if ('default' in v) out[k] = v.default;
  return out;
}
