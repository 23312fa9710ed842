import crypto, { createHash } from 'node:crypto';
import { canonicalJson, canonicalSchemaJson } from './canonical-json.js';

/** Node's one-shot digest (20.12 and later): the same bytes as a Hash object, without making one. */
const oneShot = (crypto as { hash?: (algorithm: string, data: string | Uint8Array, encoding: 'hex') => string }).hash;

export function sha256(data: string | Uint8Array): string {
  return oneShot ? oneShot('sha256', data, 'hex') : createHash('sha256').update(data).digest('hex');
}

/** sha256 of the canonical JSON of a value: the identity of a harness state, a request, a plan. */
export function hashValue(value: unknown): string {
  return sha256(canonicalJson(value));
}

/**
 * The identity of a harness state, computed once per variant: sha256 over the state as hsa builds
 * it (every state object is built by the same code in the same key order, so plain JSON is stable
 * across runs), with each tool schema in canonical JSON, cached per schema object because schemas
 * are shared between states and never mutated. The pieces are hashed as one string (the same
 * bytes as one update per piece, without a call into the hash per piece).
 */
export function hashState(state: { tools: { parameters: object }[] }): string {
  const { tools, ...rest } = state;
  let text = JSON.stringify(rest);
  for (const t of tools) {
    const { parameters, ...tool } = t;
    text += JSON.stringify(tool) + canonicalSchemaJson(parameters);
  }
  return sha256(text);
}
