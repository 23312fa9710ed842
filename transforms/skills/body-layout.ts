import { z } from 'zod';
import { isProcedure, markedUnordered } from '../../src/harness/markdown.js';
import { defineTransform } from '../../src/transform/define.js';
import type { Rng } from '../../src/transform/rng.js';
import { cloneState } from '../../src/transform/state.js';

/**
 * Restyle skill bodies without touching their words: bullet markers (`-`, `*`, `+`), heading
 * levels, and the order of items inside bullet lists the harness declares unordered. Works line by
 * line, so every paragraph, list item (continuation lines and sub-items included), numbered list
 * and fenced code block stays exactly as written.
 *
 * List items in skills are mostly instructions, so order is kept unless the harness says
 * otherwise: a list may be shuffled only when its skill is listed in `skills.unordered_lists`
 * (harness.yaml) or the line before it is `<!-- hsa:unordered -->`, and never when its items read
 * as steps (isProcedure: first/then/finally, 首先/然后/最后, "1)", "Step 2"…).
 */

export type Marker = '-' | '*' | '+';
const MARKERS: readonly Marker[] = ['-', '*', '+'];

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const HEADING = /^(#{1,6})(?=[ \t]|$)/;
const BULLET = /^(\s*)([-*+])([ \t]+\S.*)$/;
const THEMATIC = /^\s{0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;

interface Line {
  text: string;
  /** Inside a fenced code block (fence lines included): never changed. */
  code: boolean;
  /** Part of a bullet list that starts at the left margin (its items and their indented lines). */
  list?: boolean;
}

function scan(body: string): Line[] {
  const out: Line[] = [];
  let fence: string | null = null;
  for (const text of body.split('\n')) {
    const f = FENCE.exec(text);
    if (fence !== null) {
      out.push({ text, code: true });
      if (f && f[1]![0] === fence[0] && f[1]!.length >= fence.length && text.trim() === f[1]) fence = null;
      continue;
    }
    if (f) {
      fence = f[1]!;
      out.push({ text, code: true });
      continue;
    }
    out.push({ text, code: false });
  }
  return out;
}

const isBullet = (l: Line) => !l.code && !THEMATIC.test(l.text) && BULLET.test(l.text);
const isTopBullet = (l: Line) => isBullet(l) && BULLET.exec(l.text)![1] === '';
const isHeading = (l: Line) => !l.code && HEADING.test(l.text);

/** The heading levels and bullet markers a body uses (outside code). */
export function bodyStyle(body: string): { minHeading: number | null; maxHeading: number | null; markers: Marker[] } {
  const lines = scan(body);
  const levels = lines.filter(isHeading).map((l) => HEADING.exec(l.text)![1]!.length);
  const markers = new Set<Marker>();
  for (const l of lines) if (isBullet(l)) markers.add(BULLET.exec(l.text)![2] as Marker);
  return {
    minHeading: levels.length ? Math.min(...levels) : null,
    maxHeading: levels.length ? Math.max(...levels) : null,
    markers: MARKERS.filter((m) => markers.has(m)),
  };
}

export interface LayoutChoice {
  /** The level the body's top heading moves to (others keep their distance from it). */
  headingLevel: number;
  /** A permutation of the bullet markers (distinct lists stay distinct). */
  markers: Record<Marker, Marker>;
  /** Probability that each unordered list is shuffled. */
  shuffle: number;
}

/**
 * Restyle one body. Returns the new body and how many lists changed order. A list is shuffled only
 * when it is safe: items at the left margin with the same marker, no blank lines between them, and
 * the list ends at a heading, the end of the body, or a blank line not followed by an indented line
 * (so no lazy or loose continuation can change which item it belongs to).
 */
export function restyleBody(body: string, choice: LayoutChoice, rng: Rng, unorderedSkill = false): { body: string; shuffled: number } {
  const lines = scan(body);
  const texts = lines.map((l) => l.text);
  const style = bodyStyle(body);
  let delta = 0;
  if (style.minHeading !== null && style.maxHeading !== null) {
    const target = Math.min(choice.headingLevel, 6 - (style.maxHeading - style.minHeading));
    delta = target - style.minHeading;
  }
  // Shuffle items of safe unordered lists (on the original markers, before restyling).
  let shuffled = 0;
  const result: Line[] = [];
  for (let i = 0; i < lines.length;) {
    const line = lines[i]!;
    if (!isTopBullet(line)) {
      result.push(line);
      i++;
      continue;
    }
    const marker = BULLET.exec(line.text)![2];
    const items: Line[][] = [];
    let j = i;
    while (j < lines.length) {
      const l = lines[j]!;
      if (isTopBullet(l) && BULLET.exec(l.text)![2] === marker) {
        items.push([{ ...l, list: true }]);
        j++;
      } else if (!l.code && /^\s+\S/.test(l.text) && items.length) {
        items[items.length - 1]!.push({ ...l, list: true });
        j++;
      } else break;
    }
    // After a blank line, an indented line would still belong to the last item (a loose item).
    let after = j;
    while (after < lines.length && !lines[after]!.code && lines[after]!.text.trim() === '') after++;
    const end = lines[j];
    const next = lines[after];
    const safeEnd = end === undefined || isHeading(end) || (!end.code && end.text.trim() === '' && (next === undefined || next.code || !/^\s/.test(next.text)));
    let order = items;
    const free = (unorderedSkill || markedUnordered(texts, i)) && !isProcedure(items.map((it) => BULLET.exec(it[0]!.text)![3]!.trim()));
    if (items.length > 1 && safeEnd && free && rng.chance(choice.shuffle)) {
      order = rng.shuffle(items);
      if (order.some((it, k) => it !== items[k])) shuffled++;
    }
    for (const it of order) result.push(...it);
    i = j;
  }
  const text = result.map((l) => {
    if (l.code) return l.text;
    if (delta !== 0 && HEADING.test(l.text)) {
      const level = HEADING.exec(l.text)![1]!.length;
      return '#'.repeat(level + delta) + l.text.slice(level);
    }
    // Bullets inside a list only: an indented `- x` elsewhere may be an indented code block.
    if (l.list && isBullet(l)) {
      const m = BULLET.exec(l.text)!;
      return `${m[1]}${choice.markers[m[2] as Marker]}${m[3]}`;
    }
    return l.text;
  });
  return { body: text.join('\n'), shuffled };
}

/** A random permutation of the markers that moves at least one of `used` (when any is used). */
function pickMarkers(rng: Rng, used: ReadonlySet<Marker>): Record<Marker, Marker> {
  const perms: Marker[][] = [];
  const permute = (rest: Marker[], acc: Marker[]) => {
    if (rest.length === 0) return void perms.push(acc);
    rest.forEach((m, i) => permute([...rest.slice(0, i), ...rest.slice(i + 1)], [...acc, m]));
  };
  permute([...MARKERS], []);
  const toMap = (p: Marker[]) => ({ '-': p[0]!, '*': p[1]!, '+': p[2]! }) as Record<Marker, Marker>;
  const moving = perms.map(toMap).filter((m) => [...used].some((u) => m[u] !== u));
  return rng.pick(moving.length ? moving : perms.map(toMap));
}

export default defineTransform({
  id: 'skills.body-layout',
  family: 'skills',
  class: 'semantic',
  version: 2,
  description:
    'Restyle skill bodies: bullet markers (-, *, +), heading levels, and the order of items in bullet lists the harness marks unordered (never procedures); every paragraph and list item keeps its exact text.',
  options: z.strictObject({
    p: z.number().min(0).max(1).default(0.5).describe('probability that a variant restyles skill bodies'),
    maxHeadingLevel: z.number().int().min(1).max(6).default(3).describe('deepest level a body\'s top heading may move to (1 = "#")'),
    shuffle: z
      .number()
      .min(0)
      .max(1)
      .default(0.5)
      .describe('probability that each bullet list marked unordered (skills.unordered_lists or <!-- hsa:unordered -->) has its items shuffled'),
  }),
  appliesTo: (state) => state.skills.length > 0,
  apply(state, ctx) {
    if (state.skills.length === 0) return null;
    const used = new Set<Marker>();
    const tops = new Map<number, number>();
    for (const s of state.skills) {
      const st = bodyStyle(s.body);
      st.markers.forEach((m) => used.add(m));
      if (st.minHeading !== null) tops.set(st.minHeading, (tops.get(st.minHeading) ?? 0) + 1);
    }
    // Move the most common top heading level somewhere else when the range allows it.
    const common = [...tops.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]?.[0];
    const levels = Array.from({ length: ctx.options.maxHeadingLevel }, (_, i) => i + 1);
    const otherLevels = levels.filter((l) => l !== common);
    const headingLevel = ctx.rng.pick(otherLevels.length ? otherLevels : levels);
    const choice: LayoutChoice = { headingLevel, markers: pickMarkers(ctx.rng, used), shuffle: ctx.options.shuffle };
    const out = cloneState(state);
    const changed: string[] = [];
    const shuffled: Record<string, number> = {};
    for (const skill of out.skills) {
      const next = restyleBody(skill.body, choice, ctx.rng, skill.unorderedLists === true);
      if (next.body === skill.body) continue;
      skill.body = next.body;
      changed.push(skill.id);
      if (next.shuffled) shuffled[skill.id] = next.shuffled;
    }
    if (changed.length === 0) return null;
    const markers = Object.fromEntries(Object.entries(choice.markers).filter(([a, b]) => a !== b));
    return { state: out, params: { headingLevel, markers, shuffled, skills: changed } };
  },
});
