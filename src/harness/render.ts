import { parseSection, renderSection as renderMarkdownSection, restyleSection, styleKey, type ParsedSection } from './markdown.js';
import { fillTemplate, hasSlots } from './template.js';
import { attach, attached } from '../util/attach.js';
import { TextKeyedCache } from '../util/bounded-cache.js';
import { ContextCache } from './context-cache.js';
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

/** The context of every record without one: the caches keyed by the context object then answer. */
export const NO_CONTEXT: Readonly<Record<string, never>> = Object.freeze({});

export function renderPrompt(h: Harness, context: unknown): RenderedPrompt {
  // A record's prompt is rendered under its source state (input check, round trip) and under each
  // target state. The context object itself is the fast key (records are never modified): the
  // last few renders are kept by it. Behind them, renders are kept with the context's JSON (see
  // contextEntry): in real logs the records of one live session share a context, and the source
  // state's render, its escaped JSON and the template fills are then made once per context.
  for (const r of recentPrompts) if (r.h === h && r.context === context) return r.r.out;
  const { key, entry } = contexts.of(context);
  let r = entry?.renders.get(h);
  if (r === undefined) {
    r = computePrompt(h, context, key);
    if (entry && entry.kept < RENDERS_PER_CONTEXT) {
      entry.renders.set(h, r);
      entry.kept++;
    }
  }
  recentPrompts[recentNext] = { h, context, r };
  recentNext = (recentNext + 1) % RECENT_PROMPTS;
  return r.out;
}

// Entries of at most 256 contexts of ~8 renders of ~5 KB (the sections without slots are shared): ~10 MB.
const contexts = new ContextCache<Rendered>(256);
const RENDERS_PER_CONTEXT = 8;

interface Rendered {
  h: Harness;
  key: string;
  out: RenderedPrompt;
  /** The system prompt's parts (joined by `sep`) and, for a section that renders the same for every record, its id. */
  parts: Part[];
  /** The same for the preamble. */
  preambleParts: Part[];
  sep: string;
  /** The system prompt's sections (id and text), in order. */
  sections: RenderedSection[];
  /** The record-level text this prompt was composed with (see renderRecordPrompt). */
  layout?: PromptLayout;
  /** The system prompt and the preamble as JSON string pieces, once asked for (null: not splittable). */
  json?: Pieces | null;
  preambleJson?: Pieces | null;
  /** The system prompt as its texts, separators included, once asked for (see promptTextPieces). */
  texts?: readonly string[];
}

interface Part {
  text: string;
  staticId: string | null;
}

/** A section's id and its rendered text, in prompt order. */
export interface RenderedSection {
  id: string;
  text: string;
}

type Pieces = readonly (string | Uint8Array)[];

// Enough for a record's source render and its variants' renders (the ring only saves renders; a
// prompt handed out keeps its own pieces however long its messages live).
const RECENT_PROMPTS = 6;
const recentPrompts: { h: Harness; context: unknown; r: Rendered }[] = [];
let recentNext = 0;

function computePrompt(h: Harness, context: unknown, key: string): Rendered {
  const defaults = variableDefaults(h);
  const sep = h.promptStyle?.separator ?? h.separator;
  // Joined with + rather than join(): V8 then keeps the prompt as a rope over the section texts
  // (no 30 KB copy per render). A variant's prompt is only ever written out as JSON pieces (see
  // messageContentJson), so most renders are never flattened.
  let system = '';
  let preamble = '';
  const parts: Part[] = [];
  const preambleParts: Part[] = [];
  const sections: RenderedSection[] = [];
  for (const s of h.sections) {
    const r = renderSection(h, s, context, defaults);
    if (r.text === '') continue;
    const part = { text: r.text, staticId: r.static ? s.id : null };
    if (s.placement === 'preamble') {
      preamble = preambleParts.length === 0 ? r.text : preamble + sep + r.text;
      preambleParts.push(part);
    } else {
      system = parts.length === 0 ? r.text : system + sep + r.text;
      parts.push(part);
      sections.push({ id: s.id, text: r.text });
    }
  }
  const out: RenderedPrompt = { system, preamble };
  const rendered: Rendered = { h, key, out, parts, preambleParts, sep, sections };
  // The prompt handed out knows its render (for promptMessage), however many renders follow.
  attach(out, RENDERED, rendered);
  return rendered;
}

const RENDERED = Symbol('hsa.rendered');

/** The system prompt's sections (ids and rendered texts, in order) for a trajectory context. */
export function renderedSections(h: Harness, context: unknown): readonly RenderedSection[] {
  return attached<Rendered>(renderPrompt(h, context), RENDERED)!.sections;
}

/**
 * Text of a logged system message that is the record's own, not the harness's (see
 * docs/harness-format.md, "Logged system prompts"), kept on the system message:
 * - `edges`: blank space before and after the rendered prompt (a prompt file's final newline);
 * - `slots`: the harness's sections found in order inside the message (`--system-prompt locate`),
 *   `outer[i]` the text before section `ids[i]` and `outer[ids.length]` the text after the last.
 * Every render for the record keeps that text verbatim around the state's versions of the sections.
 */
export type PromptLayout = { kind: 'edges'; lead: string; tail: string } | { kind: 'slots'; ids: readonly string[]; outer: readonly string[] };

const LAYOUT = Symbol('hsa.prompt-layout');

/** Keep a record's prompt layout on its system message (every message rendered from it carries it on). */
export function setPromptLayout(message: object, layout: PromptLayout): void {
  attach(message, LAYOUT, layout);
}

/** The prompt layout kept on a system message, if any. */
export function promptLayout(message: object | undefined): PromptLayout | undefined {
  return message === undefined ? undefined : attached<PromptLayout>(message, LAYOUT);
}

/**
 * What the model sees of a record's prompt under a harness state: `renderPrompt` for a record
 * whose system message is the rendered harness; otherwise the record's own text (its layout) kept
 * verbatim, with the state's render of each section in its place. In a `slots` layout each slot
 * holds the state's version of the section it held in the log (sections keep their slots; with
 * `--system-prompt locate` every section is pinned, so no transform moves or merges them).
 */
export function renderRecordPrompt(h: Harness, rec: { context?: unknown; messages: readonly object[] }): RenderedPrompt {
  const context = rec.context ?? NO_CONTEXT;
  const layout = promptLayout(rec.messages[0]);
  if (layout === undefined) return renderPrompt(h, context);
  // Keyed by the record's own context object (a missing one is `undefined`, not a fresh `{}`).
  for (const r of recentLayouts) if (r.h === h && r.layout === layout && r.context === rec.context) return r.out;
  const base = attached<Rendered>(renderPrompt(h, context), RENDERED)!;
  let parts: Part[];
  let preambleParts = interleave(base.preambleParts, base.sep);
  let preamble = base.out.preamble;
  if (layout.kind === 'edges') {
    parts = [{ text: layout.lead, staticId: null }, ...interleave(base.parts, base.sep), { text: layout.tail, staticId: null }];
  } else {
    const defaults = variableDefaults(h);
    parts = [{ text: layout.outer[0] ?? '', staticId: null }];
    layout.ids.forEach((id, i) => {
      const s = h.sections.find((x) => x.id === id);
      const r = s ? renderSection(h, s, context, defaults) : { text: '', static: false };
      parts.push({ text: r.text, staticId: r.static ? id : null }, { text: layout.outer[i + 1] ?? '', staticId: null });
    });
    preambleParts = [];
    preamble = '';
  }
  let system = '';
  for (const p of parts) system += p.text;
  const out: RenderedPrompt = { system, preamble };
  const rendered: Rendered = { h, key: base.key, out, parts, preambleParts, sep: '', sections: base.sections, layout };
  attach(out, RENDERED, rendered);
  recentLayouts[layoutNext] = { h, layout, context: rec.context, out };
  layoutNext = (layoutNext + 1) % RECENT_PROMPTS;
  return out;
}

/** The harness with every section pinned (`--system-prompt locate`: sections keep the slots they hold in the log). */
export function withPinnedSections(h: Harness): Harness {
  return { ...h, pinned: h.sections.map((s) => s.id) };
}

const recentLayouts: { h: Harness; layout: PromptLayout; context: unknown; out: RenderedPrompt }[] = [];
let layoutNext = 0;

/** Parts with the separator as parts of its own between them (for renders written with sep ''). */
function interleave(parts: readonly Part[], sep: string): Part[] {
  const out: Part[] = [];
  parts.forEach((p, i) => {
    if (i > 0) out.push({ text: sep, staticId: null });
    out.push(p);
  });
  return out;
}

/**
 * Where a message's content came from, kept on the message (see attach.ts: a WeakMap or a ring of
 * recent messages kept renders alive past their messages, +45 MB peak RSS on a 64 MB run).
 */
const SOURCE = Symbol('hsa.content-source');
/** The content is a text of a harness state (a skill body): its JSON is kept per text. */
const STATE_TEXT = { stateText: true } as const;
type ContentSource = { r: Rendered; preamble: boolean } | typeof STATE_TEXT;

function mark<M extends object>(message: M, source: ContentSource): M {
  attach(message, SOURCE, source);
  return message;
}

/**
 * Note that `message.content` is `prompt.system` (or with `preamble`, `prompt.preamble`), a prompt
 * made by `renderPrompt`, so that the message's JSON can be written from the prompt's pieces (see
 * messageContentJson). Returns the message.
 */
export function promptMessage<M extends object>(message: M, prompt: RenderedPrompt, preamble = false): M {
  const r = attached<Rendered>(prompt, RENDERED);
  if (r?.layout && !preamble) attach(message, LAYOUT, r.layout);
  return r ? mark(message, { r, preamble }) : message;
}

/** Note that `message.content` is a text of a harness state (a skill body), the same for many records. */
export function stateTextMessage<M extends object>(message: M): M {
  return mark(message, STATE_TEXT);
}

/**
 * The JSON text of a message's content, as pieces, when the content came from a render or a
 * state's text (see promptMessage, stateTextMessage): a prompt's sections that are the same for
 * every record come as UTF-8 bytes escaped once per state, the record's own sections as escaped
 * text; a state's text as bytes escaped once. Written one after the other, the pieces are
 * `JSON.stringify(content)`. Undefined for any other message (then the caller stringifies it).
 */
export function messageContentJson(message: object): Pieces | undefined {
  const source = attached<ContentSource>(message, SOURCE);
  if (source === undefined) return undefined;
  const content = (message as { content?: unknown }).content;
  if (typeof content !== 'string') return undefined;
  if ('stateText' in source) return stateTextJson(content);
  const { r, preamble } = source;
  // (The same string object: === answers without comparing characters.)
  if (content !== (preamble ? r.out.preamble : r.out.system)) return undefined;
  if (preamble) {
    if (r.preambleJson === undefined) r.preambleJson = promptPieces(r, r.preambleParts);
    return r.preambleJson ?? undefined;
  }
  if (r.json === undefined) r.json = promptPieces(r, r.parts);
  return r.json ?? undefined;
}

/**
 * The texts whose concatenation is `message.content`, when that content is a system prompt made by
 * `renderPrompt` or `renderRecordPrompt` (see promptMessage): its sections and the separators
 * between them, a section that renders the same for every record being the same string object for
 * every record of its state (a token count keeps counts by them). Undefined for any other message.
 */
export function promptTextPieces(message: object): readonly string[] | undefined {
  const source = attached<ContentSource>(message, SOURCE);
  if (source === undefined || 'stateText' in source || source.preamble) return undefined;
  const { r } = source;
  if ((message as { content?: unknown }).content !== r.out.system) return undefined;
  if (r.texts === undefined) {
    const texts: string[] = [];
    r.parts.forEach((p, i) => {
      if (i > 0 && r.sep !== '') texts.push(r.sep);
      texts.push(p.text);
    });
    r.texts = texts;
  }
  return r.texts;
}

// Keyed by the texts themselves (long-lived: they belong to states), with a budget.
const stateTexts = new TextKeyedCache<Pieces>(4_000_000);

function stateTextJson(text: string): Pieces {
  let hit = stateTexts.get(text);
  if (hit === undefined) stateTexts.set(text, (hit = [Buffer.from(JSON.stringify(text), 'utf8')]));
  return hit;
}

const escapedSections = new WeakMap<Harness, Map<string, Uint8Array>>();

function promptPieces(r: Rendered, parts: readonly Part[]): Pieces | null {
  // Escaping part by part equals escaping the whole unless a surrogate pair spans two parts.
  const splits = (t: string) => t !== '' && (isHigh(t.charCodeAt(t.length - 1)) || isLow(t.charCodeAt(0)));
  if (parts.length === 0 || (parts.length > 1 && (splits(r.sep) || parts.some((p) => splits(p.text))))) return null;
  let cache = escapedSections.get(r.h);
  if (!cache) escapedSections.set(r.h, (cache = new Map()));
  const sep = escape(r.sep);
  const pieces: (string | Uint8Array)[] = [];
  let text = '"';
  parts.forEach((p, i) => {
    if (i > 0) text += sep;
    if (p.staticId === null) {
      text += escapedFill(p.text);
      return;
    }
    let bytes = cache.get(p.staticId);
    if (!bytes) cache.set(p.staticId, (bytes = Buffer.from(escape(p.text), 'utf8')));
    pieces.push(text, bytes);
    text = '';
  });
  pieces.push(`${text}"`);
  return pieces;
}

const escape = (t: string): string => JSON.stringify(t).slice(1, -1);
// A filled section's text recurs under every state of its style (see styledFills): escaped once.
const escapedFills = new TextKeyedCache<string>(2_000_000);
function escapedFill(t: string): string {
  let e = escapedFills.get(t);
  if (e === undefined) escapedFills.set(t, (e = escape(t)));
  return e;
}
const isHigh = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

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

/** Per state and section id: the rendered text of a section without slots, or the template text of one with slots. */
const staticSections = new WeakMap<Harness, Map<string, { static: true; out: string } | { static: false; text: string }>>();

function renderSection(h: Harness, s: Section, context: unknown, defaults: Record<string, unknown>): { text: string; static: boolean } {
  // A section without template slots renders the same for every record: once per state. Whether
  // it has slots (and a catalog's text) is worked out once per state as well.
  let cache = staticSections.get(h);
  let hit = cache?.get(s.id);
  if (hit === undefined) {
    const text = s.kind === 'catalog' ? catalogText(h) : s.text;
    hit = h.literalPrompt || !hasSlots(text) ? { static: true, out: h.promptStyle ? restyleSection(text, h.promptStyle) : text } : { static: false, text };
    if (!cache) staticSections.set(h, (cache = new Map()));
    cache.set(s.id, hit);
  }
  if (hit.static) return { text: hit.out, static: true };
  const text = hit.text;
  if (text === '') return { text: '', static: false };
  // A record's variants mostly fill the same section text with the same context: the fills of the
  // last few contexts are kept, keyed by the long-lived texts themselves (hashes computed once).
  const fills = fillsFor(context, defaultsKey(h, defaults));
  let filled = fills.get(text);
  if (filled === undefined) {
    // Fill first, then restyle: a list written with {{#each}} becomes a list like any other.
    filled = fillTemplate(text, context ?? {}, defaults);
    fills.set(text, filled);
  }
  if (!h.promptStyle) return { text: filled, static: false };
  // Restyles are kept by (filled text, style), the parse once per filled text: the few filled texts
  // of a log's live sessions recur in every pooled state's style. Within a budget of characters
  // kept, cleared whole when spent (logs whose every record has its own context just refill it).
  let styles = styledFills.get(filled);
  if (styles === undefined) {
    if (styledChars + filled.length > STYLED_CHARS) clearStyled();
    styledFills.set(filled, (styles = { parsed: undefined, out: new Map() }));
    styledChars += filled.length;
  }
  const sk = styleKey(h.promptStyle);
  let out = styles.out.get(sk);
  if (out === undefined) {
    out = renderMarkdownSection((styles.parsed ??= parseSection(filled)), h.promptStyle);
    if (styledChars + out.length > STYLED_CHARS) clearStyled();
    else {
      styles.out.set(sk, out);
      styledChars += out.length;
    }
  }
  return { text: out, static: false };
}

/** Filled section texts by section text, for one context (by object, or kept with its JSON) and defaults. */
function fillsFor(context: unknown, defaults: string): Map<string, string> {
  for (const f of recentFills) if (f.defaults === defaults && f.context === context) return f.texts;
  // A context's fills are shared by every state that keeps the section's text (most do).
  const entry = contexts.of(context).entry;
  let texts = entry?.fills.get(defaults);
  if (texts === undefined) {
    texts = new Map();
    entry?.fills.set(defaults, texts);
  }
  recentFills[fillNext] = { context, defaults, texts };
  fillNext = (fillNext + 1) % RECENT_FILLS;
  return texts;
}

const RECENT_FILLS = 4;
const recentFills: { context: unknown; defaults: string; texts: Map<string, string> }[] = [];
let fillNext = 0;
const styledFills = new Map<string, { parsed: ParsedSection | undefined; out: Map<string, string> }>();
/** Characters of filled texts and restyles kept in styledFills (~2 bytes each), at most STYLED_CHARS. */
const STYLED_CHARS = 2_000_000;
let styledChars = 0;
function clearStyled(): void {
  styledFills.clear();
  styledChars = 0;
}
const defaultsKeys = new WeakMap<Harness, string>();

function defaultsKey(h: Harness, defaults: Record<string, unknown>): string {
  let k = defaultsKeys.get(h);
  if (k === undefined) defaultsKeys.set(h, (k = JSON.stringify(defaults)));
  return k;
}

/** The generated skill catalog in markdown; empty when there are no skills. */
export function catalogText(h: Harness): string {
  if (h.skills.length === 0) return '';
  const lines = [`# ${h.catalog.title}`, ''];
  if (h.catalog.intro) lines.push(h.catalog.intro, '');
  for (const s of h.skills) lines.push(`- ${s.id}: ${s.description.replace(/\s*\n\s*/g, ' ').trim()}`);
  return lines.join('\n');
}

const defaultsByState = new WeakMap<Harness, Readonly<Record<string, unknown>>>();

/** Declared defaults of template variables (one object per state: callers only read it). */
export function variableDefaults(h: Harness): Readonly<Record<string, unknown>> {
  let out = defaultsByState.get(h);
  if (out === undefined) {
    const d: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(h.variables)) if ('default' in v) d[k] = v.default;
    defaultsByState.set(h, (out = d));
  }
  return out;
}
