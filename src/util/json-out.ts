/**
 * Output records repeat large values that never change within a harness state (the tool list:
 * about a third of an SFT line) and messages that recur in a variant's SFT, OPD and RL records.
 * Their JSON is made once per value object, and a record line is written as pieces: text around
 * the shared JSON. Written out, the pieces are byte for byte `JSON.stringify(record)`.
 *
 * A shared JSON is kept as text for its first few uses and as UTF-8 bytes after that: a writer
 * encodes a string into its buffer about as fast as it copies bytes, while making the bytes costs
 * a buffer of their own (most values — a per-record state's tool list, a variant's messages — are
 * written a handful of times and dropped); a pooled state's tool list, written thousands of times,
 * is copied as bytes.
 */

/** A line of output: one string, or pieces (strings and shared UTF-8 bytes) written in order. */
export type OutputLine = string | readonly (string | Uint8Array)[];

interface SharedJson {
  /** The JSON text, until the bytes are made. */
  text: string | undefined;
  bytes: Uint8Array | undefined;
  uses: number;
  /** The JSON text as the inside of a JSON string (see sharedEscaped), once asked for. */
  escaped: SharedJson | undefined;
}

/** Uses of a shared JSON as text before it is kept as bytes. */
const AS_TEXT = 8;
const shared = new WeakMap<object, SharedJson>();

function entry(value: object): SharedJson {
  let e = shared.get(value);
  if (e === undefined) shared.set(value, (e = { text: JSON.stringify(value), bytes: undefined, uses: 0, escaped: undefined }));
  return e;
}

function pieceOf(e: SharedJson): string | Uint8Array {
  if (e.bytes !== undefined) return e.bytes;
  if (++e.uses < AS_TEXT) return e.text!;
  e.bytes = Buffer.from(e.text!, 'utf8');
  e.text = undefined;
  return e.bytes;
}

function textOf(e: SharedJson): string {
  return e.text ?? Buffer.from(e.bytes!.buffer, e.bytes!.byteOffset, e.bytes!.byteLength).toString('utf8');
}

/** `JSON.stringify(value)`, computed once per object; the object must never change afterwards. */
export function sharedJson(value: object): string {
  return textOf(entry(value));
}

/** `JSON.stringify(value)` as a piece of an output line (made once per object; the object must never change afterwards). */
export function sharedPiece(value: object): string | Uint8Array {
  return pieceOf(entry(value));
}

/**
 * `JSON.stringify(JSON.stringify(value))` without its quotes, as a piece of an output line: the
 * JSON of an immutable object inside a JSON string (an RL row's `env`), escaped once per object.
 */
export function sharedEscaped(value: object): string | Uint8Array {
  const e = entry(value);
  e.escaped ??= { text: escapeText(textOf(e)), bytes: undefined, uses: 0, escaped: undefined };
  return pieceOf(e.escaped);
}

const escapeText = (t: string): string => JSON.stringify(t).slice(1, -1);

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
  for (const key of Object.keys(record)) {
    const v = record[key];
    const sep = `${text === '' && pieces.length === 0 ? '{' : ','}${keyJson(key)}`;
    if (v !== null && typeof v === 'object' && shared.includes(key)) {
      pieces.push(text + sep, sharedPiece(v));
      text = '';
      continue;
    }
    const own = Object.prototype.hasOwnProperty.call(writers, key) && v !== undefined ? writers[key]!(v) : undefined;
    if (own) {
      text = append(pieces, text + sep, own);
      continue;
    }
    const json = JSON.stringify(v) as string | undefined; // undefined (and functions) are left out, as JSON.stringify does
    if (json !== undefined) text += sep + json;
  }
  if (pieces.length === 0) return text === '' ? '{}' : `${text}}`;
  pieces.push(`${text}}`);
  return pieces;
}

// Output records have a few dozen distinct member names: their JSON (`"name":`) is made once each.
const keyTexts = new Map<string, string>();

function keyJson(key: string): string {
  let k = keyTexts.get(key);
  if (k === undefined) {
    k = `${JSON.stringify(key)}:`;
    // (Records with arbitrary keys — a tool's arguments — must not grow it without end.)
    if (keyTexts.size < 4096) keyTexts.set(key, k);
  }
  return k;
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
export function messagesWriter(contentJson: (message: object) => readonly (string | Uint8Array)[] | undefined, reused: (m: object) => boolean = () => true): MemberWriter {
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
        pieces.push(text, sharedPiece(m));
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

/** A writer for an object member whose own members named in `shared` are immutable, shared objects (and members with a writer in `writers` written by it). */
export function objectWriter(shared: readonly string[], writers: Record<string, MemberWriter> = {}): MemberWriter {
  return (value) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    const line = recordLine(value as Record<string, unknown>, shared, writers);
    return typeof line === 'string' ? [line] : line;
  };
}

/**
 * A writer for objects made as `{...head, more}` (a variant's provenance, then a record's own
 * members): when the value's first members are head's, with the same values, head's JSON (its
 * members named in `shared` as shared bytes) is made once and each value costs only its own
 * members. Any other value is written member by member.
 */
export function headWriter(head: Record<string, unknown>, shared: readonly string[]): MemberWriter {
  const keys = Object.keys(head);
  let pieces: Pieces | null | undefined;
  return (value) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    const o = value as Record<string, unknown>;
    const own = Object.keys(o);
    let same = own.length >= keys.length;
    for (let i = 0; same && i < keys.length; i++) same = own[i] === keys[i] && o[keys[i]!] === head[keys[i]!];
    if (same && pieces === undefined) {
      // Head's JSON without its closing brace (null when it has no members to write: then no head).
      const line = recordLine(head, shared);
      const all = typeof line === 'string' ? [line] : [...line];
      const last = all[all.length - 1] as string;
      pieces = last === '{}' ? null : [...all.slice(0, -1), last.slice(0, -1)];
    }
    if (!same || pieces === null || pieces === undefined) {
      const line = recordLine(o, shared);
      return typeof line === 'string' ? [line] : line;
    }
    let text = '';
    for (let i = keys.length; i < own.length; i++) {
      const json = JSON.stringify(o[own[i]!]) as string | undefined;
      if (json !== undefined) text += `,${keyJson(own[i]!)}${json}`;
    }
    return [...pieces, `${text}}`];
  };
}

/**
 * A writer for a member that holds the JSON text of an object (`JSON.stringify(JSON.stringify(v))`,
 * an RL row's `env`), given the object itself: the whole value (`'all'`: an immutable object) or
 * its members named in `shared` (immutable objects) are escaped once per object (see
 * sharedEscaped); the rest is escaped in runs. Escaping run by run equals escaping the whole: the
 * runs end between members, never inside a surrogate pair.
 */
export function jsonStringWriter(shared: readonly string[] | 'all'): MemberWriter {
  return (value) => {
    if (value === null || typeof value !== 'object') return undefined;
    if (shared === 'all') return ['"', sharedEscaped(value), '"'];
    if (Array.isArray(value)) return undefined;
    const o = value as Record<string, unknown>;
    const pieces: Pieces = [];
    let run = '';
    let first = true;
    for (const key of Object.keys(o)) {
      const v = o[key];
      const sep = `${first ? '{' : ','}${keyJson(key)}`;
      if (v !== null && typeof v === 'object' && shared.includes(key)) {
        pieces.push(pieces.length === 0 ? `"${escapeText(run + sep)}` : escapeText(run + sep), sharedEscaped(v));
        run = '';
        first = false;
        continue;
      }
      const json = JSON.stringify(v) as string | undefined;
      if (json === undefined) continue;
      run += sep + json;
      first = false;
    }
    run += first ? '{}' : '}';
    pieces.push(pieces.length === 0 ? `"${escapeText(run)}"` : `${escapeText(run)}"`);
    return pieces;
  };
}

/** An output line as one string (tests, small outputs). */
export function lineText(line: OutputLine): string {
  if (typeof line === 'string') return line;
  return line.map((p) => (typeof p === 'string' ? p : Buffer.from(p.buffer, p.byteOffset, p.byteLength).toString('utf8'))).join('');
}
