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
  return title.replace(/^#+\s*/, '').replace(/^<|>$/g, '').replace(/^\[|\]$/g, '').replace(/:\s*$/, '').replace(/[_-]+/g, ' ').trim().toLowerCase();
}

/** Body lines without list markers and spacing, sorted: equal when only layout or rule order changed. */
export function unitsOf(body: string): string {
  return body
    .split('\n')
    .map((l) => l.replace(/^\s*([-*+•]|\d+[.)])\s+/, '').replace(/\s+/g, ' ').trim())
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
export function sectionDiff(source: string, system: string, preamble = ''): SectionChange[] {
  const a = splitSections(source);
  const b = [...splitSections(system).map((s) => ({ ...s, where: 'system' as const })), ...splitSections(preamble).map((s) => ({ ...s, where: 'preamble' as const }))];
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
    else out.push({ status: 'changed', ...base, ...wordDiff(x.body, s.body) });
  });
  a.forEach((x, i) => {
    if (!used.has(i)) out.push({ status: 'removed', title: x.title, from: i, left: [{ text: x.body, changed: true }] });
  });
  return out;
}

