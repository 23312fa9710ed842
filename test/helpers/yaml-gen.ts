import seedrandom from 'seedrandom';

/**
 * Random YAML documents for test/yaml-quick.test.ts: block maps and sequences (compact `- k: v`
 * items, sequences at their key's column), flow collections, scalars of every core-schema kind and
 * their near-misses, quoted keys and values with escapes, block scalars, comments and blank lines
 * anywhere, then (sometimes) a few random edits that make most documents odd or wrong.
 */
export type Rng = () => number;

const PLAIN = [
  ...['null', 'Null', 'NULL', '~', 'nUll', 'true', 'True', 'TRUE', 'tRue', 'false', 'False', 'FALSE', 'yes', 'Yes', 'no', 'on', 'Off', 'y', 'n'],
  ...['0', '1', '-1', '+1', '007', '-007', '1_000', '0x1F', '0X1F', '0xg', '0x', '0o17', '0o8', '0O17', '017', '+0x1', '-0o1'],
  ...['.5', '-.5', '+.5', '5.', '1.0', '1.10', '-0', '+0', '-0.0', '1e3', '1E3', '1e+3', '1e-3', '.5e3', '5.e3', '1.5e', 'e3', '1.2.3'],
  ...['.inf', '-.inf', '+.inf', '.Inf', '.INF', '.nan', '.NaN', '.NAN', '-.nan', 'inf', 'nan', '12345678901234567890', '0.1e400', '1e-400'],
  ...['abc', 'hello world', 'a:b', 'a #b', 'a#b', 'http://x.y/z?q=1#f', '-x', '--x', 'x]', 'x}', 'x, y', 'x,y', 'a "b"', "a 'b'", 'tilde ~'],
  ...[
    'back\\slash',
    'ünïcödé',
    '日本語',
    'emoji 😀',
    'x  y',
    '=',
    'a=b',
    '$x',
    '(x)',
    'x # y # z',
    'x:#y',
    '...x',
    '(a, b)',
    'a.b',
    'nbsp\u00a0',
    'ideo\u3000',
    '\u00a0',
  ],
];
const PLAIN_ODD = ['a: b', '-', '- x', '?x', ':x', 'x:', 'x::y', '%x', '@x', '`x', '!x', '!!str x', '&a x', '*a', '|x', '>x', '[x', '{x', '<<', '---x'];
const DQ = ['\\n', '\\t', '\\"', '\\\\', '\\x41', '\\u00e9', '\\U0001F600', '\\/', '\\ ', '\\0', '\\e', '\\N', '\\_', '\\L', '\\P', '\\a'];
const DQ_BAD = ['\\q', '\\x4', '\\UFFFFFFFF', '\\u12', '\\', '\\x4G'];
const KEYS = [
  ...['a', 'b', 'name', 'type', 'key with spaces', 'a:b', 'a#b', 'a #b', 'x y z', 'a[b]', 'a,b', 'k ', '-k', 'k-', '?k', ':k'],
  ...['"quoted key"', "'single key'", '"a: b"', '"#"', '"1"', "'true'", '"a\\"b"', "'it''s'", '""', "''", '"a" ', 'k2', 'k3', 'k4', 'k5', 'k\u00a0', 'k\u2003'],
  ...['1', '0x10', 'true', 'null', '~', '1.5', '.inf', '-0', '0', '.nan', 'constructor', 'toString', '2', '10', '"2"'],
];
const KEYS_ODD = ['"x":', '__proto__', '<<', '[k]', '{k: v}', '&k k', '!t k', '? k', '*a', '|', '- k'];
const WORDS = ['alpha', 'beta', 'x', 'two words', '# not a comment', '- dash', 'key: value', "'q'", '"dq"', '|', '>', '  more', '{a}'];

export const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
const int = (r: Rng, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
const pad = (n: number): string => ' '.repeat(n);

function dq(r: Rng): string {
  let s = '"';
  for (let i = int(r, 0, 4); i > 0; i--) s += r() < 0.5 ? pick(r, WORDS.slice(0, 4)) : r() < 0.97 ? pick(r, DQ) : pick(r, DQ_BAD);
  return `${s}"`;
}
function sq(r: Rng): string {
  let s = "'";
  for (let i = int(r, 0, 3); i > 0; i--) s += r() < 0.7 ? pick(r, WORDS).replace(/'/g, "''") : "''";
  return `${s}'`;
}
export function scalar(r: Rng): string {
  const x = r();
  return x < 0.03 ? pick(r, PLAIN_ODD) : x < 0.6 ? pick(r, PLAIN) : x < 0.8 ? dq(r) : x < 0.95 ? sq(r) : `'${pick(r, PLAIN)}'`;
}
/** A key not in used (nearly always: a duplicate now and then). */
export function key(r: Rng, used: Set<string>): string {
  for (;;) {
    const x = r();
    const k = x < 0.02 ? pick(r, KEYS_ODD) : x < 0.5 ? pick(r, KEYS.slice(0, 6)) : pick(r, KEYS);
    const name = k.replace(/^(["'])(.*)\1 *$/, '$2');
    if (used.has(name) && r() < 0.97) continue;
    used.add(name);
    return k;
  }
}

function flow(r: Rng, depth: number): string {
  const sp = r() < 0.7 ? ' ' : '';
  const n = int(r, 0, 4);
  const items: string[] = [];
  const isMap = r() < 0.5;
  const used = new Set<string>();
  for (let i = 0; i < n; i++) {
    const v = depth < 2 && r() < 0.2 ? flow(r, depth + 1) : scalar(r).replace(/^#.*/, 'x');
    items.push(isMap ? `${key(r, used)}:${r() < 0.97 ? ' ' : ''}${v}` : v);
  }
  const body = items.join(r() < 0.9 ? ', ' : ',') + (n > 0 && r() < 0.1 ? ',' : '');
  return isMap ? `{${sp}${body}${sp}}` : `[${sp}${body}${sp}]`;
}

function blockScalar(r: Rng, col: number): [string, string[]] {
  const head = r() < 0.05 ? pick(r, ['|2', '>1', '|#c', '| x', '|-+']) : pick(r, ['|', '|-', '|+', '>', '>-', '>+', '|', '>', '| # c', '>-  # c']);
  const m = col + int(r, 1, 3);
  const body: string[] = [];
  for (let i = int(r, 0, 5); i > 0; i--) {
    const x = r();
    body.push(x < 0.15 ? '' : x < 0.2 ? pad(int(r, 0, m)) : x < 0.22 ? pad(m + 1) : x < 0.3 ? pad(m + int(r, 1, 2)) + pick(r, WORDS) : pad(m) + pick(r, WORDS));
  }
  return [head, body];
}

interface Value {
  head: string;
  body: string[];
}

/** A value for a map entry (inMap) or a sequence item at column col. */
function value(r: Rng, col: number, depth: number, inMap: boolean): Value {
  const x = depth > 3 ? r() * 0.6 : r();
  if (x < 0.33) return { head: scalar(r), body: [] };
  if (x < 0.43) return { head: flow(r, 0), body: [] };
  if (x < 0.5) {
    const [head, body] = blockScalar(r, col);
    return { head, body };
  }
  if (x < 0.56) return { head: r() < 0.5 ? '' : '# empty', body: [] };
  if (x < 0.8) return { head: r() < 0.8 ? '' : '# c', body: mapLines(r, col + int(r, 1, 4), depth + 1) };
  const same = inMap && r() < 0.3;
  return { head: '', body: seqLines(r, same ? col : col + int(r, 1, 4), depth + 1) };
}

export function mapLines(r: Rng, col: number, depth: number): string[] {
  const out: string[] = [];
  const used = new Set<string>();
  for (let i = int(r, 1, 4); i > 0; i--) {
    const v = value(r, col, depth, true);
    const sep = r() < 0.95 ? ' ' : '  ';
    out.push(`${pad(col)}${key(r, used)}:${v.head ? sep + v.head : ''}`, ...v.body);
  }
  return out;
}

export function seqLines(r: Rng, col: number, depth: number): string[] {
  const out: string[] = [];
  for (let i = int(r, 1, 4); i > 0; i--) {
    const gap = r() < 0.9 ? 1 : int(r, 2, 3);
    if (depth < 4 && r() < 0.3) {
      const m = mapLines(r, col + 1 + gap, depth + 1);
      out.push(`${pad(col)}-${(m[0] as string).slice(col + 1)}`, ...m.slice(1));
      continue;
    }
    const v = value(r, col, depth, false);
    out.push(`${pad(col)}-${v.head ? pad(gap) + v.head : ''}`, ...v.body);
  }
  return out;
}

const EDIT_CHARS = [':', '-', '#', '[', ']', '{', '}', ',', '"', "'", ' ', '  ', '\t', '|', '>', '&', '*', '!', '?', '%', '@', '`', '\\', '\r', '~'];

/** One generated document. */
export function document(r: Rng): string {
  const x = r();
  let lines = x < 0.45 ? mapLines(r, r() < 0.9 ? 0 : 2, 0) : x < 0.9 ? seqLines(r, 0, 0) : [r() < 0.5 ? scalar(r) : flow(r, 0)];
  const out: string[] = [];
  for (const l of lines) {
    if (r() < 0.08) out.push(r() < 0.5 ? '' : `${pad(int(r, 0, 6))}# note`);
    out.push(r() < 0.06 ? `${l} # trailing` : l);
  }
  lines = out;
  if (r() < 0.25) {
    for (let i = int(r, 1, 2); i > 0; i--) {
      const at = int(r, 0, lines.length - 1);
      const l = lines[at] as string;
      const e = r();
      const c = int(r, 0, l.length);
      if (e < 0.3) lines[at] = l.slice(0, c) + pick(r, EDIT_CHARS) + l.slice(c);
      else if (e < 0.5) lines[at] = l.slice(0, c) + l.slice(c + 1);
      else if (e < 0.7) lines[at] = r() < 0.5 ? ` ${l}` : l.replace(/^ /, '');
      else if (e < 0.85) lines.splice(at, 0, l);
      else lines.splice(at, 0, pick(r, ['---', '...', '%YAML 1.2', '? k', ': v', '&a b: *a', '!!map', '  - x', 'k: v']));
    }
  }
  const end = r();
  return lines.join('\n') + (end < 0.85 ? '\n' : end < 0.95 ? '' : '\n\n');
}

function jsonValue(r: Rng, depth: number): unknown {
  const x = depth > 3 ? r() * 0.5 : r();
  if (x < 0.1) return pick(r, [true, false, null]);
  if (x < 0.25) return pick(r, [0, -1, 7, 1.5, -0.25, 1e21, 1e-7, 2 ** 53 + 2, 123456789012, 5e-5]);
  if (x < 0.5) return pick(r, ['', 'x', 'two words', 'a: b', '# c', 'tab\there', 'q"uote', 'back\\', 'ünï', '😀', '\u0001', 'line\nbreak', '1', 'true']);
  if (x < 0.75) return Array.from({ length: int(r, 0, 4) }, () => jsonValue(r, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = int(r, 0, 4); i > 0; i--)
    o[pick(r, ['a', 'b', 'name', 'type', 'key with spaces', '1', '', 'x:y', 'properties', 'enum'])] = jsonValue(r, depth + 1);
  return o;
}

/** A JSON document (tool files are JSON): JSON.stringify of a random value, sometimes edited. */
export function jsonDocument(r: Rng): string {
  let text = JSON.stringify(jsonValue(r, r() < 0.9 ? 3 : 0), null, pick(r, [0, 1, 2, 2, 4]));
  if (r() < 0.3) {
    const at = int(r, 0, text.length);
    const edit = pick(r, ['\n', '\n  ', ' # c\n', ',', ':', '"', '\t', '\n---\n', '  ', '\n]', '- ', '{', '&a ']);
    text = text.slice(0, at) + edit + text.slice(at + (r() < 0.5 ? 0 : 1));
  }
  return (r() < 0.1 ? '  ' : r() < 0.1 ? '# head\n' : '') + text + (r() < 0.8 ? '\n' : r() < 0.5 ? '' : '\n# tail\n');
}

export const rng = (seed: string): Rng => seedrandom(seed);
