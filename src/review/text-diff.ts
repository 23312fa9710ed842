import { changedSpan } from './field-diff.js';

/** A piece of one side of a text comparison: `changed` when the other side does not have it. */
export interface Segment {
  text: string;
  changed: boolean;
}

const TOKEN = /\s+|[\p{L}\p{N}_-]+|[^\s\p{L}\p{N}_-]/gu;

/**
 * Word-level differences between two texts: each side as segments, unchanged ones shared. A longest
 * common subsequence over tokens when the texts are small enough, else one changed span between
 * the common prefix and suffix (a 30 KB prompt against its restyling stays cheap).
 */
export function wordDiff(a: string, b: string, budget = 4_000_000): { left: Segment[]; right: Segment[] } {
  if (a === b) return { left: [{ text: a, changed: false }], right: [{ text: b, changed: false }] };
  const s = changedSpan(a, b);
  // Widen the span to whole words, so a changed word is never split into a kept and a changed part.
  const word = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}_-]/u.test(c);
  while (s.start > 0 && word(a[s.start - 1]) && (word(a[s.start]) || word(b[s.start]))) s.start--;
  while (s.endA < a.length && word(a[s.endA]) && (word(a[s.endA - 1]) || word(b[s.endB - 1]))) {
    s.endA++;
    s.endB++;
  }
  const pre = a.slice(0, s.start);
  const sufA = a.slice(s.endA);
  const midA = a.slice(s.start, s.endA);
  const midB = b.slice(s.start, s.endB);
  const ta = midA.match(TOKEN) ?? [];
  const tb = midB.match(TOKEN) ?? [];
  const left: Segment[] = [];
  const right: Segment[] = [];
  const push = (list: Segment[], text: string, changed: boolean) => {
    if (text === '') return;
    const last = list[list.length - 1];
    if (last && last.changed === changed) last.text += text;
    else list.push({ text, changed });
  };
  push(left, pre, false);
  push(right, pre, false);
  if (ta.length * tb.length > budget) {
    push(left, midA, true);
    push(right, midB, true);
  } else {
    // LCS table over tokens (lengths of the common subsequence of suffixes).
    const n = ta.length;
    const m = tb.length;
    const dp = new Uint32Array((n + 1) * (m + 1));
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        dp[i * (m + 1) + j] = ta[i] === tb[j] ? dp[(i + 1) * (m + 1) + j + 1]! + 1 : Math.max(dp[(i + 1) * (m + 1) + j]!, dp[i * (m + 1) + j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && ta[i] === tb[j]) {
        push(left, ta[i]!, false);
        push(right, tb[j]!, false);
        i++;
        j++;
      } else if (j < m && (i === n || dp[i * (m + 1) + j + 1]! >= dp[(i + 1) * (m + 1) + j]!)) {
        push(right, tb[j++]!, true);
      } else {
        push(left, ta[i++]!, true);
      }
    }
  }
  push(left, sufA, false);
  push(right, sufA, false);
  return { left: joinChanged(left), right: joinChanged(right) };
}

/** Changed words separated only by spaces read as one changed span. */
function joinChanged(segs: Segment[]): Segment[] {
  const out: Segment[] = [];
  for (let k = 0; k < segs.length; k++) {
    const s = segs[k]!;
    const prev = out[out.length - 1];
    const next = segs[k + 1];
    if (!s.changed && prev?.changed && next?.changed && /^[ \t]+$/.test(s.text)) {
      prev.text += s.text + next.text;
      k++;
    } else if (prev && prev.changed === s.changed) prev.text += s.text;
    else out.push({ ...s });
  }
  return out;
}

/** One prompt section: its heading line (or none for text before the first heading) and body lines. */
export interface Section {
  title: string;
  key: string;
  body: string;
}

const HEADING = [/^#{1,6}\s+\S/, /^<([A-Za-z][\w-]*)>\s*$/, /^\[[^\]\n]{1,60}\]\s*$/, /^[A-Z][A-Z0-9 _&/-]{2,60}:?\s*$/, /^[A-Z][\w &/-]{1,50}:\s*$/];
const SEPARATOR = /^\s*(-{3,}|\*{3,}|={3,}|<\/[A-Za-z][\w-]*>)\s*$/;

/** Split a rendered prompt into sections at heading lines of any style the prompt transforms use. */
export function splitSections(text: string): Section[] {
  const out: Section[] = [];
  let cur: { title: string; lines: string[] } = { title: '', lines: [] };
  const flush = () => {
    const body = cur.lines.join('\n').trim();
    if (cur.title || body) out.push({ title: cur.title, key: sectionKey(cur.title), body });
  };
  for (const line of text.split('\n')) {
    if (HEADING.some((h) => h.test(line.trim())) && line.trim().length < 70) {
      flush();
      cur = { title: line.trim(), lines: [] };
    } else if (!SEPARATOR.test(line)) cur.lines.push(line);
  }
  flush();
  return out;
}

/** A heading without its markup and case: `## Room context`, `<room_context>`, `ROOM CONTEXT:` → `room context`. */
export function sectionKey(title: string): string {
  return title
    .replace(/^#+\s*/, '')
    .replace(/^<|>$/g, '')
    .replace(/^\[|\]$/g, '')
    .replace(/:\s*$/, '')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
}

/** Body lines without list markers and spacing, sorted: equal when only layout or rule order changed. */
export function unitsOf(body: string): string {
  return body
    .split('\n')
    .map((l) =>
      l
        .replace(/^\s*([-*+•]|\d+[.)])\s+/, '')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter((l) => l !== '')
    .sort()
    .join('\n');
}

export interface SectionChange {
  status: 'same' | 'restyled' | 'changed' | 'added' | 'removed';
  title: string;
  sourceTitle?: string;
  /** Positions in the source and the variant (0-based), when present. */
  from?: number;
  to?: number;
  /** Where the variant has it: the system prompt or the preamble message. */
  where?: 'system' | 'preamble';
  left?: Segment[];
  right?: Segment[];
}

/**
 * The system prompt as a section-level diff: sections paired by heading (whatever its style), then
 * each judged same, restyled (only markers, spacing or rule order differ), changed (word diff), moved
 * (position or into the preamble), added or removed.
 */
export function sectionDiff(source: string, system: string, preamble = '', canon?: (line: string) => string): SectionChange[] {
  const a = splitSections(source);
  const b = [
    ...splitSections(system).map((s) => ({ ...s, where: 'system' as const })),
    ...splitSections(preamble).map((s) => ({ ...s, where: 'preamble' as const })),
  ];
  const used = new Set<number>();
  const out: SectionChange[] = [];
  b.forEach((s, j) => {
    let i = a.findIndex((x, k) => !used.has(k) && x.key === s.key);
    if (i < 0) i = a.findIndex((x, k) => !used.has(k) && unitsOf(x.body) === unitsOf(s.body));
    if (i < 0) return void out.push({ status: 'added', title: s.title, to: j, where: s.where, right: [{ text: s.body, changed: true }] });
    used.add(i);
    const x = a[i]!;
    const base = { title: s.title, sourceTitle: x.title, from: i, to: j, where: s.where };
    if (x.body === s.body) out.push({ status: x.title === s.title ? 'same' : 'restyled', ...base });
    else if (unitsOf(x.body) === unitsOf(s.body)) out.push({ status: 'restyled', ...base });
    else out.push({ status: 'changed', ...base, ...lineDiff(x.body, s.body, canon) });
  });
  a.forEach((x, i) => {
    if (!used.has(i)) out.push({ status: 'removed', title: x.title, from: i, left: [{ text: x.body, changed: true }] });
  });
  return out;
}

/**
 * Two section bodies compared line by line. A line found on the other side (in any position, list
 * marker and spacing aside; with `canon`, after mapping the variant's names back to the source's)
 * is paired with it, so reordered rules do not read as changes and a renamed skill's catalog line
 * sits beside its old line; pairs that differ are word-diffed, the remaining lines paired in order,
 * and unpaired ones marked whole.
 */
export function lineDiff(a: string, b: string, canon: (line: string) => string = (l) => l): { left: Segment[]; right: Segment[] } {
  const norm = (l: string) =>
    l
      .replace(/^\s*([-*+•]|\d+[.)])\s+/, '')
      .replace(/\s+/g, ' ')
      .trim();
  const la = a.split('\n');
  const lb = b.split('\n');
  const free = new Map<string, number[]>();
  la.forEach((l, i) => {
    const k = norm(l);
    if (!free.has(k)) free.set(k, []);
    free.get(k)!.push(i);
  });
  const partnerOfB = lb.map((l) => free.get(norm(canon(l)))?.shift());
  const partnerOfA = new Map<number, number>();
  partnerOfB.forEach((i, j) => i !== undefined && partnerOfA.set(i, j));
  const restA = la.map((_, i) => i).filter((i) => !partnerOfA.has(i));
  const restB = lb.map((_, j) => j).filter((j) => partnerOfB[j] === undefined);
  // The rest pair with their most similar free line (half their words shared, at least).
  const words = (l: string) =>
    new Set(
      norm(canon(l))
        .toLowerCase()
        .split(/[^\p{L}\p{N}_]+/u)
        .filter((w) => w !== ''),
    );
  const wa = new Map(restA.map((i) => [i, words(la[i]!)]));
  for (const j of restB) {
    const w = words(lb[j]!);
    let best: number | undefined;
    let score = 0.5;
    for (const [i, x] of wa) {
      let common = 0;
      for (const t of w) if (x.has(t)) common++;
      const jac = common / Math.max(1, w.size + x.size - common);
      if (jac >= score) {
        score = jac;
        best = i;
      }
    }
    if (best !== undefined) {
      partnerOfB[j] = best;
      partnerOfA.set(best, j);
      wa.delete(best);
    }
  }
  const diffs = new Map<number, { left: Segment[]; right: Segment[] }>();
  partnerOfB.forEach((i, j) => {
    if (i === undefined) return;
    diffs.set(
      j,
      norm(la[i]!) === norm(lb[j]!) ? { left: [{ text: la[i]!, changed: false }], right: [{ text: lb[j]!, changed: false }] } : wordDiff(la[i]!, lb[j]!),
    );
  });
  // Rows in the variant's order, each beside its partner; source lines without one come last.
  const left: Segment[] = [];
  const right: Segment[] = [];
  const row = (l: Segment[], r: Segment[]) => {
    if (left.length || right.length) {
      left.push({ text: '\n', changed: false });
      right.push({ text: '\n', changed: false });
    }
    // Both sides get the same number of display lines per row only when neither wraps; a blank
    // segment keeps an empty side in step.
    left.push(...(l.length ? l : [{ text: '', changed: false }]));
    right.push(...(r.length ? r : [{ text: '', changed: false }]));
  };
  lb.forEach((l, j) => {
    const i = partnerOfB[j];
    row(i === undefined ? [] : diffs.get(j)!.left, i === undefined ? [{ text: l, changed: true }] : diffs.get(j)!.right);
  });
  la.forEach((l, i) => {
    if (!partnerOfA.has(i)) row([{ text: l, changed: true }], []);
  });
  return { left: joinChanged(left), right: joinChanged(right) };
}
