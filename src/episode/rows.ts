import { readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import { UnreadableInputError } from '../errors.js';
import { BadRowError, parseRow, type EpisodeRow } from './row.js';

/**
 * Parsed rows kept (most recently used), by the length of their text: ~32 M characters (a few
 * thousand rows; ~1.4 bytes of heap per character on top of the text) stay parsed from load on, so
 * a row set of that size is parsed once; a larger one keeps its recently used rows parsed.
 */
const PARSED_CHARS = 32 << 20;

/** Which row an episode runs: its `extra_info.index`, its id, its position in the loaded order, or the row itself. */
export type RowRef = { index: number } | { id: string } | { position: number } | { row: unknown };

/** A row reference that is malformed, or names no loaded row (`missing`). */
export class RowRefError extends Error {
  constructor(
    readonly field: string,
    message: string,
    readonly missing: boolean,
  ) {
    super(message);
    this.name = 'RowRefError';
  }
}

/**
 * RL rows loaded from `rl/` parts (`.jsonl` or `.jsonl.gz`), in file order then line order. Each
 * row is checked once at load (a bad row names file, line and field) and kept as its line of text;
 * the parsed rows are kept too up to a budget (PARSED_CHARS), so a server's sessions share one
 * read-only row and what is derived from it (validators cached on its schema objects, the
 * episode's replay table); past the budget a row is parsed again when an episode needs it.
 */
export class RowSet {
  private readonly lines: { file: string; line: number; text: string; index: number; id: string }[] = [];
  private readonly byIndex = new Map<number, number>();
  private readonly byId = new Map<string, number>();
  private readonly parsed = new Map<number, EpisodeRow>();
  private parsedChars = 0;

  get size(): number {
    return this.lines.length;
  }

  private constructor(private readonly parsedBudget: number) {}

  /** Load every row of these files (already expanded and sorted); `parsedChars` overrides the parsed-row budget. */
  static async load(files: readonly string[], { parsedChars = PARSED_CHARS }: { parsedChars?: number } = {}): Promise<RowSet> {
    const set = new RowSet(parsedChars);
    for (const file of files) for (const { line, text } of await partLines(file)) set.add(file, line, text);
    return set;
  }

  private add(file: string, line: number, text: string): void {
    const position = this.lines.length;
    let row: EpisodeRow;
    try {
      row = parseRow(JSON.parse(text), position);
    } catch (e) {
      const why = e instanceof BadRowError ? e.message : `not valid JSON (${(e as Error).message})`;
      throw new BadRowError(`${file}:${line}`, why);
    }
    const seen = this.byIndex.get(row.index);
    if (seen !== undefined) {
      const first = this.lines[seen]!;
      throw new BadRowError(`${file}:${line}`, `extra_info.index ${row.index} is used by ${first.file}:${first.line} too`);
    }
    this.lines.push({ file, line, text, index: row.index, id: row.id });
    this.byIndex.set(row.index, position);
    if (!this.byId.has(row.id)) this.byId.set(row.id, position);
    if (this.parsedChars + text.length <= this.parsedBudget) this.keep(position, row);
  }

  /** Keep a parsed row as the most recently used, dropping the least recently used past the budget. */
  private keep(position: number, row: EpisodeRow): void {
    this.parsed.set(position, row);
    this.parsedChars += this.lines[position]!.text.length;
    // The newest row always stays, whatever its size.
    while (this.parsedChars > this.parsedBudget && this.parsed.size > 1) {
      const oldest = this.parsed.keys().next().value!;
      this.parsed.delete(oldest);
      this.parsedChars -= this.lines[oldest]!.text.length;
    }
  }

  /**
   * The row at a position of the loaded order (0-based). Rows within the budget are kept parsed: a
   * GRPO group runs one row many times at once, and its sessions share one (read-only) row.
   */
  at(position: number): EpisodeRow | undefined {
    const hit = this.parsed.get(position);
    if (hit) {
      this.parsed.delete(position);
      this.parsed.set(position, hit);
      return hit;
    }
    const l = this.lines[position];
    if (!l) return undefined;
    const row = parseRow(JSON.parse(l.text), position);
    this.keep(position, row);
    return row;
  }

  /** The row whose `extra_info.index` is `index`. */
  withIndex(index: number): EpisodeRow | undefined {
    const p = this.byIndex.get(index);
    return p === undefined ? undefined : this.at(p);
  }

  withId(id: string): EpisodeRow | undefined {
    const p = this.byId.get(id);
    return p === undefined ? undefined : this.at(p);
  }

  /** `{index, id}` of each row in loaded order (the task list a protocol can show). */
  summaries(start = 0, stop = this.lines.length): { index: number; id: string }[] {
    return this.lines.slice(Math.max(0, start), Math.max(0, stop)).map((l) => ({ index: l.index, id: l.id }));
  }

  /** The row a reference names; `field` prefixes the field in errors. */
  resolve(ref: RowRef, field = ''): EpisodeRow {
    const at = (k: string) => (field ? `${field}.${k}` : k);
    if ('row' in ref) {
      try {
        return parseRow(ref.row, 0);
      } catch (e) {
        if (e instanceof BadRowError) throw new RowRefError(at(`row.${e.field}`), at(`row.${e.message}`), false);
        throw e;
      }
    }
    const bad = (k: string, what: string) => new RowRefError(at(k), `${at(k)}: expected ${what}`, false);
    let row: EpisodeRow | undefined;
    if ('index' in ref) {
      if (!Number.isInteger(ref.index)) throw bad('index', 'an integer');
      row = this.withIndex(ref.index);
      if (!row) throw new RowRefError(at('index'), `${at('index')}: no row has index ${ref.index} (${this.indexRange()})`, true);
    } else if ('position' in ref) {
      if (!Number.isInteger(ref.position)) throw bad('position', 'an integer');
      row = this.at(ref.position);
      if (!row) throw new RowRefError(at('position'), `${at('position')}: ${ref.position} is out of range (0..${this.size - 1})`, true);
    } else {
      if (typeof ref.id !== 'string') throw bad('id', 'a string');
      row = this.withId(ref.id);
      if (!row) throw new RowRefError(at('id'), `${at('id')}: no row has id ${JSON.stringify(ref.id)}`, true);
    }
    return row;
  }

  /** Where a row came from, for messages. */
  where(position: number): string {
    const l = this.lines[position];
    return l ? `${l.file}:${l.line}` : `row ${position}`;
  }

  /** The index range, for messages about an index that is not there. */
  indexRange(): string {
    if (this.lines.length === 0) return 'no rows are loaded';
    let lo = Infinity;
    let hi = -Infinity;
    for (const l of this.lines) {
      lo = Math.min(lo, l.index);
      hi = Math.max(hi, l.index);
    }
    return `indices ${lo}..${hi}, ${this.lines.length} rows`;
  }
}

/** The non-blank lines of an RL part (`.jsonl` or `.jsonl.gz`), with their 1-based numbers. */
export async function partLines(file: string): Promise<{ line: number; text: string }[]> {
  let buf: Buffer;
  try {
    buf = await readFile(file);
    if (file.endsWith('.gz')) buf = gunzipSync(buf);
  } catch (e) {
    throw new UnreadableInputError(`${file}: ${(e as Error).message}`);
  }
  const out: { line: number; text: string }[] = [];
  let lineNo = 0;
  for (const raw of buf.toString('utf8').split('\n')) {
    lineNo++;
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() !== '') out.push({ line: lineNo, text: line });
  }
  return out;
}
