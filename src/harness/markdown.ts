import { TextKeyedCache } from '../util/bounded-cache.js';
import type { PromptStyle } from './types.js';

/**
 * A small markdown model for prompt sections: a title, then blocks (paragraphs, lists, sub-headings,
 * fenced code). Enough to restyle a section (heading style, list markers, title case) and to list
 * its rules; anything unrecognised stays a paragraph, verbatim.
 */
export type Block =
  | { kind: 'heading'; level: number; text: string }
  | { kind: 'list'; ordered: boolean; start: number; items: string[]; widths: number[] }
  | { kind: 'para'; text: string }
  | { kind: 'code'; text: string };

export interface ParsedSection {
  title: string | null;
  titleLevel: number;
  blocks: Block[];
}

// CommonMark: a closing run of # only counts after a space ("# Use C#" keeps its #).
const HEADING = /^(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/;
const BULLET = /^(\s{0,3})([-*+•]|\d{1,9}[.)])\s+(.*)$/;
const FENCE = /^(```|~~~)/;

/** True when `parseSection(text).title` is not null (reads only the first line). */
export function hasTitle(text: string): boolean {
  const nl = text.indexOf('\n');
  return HEADING.test(nl === -1 ? text : text.slice(0, nl));
}

export function parseSection(text: string): ParsedSection {
  const lines = text.split('\n');
  let title: string | null = null;
  let titleLevel = 1;
  let i = 0;
  const first = lines[0] !== undefined ? HEADING.exec(lines[0]) : null;
  if (first) {
    title = first[2]!;
    titleLevel = first[1]!.length;
    i = 1;
  }
  const blocks: Block[] = [];
  let para: string[] = [];
  // widths: each item's content column (its marker and the blank after it), for re-indenting its lines.
  let list: { ordered: boolean; start: number; items: string[]; widths: number[] } | null = null;
  const flush = () => {
    if (para.length) blocks.push({ kind: 'para', text: para.join('\n') });
    if (list) blocks.push({ kind: 'list', ...list });
    para = [];
    list = null;
  };
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = FENCE.exec(line);
    if (fence) {
      flush();
      const code = [line];
      for (i++; i < lines.length; i++) {
        code.push(lines[i]!);
        if (lines[i]!.startsWith(fence[1]!)) break;
      }
      blocks.push({ kind: 'code', text: code.join('\n') });
      continue;
    }
    if (line.trim() === '') {
      flush();
      continue;
    }
    const h = HEADING.exec(line);
    if (h) {
      flush();
      blocks.push({ kind: 'heading', level: h[1]!.length, text: h[2]! });
      continue;
    }
    const b = BULLET.exec(line);
    if (b && b[1] === '') {
      if (para.length) flush();
      const ordered = /\d/.test(b[2]!);
      if (!list || list.ordered !== ordered) {
        flush();
        list = { ordered, start: ordered ? parseInt(b[2]!, 10) : 1, items: [], widths: [] };
      }
      list.items.push(b[3]!);
      list.widths.push(line.length - b[3]!.length);
      continue;
    }
    if (list && /^\s+\S/.test(line)) {
      // A continuation line (or a nested list) of the last item, indentation kept.
      const items = list.items;
      items[items.length - 1] += `\n${line}`;
      continue;
    }
    if (list) flush();
    para.push(line);
  }
  flush();
  return { title, titleLevel, blocks };
}

/** Render a section in a style. */
export function renderSection(p: ParsedSection, style: PromptStyle): string {
  const out: string[] = [];
  let closing: string | null = null;
  if (p.title !== null) {
    const t = caseTitle(p.title, style.titleCase);
    switch (style.heading) {
      case 'markdown':
        out.push(`${'#'.repeat(style.headingLevel)} ${t}`);
        break;
      case 'xml': {
        // A title whose tag would spell a harness name (see PromptStyle.neutralTitles) keeps its
        // words in an attribute of a neutral tag instead.
        if (style.neutralTitles?.includes(p.title)) {
          out.push(`<section title="${escapeAttribute(p.title)}">`);
          closing = '</section>';
          break;
        }
        const tag = xmlTag(p.title);
        out.push(`<${tag}>`);
        closing = `</${tag}>`;
        break;
      }
      case 'bracket':
        out.push(`[${t}]`);
        break;
      case 'caps':
        out.push(caseTitle(t, 'upper'));
        break;
      case 'colon':
        out.push(`${t}:`);
        break;
    }
  }
  const body: string[] = [];
  for (const b of p.blocks) {
    if (b.kind === 'para' || b.kind === 'code') body.push(b.text);
    else if (b.kind === 'heading') body.push(`${'#'.repeat(Math.min(6, b.level))} ${b.text}`);
    else body.push(b.items.map((item, i) => listItem(marker(style.listMarker, b.ordered, b.start + i), item, b.widths[i] ?? 2)).join('\n'));
  }
  const joined = [out.join('\n'), body.join('\n\n')].filter((x) => x !== '').join(style.heading === 'xml' ? '\n' : '\n\n');
  return closing ? `${joined}\n${closing}` : joined;
}

/** Parse and render in one step. */
export function restyleSection(text: string, style: PromptStyle): string {
  // Few styles, shared section texts: restyled texts are cached per (style, text).
  const key = `${styleKey(style)}\u0000${text}`;
  const hit = restyled.get(key);
  if (hit !== undefined) return hit;
  const out = renderSection(parseSection(text), style);
  restyled.set(key, out);
  return out;
}

const restyled = new TextKeyedCache<string>(1_000_000);
const styleKeys = new WeakMap<PromptStyle, string>();

/** A prompt style as a cache key (computed once per style object). */
export function styleKey(style: PromptStyle): string {
  let k = styleKeys.get(style);
  if (k === undefined) styleKeys.set(style, (k = JSON.stringify(style)));
  return k;
}

/** The rules of a section: its list items and paragraphs, normalised (markers, case of spacing). */
export function sectionUnits(text: string): readonly string[] {
  // States share most section texts (a transform rewrites a few): units are cached per text.
  const hit = unitCache.get(text);
  if (hit) return hit;
  const units = Object.freeze(computeUnits(text));
  unitCache.set(text, units);
  return units;
}

const unitCache = new TextKeyedCache<readonly string[]>(1_000_000);

/** A list of a section for the order check: its normalised items, and whether it is a procedure. */
export interface SectionList {
  items: readonly string[];
  /** Numbered, or its items read as steps: its order is meaning wherever it stands. */
  procedure: boolean;
}

/** The lists of a section (cached per text, like sectionUnits). */
export function sectionLists(text: string): readonly SectionList[] {
  const hit = listCache.get(text);
  if (hit) return hit;
  const lists: SectionList[] = [];
  for (const b of parseSection(text).blocks) {
    if (b.kind === 'list') lists.push({ items: b.items.map(normaliseUnit), procedure: b.ordered || isProcedure(b.items) });
  }
  const out = Object.freeze(lists);
  listCache.set(text, out);
  return out;
}

const listCache = new TextKeyedCache<readonly SectionList[]>(1_000_000);

function computeUnits(text: string): string[] {
  const p = parseSection(text);
  const units: string[] = [];
  if (p.title !== null) units.push(`title:${normaliseUnit(p.title)}`);
  for (const b of p.blocks) {
    if (b.kind === 'list') for (const item of b.items) units.push(`item:${normaliseUnit(item)}`);
    else if (b.kind === 'heading') units.push(`title:${normaliseUnit(b.text)}`);
    else units.push(`text:${normaliseUnit(b.text)}`);
  }
  return units;
}

export function normaliseUnit(s: string): string {
  return s.replace(/\s+/g, ' ').trim().toLowerCase();
}

/**
 * One list item under a new marker. Its continuation lines and nested lists are indented under the
 * old marker's content column; a wider marker (`1.` for `-`, `10.`) moves that column, so they move
 * with it — else a nested list under `1. ` indented by two would no longer be nested.
 */
function listItem(m: string, item: string, width: number): string {
  const shift = m.length + 1 - width;
  if (shift <= 0 || !item.includes('\n')) return `${m} ${item}`;
  const pad = ' '.repeat(shift);
  return `${m} ${item.replace(/\n(?=[ \t]+\S)/g, `\n${pad}`)}`;
}

/** The marker of item number `n` (counting from the list's start); ordered lists keep their numbers. */
function marker(m: PromptStyle['listMarker'], ordered: boolean, n: number): string {
  if (ordered || m === '1.') return `${n}.`;
  return m;
}

function caseTitle(t: string, c: PromptStyle['titleCase']): string {
  if (c === 'as-is') return t;
  if (IDENTIFIER_WORD.test(t))
    return t
      .split(/(\s+)/)
      .map((w) => (IDENTIFIER_WORD.test(w) ? w : caseTitle(w, c)))
      .join('');
  if (c === 'upper') return t.toUpperCase();
  if (c === 'lower') return t.toLowerCase();
  if (c === 'title') return t.replace(/(^|[\s\-/(])([a-z])/g, (_, pre: string, x: string) => pre + x.toUpperCase());
  return t;
}

/**
 * A word of a title that is an identifier or code (`find_patient`, `lab.get_result`, `dose-check`,
 * `getBooking`, `tool_3fa9`, `toolqk42`, `` `code` ``): a case style leaves it as written — `FIND_PATIENT` or
 * `Find_patient` names no tool (names are case-sensitive), and no check compares case.
 */
const IDENTIFIER_WORD = /`|[A-Za-z0-9]_|_[A-Za-z0-9]|[A-Za-z0-9][.:/-][A-Za-z0-9]|[a-z][A-Z]|[A-Za-z][0-9]|[0-9][A-Za-z]/;

/** The XML tag a section title becomes under the `xml` heading style. */
export function xmlTag(title: string): string {
  // XML names may hold any letter, so Chinese titles keep their words.
  const tag = title
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '_')
    .replace(/^_+|_+$/g, '');
  return tag === '' || /^\p{N}/u.test(tag) ? `section_${tag}` : tag;
}

function escapeAttribute(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/**
 * Items that read as steps: a numbering written into the item ("1)", "(2)", "3、", "①", "Step 4"),
 * or a sequencing word at its start (first, then, next, finally, after that…; 首先, 然后, 接着,
 * 最后, 第…步). Leading emphasis markers are skipped ("**Then** …").
 */
const STEP_START = new RegExp(
  [
    String.raw`^\(?\d{1,3}\s*[).、:：]`,
    String.raw`^[\u2460-\u2473\u2776-\u277f]`,
    String.raw`^(?:step|phase|stage)\s*\d`,
    String.raw`^(?:first(?:ly)?|second(?:ly)?|third(?:ly)?|fourth|fifth|then|next|finally|lastly|last|after\s+(?:that|this)|afterwards?|subsequently|and\s+then|before\s+(?:that|this|anything)|to\s+start|to\s+begin|begin\s+by|start\s+by|once\s+(?:done|that|this))\b`,
    String.raw`^(?:首先|其次|然后|接着|随后|之后|再次|再|最后|最终|第[一二三四五六七八九十百零\d]+(?:步|阶段|[，,、.：:]))`,
  ].join('|'),
  'iu',
);

/** True when any item of a list reads as a step of a procedure (then its order is meaning). */
export function isProcedure(items: readonly string[]): boolean {
  return items.some((item) => STEP_START.test(item.replace(/^[\s*_>]+/, '').replace(/^\[[ xX]\]\s*/, '')));
}

/** The marker a harness writes on the line before a list whose items may be reordered. */
export const UNORDERED_MARK = /^\s{0,3}<!--\s*hsa:unordered\s*-->\s*$/;

/** True when the nearest non-blank line before line `first` is the `<!-- hsa:unordered -->` mark. */
export function markedUnordered(lines: readonly string[], first: number): boolean {
  for (let i = first - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    return UNORDERED_MARK.test(line);
  }
  return false;
}
