import { attach, attached } from './attach.js';

/**
 * Parsed tool-call arguments, shared. One call's `arguments` text is read by the input check, the
 * rewrite, three of the variant checks, the round trip and the SFT writer (about five parses per
 * call and variant). The parsed value is kept on the call's `function` object (see attach.ts). (A
 * map from texts to values cost as much to fill as the parses it saved.)
 *
 * The values are shared: callers read them and never modify them (`setPath` and `applyArgOps`
 * return copies). A text that is not JSON is remembered as such.
 */

/** What `callArgs` returns for arguments that are not JSON. */
export const NOT_JSON: unique symbol = Symbol('not JSON');

const PARSED = Symbol('hsa.args');

interface CallFunction {
  arguments: string;
}

interface Parsed {
  text: string;
  value: unknown;
}

/** `JSON.parse(fn.arguments)`, or NOT_JSON; parsed once per call. The value must not be modified. */
export function callArgs(fn: CallFunction): unknown {
  const own = attached<Parsed>(fn, PARSED);
  // (The same string object, unless the text was replaced: === answers without comparing.)
  if (own !== undefined && own.text === fn.arguments) return own.value;
  let value: unknown;
  try {
    value = JSON.parse(fn.arguments);
  } catch {
    value = NOT_JSON;
  }
  withArgs(fn, value);
  return value;
}

/** Keep `value` as the parsed arguments of `fn` (whose `arguments` are its JSON). Returns `fn`. */
export function withArgs<F extends CallFunction>(fn: F, value: unknown): F {
  attach<Parsed>(fn, PARSED, { text: fn.arguments, value });
  return fn;
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
