import { z } from 'zod';
import { isProcedure, parseSection, type Block } from '../../src/harness/markdown.js';
import { defineTransform } from '../../src/transform/define.js';
import { cloneState } from '../../src/transform/state.js';

/**
 * Shuffle the rules (list items) inside sections declared `unordered`. Each list is shuffled on
 * its own; items never cross a paragraph or heading. Numbered lists and lists whose items read as
 * steps (first/then/finally, 首先/然后/最后, "1)", "Step 2"…) are procedures and keep their order
 * even there (see isProcedure). The section is edited line by line (an
 * item's continuation lines travel with it, numbered lists keep their numbers in place), so the
 * text keeps its own markers, spacing and layout and the only change is item order. Every edit is
 * checked against `parseSection`: a section whose re-parse is not exactly the permuted original is
 * left alone.
 */
export default defineTransform({
  id: 'prompt.rule-order',
  family: 'prompt',
  class: 'semantic',
  version: 2,
  description: 'Shuffle list items (rules) inside prompt sections declared unordered; numbered lists and step lists keep their order.',
  options: z.strictObject({
    p: z.number().min(0).max(1).default(0.6).describe('probability that a variant shuffles the rules of unordered sections'),
  }),
  appliesTo: (state) => state.unordered.length > 0 && state.sections.some((s) => s.kind === 'text' && state.unordered.includes(s.id)),
  apply(state, ctx) {
    const unordered = new Set(state.unordered);
    const targets: { index: number; lines: string[]; spans: ListSpan[] }[] = [];
    state.sections.forEach((s, index) => {
      if (s.kind !== 'text' || !unordered.has(s.id)) return;
      const lines = s.text.split('\n');
      const spans = listSpans(lines);
      if (spans.some((sp) => movable(lines, sp))) targets.push({ index, lines, spans });
    });
    if (targets.length === 0) return null;

    const perms = targets.map((t) => t.spans.map((sp) => (movable(t.lines, sp) ? ctx.rng.shuffle(sp.items.map((_, k) => k)) : sp.items.map((_, k) => k))));
    if (perms.every((ps) => ps.every(isIdentity))) {
      // Nothing moved: swap two items of one random list so the variant differs.
      const choices = targets.flatMap((t, ti) => t.spans.flatMap((sp, si) => (movable(t.lines, sp) ? [[ti, si] as const] : [])));
      const [ti, si] = ctx.rng.pick(choices);
      const perm = perms[ti]![si]!;
      const [a, b] = ctx.rng.sample(
        perm.map((_, k) => k),
        2,
      ) as [number, number];
      [perm[a], perm[b]] = [perm[b]!, perm[a]!];
    }

    const out = cloneState(state);
    const applied: Record<string, number[][]> = {};
    targets.forEach((t, ti) => {
      const ps = perms[ti]!;
      if (ps.every(isIdentity)) return;
      const section = out.sections[t.index]!;
      const next = permuteLists(t.lines, t.spans, ps);
      if (!sameAsPermuted(section.text, next, ps)) return;
      section.text = next;
      applied[section.id] = ps;
    });
    if (Object.keys(applied).length === 0) return null;
    return { state: out, params: { sections: applied } };
  },
});

/** A list that may change order: at least two items, bullets (not numbers), not a procedure. */
function movable(lines: readonly string[], span: ListSpan): boolean {
  if (span.ordered || span.items.length < 2) return false;
  return !isProcedure(span.items.map((it) => lines[it.start]!.replace(MARKER, '')));
}

interface ListSpan {
  ordered: boolean;
  /** Line ranges (inclusive) of each item: its marker line and continuation lines. */
  items: { start: number; end: number }[];
}

// The same line grammar as parseSection (src/harness/markdown.ts).
const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const BULLET = /^(\s{0,3})([-*+•]|\d+[.)])\s+(.*)$/;
const MARKER = /^(?:[-*+•]|\d+[.)])\s+/;

/** The lists of a section, located line by line exactly as parseSection groups them. */
function listSpans(lines: readonly string[]): ListSpan[] {
  const spans: ListSpan[] = [];
  let list: ListSpan | null = null;
  let i = lines[0] !== undefined && HEADING.test(lines[0]) ? 1 : 0;
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('```')) {
      if (list) spans.push(list);
      list = null;
      for (i++; i < lines.length; i++) if (lines[i]!.startsWith('```')) break;
      continue;
    }
    if (line.trim() === '' || HEADING.test(line)) {
      if (list) spans.push(list);
      list = null;
      continue;
    }
    const b = BULLET.exec(line);
    if (b && b[1] === '') {
      const ordered = /\d/.test(b[2]!);
      if (!list || list.ordered !== ordered) {
        if (list) spans.push(list);
        list = { ordered, items: [] };
      }
      list.items.push({ start: i, end: i });
      continue;
    }
    if (list && /^\s+\S/.test(line)) {
      list.items[list.items.length - 1]!.end = i;
      continue;
    }
    if (list) spans.push(list);
    list = null;
  }
  if (list) spans.push(list);
  return spans;
}

/** The text with each list's items in permuted order (`perm[k]` = the original index now at k). */
function permuteLists(lines: readonly string[], spans: readonly ListSpan[], perms: readonly (readonly number[])[]): string {
  const out = [...lines];
  spans.forEach((span, si) => {
    const perm = perms[si]!;
    const groups = span.items.map((it) => lines.slice(it.start, it.end + 1));
    const moved: string[] = [];
    perm.forEach((orig, k) => {
      const group = [...groups[orig]!];
      if (span.ordered) {
        // A numbered list keeps its numbers in place; only the item text moves.
        const here = MARKER.exec(groups[k]![0]!)?.[0] ?? '';
        const from = MARKER.exec(group[0]!)?.[0] ?? '';
        group[0] = here + group[0]!.slice(from.length);
      }
      moved.push(...group);
    });
    out.splice(span.items[0]!.start, moved.length, ...moved);
  });
  return out.join('\n');
}

/** True when `next` parses to exactly the blocks of `text` with list items permuted by `perms`. */
function sameAsPermuted(text: string, next: string, perms: readonly (readonly number[])[]): boolean {
  const before = parseSection(text);
  const after = parseSection(next);
  let li = 0;
  const expected: Block[] = before.blocks.map((b) => {
    if (b.kind !== 'list') return b;
    const perm = perms[li++];
    return perm ? { ...b, items: perm.map((k) => b.items[k]!) } : b;
  });
  if (li !== perms.length) return false;
  return before.title === after.title && before.titleLevel === after.titleLevel && JSON.stringify(expected) === JSON.stringify(after.blocks);
}

function isIdentity(perm: readonly number[]): boolean {
  return perm.every((x, k) => x === k);
}
