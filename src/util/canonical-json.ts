/**
 * Canonical JSON: object keys sorted by code point, no whitespace, `undefined` members dropped.
 * Used for hashing, for comparing records and for files whose bytes must not depend on insertion
 * order. Written as a direct serializer (no intermediate sorted copy): it runs once per variant.
 */
export function canonicalJson(value: unknown): string {
  return serialize(value) ?? 'null';
}

function serialize(value: unknown): string | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (Array.isArray(value)) return `[${value.map((v) => serialize(v) ?? 'null').join(',')}]`;
      const toJSON = (value as { toJSON?: () => unknown }).toJSON;
      if (typeof toJSON === 'function') return serialize(toJSON.call(value));
      const obj = value as Record<string, unknown>;
      // The default sort compares UTF-16 code units, as codePointCompare does, without calling back
      // into JS; a state hash serialises tens of small schemas per state.
      const keys = Object.keys(obj);
      if (keys.length > 1) keys.sort();
      let out = '{';
      for (const key of keys) {
        const v = serialize(obj[key]);
        if (v !== undefined) out += `${out.length > 1 ? ',' : ''}${JSON.stringify(key)}:${v}`;
      }
      return `${out}}`;
    }
    default:
      return undefined;
  }
}

/** A deep copy of `value` with every object's keys in code-point order. */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort(codePointCompare)) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}

function codePointCompare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
