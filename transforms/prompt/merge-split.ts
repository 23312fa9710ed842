import { z } from 'zod';
import { sectionUnits } from '../../src/harness/markdown.js';
import type { Harness, Section } from '../../src/harness/types.js';
import { defineTransform, type TransformContext } from '../../src/transform/define.js';
import { spellsName } from '../../src/transform/identifiers.js';
import { harnessNames } from '../../src/transform/prompt-style.js';
import { cloneState } from '../../src/transform/state.js';

/**
 * Restructure prompt sections without touching their rules:
 * - merge: two adjacent titled text sections (same placement) become one titled "A and B"; the
 *   second's title becomes a sub-heading one level below and its own sub-headings move down one
 *   level. `plan.sections` maps both old ids to the new one.
 * - split: the last `##` sub-section (a heading one level below the section title, to the end of
 *   the section) is lifted out into its own section, placed right after its parent, its heading
 *   promoted to the section title and its deeper headings promoted one level. Only the last: one
 *   from the middle would land after the sub-sections that followed it, and sub-sections are read
 *   in order (`## 1. Verify`, `## 2. Refund`) like any other text of an ordered section. The parent
 *   keeps its id and the new section has no source id, so `plan.sections` stays empty (an id map
 *   cannot say "one became two").
 * Pinned, unordered and catalog sections are never merged or split, so unordered sections stay
 * unordered and no content crosses a pinned section; the section count changes by one, so a pinned
 * section after the change point keeps its neighbours and its index from the end, not from the start. Every candidate is checked: the non-title units
 * (rules) of the result are exactly those of the input.
 */
export default defineTransform({
  id: 'prompt.merge-split',
  family: 'prompt',
  class: 'semantic',
  version: 3,
  description: 'Merge two adjacent prompt sections into one, or split a section at a ## sub-heading.',
  options: z.strictObject({
    p: z.number().min(0).max(1).default(0.3).describe('probability that a variant merges or splits prompt sections'),
    mode: z.enum(['any', 'merge', 'split']).default('any').describe('which restructuring to draw: merge, split, or either'),
    joiner: z.string().min(1).default(' and ').describe('text between the two titles of a merged section'),
  }),
  // Both a merge and a split need a titled text section.
  appliesTo: (state) => state.sections.some((s) => titled(state, s) !== null),
  apply(state, ctx) {
    const merges = ctx.options.mode === 'split' ? [] : mergeCandidates(state, ctx.options.joiner);
    const splits = ctx.options.mode === 'merge' ? [] : splitCandidates(state);
    const ops: ('merge' | 'split')[] = [];
    if (merges.length) ops.push('merge');
    if (splits.length) ops.push('split');
    if (ops.length === 0) return null;
    const op = ctx.rng.pick(ops);
    const out = cloneState(state);
    if (op === 'merge') {
      const m = ctx.rng.pick(merges);
      const a = out.sections[m.index]!;
      const b = out.sections[m.index + 1]!;
      const id = freshId(state, `${a.id}_${b.id}`, ctx);
      out.sections.splice(m.index, 2, { id, kind: 'text', text: m.text, placement: a.placement });
      return { state: out, plan: { sections: { [a.id]: id, [b.id]: id } }, params: { op, sections: [a.id, b.id], into: id } };
    }
    const s = ctx.rng.pick(splits);
    const parent = out.sections[s.index]!;
    // The new section's id is made from its heading: never from words that spell a harness name.
    const words = slug(s.heading);
    const id = freshId(state, `${parent.id}_${spellsName(words, harnessNames(ctx.source, state)) ? 'part' : words}`, ctx);
    parent.text = s.rest;
    out.sections.splice(s.index + 1, 0, { id, kind: 'text', text: s.part, placement: parent.placement });
    return { state: out, params: { op, section: parent.id, heading: s.heading, into: [parent.id, id] } };
  },
});

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;

/**
 * A heading line's text as written: a closing `#` sequence is dropped only after a space
 * (CommonMark), so a title such as `Use C#` keeps its `#`.
 */
function headingText(line: string): string {
  return line
    .replace(/^#{1,6}\s+/, '')
    .replace(/(^|\s+)#+\s*$/, '')
    .trim();
}

interface Titled {
  title: string;
  level: number;
  /** Lines after the title line. */
  body: string[];
}

/** A section's title line and body, when it is a text section that may be restructured. */
function titled(h: Harness, s: Section): Titled | null {
  if (s.kind !== 'text' || h.pinned.includes(s.id) || h.unordered.includes(s.id)) return null;
  const lines = s.text.split('\n');
  const m = HEADING.exec(lines[0] ?? '');
  const title = headingText(lines[0] ?? '');
  if (!m || title === '') return null;
  return { title, level: m[1]!.length, body: lines.slice(1) };
}

/** Heading lines outside code fences: index and level. */
function headings(lines: readonly string[]): { line: number; level: number; text: string }[] {
  const out: { line: number; level: number; text: string }[] = [];
  let fenced = false;
  lines.forEach((line, i) => {
    if (line.startsWith('```')) fenced = !fenced;
    else if (!fenced) {
      const m = HEADING.exec(line);
      if (m) out.push({ line: i, level: m[1]!.length, text: headingText(line) });
    }
  });
  return out;
}

/** Lines with every heading (outside fences) moved by `shift` levels, kept within 1–6. */
function shiftHeadings(lines: readonly string[], shift: number): string[] {
  const out = [...lines];
  if (shift === 0) return out;
  for (const h of headings(lines)) {
    const level = Math.min(6, Math.max(1, h.level + shift));
    out[h.line] = out[h.line]!.replace(/^#{1,6}/, '#'.repeat(level));
  }
  return out;
}

function trimLines(lines: readonly string[]): string {
  return lines
    .join('\n')
    .replace(/^\s*\n/, '')
    .replace(/\s+$/, '');
}

/** Non-title units (rules) of section texts, sorted. */
function rules(...texts: string[]): string {
  return JSON.stringify(texts.flatMap((t) => sectionUnits(t).filter((u) => !u.startsWith('title:'))).sort());
}

function mergeCandidates(h: Harness, joiner: string): { index: number; text: string }[] {
  const out: { index: number; text: string }[] = [];
  for (let i = 0; i + 1 < h.sections.length; i++) {
    const sa = h.sections[i]!;
    const sb = h.sections[i + 1]!;
    if (sa.placement !== sb.placement) continue;
    const a = titled(h, sa);
    const b = titled(h, sb);
    if (!a || !b) continue;
    const subLevel = Math.min(6, a.level + 1);
    const bodyA = trimLines(a.body);
    const bodyB = trimLines(shiftHeadings(b.body, subLevel - b.level));
    const text = [`${'#'.repeat(a.level)} ${a.title}${joiner}${b.title}`, bodyA, `${'#'.repeat(subLevel)} ${b.title}`, bodyB]
      .filter((x) => x !== '')
      .join('\n\n');
    if (rules(text) !== rules(sa.text, sb.text)) continue;
    out.push({ index: i, text });
  }
  return out;
}

function splitCandidates(h: Harness): { index: number; heading: string; rest: string; part: string }[] {
  const out: { index: number; heading: string; rest: string; part: string }[] = [];
  h.sections.forEach((s, index) => {
    const t = titled(h, s);
    if (!t) return;
    const lines = s.text.split('\n');
    const hs = headings(lines).filter((x) => x.line > 0);
    hs.forEach((sub, k) => {
      if (sub.level !== t.level + 1 || sub.text === '') return;
      const next = hs.slice(k + 1).find((x) => x.level <= sub.level);
      // Not the last sub-section: lifting it out would move it after the ones that follow it.
      if (next) return;
      const end = lines.length;
      const rest = trimLines([...lines.slice(0, sub.line), ...lines.slice(end)]);
      const part = trimLines([`${'#'.repeat(t.level)} ${sub.text}`, ...shiftHeadings(lines.slice(sub.line + 1, end), -1)]);
      // Both halves keep at least one rule, and together exactly the rules of the section.
      if (rules(rest) === '[]' || rules(part) === '[]' || rules(rest, part) !== rules(s.text)) return;
      out.push({ index, heading: sub.text, rest, part });
    });
  });
  return out;
}

/** A section id derived from a title: lower-case words joined by `_`. */
function slug(title: string): string {
  return (
    title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '') || 'part'
  );
}

/** `base`, or `base_2`, `base_3`… — the first id no section, identifier or record word uses. */
function freshId(h: Harness, base: string, ctx: TransformContext<unknown>): string {
  const ids = new Set(h.sections.map((s) => s.id));
  for (let n = 1; ; n++) {
    const id = n === 1 ? base : `${base}_${n}`;
    if (!ids.has(id) && !ctx.isTaken(id)) return id;
  }
}
