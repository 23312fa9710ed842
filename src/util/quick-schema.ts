/**
 * A "certainly valid" test for the JSON Schemas tool parameters are usually written in, built as a
 * tree of closures. It answers only `true` (the value is valid) or `false` (not shown valid: ask
 * ajv and the interpreter, which decide and explain).
 *
 * Why: a run validates every call of every variant against its state's tool schemas — hundreds of
 * distinct schemas (each state renames parameters) used a few hundred times each. ajv compiles a
 * JavaScript function per schema (~0.5 ms each), and that many functions, each called a few
 * hundred times, never get hot enough for V8 to optimise: they run in the bytecode interpreter at
 * ~2.5 µs a call. The closures here are the same few functions for every schema, so they are hot
 * after the first records: ~0.2 µs a call, and ~20 µs to build per schema.
 *
 * Only a conservative subset is taken (the keywords below, with the meaning draft-07 and 2020-12
 * give them alike); a schema with any other keyword, a draft-04 boolean bound, a tuple `items` or a
 * property named like an Object.prototype member gets no quick test. Annotations are ignored.
 */

type Check = (v: unknown) => boolean;

const ANNOTATIONS = new Set(['$schema', '$id', '$comment', 'title', 'description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly']);
const TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);

class Unsupported extends Error {}

/**
 * The quick test of a schema, or null when the schema uses anything outside the subset. With
 * `formats: 'annotation'` (the 2019-09+ meaning, hsa's default) `format` is an annotation like
 * `title`; with `'assertion'` a schema using it is outside the subset.
 */
export function quickCheck(schema: unknown, formats: 'annotation' | 'assertion' = 'assertion'): Check | null {
  try {
    formatIsAnnotation = formats === 'annotation';
    return build(schema, false);
  } catch (e) {
    if (e instanceof Unsupported) return null;
    throw e;
  }
}

/** Set by quickCheck for the schema being built (building is synchronous). */
let formatIsAnnotation = false;

const always: Check = () => true;
const never: Check = () => false;

/**
 * The test of one schema. With `exact`, `false` must also mean "invalid" (inside `oneOf`, where a
 * branch's false is counted): the one test that cannot say so (uniqueItems over objects) is then
 * not taken.
 */
function build(s: unknown, exact: boolean): Check {
  if (s === true) return always;
  if (s === false) return never;
  if (s === null || typeof s !== 'object' || Array.isArray(s)) throw new Unsupported();
  const checks: Check[] = [];
  const obj = s as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    if (ANNOTATIONS.has(key) || (key === 'format' && formatIsAnnotation)) continue;
    const v = obj[key];
    switch (key) {
      case 'type':
        checks.push(typeCheck(v));
        break;
      case 'enum':
        checks.push(enumCheck(v));
        break;
      case 'const':
        checks.push(enumCheck([v]));
        break;
      case 'properties':
      case 'required':
      case 'additionalProperties':
        break; // built together below
      case 'minLength':
      case 'maxLength':
        checks.push(lengthCheck(key, count(v)));
        break;
      case 'pattern':
        checks.push(patternCheck(v));
        break;
      case 'minimum':
      case 'maximum':
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
        checks.push(boundCheck(key, v));
        break;
      case 'items':
        checks.push(itemsCheck(v, exact));
        break;
      case 'minItems':
      case 'maxItems':
        checks.push(itemCountCheck(key, count(v)));
        break;
      case 'uniqueItems':
        if (v === true && !exact) checks.push(uniqueCheck);
        else if (v !== false) throw new Unsupported();
        break;
      case 'anyOf':
      case 'allOf':
      case 'oneOf':
        checks.push(branchCheck(key, v, exact));
        break;
      default:
        throw new Unsupported();
    }
  }
  if ('properties' in obj || 'required' in obj || 'additionalProperties' in obj) checks.push(objectCheck(obj, exact));
  if (checks.length === 0) return always;
  if (checks.length === 1) return checks[0]!;
  return (x) => {
    for (let i = 0; i < checks.length; i++) if (!checks[i]!(x)) return false;
    return true;
  };
}

const isObject = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === 'object' && !Array.isArray(x);

function typeCheck(t: unknown): Check {
  const names = Array.isArray(t) ? t : [t];
  if (names.length === 0 || names.some((n) => typeof n !== 'string' || !TYPES.has(n))) throw new Unsupported();
  const one = (n: string): Check => {
    switch (n) {
      case 'object':
        return isObject;
      case 'array':
        return Array.isArray;
      case 'string':
        return (x) => typeof x === 'string';
      case 'number':
        return (x) => typeof x === 'number' && Number.isFinite(x);
      case 'integer':
        return (x) => typeof x === 'number' && Number.isInteger(x);
      case 'boolean':
        return (x) => typeof x === 'boolean';
      default:
        return (x) => x === null;
    }
  };
  const list = (names as string[]).map(one);
  if (list.length === 1) return list[0]!;
  return (x) => list.some((c) => c(x));
}

function enumCheck(values: unknown): Check {
  // Primitives only (strings, numbers, booleans, null): compared with ===, as deep equality would.
  if (!Array.isArray(values) || values.some((v) => v !== null && typeof v === 'object')) throw new Unsupported();
  const set = new Set<unknown>(values);
  return (x) => (x === null || typeof x !== 'object') && set.has(x);
}

function count(v: unknown): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new Unsupported();
  return v;
}

/** Length in code points (a surrogate pair is one character), as ajv and the interpreter count. */
function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

function lengthCheck(key: 'minLength' | 'maxLength', n: number): Check {
  // UTF-16 length ≥ code points ≥ half the UTF-16 length: count only when that does not decide.
  if (key === 'maxLength') return (x) => typeof x !== 'string' || x.length <= n || codePoints(x) <= n;
  return (x) => typeof x !== 'string' || (x.length >= 2 * n ? true : x.length >= n && codePoints(x) >= n);
}

function patternCheck(p: unknown): Check {
  if (typeof p !== 'string') throw new Unsupported();
  let re: RegExp;
  try {
    re = new RegExp(p, 'u');
  } catch {
    throw new Unsupported();
  }
  return (x) => typeof x !== 'string' || re.test(x);
}

function boundCheck(key: 'minimum' | 'maximum' | 'exclusiveMinimum' | 'exclusiveMaximum', b: unknown): Check {
  if (typeof b !== 'number' || !Number.isFinite(b)) throw new Unsupported(); // (draft-04 boolean bounds too)
  switch (key) {
    case 'minimum':
      return (x) => typeof x !== 'number' || x >= b;
    case 'maximum':
      return (x) => typeof x !== 'number' || x <= b;
    case 'exclusiveMinimum':
      return (x) => typeof x !== 'number' || x > b;
    default:
      return (x) => typeof x !== 'number' || x < b;
  }
}

function itemsCheck(items: unknown, exact: boolean): Check {
  if (Array.isArray(items)) throw new Unsupported(); // tuple form: differs between drafts
  const each = build(items, exact);
  return (x) => {
    if (!Array.isArray(x)) return true;
    for (let i = 0; i < x.length; i++) if (!each(x[i])) return false;
    return true;
  };
}

function itemCountCheck(key: 'minItems' | 'maxItems', n: number): Check {
  return key === 'minItems' ? (x) => !Array.isArray(x) || x.length >= n : (x) => !Array.isArray(x) || x.length <= n;
}

/**
 * anyOf: one branch shown valid is enough. allOf: every branch. oneOf: exactly one branch valid,
 * so every branch's test must be exact.
 */
function branchCheck(key: 'anyOf' | 'allOf' | 'oneOf', branches: unknown, exact: boolean): Check {
  if (!Array.isArray(branches) || branches.length === 0) throw new Unsupported();
  const list = branches.map((b) => build(b, key === 'oneOf' || exact));
  if (key === 'allOf') return (x) => list.every((c) => c(x));
  if (key === 'anyOf') return (x) => list.some((c) => c(x));
  return (x) => {
    let n = 0;
    for (let i = 0; i < list.length; i++) if (list[i]!(x) && ++n > 1) return false;
    return n === 1;
  };
}

const uniqueCheck: Check = (x) => {
  if (!Array.isArray(x)) return true;
  // Primitive items only (objects and arrays would need deep equality: not shown valid here).
  for (const v of x) if (v !== null && typeof v === 'object') return false;
  return new Set(x).size === x.length;
};

function objectCheck(obj: Record<string, unknown>, exact: boolean): Check {
  const props = obj.properties ?? {};
  if (!isObject(props)) throw new Unsupported();
  const required = obj.required ?? [];
  if (!Array.isArray(required) || required.some((r) => typeof r !== 'string')) throw new Unsupported();
  const names = [...Object.keys(props), ...(required as string[])];
  // ajv reads `data[name] !== undefined`: a name on Object.prototype would be found on any object.
  if (names.some((n) => n in Object.prototype)) throw new Unsupported();
  const known = new Map<string, Check>();
  for (const [name, sub] of Object.entries(props)) known.set(name, build(sub, exact));
  const extra = obj.additionalProperties;
  const other: Check | null = extra === undefined || extra === true ? null : build(extra, exact);
  const req = required as string[];
  return (x) => {
    if (!isObject(x)) return true;
    for (let i = 0; i < req.length; i++) if (x[req[i]!] === undefined) return false;
    for (const key in x) {
      const check = known.get(key);
      if (check !== undefined) {
        if (!check(x[key])) return false;
      } else if (other !== null && !other(x[key])) return false;
    }
    return true;
  };
}
