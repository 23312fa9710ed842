import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';

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
 * across runs), with each tool schema in canonical JSON, cached per schema object because schemas
 * are shared between states and never mutated.
 */
export function hashState(state: { tools: { parameters: object }[] }): string {
  const h = createHash('sha256');
  const { tools, ...rest } = state;
  h.update(JSON.stringify(rest));
  for (const t of tools) {
    const { parameters, ...tool } = t;
    let s = schemaJson.get(parameters);
    if (s === undefined) {
      s = canonicalJson(parameters);
      schemaJson.set(parameters, s);
    }
    h.update(JSON.stringify(tool));
    h.update(s);
  }
  return h.digest('hex');
}
