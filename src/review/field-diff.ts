import { canonicalJson } from '../util/canonical-json.js';

/** One field-level difference between two versions of a record. */
export interface FieldChange {
  /** Key path: object keys and array indexes joined by dots (`messages.3.tool_calls.0.function.name`). */
  path: string;
  kind: 'changed' | 'added' | 'removed' | 'tools';
  /** Old and new text (strings as they are, other values as JSON), clipped for reports. */
  old?: string;
  new?: string;
  /** For changed strings: the changed span marked wdiff-style, `…before[-old-]{+new+}after…`. */
  marked?: string;
  /** For `tools`: names added, removed and renamed (old → new, same definition otherwise). */
  added?: string[];
  removed?: string[];
  renamed?: [string, string][];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * A matcher for `--ignore` path globs: segments joined by dots, `*` matches within one segment,
 * `**` any number of segments. A path is ignored when it or one of its ancestors matches.
 */
export function pathMatcher(globs: readonly string[]): (path: string) => boolean {
  if (globs.length === 0) return () => false;
  const compiled = globs.map((g) =>
    g.split('.').map((seg) => (seg === '**' ? '**' : new RegExp(`^${seg.replace(/[|\\{}()[\]^$+?.]/g, '\\$&').replace(/\*/g, '.*')}$`))),
  );
  const match = (glob: (RegExp | '**')[], segs: string[], gi = 0, si = 0): boolean => {
    if (gi === glob.length) return si === segs.length;
    const g = glob[gi]!;
    if (g === '**') {
      for (let k = si; k <= segs.length; k++) if (match(glob, segs, gi + 1, k)) return true;
      return false;
    }
    return si < segs.length && g.test(segs[si]!) && match(glob, segs, gi + 1, si + 1);
  };
  return (path) => {
    const segs = path.split('.');
    // A path is ignored when it or an ancestor matches.
    for (let n = segs.length; n > 0; n--) if (compiled.some((g) => match(g, segs.slice(0, n)))) return true;
    return false;
  };
}

/** The record with ignored paths left out (for hashing records "equal but for the ignored fields"). */
export function withoutIgnored(v: unknown, ignored: (path: string) => boolean, prefix = ''): unknown {
  if (Array.isArray(v)) return v.map((x, i) => withoutIgnored(x, ignored, prefix ? `${prefix}.${i}` : String(i)));
  if (!isObj(v)) return v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) {
    const p = prefix ? `${prefix}.${k}` : k;
    if (!ignored(p)) out[k] = withoutIgnored(x, ignored, p);
  }
  return out;
}

/** RL rows keep nested JSON in strings; parsed here so differences are shown inside them. */
export function expandJsonStrings(stage: string, v: unknown): unknown {
  if (stage !== 'rl' || !isObj(v)) return v;
  const parse = (s: unknown) => {
    if (typeof s !== 'string') return s;
    try {
      return JSON.parse(s) as unknown;
    } catch {
      return s;
    }
  };
  const rm = isObj(v.reward_model) ? { ...v.reward_model, ground_truth: parse(v.reward_model.ground_truth) } : v.reward_model;
  const x = isObj(v.extra_info) ? { ...v.extra_info, env: parse(v.extra_info.env), transforms: parse(v.extra_info.transforms) } : v.extra_info;
  return { ...v, reward_model: rm, extra_info: x };
}

const TOOL_LISTS = /^(tools|extra_info\.env\.tools)$/;

/** Every difference between two records, in key order; paths matching `ignored` are skipped. */
export function diffValues(a: unknown, b: unknown, ignored: (path: string) => boolean = () => false): FieldChange[] {
  const out: FieldChange[] = [];
  const go = (x: unknown, y: unknown, path: string) => {
    if (path && ignored(path)) return;
    if (x === y) return;
    if (TOOL_LISTS.test(path) && Array.isArray(x) && Array.isArray(y)) return toolChanges(x, y, path, out, go);
    if (Array.isArray(x) && Array.isArray(y)) {
      const n = Math.max(x.length, y.length);
      for (let i = 0; i < n; i++) {
        const p = path ? `${path}.${i}` : String(i);
        if (i >= x.length) add(out, 'added', p, undefined, y[i], ignored);
        else if (i >= y.length) add(out, 'removed', p, x[i], undefined, ignored);
        else go(x[i], y[i], p);
      }
      return;
    }
    if (isObj(x) && isObj(y)) {
      for (const k of [...new Set([...Object.keys(x), ...Object.keys(y)])].sort()) {
        const p = path ? `${path}.${k}` : k;
        if (!(k in y)) add(out, 'removed', p, x[k], undefined, ignored);
        else if (!(k in x)) add(out, 'added', p, undefined, y[k], ignored);
        else go(x[k], y[k], p);
      }
      return;
    }
    if (typeof x === 'string' && typeof y === 'string') {
      out.push({ path, kind: 'changed', old: clip(x), new: clip(y), marked: markChange(x, y) });
      return;
    }
    if (canonicalJson(x) !== canonicalJson(y)) out.push({ path, kind: 'changed', old: show(x), new: show(y) });
  };
  go(a, b, '');
  return out;
}

function add(out: FieldChange[], kind: 'added' | 'removed', path: string, x: unknown, y: unknown, ignored: (p: string) => boolean): void {
  if (ignored(path)) return;
  out.push(kind === 'added' ? { path, kind, new: show(y) } : { path, kind, old: show(x) });
}

function toolName(t: unknown): string | undefined {
  if (!isObj(t)) return undefined;
  const fn = isObj(t.function) ? t.function : t;
  return typeof fn.name === 'string' ? fn.name : undefined;
}

/** Tool lists compared by name: added, removed, renamed (same definition but the name), then per tool. */
function toolChanges(x: unknown[], y: unknown[], path: string, out: FieldChange[], go: (x: unknown, y: unknown, p: string) => void): void {
  const byName = (list: unknown[]) => new Map(list.map((t, i) => [toolName(t) ?? `#${i}`, t]));
  const a = byName(x);
  const b = byName(y);
  const removed = [...a.keys()].filter((n) => !b.has(n));
  const added = [...b.keys()].filter((n) => !a.has(n));
  const unnamed = (t: unknown) => canonicalJson(JSON.parse(JSON.stringify(t).replace(/"name":"[^"]*"/, '"name":""')));
  const renamed: [string, string][] = [];
  const addedLeft = new Set(added);
  for (const r of removed) {
    const shape = unnamed(a.get(r));
    const match = [...addedLeft].find((n) => unnamed(b.get(n)) === shape);
    if (match) {
      renamed.push([r, match]);
      addedLeft.delete(match);
    }
  }
  const renamedFrom = new Set(renamed.map(([r]) => r));
  const order = [...x.map(toolName)].join('\u0000') !== [...y.map(toolName)].join('\u0000');
  const change: FieldChange = {
    path,
    kind: 'tools',
    added: [...addedLeft],
    removed: removed.filter((r) => !renamedFrom.has(r)),
    renamed,
  };
  if (change.added!.length || change.removed!.length || renamed.length || (order && x.length === y.length)) out.push(change);
  for (const [n, t] of a) if (b.has(n)) go(t, b.get(n), `${path}.${n}`);
}

const CLIP = 160;

function clip(s: string, n = CLIP): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}

function show(v: unknown): string {
  return clip(typeof v === 'string' ? JSON.stringify(v) : (JSON.stringify(v) ?? 'undefined'));
}

/** The span where two texts differ, with some context: `…before[-old-]{+new+}after…`. */
export function markChange(a: string, b: string, context = 40): string {
  const s = changedSpan(a, b);
  const before = a.slice(Math.max(0, s.start - context), s.start);
  const after = a.slice(s.endA, s.endA + context);
  const old = a.slice(s.start, s.endA);
  const neu = b.slice(s.start, s.endB);
  return oneLine(
    `${s.start > context ? '…' : ''}${before}${old ? `[-${clip(old, 200)}-]` : ''}${neu ? `{+${clip(neu, 200)}+}` : ''}${after}${s.endA + context < a.length ? '…' : ''}`,
  );
}

/** Newlines and tabs shown as visible marks, so one change stays on one report line. */
function oneLine(s: string): string {
  return s.replace(/\r?\n/g, '⏎').replace(/\t/g, '⇥');
}

/** The common prefix and suffix of two texts, as the changed span's bounds in each. */
export function changedSpan(a: string, b: string): { start: number; endA: number; endB: number } {
  let start = 0;
  const n = Math.min(a.length, b.length);
  while (start < n && a.charCodeAt(start) === b.charCodeAt(start)) start++;
  let ea = a.length;
  let eb = b.length;
  while (ea > start && eb > start && a.charCodeAt(ea - 1) === b.charCodeAt(eb - 1)) {
    ea--;
    eb--;
  }
  return { start, endA: ea, endB: eb };
}

/** One line per change, for the text report. */
export function formatChange(c: FieldChange): string {
  if (c.kind === 'tools') {
    const parts = [
      ...(c.renamed ?? []).map(([a, b]) => `renamed ${a} → ${b}`),
      ...(c.added ?? []).map((n) => `added ${n}`),
      ...(c.removed ?? []).map((n) => `removed ${n}`),
    ];
    return `${c.path}: ${parts.length ? parts.join(', ') : 'order changed'}`;
  }
  if (c.kind === 'added') return `${c.path}: added ${c.new}`;
  if (c.kind === 'removed') return `${c.path}: removed ${c.old}`;
  return `${c.path}: ${c.marked ?? `${c.old} → ${c.new}`}`;
}
