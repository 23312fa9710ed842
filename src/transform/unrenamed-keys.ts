import { eachSchema, hasValueObjects, ONE_VALUE, VALUE_LISTS } from './schema-walk.js';
import { declaredAt, expandBranches, itemSchemas } from './schema-places.js';
import { schemaMemo } from '../util/derived.js';

/**
 * Keys left under a name renamed away in the values a schema carries (`default`, `const`,
 * `examples`, `enum`), by the rule of keysLeftUnrenamed, each with the keyword it stands in.
 */
export function valueKeysLeftUnrenamed(schema: unknown, renamed: (key: string) => string | undefined): string[] {
  const out: string[] = [];
  if (schema === null || typeof schema !== 'object' || !hasValueObjects(schema)) return out;
  const root = schema;
  eachSchema(schema, (s) => {
    for (const k of ONE_VALUE) if (k in s) for (const key of keysLeftAt(s[k], [s], root, renamed)) out.push(`${k}: ${key}`);
    for (const k of VALUE_LISTS) {
      const list = s[k];
      if (Array.isArray(list)) for (const x of list) for (const key of keysLeftAt(x, [s], root, renamed)) out.push(`${k}: ${key}`);
    }
  });
  return out;
}

/**
 * Keys of a call's arguments left under a name renamed away: at each object of `args`, walked
 * beside `schema` (through `$ref`, `anyOf`/`oneOf`/`allOf` branches and array items), a key `k`
 * whose new name `renamed(k)` the schema declares there, and `k` itself not. A key the schema does
 * not declare at its place — data the source's call carried — is never one: a rename by path
 * leaves it as written, and so does this check (one verdict for augment's and verify's checks).
 */
export function keysLeftUnrenamed(args: unknown, schema: unknown, renamed: (key: string) => string | undefined): string[] {
  if (schema === null || typeof schema !== 'object') return [];
  return keysLeftAt(args, [schema], schema, renamed);
}

function keysLeftAt(value: unknown, at: readonly object[], root: object, renamed: (key: string) => string | undefined): string[] {
  const out: string[] = [];
  const visit = (v: unknown, at: readonly object[], depth: number): void => {
    if (depth > 64 || at.length === 0) return;
    if (Array.isArray(v)) {
      const items = placeOf(at, root).items();
      for (const x of v) visit(x, items, depth + 1);
      return;
    }
    if (v === null || typeof v !== 'object') return;
    const declared = placeOf(at, root).declared;
    for (const k in v) {
      if (!Object.prototype.hasOwnProperty.call(v, k)) continue;
      const to = renamed(k);
      if (to !== undefined && to !== k && declared.has(to) && !declared.has(k)) out.push(k);
      const subs = declared.get(k);
      if (subs) visit((v as Record<string, unknown>)[k], subs, depth + 1);
    }
  };
  visit(value, at, 0);
  return out;
}

/** What holds at one place of a schema: the properties its branches declare, and its items' schemas. */
interface Place {
  declared: Map<string, object[]>;
  items: () => object[];
}

const PLACE = Symbol('hsa.key-place');

/**
 * The place of `at` under `root`, worked out once per schema (a call's arguments are walked beside
 * the same schema in every variant and check): kept on the schema when the place is one schema
 * (every place of a schema without `anyOf`/`oneOf`/`allOf` or `$ref`), else made for this walk.
 */
function placeOf(at: readonly object[], root: object): Place {
  const make = (): Place => {
    const branches = expandBranches(at, root);
    let items: object[] | undefined;
    return { declared: declaredAt(branches), items: () => (items ??= itemSchemas(branches)) };
  };
  if (at.length !== 1) return make();
  const one = at[0]!;
  const list = schemaMemo<unknown[]>(PLACE, one, () => []);
  for (let i = 0; i < list.length; i += 2) if (list[i] === root) return list[i + 1] as Place;
  const place = make();
  if (list.length < 8) list.push(root, place);
  return place;
}
