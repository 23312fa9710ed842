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
const messageBytes = new WeakMap<object, Uint8Array>();

/** `JSON.stringify(value)`, computed once per object; the object must never change afterwards. */
export function sharedJson(value: object): string {
  let s = texts.get(value);
  if (s === undefined) texts.set(value, (s = JSON.stringify(value)));
  return s;
}

/**
 * `JSON.stringify(value)` of a shared object that a record line may have encoded already: read back
 * from those bytes (a copy of UTF-8, several times cheaper than serialising the objects again), or
 * made; not kept. JSON.stringify's text never holds a lone surrogate, so the bytes decode to it exactly.
 */
export function sharedText(value: object): string {
  const s = texts.get(value);
  if (s !== undefined) return s;
  const b = encoded.get(value);
  return b === undefined ? JSON.stringify(value) : Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');
}

function sharedBytes(value: object): Uint8Array {
  let b = encoded.get(value);
  // (Only the bytes are kept: the text of a tool list is as large again, twice if not Latin-1.)
  if (b === undefined) encoded.set(value, (b = Buffer.from(texts.get(value) ?? JSON.stringify(value), 'utf8')));
  return b;
}

type Pieces = (string | Uint8Array)[];

/** Writes one member's JSON as pieces (or returns undefined to let JSON.stringify do it). */
export type MemberWriter = (value: unknown) => readonly (string | Uint8Array)[] | undefined;

/**
 * `JSON.stringify(record)` of a plain record as an output line, where the members named in
 * `shared` hold immutable objects whose encoded JSON is reused, and members with a writer in
 * `writers` are written by it.
 */
export function recordLine(record: Record<string, unknown>, shared: readonly string[], writers: Record<string, MemberWriter> = {}): OutputLine {
  const pieces: Pieces = [];
  let text = '';
  let first = true;
  for (const key in record) {
    if (!Object.prototype.hasOwnProperty.call(record, key)) continue;
    const v = record[key];
    if (v !== null && typeof v === 'object' && shared.includes(key)) {
      pieces.push(text + keyJson(key, first), sharedBytes(v));
      text = '';
      first = false;
      continue;
    }
    const own = v !== undefined && Object.prototype.hasOwnProperty.call(writers, key) ? writers[key]!(v) : undefined;
    if (own) {
      text = append(pieces, text + keyJson(key, first), own);
      first = false;
      continue;
    }
    const json = JSON.stringify(v) as string | undefined; // undefined (and functions) are left out, as JSON.stringify does
    if (json === undefined) continue;
    text += keyJson(key, first) + json;
    first = false;
  }
  if (first) return '{}';
  if (pieces.length === 0) return `${text}}`;
  pieces.push(`${text}}`);
  return pieces;
}

// Output records have a few dozen distinct member names: their JSON (`{"name":`, `,"name":`) is made once each.
const keyTexts = new Map<string, readonly [string, string]>();

function keyJson(key: string, first: boolean): string {
  let k = keyTexts.get(key);
  if (k === undefined) {
    const json = `${JSON.stringify(key)}:`;
    k = [`{${json}`, `,${json}`];
    // (Records with arbitrary keys — a tool's arguments — must not grow it without end.)
    if (keyTexts.size < 4096) keyTexts.set(key, k);
  }
  return first ? k[0] : k[1];
}

/** Push `before` and `own` onto `pieces`; returns the trailing text still to be pushed. */
function append(pieces: Pieces, before: string, own: readonly (string | Uint8Array)[]): string {
  let text = before;
  for (const p of own) {
    if (typeof p === 'string') text += p;
    else {
      pieces.push(text, p);
      text = '';
    }
  }
  return text;
}

/**
 * A writer for a list of chat messages whose content strings may have pre-escaped JSON (a prompt,
 * a state's text: `contentJson` returns the pieces of a message's content, or undefined). The result
 * is `JSON.stringify(messages)`. Messages for which `reused` says yes are shown by several records
 * (a source's messages, in each of its variants): their encoded JSON is kept with the object.
 */
export function messagesWriter(
  contentJson: (message: object) => readonly (string | Uint8Array)[] | undefined,
  reused: (m: object) => boolean = () => true,
): MemberWriter {
  return (value) => {
    if (!Array.isArray(value)) return undefined;
    const pieces: Pieces = [];
    let text = '[';
    value.forEach((m: unknown, i) => {
      if (i > 0) text += ',';
      const content = m !== null && typeof m === 'object' ? (m as { content?: unknown }).content : undefined;
      const own = typeof content === 'string' && m !== null && typeof m === 'object' ? contentJson(m) : undefined;
      if (!own) {
        if (m === null || typeof m !== 'object') {
          text += JSON.stringify(m) ?? 'null';
          return;
        }
        // A record's unchanged messages are the same objects in each of its variants (and in
        // each OPD prefix): their encoded JSON is made once per object. Others are text.
        if (!reused(m)) {
          text += JSON.stringify(m);
          return;
        }
        let bytes = messageBytes.get(m);
        if (bytes === undefined) messageBytes.set(m, (bytes = Buffer.from(JSON.stringify(m), 'utf8')));
        pieces.push(text, bytes);
        text = '';
        return;
      }
      const line = recordLine(m as Record<string, unknown>, [], { content: () => own });
      if (typeof line === 'string') text += line;
      else text = append(pieces, text, line);
    });
    pieces.push(`${text}]`);
    return pieces;
  };
}

/** A writer for an object member whose own members named in `shared` are immutable, shared objects. */
export function objectWriter(shared: readonly string[]): MemberWriter {
  return (value) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    const line = recordLine(value as Record<string, unknown>, shared);
    return typeof line === 'string' ? [line] : line;
  };
}

/** An output line as one string (tests, small outputs). */
export function lineText(line: OutputLine): string {
  if (typeof line === 'string') return line;
  return line.map((p) => (typeof p === 'string' ? p : Buffer.from(p.buffer, p.byteOffset, p.byteLength).toString('utf8'))).join('');
}
