import { canonicalJson } from '../util/canonical-json.js';

/**
 * A call's arguments as matching sees them: the canonical JSON of the parsed value, or the text as
 * it was sent when it is not JSON.
 */
export function canonicalArgs(text: string): string {
  try {
    return canonicalJson(JSON.parse(text));
  } catch {
    return text;
  }
}

/**
 * The key a made call is matched to a recorded one by (the replay environment, the replay table of
 * an RL row, the consistency check): the tool name and the canonical arguments (see canonicalArgs).
 */
export function callKey(name: string, args: string): string {
  return `${name}\u0000${args}`;
}
