import { isProcedure, markedUnordered } from '../harness/markdown.js';
import type { Harness } from '../harness/types.js';
import { invertPlan, mapId, type RewritePlan } from '../transform/plan.js';
import { bodyRewriterFor } from './rewrite.js';
import { pairMemo } from '../util/derived.js';
import { clip } from '../util/clip.js';

/**
 * A skill body changes only where the plan explains it: every identifier changed between the
 * source state's body and the target state's is a rename of the plan at a place that refers to
 * the renamed element (the reference rules of skill bodies), and everything else is a restyle
 * skills.body-layout declares — bullet markers, heading levels, and the order of items only in
 * lists the harness marks unordered (never procedures). Once per state and plan.
 */
export function checkBodies(from: Harness, to: Harness, plan: RewritePlan): string[] {
  return pairMemo(BODIES, plan, to, () => computeBodies(from, to, plan));
}

const BODIES = Symbol('hsa.checkBodies');

function computeBodies(from: Harness, to: Harness, plan: RewritePlan): string[] {
  const out: string[] = [];
  const inverse = invertPlan(plan).skills;
  const sources = new Map(from.skills.map((k) => [k.id, k]));
  for (const k of to.skills) {
    if (k.distractor) continue;
    const src = sources.get(mapId(inverse, k.id));
    if (!src) {
      out.push(`skills.${k.id}: no skill of the source state becomes this one`);
      continue;
    }
    if (src.body === k.body) continue;
    const expected = bodyRewriterFor(plan, from).rewriteReferences(src.body);
    if (expected === k.body) continue;
    const a = bodyShape(expected, src.unorderedLists === true);
    const b = bodyShape(k.body, k.unorderedLists === true);
    const diff = firstDifference(a, b);
    if (diff) out.push(`skills.${k.id}.body line ${diff.line}: ${diff.what}, which the plan does not explain`);
  }
  return out;
}

const BODY_FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const BODY_HEADING = /^#{1,6}(?=[ \t]|$)/;
const BODY_BULLET = /^(\s*)([-*+])([ \t]+\S.*)$/;
const BODY_THEMATIC = /^\s{0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;

interface ShapeLine {
  /** The line with its layout normalised: every heading `#`, every bullet `-`. */
  text: string;
  /** 1-based line number in the body. */
  line: number;
}

/**
 * A body's lines with what skills.body-layout may restyle taken out: heading levels and bullet
 * markers normalised (outside fenced code), and the items of each list that may be reordered (its
 * skill or the list is marked unordered, and it is no procedure) sorted.
 */
function bodyShape(body: string, unorderedSkill: boolean): ShapeLine[] {
  const raw = body.split('\n');
  const code: boolean[] = [];
  let fence: string | null = null;
  for (const line of raw) {
    const f = BODY_FENCE.exec(line);
    if (fence !== null) {
      code.push(true);
      if (f && f[1]![0] === fence[0] && f[1]!.length >= fence.length && line.trim() === f[1]) fence = null;
    } else {
      code.push(f !== null);
      if (f) fence = f[1]!;
    }
  }
  const norm = (line: string, i: number): string => {
    if (code[i]) return line;
    if (BODY_HEADING.test(line)) return line.replace(/^#+/, '#');
    const b = BODY_THEMATIC.test(line) ? null : BODY_BULLET.exec(line);
    return b ? `${b[1]}-${b[3]}` : line;
  };
  const topBullet = (i: number) => !code[i] && !BODY_THEMATIC.test(raw[i]!) && BODY_BULLET.exec(raw[i]!)?.[1] === '';
  const out: ShapeLine[] = [];
  for (let i = 0; i < raw.length;) {
    if (!topBullet(i)) {
      out.push({ text: norm(raw[i]!, i), line: i + 1 });
      i++;
      continue;
    }
    const marker = BODY_BULLET.exec(raw[i]!)![2];
    const items: ShapeLine[][] = [];
    let j = i;
    for (; j < raw.length; j++) {
      if (topBullet(j) && BODY_BULLET.exec(raw[j]!)![2] === marker) items.push([{ text: norm(raw[j]!, j), line: j + 1 }]);
      else if (!code[j] && /^\s+\S/.test(raw[j]!)) items[items.length - 1]!.push({ text: norm(raw[j]!, j), line: j + 1 });
      else break;
    }
    const free = (unorderedSkill || markedUnordered(raw, i)) && !isProcedure(items.map((it) => it[0]!.text.replace(/^-[ \t]+/, '')));
    const key = (it: ShapeLine[]) => it.map((l) => l.text).join('\n');
    const order = free ? [...items].sort((x, y) => (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0)) : items;
    for (const it of order) out.push(...it);
    i = j;
  }
  return out;
}

/** Where two shapes first differ: the line in `b` and the first word that differs. */
function firstDifference(a: readonly ShapeLine[], b: readonly ShapeLine[]): { line: number; what: string } | null {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i];
    const y = b[i];
    if (x && y && x.text === y.text) continue;
    const line = y?.line ?? x?.line ?? 0;
    if (!x || !y) return { line, what: `the body has ${b.length} lines where ${a.length} were expected` };
    const wa = x.text.split(/(\s+)/);
    const wb = y.text.split(/(\s+)/);
    const k = wa.findIndex((w, j) => w !== wb[j]);
    const at = k === -1 ? wa.length : k;
    if (a.some((l) => l.text === y.text)) return { line, what: `"${clip(y.text)}" moved (list order changed)` };
    return { line, what: `"${clip(wa[at] ?? '')}" became "${clip(wb[at] ?? '')}"` };
  }
  return null;
}
