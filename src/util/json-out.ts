/**
 * Output records repeat large values that never change within a harness state (the tool list:
 * about a third of an SFT line). Their JSON is made and UTF-8 encoded once per value object, and
 * a record line is written as pieces: text around the shared bytes. Written out, the pieces are
 * byte for byte `JSON.stringify(record)`.
 */

/** A line of output: one string, or pieces (strings and shared UTF-8 bytes) written in order. */
export type OutputLine = string | readonly (string | Uint8Array)[];

const texts = new WeakMap<object, string>();
const encoded = new WeakMap<object, Uint8Array>();

/** `JSON.stringify(value)`, computed once per object; the object must never change afterwards. */
export function sharedJson(value: object): string {
  let s = texts.get(value);
  if (s === undefined) texts.set(value, (s = JSON.stringify(value)));
  return s;
}

function sharedBytes(value: object): Uint8Array {
  let b = encoded.get(value);
  if (b === undefined) encoded.set(value, (b = Buffer.from(sharedJson(value), 'utf8')));
  return b;
}

/**
 * `JSON.stringify(record)` of a plain record as an output line, where the members named in
 * `shared` hold immutable objects whose encoded JSON is reused.
 */
export function recordLine(record: Record<string, unknown>, shared: readonly string[]): OutputLine {
  const pieces: (string | Uint8Array)[] = [];
  let text = '';
  for (const key of Object.keys(record)) {
    const v = record[key];
    const sep = `${text === '' && pieces.length === 0 ? '{' : ','}${JSON.stringify(key)}:`;
    if (v !== null && typeof v === 'object' && shared.includes(key)) {
      pieces.push(text + sep, sharedBytes(v));
      text = '';
      continue;
    }
    const json = JSON.stringify(v) as string | undefined; // undefined (and functions) are left out, as JSON.stringify does
    if (json !== undefined) text += sep + json;
  }
  if (pieces.length === 0) return text === '' ? '{}' : `${text}}`;
  pieces.push(`${text}}`);
  return pieces;
}

/** An output line as one string (tests, small outputs). */
export function lineText(line: OutputLine): string {
  if (typeof line === 'string') return line;
  return line.map((p) => (typeof p === 'string' ? p : Buffer.from(p.buffer, p.byteOffset, p.byteLength).toString('utf8'))).join('');
}
