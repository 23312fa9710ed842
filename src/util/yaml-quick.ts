/**
 * A hand reader for the common YAML our files are written in (block maps and sequences, one-line
 * flow collections and scalars, `|`/`>` block scalars, comments), so that reading a harness, plan or
 * config need not load the `yaml` package (~20 ms). `yaml` stays the spec: the same value (core
 * schema, key order), the same line of every path and number text, or it GIVES UP (undefined) on
 * anything it is not sure of (anchors, tags, `?` keys, markers, tabs, multi-line scalars or flows,
 * keys of the same text, whatever looks odd) and parseLocated asks `yaml`. test/yaml-quick.test.ts.
 */

import { fail, GIVE_UP, plainValue, quoted } from './yaml-quick-scalars.js';

/** Where a node sits: its 1-based line, its keys' lines or items, and a number's text as written. */
export interface QuickNode {
  line: number;
  /** Entries by String(key), as located.ts's lineOf finds them; `key` is the key's value (a number for `1:`). */
  map?: Map<string, Pair>;
  seq?: QuickNode[];
  num?: string;
}

interface Pair {
  line: number;
  node: QuickNode;
  key: unknown;
}

export interface QuickDoc {
  value: unknown;
  /** undefined for an empty document (only comments or nothing). */
  root: QuickNode | undefined;
}

// Characters the reader gives up on anywhere: tabs, CR, other controls, NEL, the Unicode line and
// paragraph separators, a BOM past the start and the non-characters U+FFFE/U+FFFF.
const ODD_CHARS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/;
// A line at column 0 that starts a document marker or a directive.
const MARKERS = /^(?:---|\.\.\.|%)/m;

/** The document read by hand, or undefined when the reader is not sure (the caller asks `yaml`). */
export function quickYaml(text: string): QuickDoc | undefined {
  if (ODD_CHARS.test(text) || MARKERS.test(text)) return undefined;
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  try {
    return new Reader(lines).doc();
  } catch (e) {
    if (e === GIVE_UP) return undefined;
    throw e;
  }
}

type Read = [value: unknown, node: QuickNode, next: number];

const indentOf = (s: string): number => {
  let i = 0;
  while (s.charCodeAt(i) === 32) i++;
  return i;
};
const skipSpaces = (s: string, p: number): number => {
  while (s.charCodeAt(p) === 32) p++;
  return p;
};
/** Only spaces, or a comment after at least one space (or at the line's start), from p on. */
const restIsEmpty = (s: string, p: number): boolean => {
  const q = skipSpaces(s, p);
  return q >= s.length || (s[q] === '#' && (q > p || q === 0));
};
/** Without trailing spaces (only spaces: String.prototype.trimEnd takes U+00A0 and others too, YAML does not). */
const trimSpaces = (s: string): string => s.replace(/ +$/, '');
const isDash = (s: string, p: number): boolean => s[p] === '-' && (p + 1 === s.length || s[p + 1] === ' ');
// Characters that cannot start a plain scalar here (YAML's indicators; `-` only before a space).
const INDICATORS = '-?:,[]{}#&*!|>\'"%@`';
const blank = (c: string | undefined): boolean => c === undefined || c === ' ' || c === '\n';
const plainStarts = (s: string, p: number, flow: boolean): boolean => {
  const c = s[p];
  if (blank(c)) return false;
  if (c !== '-') return !INDICATORS.includes(c as string);
  const d = s[p + 1];
  return !blank(d) && !(flow && ',[]{}'.includes(d as string));
};
/** Spaces and, in a flow collection over several lines, line breaks. */
const gap = (s: string, p: number): number => {
  while (s[p] === ' ' || s[p] === '\n') p++;
  return p;
};
type LineAt = (p: number) => number;

class Reader {
  constructor(private readonly lines: string[]) {}

  doc(): QuickDoc {
    const { lines } = this;
    const i = this.next(0);
    if (i >= lines.length) return { value: null, root: undefined };
    const s = lines[i] as string;
    const col = indentOf(s);
    let read: Read;
    if (isDash(s, col) || this.key(s, col)) read = this.block(i, col);
    else if (s[col] === '|' || s[col] === '>') fail();
    else if (s[col] === '[' || s[col] === '{') read = this.flowDoc(i, col);
    else read = this.inline(i, col);
    if (this.next(read[2]) < lines.length) fail();
    return { value: read[0], root: read[1] };
  }

  /** A flow collection from column col of line i that may go on over lines (JSON); next is the line after its end. */
  private flowDoc(i: number, col: number): Read {
    const text = this.lines.slice(i).join('\n');
    const starts = [0];
    for (let k = text.indexOf('\n'); k >= 0; k = text.indexOf('\n', k + 1)) starts.push(k + 1);
    const lineIndex = (p: number): number => {
      let [lo, hi] = [0, starts.length - 1];
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if ((starts[mid] as number) <= p) lo = mid;
        else hi = mid - 1;
      }
      return lo;
    };
    const [value, node, end] = flow(text, col, (p) => i + 1 + lineIndex(p));
    const k = lineIndex(end);
    if (!restIsEmpty(this.lines[i + k] as string, end - (starts[k] as number))) fail();
    return [value, node, i + k + 1];
  }

  /** The first line from i on that is not blank or a comment. */
  private next(i: number): number {
    const { lines } = this;
    for (; i < lines.length; i++) {
      const s = lines[i] as string;
      const k = indentOf(s);
      if (k < s.length && s[k] !== '#') break;
    }
    return i;
  }

  /** A block collection whose first entry is at column col of line i. */
  private block(i: number, col: number): Read {
    const s = this.lines[i] as string;
    if (isDash(s, col)) return this.seq(i, col);
    if (this.key(s, col)) return this.map(i, col);
    return fail();
  }

  private seq(i: number, col: number): Read {
    const value: unknown[] = [];
    const items: QuickNode[] = [];
    let line = i;
    for (;;) {
      const s = this.lines[line] as string;
      const p = skipSpaces(s, col + 1);
      let read: Read;
      if (restIsEmpty(s, col + 1)) read = this.below(line, col, false);
      else if (this.key(s, p)) read = this.map(line, p);
      else read = this.inline(line, p, col);
      value.push(read[0]);
      items.push(read[1]);
      const j = this.next(read[2]);
      if (j >= this.lines.length) return [value, { line: i + 1, seq: items }, j];
      const t = this.lines[j] as string;
      const k = indentOf(t);
      if (k > col) fail();
      if (k < col || !isDash(t, col)) return [value, { line: i + 1, seq: items }, j];
      line = j;
    }
  }

  private map(i: number, col: number): Read {
    const value: Record<string, unknown> = {};
    const keys = new Map<string, Pair>();
    let line = i;
    let p = col;
    for (;;) {
      const s = this.lines[line] as string;
      const [key, q] = this.key(s, p) ?? fail();
      const read = restIsEmpty(s, q) ? this.below(line, col, true) : this.inline(line, skipSpaces(s, q), col);
      addPair(value, keys, key, read[0], { line: line + 1, node: read[1], key });
      const j = this.next(read[2]);
      if (j >= this.lines.length) return [value, { line: i + 1, map: keys }, j];
      const k = indentOf(this.lines[j] as string);
      if (k > col) fail();
      if (k < col) return [value, { line: i + 1, map: keys }, j];
      line = j;
      p = col;
    }
  }

  /** A value that starts on a line after its key or dash (line i): a block collection, or null. */
  private below(i: number, parent: number, inMap: boolean): Read {
    const j = this.next(i + 1);
    if (j < this.lines.length) {
      const s = this.lines[j] as string;
      const k = indentOf(s);
      if (k > parent || (inMap && k === parent && isDash(s, k))) return this.block(j, k);
    }
    return [null, { line: i + 1 }, i + 1];
  }

  /**
   * A key at column p: its value and the column after its `:`, or undefined when none is there.
   * Gives up on a key that is there but odd (too long).
   */
  private key(s: string, p: number): [unknown, number] | undefined {
    const c = s[p];
    if (c === '"' || c === "'") {
      const [text, end] = quoted(s, p);
      const q = skipSpaces(s, end);
      if (s[q] !== ':' || (q + 1 < s.length && s[q + 1] !== ' ')) return undefined;
      return q - p > 1000 ? fail() : [text, q + 1];
    }
    if (!plainStarts(s, p, false)) return undefined;
    for (let j = p + 1; j < s.length; j++) {
      const d = s[j];
      if (d === '#' && s[j - 1] === ' ') return undefined;
      if (d === ':' && (j + 1 === s.length || s[j + 1] === ' ')) {
        if (j - p > 1000) fail();
        return [plainValue(trimSpaces(s.slice(p, j))), j + 1];
      }
    }
    return undefined;
  }

  /** A value on the rest of line i from column p (non-blank): a scalar, flow collection or block scalar. */
  private inline(i: number, p: number, parent = -1): Read {
    const s = this.lines[i] as string;
    const c = s[p];
    const node: QuickNode = { line: i + 1 };
    if (c === '|' || c === '>') {
      if (parent < 0) fail();
      return this.blockScalar(i, p, parent);
    }
    if (c === '[' || c === '{') {
      const [value, flowNode, end] = flow(s, p, () => i + 1);
      if (!restIsEmpty(s, end)) fail();
      return [value, flowNode, i + 1];
    }
    if (c === '"' || c === "'") {
      const [value, end] = quoted(s, p);
      if (!restIsEmpty(s, end)) fail();
      return [value, node, i + 1];
    }
    if (!plainStarts(s, p, false)) fail();
    let end = s.indexOf(' #', p);
    if (end < 0) end = s.length;
    const text = trimSpaces(s.slice(p, end));
    if (text.includes(': ') || text.endsWith(':')) fail();
    return [typed(text, node), node, i + 1];
  }

  /** A `|` or `>` block scalar whose header is at column p of line i, inside a collection at column parent. */
  private blockScalar(i: number, p: number, parent: number): Read {
    const { lines } = this;
    const header = /^([|>])([+-]?)(?: +#.*| *)$/.exec((lines[i] as string).slice(p)) ?? fail();
    let j = i + 1;
    while (j < lines.length && indentOf(lines[j] as string) === (lines[j] as string).length) j++;
    if (j >= lines.length) fail();
    const m = indentOf(lines[j] as string);
    if (m <= parent) fail();
    const body: string[] = [];
    for (j = i + 1; j < lines.length; j++) {
      const s = lines[j] as string;
      const k = indentOf(s);
      if (k === s.length) {
        if (k > m) fail();
        body.push('');
      } else if (k >= m) body.push(s.slice(m));
      else break;
    }
    let core = body.length;
    while (body[core - 1] === '') core--;
    const trailing = body.length - core;
    let text: string;
    if (header[1] === '|') text = body.slice(0, core).join('\n');
    else {
      text = '';
      let empties = 0;
      let started = false;
      for (let k = 0; k < core; k++) {
        const s = body[k] as string;
        if (s === '') empties++;
        else {
          if (s[0] === ' ') fail();
          text += (started && empties === 0 ? ' ' : '\n'.repeat(empties)) + s;
          started = true;
          empties = 0;
        }
      }
    }
    if (header[2] === '') text += '\n';
    else if (header[2] === '+') {
      if (j >= lines.length) fail();
      text += '\n'.repeat(trailing + 1);
    }
    return [text, { line: i + 1 }, j];
  }
}

/**
 * A flow collection from `[` or `{` at p: value, node and the offset after its end. s is one line,
 * or for a document that is one flow collection the text from its line on (lines are given by at);
 * a key, its `:` and the start of its value are on one line, and a scalar is on one line.
 */
function flow(s: string, p: number, at: LineAt): [unknown, QuickNode, number] {
  const line = at(p);
  if (s[p] === '[') {
    const value: unknown[] = [];
    const items: QuickNode[] = [];
    for (p++; ;) {
      p = gap(s, p);
      if (s[p] === ']') return [value, { line, seq: items }, p + 1];
      const [v, node, end] = flowNode(s, p, at);
      value.push(v);
      items.push(node);
      p = gap(s, end);
      if (s[p] === ',') p++;
      else if (s[p] !== ']') fail();
    }
  }
  const value: Record<string, unknown> = {};
  const keys = new Map<string, Pair>();
  for (p++; ;) {
    p = gap(s, p);
    if (s[p] === '}') return [value, { line, map: keys }, p + 1];
    const keyLine = at(p);
    const keyStart = p;
    let key: unknown;
    const c = s[p];
    if (c === '"' || c === "'") {
      [key, p] = quoted(s, p);
      p = skipSpaces(s, p);
      if (s[p] !== ':') fail();
    } else {
      const end = flowPlainEnd(s, p);
      if (s[end] !== ':' || s[end + 1] !== ' ') fail();
      key = plainValue(trimSpaces(s.slice(p, end)));
      p = end;
    }
    if (p - keyStart > 1000) fail();
    p = skipSpaces(s, p + 1);
    if (s[p] === ',' || s[p] === '}') fail();
    const [v, node, end] = flowNode(s, p, at);
    addPair(value, keys, key, v, { line: keyLine, node, key });
    p = gap(s, end);
    if (s[p] === ',') p++;
    else if (s[p] !== '}') fail();
  }
}

/**
 * Adds an entry as yaml's toJS does (key null as '', others as String(key)); gives up on a key
 * whose text another key has (yaml's duplicates, or `1` beside `"1"`), on `__proto__` and `<<`.
 */
function addPair(value: Record<string, unknown>, keys: Map<string, Pair>, key: unknown, v: unknown, pair: Pair): void {
  const name = key === null ? '' : String(key);
  const lookup = String(key);
  if (name === '__proto__' || name === '<<' || Object.hasOwn(value, name) || keys.has(lookup)) fail();
  value[name] = v;
  keys.set(lookup, pair);
}

function flowNode(s: string, p: number, at: LineAt): [unknown, QuickNode, number] {
  const c = s[p];
  if (c === '[' || c === '{') return flow(s, p, at);
  const node: QuickNode = { line: at(p) };
  if (c === '"' || c === "'") {
    const [v, end] = quoted(s, p);
    return [v, node, end];
  }
  const end = flowPlainEnd(s, p);
  return [typed(trimSpaces(s.slice(p, end)), node), node, end];
}

/** Where a plain scalar inside a flow collection ends (gives up on a comment: the collection goes on below). */
function flowPlainEnd(s: string, p: number): number {
  if (!plainStarts(s, p, true)) fail();
  let j = p + 1;
  for (; j < s.length; j++) {
    const d = s[j] as string;
    if (',[]{}\n'.includes(d)) break;
    if (d === ':' && (j + 1 === s.length || ' ,[]{}\n'.includes(s[j + 1] as string))) break;
    if (d === '#' && s[j - 1] === ' ') fail();
  }
  return j;
}

function typed(text: string, node: QuickNode): unknown {
  const v = plainValue(text);
  if (typeof v === 'number') node.num = text;
  return v;
}

/** located.ts's lineOf over a hand-read document: the line of the node at path, or of its nearest ancestor. */
export function quickLineOf(root: QuickNode | undefined, path: readonly (string | number)[]): number | undefined {
  let node = root;
  let best = root?.line;
  for (const key of path) {
    if (node?.map) {
      const pair = node.map.get(String(key));
      if (!pair) break;
      best = pair.line;
      node = pair.node;
    } else if (node?.seq && typeof key === 'number') {
      node = node.seq[key];
      if (node === undefined) break;
      best = node.line;
    } else break;
  }
  return best;
}

/** located.ts's numberSource over a hand-read document (the lookups of yaml's `getIn`). */
export function quickNumberSource(root: QuickNode | undefined, path: readonly (string | number)[]): string | undefined {
  let node = root;
  for (const key of path) {
    if (node?.map) {
      const pair = node.map.get(String(key));
      node = pair?.key === key ? pair.node : undefined;
    } else if (node?.seq) {
      const idx = key && typeof key === 'string' ? Number(key) : key;
      node = typeof idx === 'number' && Number.isInteger(idx) && idx >= 0 ? node.seq[idx] : undefined;
    } else return undefined;
  }
  return node?.num;
}
