import { eachSchema, hasValueObjects, ONE_VALUE, VALUE_LISTS } from './schema-walk.js';
import { declaredAt, expandBranches, itemSchemas } from './schema-places.js';

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
    const branches = expandBranches(at, root);
    if (Array.isArray(v)) {
      const items = itemSchemas(branches);
      for (const x of v) visit(x, items, depth + 1);
      return;
    }
    if (v === null || typeof v !== 'object') return;
    const declared = declaredAt(branches);
    for (const [k, x] of Object.entries(v)) {
      const to = renamed(k);
      if (to !== undefined && to !== k && declared.has(to) && !declared.has(k)) out.push(k);
      const subs = declared.get(k);
      if (subs) visit(x, subs, depth + 1);
    }
  };
  visit(value, at, 0);
  return out;
}
