/**
 * Parsed tool-call arguments, shared. One call's `arguments` text is read by the input check, the
 * rewrite, three of the variant checks, the round trip and the SFT writer (about five parses per
 * call and variant). The last texts parsed or produced are kept with their values, so each is
 * parsed once.
 *
 * The values are shared: callers read them and never modify them (`setPath` and `applyArgOps`
 * return copies). A text that is not JSON is remembered as such.
 */

/** What `parseArgs` returns for a text that is not JSON. */
export const NOT_JSON: unique symbol = Symbol('not JSON');

// A small map, cleared when full: its entries (a few records' calls) die young, so scavenges do
// not promote them. Keys are the argument strings themselves; V8 keeps a string's hash with it.
const MAX = 256;
const recent = new Map<string, unknown>();

/** `JSON.parse(text)`, or NOT_JSON. The value must not be modified. */
export function parseArgs(text: string): unknown {
  let v = recent.get(text);
  if (v !== undefined || recent.has(text)) return v;
  try {
    v = JSON.parse(text);
  } catch {
    v = NOT_JSON;
  }
  remember(text, v);
  return v;
}

/** `JSON.stringify(value)` of arguments about to be written into a call; the pair is remembered. */
export function stringifyArgs(value: unknown): string {
  const text = JSON.stringify(value);
  remember(text, value);
  return text;
}

function remember(text: string, value: unknown): void {
  if (recent.size >= MAX) recent.clear();
  recent.set(text, value);
}

/** The message of the error `JSON.parse(text)` throws (for reports; call only on a NOT_JSON text). */
export function jsonError(text: string): string {
  try {
    JSON.parse(text);
    return 'not JSON';
  } catch (e) {
    return (e as Error).message;
  }
}
