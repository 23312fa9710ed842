import type { JsonSchema } from './types.js';

// How published tool sets spell schemas: type names that are not JSON Schema's (read as the type
// they mean), and keys that are no schema keyword (reported). Used by tools.ts when it reads a tool.

/**
 * Type names that are not JSON Schema's but that published tool sets write in their schemas, and
 * the JSON Schema type each means — the mapping those sets' own harnesses apply before a schema
 * reaches a model. Looked up without regard to case, so each spelling's capitalised and upper-case
 * forms are read too (`Integer`, `INTEGER`):
 * - the Berkeley leaderboard's Python, Java and JavaScript names (`dict`, `tuple`, `HashMap`,
 *   `ArrayList`, `long`, `Bigint`, `char`…);
 * - RapidAPI's (ToolBench: `STRING`, `NUMBER`, `BOOLEAN`, `ENUM`, `OBJECT`, `ARRAY`, and
 *   `DATE (YYYY-MM-DD)`, `TIME (24-hour HH:MM)`, `GEOPOINT (latitude, longitude)`, which are text);
 * - JavaScript's and TypeScript's (`Number`, `Object`, `String`…) and fixed-width names (`int32`,
 *   `float64`).
 * `NUMBER` is `number`: ToolBench's converter writes `integer` for it, which refuses a call
 * `{"price": 9.5}` the API takes. `any` means no type constraint: the keyword is dropped. `enum`
 * is handled by enumType (its values decide the type).
 */
const TYPE_ALIASES: Readonly<Record<string, string | null>> = {
  dict: 'object',
  hashmap: 'object',
  hashtable: 'object',
  map: 'object',
  record: 'object',
  json: 'object',
  float: 'number',
  double: 'number',
  float32: 'number',
  float64: 'number',
  int: 'integer',
  long: 'integer',
  short: 'integer',
  byte: 'integer',
  bigint: 'integer',
  int8: 'integer',
  int16: 'integer',
  int32: 'integer',
  int64: 'integer',
  uint: 'integer',
  uint32: 'integer',
  uint64: 'integer',
  bool: 'boolean',
  str: 'string',
  char: 'string',
  text: 'string',
  date: 'string',
  time: 'string',
  datetime: 'string',
  geopoint: 'string',
  tuple: 'array',
  list: 'array',
  arraylist: 'array',
  queue: 'array',
  stack: 'array',
  set: 'array',
  any: null,
};
/** RapidAPI's type names with a note of the text's form: `DATE (YYYY-MM-DD)`. */
const NOTED_TYPE = /^([A-Za-z]+) \([^()]*\)$/;
/** Where a set gives an enum's values when not under `enum`. */
const ENUM_VALUE_KEYS = ['values', 'options', 'choices'] as const;

/** The JSON Schema type a type name means (`null`: no constraint), or undefined for a name hsa does not know. */
function aliasOf(name: string): string | null | undefined {
  const lower = (NOTED_TYPE.exec(name)?.[1] ?? name).toLowerCase();
  if (JSON_TYPES.has(lower)) return lower;
  return Object.hasOwn(TYPE_ALIASES, lower) ? TYPE_ALIASES[lower] : undefined;
}

/** An enum type name (`Enum`, `ENUM`) in any case. */
function isEnumName(v: unknown): boolean {
  return typeof v === 'string' && v.toLowerCase() === 'enum';
}

/**
 * What a node typed `enum` becomes: its values under `enum` (taken from `values`, `options` or
 * `choices` when the set put them there), and the type they share (`string` when none are given,
 * as the set's own converters read it; none when they mix types).
 */
function enumType(s: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...s };
  let values = Array.isArray(s.enum) ? s.enum : undefined;
  if (values === undefined) {
    for (const k of ENUM_VALUE_KEYS) {
      const v = s[k];
      if (Array.isArray(v) && v.length > 0 && v.every((x) => x === null || typeof x !== 'object')) {
        values = v;
        delete out[k];
        out.enum = v;
        break;
      }
    }
  }
  const kinds = new Set((values ?? ['']).map((x) => (x === null ? 'null' : typeof x === 'number' ? (Number.isInteger(x) ? 'integer' : 'number') : typeof x)));
  if (kinds.has('integer') && kinds.has('number')) kinds.delete('integer');
  const only = kinds.size === 1 ? [...kinds][0]! : undefined;
  if (only !== undefined && JSON_TYPES.has(only)) out.type = only;
  else delete out.type;
  return out;
}

/** Whether a `type` value names something other than JSON Schema's own types. */
function isAliased(v: unknown): boolean {
  if (typeof v === 'string') return !JSON_TYPES.has(v) && aliasOf(v) !== undefined;
  return Array.isArray(v) && v.some((x) => typeof x === 'string' && !JSON_TYPES.has(x) && aliasOf(x) !== undefined);
}

const JSON_TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);
/**
 * How each subschema keyword holds its subschemas: one, a list (`items` either), or a map by name.
 * Looked up per key a schema node has: a node has a few keys, and probing each keyword of the
 * table on it (most absent) cost more than walking them.
 */
const SUB_KINDS: ReadonlyMap<string, 'one' | 'list' | 'one-or-list' | 'map'> = new Map([
  ...['additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties', 'additionalItems'].map(
    (k) => [k, 'one'] as const,
  ),
  ...['anyOf', 'oneOf', 'allOf', 'prefixItems'].map((k) => [k, 'list'] as const),
  ['items', 'one-or-list'] as const,
  ...['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'].map((k) => [k, 'map'] as const),
]);
export const hasOwn = Object.prototype.hasOwnProperty;

/**
 * A schema with every aliased type name (see TYPE_ALIASES) replaced by its JSON Schema type, at
 * every schema position; the same object when nothing is aliased (the usual case), so schemas
 * that are already JSON Schema are never copied. Unknown type names are left for the schema check
 * to report.
 */
export function jsonSchemaTypes(schema: JsonSchema): JsonSchema {
  return mapSchema(schema) as JsonSchema;
}

function mapSchema(s: unknown): unknown {
  if (!isObject(s)) return s;
  if (isEnumName(s.type)) return mapSchema(enumType(s));
  let out: Record<string, unknown> | null = null;
  const set = (k: string, v: unknown) => {
    if (v === s[k]) return;
    out ??= { ...s };
    if (v === undefined) delete out[k];
    else out[k] = v;
  };
  for (const k in s) {
    if (!hasOwn.call(s, k)) continue;
    const v = s[k];
    if (k === 'type') {
      if (!isAliased(v)) continue;
      if (typeof v === 'string') set('type', aliasOf(v) ?? undefined);
      else if (Array.isArray(v)) {
        const mapped = v.map((x) => (typeof x === 'string' && aliasOf(x) !== undefined ? aliasOf(x) : x));
        set('type', mapped.includes(null) ? undefined : [...new Set(mapped)]);
      }
      continue;
    }
    const kind = SUB_KINDS.get(k);
    if (kind === undefined) continue;
    if (kind !== 'list' && kind !== 'map' && isObject(v)) set(k, mapSchema(v));
    else if ((kind === 'list' || kind === 'one-or-list') && Array.isArray(v)) {
      let m: unknown[] | null = null;
      for (let i = 0; i < v.length; i++) {
        const x = mapSchema(v[i]);
        if (x !== v[i]) (m ??= v.slice(0, i)).push(x);
        else if (m) m.push(x);
      }
      if (m) set(k, m);
    } else if (kind === 'map' && isObject(v)) {
      let m: Record<string, unknown> | null = null;
      for (const name in v) {
        if (!hasOwn.call(v, name)) continue;
        const sub = v[name];
        const x = mapSchema(sub);
        if (x !== sub && m === null) {
          // The names before this one, unchanged, in their order.
          m = {};
          for (const before in v) {
            if (before === name) break;
            if (hasOwn.call(v, before)) m[before] = v[before];
          }
        }
        if (m) m[name] = x;
      }
      if (m) set(k, m);
    }
  }
  return out ?? s;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** JSON Schema's keywords (2020-12, 2019-09, draft-07) and OpenAPI's: a key of a schema that is none of them is a vendor keyword or a slip. */
const SCHEMA_KEYWORDS = new Set([
  '$schema',
  '$id',
  '$ref',
  '$defs',
  '$anchor',
  '$dynamicRef',
  '$dynamicAnchor',
  '$vocabulary',
  '$comment',
  '$recursiveRef',
  '$recursiveAnchor',
  'definitions',
  'type',
  'enum',
  'const',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxContains',
  'minContains',
  'maxProperties',
  'minProperties',
  'required',
  'dependentRequired',
  'dependencies',
  'properties',
  'patternProperties',
  'additionalProperties',
  'propertyNames',
  'unevaluatedProperties',
  'items',
  'prefixItems',
  'additionalItems',
  'contains',
  'unevaluatedItems',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'dependentSchemas',
  'format',
  'contentEncoding',
  'contentMediaType',
  'contentSchema',
  'title',
  'description',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
  'examples',
  'nullable',
  'example',
  'discriminator',
  'xml',
  'externalDocs',
]);
const SUB_SCHEMA = [
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'additionalItems',
  'contentSchema',
];
const SUB_SCHEMA_LIST = ['anyOf', 'oneOf', 'allOf', 'prefixItems', 'items'];
const SUB_SCHEMA_MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];

/**
 * Keys of a tool schema that read as a slip, not a keyword (where each stands, and why): a key
 * that is no keyword and has no value (`null`), or that holds a space. An unquoted comma in a YAML
 * flow mapping makes one — `{ type: string, description: City name, optionally with its country. }`
 * gives a description "City name" and a key "optionally with its country." — and JSON Schema
 * ignores unknown keywords, so no validator notices the text cut short. A vendor keyword
 * (`x-order: 2`, `nullable`) has a value and no space, and is never reported.
 */
export function suspectSchemaKeys(schema: unknown, at: (string | number)[] = []): { path: (string | number)[]; key: string; message: string }[] {
  const out: { path: (string | number)[]; key: string; message: string }[] = [];
  if (!isObject(schema)) return out;
  for (const [k, v] of Object.entries(schema)) {
    if (SCHEMA_KEYWORDS.has(k) || k.startsWith('x-')) continue;
    if (v === null)
      out.push({
        path: [...at, k],
        key: k,
        message: `"${k}" is no JSON Schema keyword and has no value: in a YAML flow mapping ({ … }) an unquoted comma ends the text before it; quote that text`,
      });
    else if (/\s/.test(k))
      out.push({ path: [...at, k], key: k, message: `"${k}" is no JSON Schema keyword (keywords have no spaces): text cut off from the value before it?` });
  }
  for (const k of SUB_SCHEMA) if (isObject(schema[k])) out.push(...suspectSchemaKeys(schema[k], [...at, k]));
  for (const k of SUB_SCHEMA_LIST) {
    const v = schema[k];
    if (Array.isArray(v)) v.forEach((sub, i) => out.push(...suspectSchemaKeys(sub, [...at, k, i])));
  }
  for (const k of SUB_SCHEMA_MAP) {
    const v = schema[k];
    if (isObject(v)) for (const [name, sub] of Object.entries(v)) out.push(...suspectSchemaKeys(sub, [...at, k, name]));
  }
  return out;
}

/**
 * Every `type` in a schema (after jsonSchemaTypes) that names no type: JSON Schema's own or a
 * spelling hsa reads. Each with the path of its `type` keyword below `at` and a message that names
 * the value, so a tool set's own word (`Decimal`) is reported as such rather than as ajv's list of
 * schema paths.
 */
export function unknownTypes(schema: unknown, at: (string | number)[] = []): { path: (string | number)[]; message: string }[] {
  const out: { path: (string | number)[]; message: string }[] = [];
  const walk = (s: unknown, p: (string | number)[]) => {
    if (!isObject(s)) return;
    const t = s.type;
    const names = typeof t === 'string' ? [t] : Array.isArray(t) ? t : [];
    for (const name of names) {
      if (typeof name === 'string' && !JSON_TYPES.has(name)) out.push({ path: [...p, 'type'], message: unknownTypeMessage(name) });
    }
    for (const k in s) {
      if (!hasOwn.call(s, k)) continue;
      const kind = SUB_KINDS.get(k);
      const v = s[k];
      if (kind === undefined) continue;
      if (kind !== 'list' && kind !== 'map' && isObject(v)) walk(v, [...p, k]);
      else if ((kind === 'list' || kind === 'one-or-list') && Array.isArray(v)) v.forEach((x, i) => walk(x, [...p, k, i]));
      else if (kind === 'map' && isObject(v)) for (const name in v) if (hasOwn.call(v, name)) walk(v[name], [...p, k, name]);
    }
  };
  walk(schema, at);
  return out;
}

function unknownTypeMessage(name: string): string {
  return `"${name}" is not a type hsa knows (JSON Schema's object, array, string, number, integer, boolean, null; or a spelling tool sets write, in any case: dict, list, tuple, str, int, long, float, double, bool, Number, Object, Array, HashMap, STRING, NUMBER, ENUM, DATE (…), any; see docs/harness-format.md)`;
}
