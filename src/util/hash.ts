import { createHash } from 'node:crypto';
import { canonicalJson, canonicalJsonCached } from './canonical-json.js';

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** sha256 of the canonical JSON of a value: the identity of a harness state, a request, a plan. */
export function hashValue(value: unknown): string {
  return sha256(canonicalJson(value));
}

const schemaJson = new WeakMap<object, string>();

/**
 * The identity of a harness state, computed once per variant: sha256 over the state as hsa builds
 * it (every state object is built by the same code in the same key order, so plain JSON is stable
 * across runs), with each tool schema in canonical JSON, cached per schema object (and per nested
 * object) because schemas and their parts are shared between states and never mutated.
 */
export function hashState(state: { tools: { parameters: object }[] }): string {
  const h = createHash('sha256');
  const { tools, ...rest } = state;
  h.update(JSON.stringify(rest));
  for (const t of tools) {
    const { parameters, ...tool } = t;
    // Nested objects are kept too: a transform that renames or reorders a schema's properties
    // makes a new schema around the property schemas it did not change.
    const s = canonicalJsonCached(parameters, schemaJson);
    h.update(JSON.stringify(tool));
    h.update(s);
  }
  return h.digest('hex');
}
