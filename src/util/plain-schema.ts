/**
 * "This schema compiles" without ajv, for the plain draft-07 schemas tool parameters are usually
 * written in. Answers `true` only when ajv, as compileSchema configures it (draft-07 meta-schema,
 * strict off, formats off), would certainly compile the schema; `false` means "not shown": ask ajv,
 * which decides and words the error.
 *
 * Why: a harness's tool schemas are checked at load, and loading ajv and compiling each schema
 * costs ~55 ms of every command that reads a harness folder, for a verdict this walk gives in well
 * under a millisecond. Nothing else about the schema is learnt here: records are validated later by
 * the quick test, ajv or the interpreter, as before.
 *
 * The subset is closed: any keyword not handled below, `$schema`, `$id`, a `$ref` other than
 * `#/$defs/<name>` or `#/definitions/<name>` naming an entry of the root, a tuple `items`, an enum
 * value that is not a primitive, a number that is not finite, a property named `__proto__`, or any
 * value that is not plain JSON makes the answer `false`. Each keyword's test is the draft-07
 * meta-schema's (ajv's copy: `enum` non-empty and unique) plus what ajv checks when it generates
 * code (`pattern` a `u`-flag regular expression, `enum` non-empty, `type` names JSON types).
 */

type Obj = Record<string, unknown>;

const TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);
const STRINGS = new Set(['title', 'description', '$comment', 'format']);
const NUMBERS = new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']);
const COUNTS = new Set(['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties']);
const BRANCHES = new Set(['anyOf', 'oneOf', 'allOf']);
const SUBSCHEMA = new Set(['additionalProperties', 'items', 'not']);
const DEFS = new Set(['$defs', 'definitions']);
const BOOLEANS = new Set(['uniqueItems', 'readOnly']);
const REF = /^#\/(\$defs|definitions)\/([A-Za-z0-9_-]+)$/;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;

/** Whether ajv's draft-07 instance would compile `schema` (false: not shown; ask ajv). */
export function plainSchemaCompiles(schema: unknown): boolean {
  if (!isObj(schema) || '$schema' in schema) return false;
  return node(schema, schema, 0);
}

function node(s: unknown, root: Obj, depth: number): boolean {
  if (s === true || s === false) return true;
  if (!isObj(s) || depth > 64) return false;
  for (const key of Object.keys(s)) {
    const v = s[key];
    if (STRINGS.has(key)) {
      if (typeof v !== 'string') return false;
    } else if (NUMBERS.has(key)) {
      if (typeof v !== 'number' || !Number.isFinite(v)) return false;
    } else if (COUNTS.has(key)) {
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) return false;
    } else if (BOOLEANS.has(key)) {
      if (typeof v !== 'boolean') return false;
    } else if (SUBSCHEMA.has(key)) {
      if (!node(v, root, depth + 1)) return false;
    } else if (BRANCHES.has(key)) {
      if (!Array.isArray(v) || v.length === 0 || !v.every((x) => node(x, root, depth + 1))) return false;
    } else if (key === 'properties' || (DEFS.has(key) && depth === 0)) {
      if (!isObj(v) || Object.hasOwn(v, '__proto__')) return false;
      for (const name of Object.keys(v)) if (!node(v[name], root, depth + 1)) return false;
    } else if (!other(key, v, root)) return false;
  }
  return true;
}

function other(key: string, v: unknown, root: Obj): boolean {
  switch (key) {
    case 'type':
      return typeof v === 'string' ? TYPES.has(v) : Array.isArray(v) && v.length > 0 && uniqueStrings(v) && v.every((t) => TYPES.has(t as string));
    case 'required':
      return Array.isArray(v) && uniqueStrings(v);
    case 'enum':
      return Array.isArray(v) && v.length > 0 && v.every(primitive) && new Set(v).size === v.length;
    case 'const':
    case 'default':
      return json(v, 0);
    case 'examples':
      return Array.isArray(v) && json(v, 0);
    case 'pattern':
      return typeof v === 'string' && compilesAsRegExp(v);
    case 'multipleOf':
      return typeof v === 'number' && Number.isFinite(v) && v > 0;
    case '$ref': {
      const m = typeof v === 'string' ? REF.exec(v) : null;
      if (!m) return false;
      const defs = root[m[1]!];
      return isObj(defs) && Object.hasOwn(defs, m[2]!);
    }
    default:
      return false;
  }
}

function uniqueStrings(list: unknown[]): boolean {
  return list.every((x) => typeof x === 'string') && new Set(list).size === list.length;
}

function primitive(v: unknown): boolean {
  return v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
}

/** Plain JSON only (what JSON.parse or a YAML core-schema document gives; no NaN, no Infinity). */
function json(v: unknown, depth: number): boolean {
  if (primitive(v)) return true;
  if (depth > 64) return false;
  if (Array.isArray(v)) return v.every((x) => json(x, depth + 1));
  if (!isObj(v)) return false;
  for (const k of Object.keys(v)) if (!json(v[k], depth + 1)) return false;
  return true;
}

function compilesAsRegExp(p: string): boolean {
  try {
    new RegExp(p, 'u');
    return true;
  } catch {
    return false;
  }
}
