import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** sha256 of the canonical JSON of a value: the identity of a harness state, a request, a plan. */
export function hashValue(value: unknown): string {
  return sha256(canonicalJson(value));
}
