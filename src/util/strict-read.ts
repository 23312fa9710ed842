/**
 * Readers for hand-written "certainly valid" twins of zod schemas (plan-quick.ts,
 * harness-file-quick.ts): each reads one value as a zod schema of the same name would and returns
 * what zod would return, or throws NOT_SHOWN for anything it does not certainly accept (then the
 * zod schema reads the value and words the problems). Only plain JSON objects (Object.prototype)
 * are read; an `undefined` value or a `__proto__` key is left to zod.
 */

/** Runs a hand reading: its value, or null when it gave up. */
export function shownValid<T>(read: () => T): T | null {
  try {
    return read();
  } catch (e) {
    if (e === NOT_SHOWN) return null;
    throw e;
  }
}

const NOT_SHOWN = new Error('not shown valid');
export type Obj = Record<string, unknown>;

/** Gives up: the value is not shown valid (the zod schema reads it). */
export function fail(): never {
  throw NOT_SHOWN;
}

/** A plain object with only the keys `allowed` (a strict object's input); `undefined` values are left to zod. */
export function obj(v: unknown, allowed: readonly string[]): Obj {
  if (v === null || typeof v !== 'object' || Array.isArray(v) || Object.getPrototypeOf(v) !== Object.prototype) fail();
  for (const k of Object.keys(v)) if (!allowed.includes(k) || (v as Obj)[k] === undefined) fail();
  return v as Obj;
}

/** z.string(); `name` is z.string().min(1), `num` z.number() (finite), `list` z.array(item). */
export const str = (v: unknown): string => (typeof v === 'string' ? v : fail());
export const name = (v: unknown): string => (typeof v === 'string' && v.length > 0 ? v : fail());
export const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : fail());
export const list = <T>(v: unknown, item: (x: unknown) => T): T[] => (Array.isArray(v) ? v.map(item) : fail());

/** A record (string keys) with each value read by `value`, as a new object in the input's key order. */
export function record<T>(v: unknown, value: (x: unknown) => T): Record<string, T> {
  if (v === null || typeof v !== 'object' || Array.isArray(v) || Object.getPrototypeOf(v) !== Object.prototype) fail();
  const out: Record<string, T> = {};
  for (const k of Object.keys(v)) {
    if (k === '__proto__') fail();
    out[k] = value((v as Obj)[k]);
  }
  return out;
}

/** Copies the keys of `readers` that `src` has into `out`, each read by its reader (optional keys, in the schema's order). */
export function optional(out: Obj, src: Obj, readers: readonly (readonly [string, (x: unknown) => unknown])[]): void {
  for (const [k, read] of readers) if (k in src) out[k] = read(src[k]);
}
