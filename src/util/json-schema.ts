import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { canonicalJson } from './canonical-json.js';

/**
 * JSON Schema compilation through ajv, cached by the schema's canonical JSON so a schema shared
 * by thousands of records (or variants) is compiled once. Draft-07 by default; 2019-09/2020-12
 * when the schema's `$schema` says so.
 */
// Schemas are compiled many times over (every renamed variant is a new schema), so compilation is
// kept lean: no meta-schema pass for schemas hsa produced itself, no code optimisation pass. The
// instances are replaced with the cache, because ajv keeps every schema it compiled.
const AJV_OPTIONS = { strict: false, allErrors: true, validateFormats: false, code: { optimize: false } } as const;
let draft7 = new Ajv(AJV_OPTIONS);
let draft2020 = new Ajv2020(AJV_OPTIONS);
const cache = new Map<string, ValidateFunction | { error: string }>();
const byObject = new WeakMap<object, ValidateFunction | { error: string }>();

export function compileSchema(schema: unknown): ValidateFunction | { error: string } {
  // Harness states share schema objects, so identity is the fast path; canonical JSON the slow one.
  if (schema !== null && typeof schema === 'object') {
    const seen = byObject.get(schema);
    if (seen) return seen;
  }
  const key = canonicalJson(schema);
  const hit = cache.get(key);
  if (hit) {
    if (schema !== null && typeof schema === 'object') byObject.set(schema, hit);
    return hit;
  }
  let out: ValidateFunction | { error: string };
  try {
    const s = schema as { $schema?: unknown };
    const ajv = typeof s.$schema === 'string' && /2019-09|2020-12/.test(s.$schema) ? draft2020 : draft7;
    out = ajv.compile(schema as object);
  } catch (e) {
    out = { error: (e as Error).message };
  }
  if (cache.size > 2_000) {
    cache.clear();
    draft7 = new Ajv(AJV_OPTIONS);
    draft2020 = new Ajv2020(AJV_OPTIONS);
  }
  cache.set(key, out);
  if (schema !== null && typeof schema === 'object') byObject.set(schema, out);
  return out;
}

/** Validate `value`; `[]` when valid, else readable messages with their JSON paths. */
export function schemaErrors(schema: unknown, value: unknown): string[] {
  const v = compileSchema(schema);
  if ('error' in v) return [`schema does not compile: ${v.error}`];
  if (v(value)) return [];
  return (v.errors ?? []).map(formatAjvError);
}

function formatAjvError(e: ErrorObject): string {
  const where = e.instancePath === '' ? 'arguments' : `arguments${e.instancePath.replace(/\//g, '.')}`;
  if (e.keyword === 'additionalProperties') {
    return `${where}: unknown property "${(e.params as { additionalProperty: string }).additionalProperty}"`;
  }
  if (e.keyword === 'required') {
    return `${where}: missing required property "${(e.params as { missingProperty: string }).missingProperty}"`;
  }
  if (e.keyword === 'enum') {
    return `${where}: must be one of ${JSON.stringify((e.params as { allowedValues: unknown[] }).allowedValues)}`;
  }
  return `${where}: ${e.message ?? e.keyword}`;
}
