// Where a value stands in a JSON Schema: local `$ref`s resolved, branches expanded, and the
// properties and items declared there.

/**
 * What a local JSON pointer (`#`, `#/$defs/FlightInfo`, `~0`/`~1` escapes) points at inside
 * `root`, or undefined (a reference to another document, or to nothing).
 */
export function resolveLocalRef(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let target: unknown = root;
  for (const seg of ref.slice(2).split('/')) {
    if (target === null || typeof target !== 'object') return undefined;
    const key = decodeURIComponent(seg).replace(/~1/g, '/').replace(/~0/g, '~');
    target = Object.prototype.hasOwnProperty.call(target, key) ? (target as Record<string, unknown>)[key] : undefined;
  }
  return target;
}

/** The `items` schemas of the given branches (tuple `items` lists excepted). */
export function itemSchemas(branches: readonly object[]): object[] {
  const items: object[] = [];
  for (const b of branches) {
    const it = (b as Record<string, unknown>).items;
    if (it !== null && typeof it === 'object' && !Array.isArray(it)) items.push(it);
  }
  return items;
}

/** The properties the given branches declare, each with the schemas declaring it. */
export function declaredAt(branches: readonly object[]): Map<string, object[]> {
  const declared = new Map<string, object[]>();
  for (const b of branches) {
    const props = (b as Record<string, unknown>).properties;
    if (props === null || typeof props !== 'object') continue;
    for (const [k, sub] of Object.entries(props)) {
      const list = declared.get(k) ?? [];
      if (sub !== null && typeof sub === 'object') list.push(sub);
      declared.set(k, list);
    }
  }
  return declared;
}
/** The schemas that hold at one place: each given one, what its `$ref` points at, and its `anyOf`/`oneOf`/`allOf` branches, recursively (each once). */
export function expandBranches(at: readonly object[], root: object): object[] {
  const out: object[] = [];
  const seen = new Set<object>();
  const add = (s: unknown): void => {
    if (s === null || typeof s !== 'object' || Array.isArray(s) || seen.has(s)) return;
    seen.add(s);
    out.push(s);
    const o = s as Record<string, unknown>;
    if (typeof o.$ref === 'string') add(resolveLocalRef(root, o.$ref));
    for (const key of ['anyOf', 'oneOf', 'allOf']) {
      const list = o[key];
      if (Array.isArray(list)) for (const b of list) add(b);
    }
  };
  for (const s of at) add(s);
  return out;
}
