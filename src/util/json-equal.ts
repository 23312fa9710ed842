/**
 * Equality of JSON values as canonical JSON sees it (object key order does not matter, array order
 * does, `undefined` members count as absent), without serialising either side. Identical
 * references (shared sub-objects, the same string) return at once.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i] === undefined ? null : a[i], b[i] === undefined ? null : b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let defined = 0;
  for (const k in x) {
    if (!Object.prototype.hasOwnProperty.call(x, k) || x[k] === undefined) continue;
    defined++;
    if (!Object.prototype.hasOwnProperty.call(y, k) || !jsonEqual(x[k], y[k])) return false;
  }
  for (const k in y) if (Object.prototype.hasOwnProperty.call(y, k) && y[k] !== undefined) defined--;
  return defined === 0;
}
