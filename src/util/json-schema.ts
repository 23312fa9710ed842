import type { OutputUnit, Schema, Validator } from '@cfworker/json-schema';
import type { Ajv, ValidateFunction } from 'ajv';
import { createRequire } from 'node:module';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { schemaMemo } from './derived.js';
import { TextKeyedCache } from './bounded-cache.js';
import { distinctJson } from './canonical-json.js';
import { quickCheck } from './quick-schema.js';
import { put } from './copy.js';

/**
 * JSON Schema compilation through ajv, cached by the schema's canonical JSON so a schema shared
 * by thousands of records (or variants) is compiled once. Draft-07 by default; 2019-09/2020-12
 * when the schema's `$schema` says so.
 */
// Schemas are compiled many times over (every renamed variant is a new schema), so compilation is
// kept lean: no meta-schema pass for schemas hsa produced itself, no code optimisation pass. The
// instances are replaced with the cache, because ajv keeps every schema it compiled.
export const AJV_OPTIONS = { strict: false, allErrors: true, validateFormats: false, code: { optimize: false } } as const;
// ajv (a CommonJS package of ~100 files, ~30 ms to load) is loaded for the first schema compiled:
// a run whose every call the quick test answers never needs it.
let AjvClass: typeof Ajv | undefined;
function newAjv(options: ConstructorParameters<typeof Ajv>[0]): Ajv {
  AjvClass ??= (createRequire(import.meta.url)('ajv') as typeof import('ajv')).Ajv;
  return new AjvClass(options);
}
let draft7: Ajv | undefined;
let draft2020: Ajv2020 | undefined;
const cache = new Map<string, ValidateFunction | { error: string }>();

// Most tool schemas are draft-07: ajv's 2019-09/2020-12 build is loaded (and its instances made)
// for the first schema that asks for it. `require` gives the module `import` would (ajv is CommonJS).
let Ajv2020Class: typeof Ajv2020 | undefined;
function newAjv2020(options: ConstructorParameters<typeof Ajv2020>[0]): Ajv2020 {
  Ajv2020Class ??= (createRequire(import.meta.url)('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js')).Ajv2020;
  return new Ajv2020Class(options);
}
const byObject = new WeakMap<object, ValidateFunction | { error: string }>();

/**
 * What the `format` keyword means to every validation tier: an annotation (the 2019-09 and later
 * drafts' default, and hsa's) or an assertion (`validation.formats: assert`). The quick test, ajv
 * and the interpreter then agree: as an annotation `format` is ignored by all three; as an
 * assertion only the interpreter (which knows the formats) may call a schema with `format` valid.
 */
export type FormatMode = 'annotation' | 'assertion';
let formatMode: FormatMode = 'annotation';

/** Set what `format` means for the rest of the process (a run's or a validate's setting). */
export function setFormatMode(mode: FormatMode): void {
  if (mode === formatMode) return;
  formatMode = mode;
  // Verdicts cached under the other meaning must not be reused (quick tests are kept per meaning).
  validators = new WeakMap();
  validatorsById.clear();
}

/** The current meaning of `format` (see setFormatMode). */
export function getFormatMode(): FormatMode {
  return formatMode;
}

export function compileSchema(schema: unknown): ValidateFunction | { error: string } {
  // Harness states share schema objects, so identity is the fast path; canonical JSON the slow one.
  if (schema !== null && typeof schema === 'object') {
    const seen = byObject.get(schema);
    if (seen) return seen;
  }
  const key = distinctJson(schema);
  const hit = cache.get(key);
  if (hit) {
    if (schema !== null && typeof schema === 'object') byObject.set(schema, hit);
    return hit;
  }
  let out: ValidateFunction | { error: string };
  try {
    const s = schema as { $schema?: unknown };
    const ajv = schemaDraft(s) === '7' ? (draft7 ??= newAjv(AJV_OPTIONS)) : (draft2020 ??= newAjv2020(AJV_OPTIONS));
    out = ajv.compile(schema as object);
  } catch (e) {
    out = { error: (e as Error).message };
  }
  if (cache.size > 2_000) {
    cache.clear();
    draft7 = undefined;
    draft2020 = undefined;
  }
  cache.set(key, out);
  if (schema !== null && typeof schema === 'object') byObject.set(schema, out);
  return out;
}

/**
 * Validate call arguments against a tool schema; `[]` when valid, else readable messages with
 * their paths (`arguments.filter.max: must be integer`).
 *
 * Errors are worked out by an interpreting validator (@cfworker/json-schema); "valid" is answered
 * by the quick test or by ajv where they can (see computeErrors). Validators are cached per schema
 * object and per validation meaning.
 */
export function schemaErrors(schema: unknown, value: unknown): string[] {
  if (schema === null || typeof schema !== 'object') return ['schema does not compile: not an object'];
  return computeErrors(schema, value);
}

/** The interpreter's verdict alone (for tests that hold the fast path to it). */
export function interpretedErrors(schema: unknown, value: unknown): string[] {
  if (schema === null || typeof schema !== 'object') return ['schema does not compile: not an object'];
  const v = validatorFor(schema);
  if (typeof v === 'string') return [`schema does not compile: ${v}`];
  const r = interpret(v, value);
  return typeof r === 'string' ? [r] : r.valid ? [] : readableErrors(r.errors, schema);
}

/**
 * The interpreter's result, or why the schema cannot be used: it compiles lazily, so an
 * unresolvable `$ref` or a pattern that is no regular expression throws only now. That is a
 * finding about the schema (a variant's schema broken by a transform is a failed check on that
 * variant), never an error that ends the run.
 */
function interpret(v: Validator, value: unknown): ReturnType<Validator['validate']> | string {
  try {
    return v.validate(value);
  } catch (e) {
    return `schema does not compile: ${String((e as Error).message).split('\n')[0]}`;
  }
}

function computeErrors(schema: object, value: unknown): string[] {
  // "Valid" comes first from the quick test (quick-schema.ts) when the schema is in its subset,
  // then from ajv when it can say so: a compiled validator answers ten times faster than the
  // interpreter. Schemas ajv compiled at harness load are used as they are; any other schema (a
  // state's renamed tool) is compiled once per validation meaning. ajv runs with formats off: that
  // is the annotation meaning; when formats are assertions, a schema with a `format` keyword goes
  // to the interpreter. Whenever neither says "valid", the interpreter decides and explains.
  const quick = quickFor(schema);
  if (quick !== null && quick(value)) return [];
  if (formatMode === 'annotation' || !hasFormat(schema)) {
    const compiled = byObject.get(schema) ?? fastValidator(schema);
    if (typeof compiled === 'function' && compiled(value)) return [];
  }
  const v = validatorFor(schema);
  if (typeof v === 'string') return [`schema does not compile: ${v}`];
  const r = interpret(v, value);
  if (typeof r === 'string') return [r];
  if (r.valid) return [];
  return readableErrors(r.errors, schema);
}

/** The keys of a schema's quick tests, one per meaning of `format` (see derived.ts). */
const QUICK = { annotation: Symbol('hsa.quick'), assertion: Symbol('hsa.quickFormats') } as const;

/**
 * The quick test of a schema, or null; once per schema object and meaning of `format`. (Building
 * one costs less than working out the schema's validation meaning to share it: a state's renamed
 * schemas are new objects with new meanings, met by a call or two each when every record has its
 * own tools.)
 */
function quickFor(schema: object): ((v: unknown) => boolean) | null {
  const mode = formatMode;
  // (null, "no quick test", is kept as `false`: the memo keeps no undefined or null.)
  return schemaMemo(QUICK[mode], schema, () => quickCheck(schema, mode) ?? false) || null;
}

const validationIds = new WeakMap<object, number>();

// Validators for "is it valid" only: no error collection or messages (a third less to compile), no
// schema check (the harness's schemas were checked at load; states' schemas are derived from
// them). Cached per validation meaning; the ajv instance is replaced with the cache, because ajv
// keeps every schema it compiled.
const FAST_OPTIONS = { strict: false, allErrors: false, messages: false, validateFormats: false, validateSchema: false, code: { optimize: false } } as const;
let fastDraft7: Ajv | undefined;
let fastDraft2020: Ajv2020 | undefined;
const fastById = new Map<number, ValidateFunction | null>();
const fastByObject = new WeakMap<object, ValidateFunction | null>();

function fastValidator(schema: object): ValidateFunction | null {
  const seen = fastByObject.get(schema);
  if (seen !== undefined) return seen;
  const id = validationId(schema);
  let v = fastById.get(id);
  if (v === undefined) {
    if (fastById.size >= 1_024) {
      fastById.clear();
      fastDraft7 = undefined;
      fastDraft2020 = undefined;
    }
    try {
      const s = schema as { $schema?: unknown };
      v = (schemaDraft(s) === '7' ? (fastDraft7 ??= newAjv(FAST_OPTIONS)) : (fastDraft2020 ??= newAjv2020(FAST_OPTIONS))).compile(schema);
    } catch {
      v = null; // the interpreter reports what is wrong
    }
    fastById.set(id, v);
  }
  fastByObject.set(schema, v);
  return v;
}
// Keyed by the schema's text, with a budget: memory must not grow with the number of states.
const idsByShape = new TextKeyedCache<number>(1_000_000);

/**
 * A number per distinct validation meaning: schemas equal once annotations (description, title,
 * examples, default, $comment) are dropped get the same id. Computed once per schema object.
 */
function validationId(schema: object): number {
  let id = validationIds.get(schema);
  if (id === undefined) {
    const shape = distinctJson(validationShape(schema));
    id = idsByShape.get(shape);
    if (id === undefined) idsByShape.set(shape, (id = nextValidationId++));
    validationIds.set(schema, id);
  }
  return id;
}

let nextValidationId = 1;
const ANNOTATIONS = new Set(['description', 'title', 'examples', 'default', '$comment']);
const NAME_MAPS = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas', 'dependencies']);

/** A schema without its annotation keywords (property names and enum/const values kept as they are). */
function validationShape(s: unknown): unknown {
  return withoutKeywords(s, (k) => ANNOTATIONS.has(k));
}

/** A schema without the keywords `drop` names, wherever they are keywords (not property names, not enum/const values). */
function withoutKeywords(s: unknown, drop: (key: string, value: unknown) => boolean): unknown {
  if (Array.isArray(s)) return s.map((x) => withoutKeywords(x, drop));
  if (s === null || typeof s !== 'object') return s;
  const out: Record<string, unknown> = {};
  // (put: a property named __proto__ stays an own key of the copy, as in the schema.)
  for (const [k, v] of Object.entries(s)) {
    if (drop(k, v)) continue;
    if (k === 'enum' || k === 'const') put(out, k, v);
    else if (NAME_MAPS.has(k) && v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const names: Record<string, unknown> = {};
      for (const [name, sub] of Object.entries(v)) put(names, name, withoutKeywords(sub, drop));
      put(out, k, names);
    } else put(out, k, withoutKeywords(v, drop));
  }
  return out;
}

// The interpreter (9 ES modules) is loaded for the first schema it is asked about: a run whose
// every call the quick test or ajv calls valid never needs it. `require` gives the package's
// CommonJS build, the same code; nothing else in hsa loads the package.
let ValidatorClass: typeof Validator | undefined;
function newValidator(...args: ConstructorParameters<typeof Validator>): Validator {
  ValidatorClass ??= (createRequire(import.meta.url)('@cfworker/json-schema') as typeof import('@cfworker/json-schema')).Validator;
  return new ValidatorClass(...args);
}

let validators = new WeakMap<object, Validator | string>();
const formats = new WeakMap<object, boolean>();

/** Whether a `format` key appears anywhere in the schema (conservatively: also a property named so). */
function hasFormat(schema: object): boolean {
  let hit = formats.get(schema);
  if (hit === undefined) formats.set(schema, (hit = JSON.stringify(schema).includes('"format":')));
  return hit;
}

function validatorFor(schema: unknown): Validator | string {
  if (schema === null || typeof schema !== 'object') return 'not an object';
  const hit = validators.get(schema);
  if (hit) return hit;
  // States share validation meaning more often than schema objects (a renamed tool's schema differs
  // in descriptions only): one validator per meaning.
  const id = validationId(schema);
  const same = validatorsById.get(id);
  if (same) {
    validators.set(schema, same);
    return same;
  }
  let out: Validator | string;
  try {
    const s = schema as { $schema?: unknown };
    const draft = schemaDraft(s);
    // The interpreter asserts formats: as annotations they are taken out first (keyword locations
    // stay the same, so its messages still point into the schema as written).
    out = newValidator((formatMode === 'annotation' ? withoutFormats(schema) : schema) as Schema, draft, false);
  } catch (e) {
    out = (e as Error).message;
  }
  validators.set(schema, out);
  if (validatorsById.size >= 1_024) validatorsById.clear();
  validatorsById.set(id, out);
  return out;
}

const validatorsById = new Map<number, Validator | string>();

/** A schema without its `format` keywords (property names and enum/const values kept as they are). */
function withoutFormats(s: unknown): unknown {
  return withoutKeywords(s, (k, v) => k === 'format' && typeof v === 'string');
}

const CONTAINERS = new Set([
  'properties',
  'items',
  'prefixItems',
  'additionalItems',
  'allOf',
  'patternProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'dependentSchemas',
  'if',
  'then',
  'else',
  '$ref',
]);

function readableErrors(errors: readonly OutputUnit[], schema: unknown): string[] {
  // A failed anyOf/oneOf is reported once, without the failures of each branch.
  const branchRoots = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').map((e) => `${e.keywordLocation}/`);
  const out: string[] = [];
  for (const e of errors) {
    if (CONTAINERS.has(e.keyword)) continue;
    if (branchRoots.some((root) => e.keywordLocation.startsWith(root))) continue;
    const where = instancePath(e.instanceLocation);
    if (e.keyword === 'additionalProperties') {
      const m = /Property "(.*)" does not match/.exec(e.error);
      if (pointer(schema, e.keywordLocation) === false && m) out.push(`${where}: unknown property "${m[1]}"`);
    } else if (e.keyword === 'false') {
      const parent = e.instanceLocation.slice(0, e.instanceLocation.lastIndexOf('/'));
      if (!errors.some((x) => x.keyword === 'additionalProperties' && x.instanceLocation === (parent || '#'))) out.push(`${where}: is not allowed`);
    } else if (e.keyword === 'required') {
      const m = /required property "(.*)"/.exec(e.error);
      out.push(`${where}: missing required property "${m ? m[1] : '?'}"`);
    } else if (e.keyword === 'type') {
      const expected = pointer(schema, e.keywordLocation);
      out.push(`${where}: must be ${Array.isArray(expected) ? expected.join(',') : String(expected)}`);
    } else if (e.keyword === 'enum') {
      out.push(`${where}: must be one of ${JSON.stringify(pointer(schema, e.keywordLocation))}`);
    } else if (e.keyword === 'const') {
      out.push(`${where}: must be equal to ${JSON.stringify(pointer(schema, e.keywordLocation))}`);
    } else if (e.keyword in BOUNDS) {
      out.push(`${where}: ${BOUNDS[e.keyword]!(pointer(schema, e.keywordLocation))}`);
    } else if (e.keyword === 'anyOf' || e.keyword === 'oneOf') {
      out.push(`${where}: must match ${e.keyword === 'oneOf' ? 'exactly one' : 'at least one'} of the allowed forms`);
    } else out.push(`${where}: ${e.error.replace(/^Instance /, '').replace(/\.$/, '')}`);
  }
  return [...new Set(out)];
}

/** The same phrasing as ajv's messages, so reports read alike wherever a schema is checked. */
const BOUNDS: Record<string, (n: unknown) => string> = {
  minimum: (n) => `must be >= ${String(n)}`,
  maximum: (n) => `must be <= ${String(n)}`,
  exclusiveMinimum: (n) => `must be > ${String(n)}`,
  exclusiveMaximum: (n) => `must be < ${String(n)}`,
  minLength: (n) => `must NOT have fewer than ${String(n)} characters`,
  maxLength: (n) => `must NOT have more than ${String(n)} characters`,
  minItems: (n) => `must NOT have fewer than ${String(n)} items`,
  maxItems: (n) => `must NOT have more than ${String(n)} items`,
  pattern: (n) => `must match pattern "${String(n)}"`,
  multipleOf: (n) => `must be multiple of ${String(n)}`,
};

function instancePath(location: string): string {
  const parts = location
    .replace(/^#\/?/, '')
    .split('/')
    .filter((p) => p !== '');
  return ['arguments', ...parts.map((p) => decodeURIComponent(p).replace(/~1/g, '/').replace(/~0/g, '~'))].join('.');
}

function pointer(schema: unknown, location: string): unknown {
  let cur = schema;
  for (const raw of location
    .replace(/^#\/?/, '')
    .split('/')
    .filter((p) => p !== '')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/** The draft a schema declares in `$schema`: 2020-12, 2019-09, or draft-07 by default. */
function schemaDraft(s: { $schema?: unknown }): '7' | '2019-09' | '2020-12' {
  if (typeof s.$schema !== 'string') return '7';
  return /2020-12/.test(s.$schema) ? '2020-12' : /2019-09/.test(s.$schema) ? '2019-09' : '7';
}
