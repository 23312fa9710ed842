/**
 * Whether tool parameters are an object schema: `type: "object"` at the root, or (with no `type`
 * of their own) a local reference that leads to one. Pydantic writes a model's schema that way when
 * the model is itself referenced (`{"$ref": "#/$defs/BookArgs", "$defs": {...}}`), and the engine
 * walks such parameters through the reference as it walks every `$ref` (docs/harness-format.md,
 * "Referenced models"); records with their own tools were already read so.
 */
export function isObjectParameters(schema: unknown): boolean {
  const seen = new Set<unknown>();
  let at: unknown = schema;
  while (at !== null && typeof at === 'object' && !Array.isArray(at) && !seen.has(at)) {
    seen.add(at);
    const s = at as { type?: unknown; $ref?: unknown };
    if (s.type !== undefined) return s.type === 'object';
    if (typeof s.$ref !== 'string') return false;
    at = localTarget(schema, s.$ref);
  }
  return false;
}

/** What a `#/…` JSON Pointer names inside `root` (`~1` is `/`, `~0` is `~`), or undefined. */
function localTarget(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let at: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (at === null || typeof at !== 'object' || !Object.prototype.hasOwnProperty.call(at, key)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}
