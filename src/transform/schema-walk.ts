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
    } else if (k === '$ref' && typeof v === 'string' && v.startsWith('#/')) {
      out[k] = renamePointer(v, paths);
    } else out[k] = v;
  }
  return out;
}

const sharedBySchema = new WeakMap<object, ReadonlySet<string>>();
const NONE: ReadonlySet<string> = new Set();

/**
 * Property names inside a part of the parameters that a local `$ref` reuses elsewhere
 * (`"destination": {"$ref": "#/properties/origin"}` reuses origin's `lat` and `lon`): their
 * arguments stand under more than one path, of which a rename by path reaches one only, so they
 * must keep their names. Once per schema object; empty for nearly every schema.
 */
export function sharedPropertyNames(schema: object): ReadonlySet<string> {
  let out = sharedBySchema.get(schema);
  if (out) return out;
  const refs: string[] = [];
  const collect = (v: unknown): void => {
    if (Array.isArray(v)) for (const x of v) collect(x);
    else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === '$ref' && typeof x === 'string' && x.startsWith('#/') && !/^#\/(\$defs|definitions)\//.test(x)) refs.push(x);
        else collect(x);
      }
    }
  };
  collect(schema);
  if (refs.length === 0) out = NONE;
  else {
    const names = new Set<string>();
    for (const ref of refs) {
      let target: unknown = schema;
      for (const seg of ref.slice(2).split('/')) target = target !== null && typeof target === 'object' ? (target as Record<string, unknown>)[seg.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
      walkProperties(target, (path) => names.add(path.slice(path.lastIndexOf('.') + 1)));
    }
    out = names;
  }
  sharedBySchema.set(schema, out);
  return out;
}

/**
 * A local reference into the parameters (`#/properties/origin`, reusing another parameter's
 * schema) with the renamed properties on its way renamed too: left as it was, it would point at
 * nothing and no validator could read the schema. References into `$defs` keep their path.
 */
function renamePointer(ref: string, paths: Record<string, string>): string {
  const seg = ref.slice(2).split('/');
  let prefix = '';
  for (let i = 0; i < seg.length; i++) {
    if (seg[i] === '$defs' || seg[i] === 'definitions') break;
    if (seg[i] !== 'properties' || i + 1 >= seg.length) continue;
    const name = seg[i + 1]!.replace(/~1/g, '/').replace(/~0/g, '~');
    const path = prefix === '' ? name : `${prefix}.${name}`;
    const to = paths[path];
    if (to !== undefined) seg[i + 1] = to.replace(/~/g, '~0').replace(/\//g, '~1');
    prefix = path;
    i++;
  }
  return `#/${seg.join('/')}`;
}

/**
 * Whether a property schema can hold property names (its own or nested): one that cannot (a
 * plain `{type, description}`, most of them) is kept as it is, shared with the source schema —
 * schemas are replaced, never changed in place.
 */
function hasInnerNames(schema: object): boolean {
  for (const k in schema) if (k === 'properties' || k === 'required' || k === 'items' || k === 'anyOf' || k === 'oneOf' || k === 'allOf' || k === '$ref') return true;
  return false;
}
