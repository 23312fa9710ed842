import seedrandom from 'seedrandom';

/**
 * For tests that hold a hand reading (plan-quick.ts, harness-file-quick.ts) to its zod schema:
 * wherever the hand reading gives a value, the schema must accept the input and give the same
 * value, keys in the same order; for plain JSON the hand reading must give one exactly when the
 * schema accepts.
 */
export type Expect = 'exact' | 'safe';
export interface Twin {
  quick: (v: unknown) => unknown;
  schema: () => { safeParse: (v: unknown) => { success: boolean; data?: unknown; error?: { issues: { message: string }[] } } };
}

/** Deep equality that also holds key order (and tells null from a missing key). */
export function sameOrdered(a: unknown, b: unknown, at = '$'): string | null {
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return `${at}: array differs`;
    for (let i = 0; i < a.length; i++) {
      const d = sameOrdered(a[i], b[i], `${at}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (a !== null && typeof a === 'object' && b !== null && typeof b === 'object') {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.join('\u0000') !== kb.join('\u0000')) return `${at}: keys ${ka.join(',')} vs ${kb.join(',')}`;
    for (const k of ka) {
      const d = sameOrdered((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${at}.${k}`);
      if (d) return d;
    }
    return null;
  }
  return Object.is(a, b) ? null : `${at}: ${String(a)} vs ${String(b)}`;
}

export const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** Every way one value is spoilt (or not): `safe` marks inputs outside plain JSON, where the hand reading may give up. */
export const SPOILERS: [string, (v: unknown) => unknown, Expect][] = [
  ['null', () => null, 'exact'],
  ['number', () => 5, 'exact'],
  ['fraction', () => 1.5, 'exact'],
  ['zero', () => 0, 'exact'],
  ['negative', () => -1, 'exact'],
  ['beyond safe integers', () => 2 ** 53 + 2, 'exact'],
  ['NaN', () => NaN, 'exact'],
  ['Infinity', () => Infinity, 'exact'],
  ['empty text', () => '', 'exact'],
  ['text', () => 'x', 'exact'],
  ['list', () => [], 'exact'],
  ['list of text', () => ['x'], 'exact'],
  ['object', () => ({}), 'exact'],
  ['true', () => true, 'exact'],
  ['undefined', () => undefined, 'safe'],
  ['null-prototype copy', (v) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.assign(Object.create(null) as object, v) : v), 'safe'],
];

interface Slot {
  parent: Record<string | number, unknown>;
  key: string | number;
}
export function slots(v: unknown, out: Slot[] = []): Slot[] {
  if (Array.isArray(v)) v.forEach((x, i) => (out.push({ parent: v as unknown as Record<number, unknown>, key: i }), slots(x, out)));
  else if (v !== null && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) (out.push({ parent: v as Record<string, unknown>, key: k }), slots(x, out));
  return out;
}

/** One input: returns whether the hand reading took it; a disagreement is added to `failures`. */
export function check(twin: Twin, value: unknown, how: Expect, label: string, failures: string[]): boolean {
  const quick = twin.quick(value);
  const zod = twin.schema().safeParse(value);
  if (quick !== null) {
    if (!zod.success) failures.push(`${label}: hand reading took what the schema refuses (${zod.error?.issues[0]?.message})`);
    else {
      const d = sameOrdered(quick, zod.data);
      if (d) failures.push(`${label}: ${d}`);
    }
  } else if (how === 'exact' && zod.success) failures.push(`${label}: the schema takes it, the hand reading gives up`);
  return quick !== null;
}

/** Every value of `base` spoilt in every way, every key dropped, an unknown key added to every object. */
export function spoilEach(twin: Twin, base: unknown, failures: string[]): { slots: number; taken: number; refused: number } {
  let taken = 0;
  let refused = 0;
  const count = slots(base).length;
  for (let i = 0; i < count; i++) {
    for (const [label, spoil, how] of SPOILERS) {
      const v = clone(base);
      const s = slots(v)[i]!;
      s.parent[s.key] = spoil(s.parent[s.key]);
      if (check(twin, v, how, `${String(s.key)}#${i} ${label}`, failures)) taken++;
      else refused++;
    }
    const dropped = clone(base);
    const d = slots(dropped)[i]!;
    if (!Array.isArray(d.parent)) {
      delete d.parent[d.key];
      check(twin, dropped, 'exact', `${String(d.key)}#${i} dropped`, failures);
    }
    const widened = clone(base);
    const w = slots(widened)[i]!;
    const target = w.parent[w.key];
    if (target !== null && typeof target === 'object' && !Array.isArray(target)) {
      (target as Record<string, unknown>).zz_unknown = 1;
      check(twin, widened, 'exact', `${String(w.key)}#${i} unknown key`, failures);
    }
  }
  return { slots: count, taken, refused };
}

/** `n` inputs with one to three values of `base` spoilt at random (seeded). */
export function spoilRandomly(twin: Twin, base: unknown, seed: string, n: number, failures: string[]): void {
  const rng = seedrandom(seed);
  for (let k = 0; k < n; k++) {
    const v = clone(base);
    let how: Expect = 'exact';
    for (let j = 0; j < 1 + Math.floor(rng() * 3); j++) {
      const all = slots(v);
      if (all.length === 0) break;
      const s = all[Math.floor(rng() * all.length)]!;
      const [, spoil, h] = SPOILERS[Math.floor(rng() * SPOILERS.length)]!;
      s.parent[s.key] = spoil(s.parent[s.key]);
      if (h === 'safe') how = 'safe';
    }
    check(twin, v, how, `random ${k}`, failures);
  }
}
