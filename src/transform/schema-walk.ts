import type { JsonSchema } from '../harness/types.js';
import { keyedObject } from '../util/dict.js';

/**
 * Walk the object properties of a JSON Schema: `visit(path, propertySchema, parentSchema)` for
 * every property, with paths of key names joined by dots (array items are transparent, like
 * argument paths in a rewrite plan).
 */
export function walkProperties(schema: unknown, visit: (path: string, prop: Record<string, unknown>, parent: Record<string, unknown>) => void, prefix = ''): void {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return;
  const s = schema as Record<string, unknown>;
  const props = s.properties;
  if (props && typeof props === 'object') {
    for (const [k, v] of Object.entries(props as Record<string, unknown>)) {
      const path = prefix === '' ? k : `${prefix}.${k}`;
      if (v && typeof v === 'object') {
        visit(path, v as Record<string, unknown>, s);
        walkProperties(v, visit, path);
      }
    }
  }
  if (s.items) walkProperties(s.items, visit, prefix);
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const list = s[key];
    if (Array.isArray(list)) for (const sub of list) walkProperties(sub, visit, prefix);
  }
}

/** Rename property keys (and `required` entries) by path; returns a new schema, key order kept. */
export function renameSchemaProperties(schema: JsonSchema, paths: Record<string, string>, prefix = ''): JsonSchema {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'properties' && v && typeof v === 'object') {
      const props = keyedObject();
      for (const [name, sub] of Object.entries(v as Record<string, unknown>)) {
        const path = prefix === '' ? name : `${prefix}.${name}`;
        props[paths[path] ?? name] = sub && typeof sub === 'object' && !Array.isArray(sub) && hasInnerNames(sub) ? renameSchemaProperties(sub as JsonSchema, paths, path) : sub;
      }
      out[k] = props;
    } else if (k === 'required' && Array.isArray(v)) {
      out[k] = v.map((name) => (typeof name === 'string' ? (paths[prefix === '' ? name : `${prefix}.${name}`] ?? name) : name));
    } else if (k === 'items' && v && typeof v === 'object' && !Array.isArray(v)) {
      out[k] = renameSchemaProperties(v as JsonSchema, paths, prefix);
    } else if ((k === 'anyOf' || k === 'oneOf' || k === 'allOf') && Array.isArray(v)) {
      out[k] = v.map((sub) => (sub && typeof sub === 'object' ? renameSchemaProperties(sub as JsonSchema, paths, prefix) : sub));
    } else out[k] = v;
  }
  return out;
}

/**
 * Whether a property schema can hold property names (its own or nested): one that cannot (a
 * plain `{type, description}`, most of them) is kept as it is, shared with the source schema —
 * schemas are replaced, never changed in place.
 */
function hasInnerNames(schema: object): boolean {
  for (const k in schema) if (k === 'properties' || k === 'required' || k === 'items' || k === 'anyOf' || k === 'oneOf' || k === 'allOf') return true;
  return false;
}
