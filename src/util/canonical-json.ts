import { schemaMemo } from './derived.js';

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
      return Number.isFinite(value) ? String(value) : nonFinite(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (Array.isArray(value)) {
        if (value.length === 0) return '[]';
        let out = `[${serialize(value[0]) ?? 'null'}`;
        for (let i = 1; i < value.length; i++) out += `,${serialize(value[i]) ?? 'null'}`;
        return `${out}]`;
      }
      const toJSON = (value as { toJSON?: () => unknown }).toJSON;
      if (typeof toJSON === 'function') return serialize(toJSON.call(value));
      return serializeObject(value as Record<string, unknown>);
    }
    default:
      return undefined;
  }
}

// JSON writes NaN and ±Infinity as null; a cache key must not (see distinctJson).
let sawNonFinite = false;
let keepNonFinite = false;

function nonFinite(value: number): string {
  sawNonFinite = true;
  return keepNonFinite ? String(value) : 'null';
}

/**
 * canonicalJson as a key that tells every value apart: where `value` holds NaN or ±Infinity (a
 * YAML harness can write `.nan`, `.inf`), they are written as the bare words `NaN`, `Infinity`,
 * `-Infinity`, which no JSON value serialises to, instead of JSON's `null`. So `{"const": .nan}`
 * and `{"const": null}` are two schemas to a validator cache; for JSON data it is canonicalJson.
 */
export function distinctJson(value: unknown): string {
  sawNonFinite = false;
  const text = canonicalJson(value);
  if (!sawNonFinite) return text;
  keepNonFinite = true;
  try {
    return canonicalJson(value);
  } finally {
    keepNonFinite = false;
  }
}

const hasOwn = Object.prototype.hasOwnProperty;

function serializeObject(obj: Record<string, unknown>): string {
  // Own enumerable keys (Object.keys' set) in UTF-16 code-unit order, as codePointCompare and the
  // default sort order them: an insertion sort of the few keys an object has, with no array made
  // by Object.keys and no comparator called back (a state hash serialises tens of schemas per state).
  const keys: string[] = [];
  for (const k in obj) {
    if (!hasOwn.call(obj, k)) continue;
    let j = keys.length - 1;
    while (j >= 0 && keys[j]! > k) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = k;
  }
  // Each member adds two pieces to the result (its `,"key":` text and its value): the result is a
  // tree of concatenations, and fewer pieces are fewer objects for the collector.
  let out = '';
  for (const key of keys) {
    const v = serialize(obj[key]);
    if (v === undefined) continue;
    out = out === '' ? `{${quoted(key)}:${v}` : out + memberPrefix(key) + v;
  }
  return out === '' ? '{}' : `${out}}`;
}

/** Keys repeat (schema keywords, parameter names): each short one is quoted once. */
const quotedKeys = new Map<string, string>();

function quoted(key: string): string {
  if (key.length > 64) return JSON.stringify(key);
  let q = quotedKeys.get(key);
  if (q === undefined) {
    q = JSON.stringify(key);
    if (quotedKeys.size >= 16_384) quotedKeys.clear();
    quotedKeys.set(key, q);
  }
  return q;
}

/** `,"key":` — a member after the first — made once per short key, as `quoted` is. */
const prefixes = new Map<string, string>();

function memberPrefix(key: string): string {
  if (key.length > 64) return `,${JSON.stringify(key)}:`;
  let p = prefixes.get(key);
  if (p === undefined) {
    p = `,${quoted(key)}:`;
    if (prefixes.size >= 16_384) prefixes.clear();
    prefixes.set(key, p);
  }
  return p;
}

const CANONICAL = Symbol('canonical-json');

/**
 * canonicalJson of a JSON Schema, kept with the schema's other derived values (see schemaMemo):
 * harness states share schema objects and never change them in place (a transform replaces a
 * schema it edits), so a schema met again — in the next state, in a state hash, as a compiler's
 * cache key — costs one lookup, in the map its validators and property names are kept in already.
 */
export function canonicalSchemaJson(schema: object): string {
  return schemaMemo(CANONICAL, schema, () => flat(canonicalJson(schema)));
}

/**
 * `text`, flattened in place: the serializer builds its result by concatenation, a tree of hundreds
 * of small pieces that every later use (each state hash that includes a shared schema, a map
 * lookup) walks again, several times slower than copying flat text. Reading a character makes V8
 * flatten the tree once; the string's value is unchanged.
 */
function flat(text: string): string {
  text.charCodeAt(0);
  return text;
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
