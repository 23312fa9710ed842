import type { JsonSchema } from '../harness/types.js';
import { put } from '../util/copy.js';
import { keyedObject } from '../util/dict.js';
import { schemaMemo } from '../util/derived.js';
import { declaredAt, expandBranches, itemSchemas, resolveLocalRef } from './schema-places.js';

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * Walk the object properties of a JSON Schema: `visit(path, propertySchema, parentSchema)` for
 * every property, with paths of key names joined by dots (array items are transparent, like
 * argument paths in a rewrite plan). A local `$ref` (`#/$defs/FlightInfo`, `#/definitions/Bag`,
 * `#/properties/origin`) is followed into what it points at, resolved against the schema walked,
 * so the properties of a referenced model have the paths their arguments have; a reference to a
 * model already being walked (a recursive model) is not followed again, so every walk ends.
 */
export function walkProperties(schema: unknown, visit: (path: string, prop: Record<string, unknown>, parent: Record<string, unknown>) => void): void {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return;
  walkFrom(schema, visit, '', schema, new Set([schema]), undefined, { left: WALK_BUDGET });
}

/** Property visits one walk makes at most: a schema whose references nest twice at each of many levels would list paths without end. */
const WALK_BUDGET = 20_000;

function walkFrom(
  schema: unknown,
  visit: (path: string, prop: Record<string, unknown>, parent: Record<string, unknown>) => void,
  prefix: string,
  root: object,
  onStack: Set<object>,
  onCycle: ((target: object) => void) | undefined,
  budget: { left: number },
): void {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return;
  const s = schema as Record<string, unknown>;
  const props = s.properties;
  if (props && typeof props === 'object') {
    // (Object.keys, not entries: a renamed schema's `properties` is in dictionary mode, where entries cost most.)
    for (const k of Object.keys(props)) {
      const v = (props as Record<string, unknown>)[k];
      const path = prefix === '' ? k : `${prefix}.${k}`;
      if (v && typeof v === 'object') {
        if (--budget.left < 0) return;
        visit(path, v as Record<string, unknown>, s);
        walkFrom(v, visit, path, root, onStack, onCycle, budget);
      }
    }
  }
  if (s.items) walkFrom(s.items, visit, prefix, root, onStack, onCycle, budget);
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const list = s[key];
    if (Array.isArray(list)) for (const sub of list) walkFrom(sub, visit, prefix, root, onStack, onCycle, budget);
  }
  const ref = s.$ref;
  if (typeof ref === 'string') {
    const target = resolveLocalRef(root, ref);
    if (target === null || typeof target !== 'object' || Array.isArray(target)) return;
    if (onStack.has(target)) return void onCycle?.(target);
    onStack.add(target);
    walkFrom(target, visit, prefix, root, onStack, onCycle, budget);
    onStack.delete(target);
  }
}

/**
 * Rename property keys (and `required` entries) by path; returns a new schema, key order kept.
 * Definitions (`$defs`, `definitions`) are not reached by a path of their own: a property a
 * definition declares is renamed by its name, `names` (old → new), in every definition that
 * declares it — the paths through a `$ref` into it end in the same names — and references keep
 * pointing at the one shared definition.
 */
export function renameSchemaProperties(schema: JsonSchema, paths: Record<string, string>, names: Record<string, string> = {}, prefix = ''): JsonSchema {
  const out: Record<string, unknown> = {};
  for (const k in schema) {
    if (!hasOwn.call(schema, k)) continue;
    const v = (schema as Record<string, unknown>)[k];
    if (k === 'properties' && v && typeof v === 'object') {
      const props = keyedObject();
      for (const name of Object.keys(v)) {
        const sub = (v as Record<string, unknown>)[name];
        const path = prefix === '' ? name : `${prefix}.${name}`;
        put(
          props,
          paths[path] ?? name,
          sub && typeof sub === 'object' && !Array.isArray(sub) && hasInnerNames(sub) ? renameSchemaProperties(sub as JsonSchema, paths, names, path) : sub,
        );
      }
      out[k] = props;
    } else if (k === 'required' && Array.isArray(v)) {
      out[k] = v.map((name) => (typeof name === 'string' ? (paths[prefix === '' ? name : `${prefix}.${name}`] ?? name) : name));
    } else if (k === 'items' && v && typeof v === 'object' && !Array.isArray(v)) {
      out[k] = renameSchemaProperties(v as JsonSchema, paths, names, prefix);
    } else if ((k === 'anyOf' || k === 'oneOf' || k === 'allOf') && Array.isArray(v)) {
      out[k] = v.map((sub) => (sub && typeof sub === 'object' ? renameSchemaProperties(sub as JsonSchema, paths, names, prefix) : sub));
    } else if (k === '$ref' && typeof v === 'string' && v.startsWith('#/')) {
      out[k] = renamePointer(v, paths);
    } else if (k === 'discriminator' && isDiscriminator(v)) {
      // The property that tells a union's models apart is renamed with the property itself.
      const at = prefix === '' ? v.propertyName : `${prefix}.${v.propertyName}`;
      out[k] = withPropertyName(v, paths[at] ?? own(names, v.propertyName) ?? v.propertyName);
    } else if ((k === '$defs' || k === 'definitions') && v && typeof v === 'object' && !Array.isArray(v) && Object.keys(names).length > 0) {
      const defs = keyedObject();
      for (const [id, def] of Object.entries(v as Record<string, unknown>)) put(defs, id, renameDeclared(def, names));
      out[k] = defs;
    } else put(out, k, v);
  }
  return out;
}

/** A definition with every property it declares (nested ones included) renamed by name, and its `required` lists with them. */
function renameDeclared(schema: unknown, names: Record<string, string>): unknown {
  if (Array.isArray(schema)) return schema.map((s) => renameDeclared(s, names));
  if (schema === null || typeof schema !== 'object' || !hasInnerNames(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'properties' && v && typeof v === 'object' && !Array.isArray(v)) {
      const props = keyedObject();
      for (const [name, sub] of Object.entries(v as Record<string, unknown>)) put(props, own(names, name) ?? name, renameDeclared(sub, names));
      out[k] = props;
    } else if (k === 'required' && Array.isArray(v)) out[k] = v.map((n) => (typeof n === 'string' ? (own(names, n) ?? n) : n));
    else if (k === 'discriminator' && isDiscriminator(v)) out[k] = withPropertyName(v, own(names, v.propertyName) ?? v.propertyName);
    else if ((k === '$defs' || k === 'definitions') && v && typeof v === 'object' && !Array.isArray(v)) {
      const defs = keyedObject();
      for (const [id, def] of Object.entries(v as Record<string, unknown>)) put(defs, id, renameDeclared(def, names));
      out[k] = defs;
    } else if ((k === 'items' && v && typeof v === 'object' && !Array.isArray(v)) || ((k === 'anyOf' || k === 'oneOf' || k === 'allOf') && Array.isArray(v))) {
      // Only where walkProperties walks (so where a rename by path reaches the calls); other
      // keywords are kept as written here, and the keys inside values (enum, const, default,
      // examples) are renamed afterwards by renameSchemaValueKeys.
      out[k] = renameDeclared(v, names);
    } else put(out, k, v);
  }
  return out;
}

/** An OpenAPI discriminator (`{"propertyName": "source", "mapping": {...}}`, what pydantic writes beside a `oneOf` of models). */
function isDiscriminator(v: unknown): v is { propertyName: string } & Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && typeof (v as Record<string, unknown>).propertyName === 'string';
}

function withPropertyName(d: Record<string, unknown>, name: string): Record<string, unknown> {
  return name === d.propertyName ? d : { ...d, propertyName: name };
}

const DISCRIMINATORS = Symbol('hsa.discriminatorNames');
const VALUE_OBJECTS = Symbol('hsa.schemaValueObjects');

/** The property names the discriminators of a schema name (`discriminator.propertyName`), anywhere in it; once per schema object. */
export function discriminatorNames(schema: unknown): readonly string[] {
  if (schema === null || typeof schema !== 'object') return [];
  return schemaMemo(DISCRIMINATORS, schema, () => {
    const out: string[] = [];
    eachSchema(schema, (s) => {
      const d = s.discriminator;
      if (isDiscriminator(d)) out.push(d.propertyName);
    });
    return out;
  });
}

/** Whether any `default`/`const`/`examples`/`enum` value of a schema holds an object (nearly none do); once per schema object. */
export function hasValueObjects(schema: object): boolean {
  return schemaMemo(VALUE_OBJECTS, schema, () => {
    let found = false;
    const holdsObject = (v: unknown): boolean => v !== null && typeof v === 'object' && (!Array.isArray(v) || v.some(holdsObject));
    eachSchema(schema, (s) => {
      if (found) return;
      for (let i = 0; i < VALUE_KEYWORDS.length; i++) {
        const k = VALUE_KEYWORDS[i]!;
        if (k in s && holdsObject(s[k])) found = true;
      }
    });
    return found;
  });
}

/** Keywords whose values are schemas, or lists or maps of schemas (what a schema nests). */
const SUBSCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;
const SUBSCHEMA_MAPS = ['properties', '$defs', 'definitions', 'patternProperties'] as const;
const SUBSCHEMA_ONE = ['items', 'additionalProperties', 'not', 'if', 'then', 'else'] as const;

/** Visit every schema object nested in `schema` (itself included), never the values of `default`/`examples`/`const`/`enum`. */
export function eachSchema(schema: unknown, visit: (s: Record<string, unknown>) => void): void {
  if (schema === null || typeof schema !== 'object') return;
  if (Array.isArray(schema)) {
    for (let i = 0; i < schema.length; i++) eachSchema(schema[i], visit);
    return;
  }
  const s = schema as Record<string, unknown>;
  visit(s);
  for (const k of SUBSCHEMA_ONE) eachSchema(s[k], visit);
  for (const k of SUBSCHEMA_LISTS) if (Array.isArray(s[k])) eachSchema(s[k], visit);
  for (const k of SUBSCHEMA_MAPS) {
    const m = s[k];
    if (m !== null && typeof m === 'object' && !Array.isArray(m)) for (const x of Object.values(m)) eachSchema(x, visit);
  }
}

/** Keywords whose values are instances of the schema they stand on (one value, or a list of them). */
export const ONE_VALUE = ['default', 'const'] as const;
export const VALUE_LISTS = ['examples', 'enum'] as const;
/** Both, in that order (made once: hasValueObjects reads them at every schema node). */
const VALUE_KEYWORDS: readonly string[] = [...ONE_VALUE, ...VALUE_LISTS];

/**
 * A renamed schema with the keys of the objects in its `default`, `const`, `examples` and `enum`
 * values renamed as a call's arguments are: at each object of a value, walked beside the schema it
 * is a value of (through `$ref`, branches and array items), a key `k` whose new name `names[k]`
 * the schema declares there, and `k` itself not. A key the schema does not declare there is data,
 * kept as written. Same object when nothing changes (nearly every schema).
 */
export function renameSchemaValueKeys(schema: JsonSchema, names: Record<string, string>): JsonSchema {
  const root = schema;
  const renamed = (k: string) => own(names, k);
  const node = (s: unknown): unknown => {
    if (s === null || typeof s !== 'object') return s;
    if (Array.isArray(s)) {
      let changed = false;
      const list = s.map((x) => {
        const y = node(x);
        if (y !== x) changed = true;
        return y;
      });
      return changed ? list : s;
    }
    const o = s as Record<string, unknown>;
    let out: Record<string, unknown> | undefined;
    const set = (k: string, v: unknown) => {
      if (v !== o[k]) (out ??= { ...o })[k] = v;
    };
    for (const k of ONE_VALUE) if (k in o) set(k, renameValue(o[k], [o], root, renamed, 0));
    for (const k of VALUE_LISTS) {
      const list = o[k];
      if (!Array.isArray(list)) continue;
      let changed = false;
      const next = list.map((x) => {
        const y = renameValue(x, [o], root, renamed, 0);
        if (y !== x) changed = true;
        return y;
      });
      if (changed) set(k, next);
    }
    for (const k of SUBSCHEMA_ONE) if (k in o) set(k, node(o[k]));
    for (const k of SUBSCHEMA_LISTS) if (Array.isArray(o[k])) set(k, node(o[k]));
    for (const k of SUBSCHEMA_MAPS) {
      const m = o[k];
      if (m === null || typeof m !== 'object' || Array.isArray(m)) continue;
      let map: Record<string, unknown> | undefined;
      for (const [name, sub] of Object.entries(m)) {
        const y = node(sub);
        if (y !== sub) (map ??= { ...(m as Record<string, unknown>) })[name] = y;
      }
      if (map) set(k, map);
    }
    return out ?? s;
  };
  if (Object.keys(names).length === 0 || !hasValueObjects(schema)) return schema;
  return node(schema) as JsonSchema;
}

/** One value renamed beside the schemas `at` that hold at its place (see renameSchemaValueKeys). */
function renameValue(v: unknown, at: readonly object[], root: object, renamed: (k: string) => string | undefined, depth: number): unknown {
  if (depth > 64 || at.length === 0 || v === null || typeof v !== 'object') return v;
  const branches = expandBranches(at, root);
  if (Array.isArray(v)) {
    const items = itemSchemas(branches);
    let changed = false;
    const out = v.map((x) => {
      const y = renameValue(x, items, root, renamed, depth + 1);
      if (y !== x) changed = true;
      return y;
    });
    return changed ? out : v;
  }
  const declared = declaredAt(branches);
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const to = renamed(k);
    const key = to !== undefined && to !== k && declared.has(to) && !declared.has(k) && !Object.prototype.hasOwnProperty.call(v, to) ? to : k;
    const y = renameValue(x, declared.get(key) ?? [], root, renamed, depth + 1);
    if (key !== k || y !== x) changed = true;
    out[key] = y;
  }
  return changed ? out : v;
}

const unwalkedBySchema = new WeakMap<object, ReadonlySet<string>>();

/**
 * Property names declared where no argument path reaches (inside `additionalProperties`, a tuple's
 * `items` list): a rename by path could not follow them into the calls, and the leak checks read
 * them, so they keep their names. Once per schema object; empty for nearly every schema.
 */
export function unwalkedPropertyNames(schema: object): ReadonlySet<string> {
  let out = unwalkedBySchema.get(schema);
  if (out) return out;
  const names = new Set<string>();
  const collect = (v: unknown, off: boolean): void => {
    if (Array.isArray(v)) return v.forEach((x) => collect(x, off));
    if (v === null || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    if (o.properties && typeof o.properties === 'object') {
      for (const [k, sub] of Object.entries(o.properties)) {
        if (off) names.add(k);
        collect(sub, off);
      }
    }
    if (Array.isArray(o.items)) collect(o.items, true);
    else collect(o.items, off);
    for (const key of ['anyOf', 'oneOf', 'allOf']) collect(o[key], off);
    collect(o.additionalProperties, true);
    for (const key of ['$defs', 'definitions']) {
      const defs = o[key];
      if (defs && typeof defs === 'object' && !Array.isArray(defs)) for (const d of Object.values(defs)) collect(d, off);
    }
  };
  collect(schema, false);
  out = names.size === 0 ? NONE : names;
  unwalkedBySchema.set(schema, out);
  return out;
}

function own(map: Record<string, string>, key: string): string | undefined {
  return Object.prototype.hasOwnProperty.call(map, key) ? map[key] : undefined;
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
      const target = resolveLocalRef(schema, ref);
      if (target !== null && typeof target === 'object')
        walkFrom(target, (path) => names.add(path.slice(path.lastIndexOf('.') + 1)), '', schema, new Set([schema, target]), undefined, { left: WALK_BUDGET });
    }
    out = names;
  }
  sharedBySchema.set(schema, out);
  return out;
}

const recursiveBySchema = new WeakMap<object, ReadonlySet<string>>();

/**
 * Property names a recursive model declares (`Stop.onward` holding more `Stop`s), and every model
 * it reaches: their arguments nest as deep as the data goes, deeper than any path a rename plan
 * lists, so they keep their names (docs/harness-format.md, "Referenced models"). Once per schema
 * object; empty for every schema without a reference cycle.
 */
export function recursivePropertyNames(schema: object): ReadonlySet<string> {
  let out = recursiveBySchema.get(schema);
  if (out) return out;
  const cycles = new Set<object>();
  if (JSON.stringify(schema).includes('"$ref"'))
    walkFrom(
      schema,
      () => {},
      '',
      schema,
      new Set([schema]),
      (target) => cycles.add(target),
      { left: WALK_BUDGET },
    );
  if (cycles.size === 0) out = NONE;
  else {
    const names = new Set<string>();
    for (const target of cycles)
      walkFrom(target, (path) => names.add(path.slice(path.lastIndexOf('.') + 1)), '', schema, new Set([target]), undefined, { left: WALK_BUDGET });
    out = names;
  }
  recursiveBySchema.set(schema, out);
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
  for (const k in schema)
    if (k === 'properties' || k === 'required' || k === 'items' || k === 'anyOf' || k === 'oneOf' || k === 'allOf' || k === '$ref' || k === 'discriminator')
      return true;
  return false;
}
