/** Read a dotted path (`params.name`) from parsed JSON; undefined when any step is missing. */
export function getPath(value: unknown, path: string): unknown {
  let cur = value;
  for (const key of path.split('.')) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/** A copy of `value` with the dotted path set (objects along the path copied, key order kept). */
export function setPath(value: unknown, path: string, next: unknown): unknown {
  const [head, ...rest] = path.split('.');
  if (head === undefined || value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const obj = value as Record<string, unknown>;
  if (!(head in obj)) return value;
  return { ...obj, [head]: rest.length === 0 ? next : setPath(obj[head], rest.join('.'), next) };
}
