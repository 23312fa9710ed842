import { open, type FileHandle } from 'node:fs/promises';
import { UnreadableInputError } from '../errors.js';

export interface JsonlLine {
  /** 1-based line number in the file. */
  line: number;
  text: string;
}

/**
 * Stream the non-blank lines of a JSONL file. Splits on `\n` itself (faster than readline),
 * decodes each line on its own, drops a trailing `\r` and a leading BOM. Memory holds two read
 * buffers plus the longest line, whatever the file size.
 */
export async function* readJsonlLines(file: string): AsyncGenerator<JsonlLine> {
  for await (const r of readJsonlRanges(file)) yield { line: r.line, text: r.buf.toString('utf8', r.start, r.end) };
}

/** One non-blank line as bytes: `buf[start, end)` (without `\r` and BOM), valid only until the next line is asked for. */
export interface JsonlRange {
  /** 1-based line number in the file. */
  line: number;
  buf: Buffer;
  start: number;
  end: number;
}

/**
 * The lines of `readJsonlLines` as byte ranges, not decoded (worker threads decode their own
 * records). Two reused buffers: the next chunk is read while the lines of the current one are
 * handed out (a stream would allocate a new chunk per read, each left for the garbage collector).
 * The range object is reused too: copy what must outlive the next step.
 */
export async function* readJsonlRanges(file: string): AsyncGenerator<JsonlRange> {
  let fh: FileHandle;
  try {
    fh = await open(file, 'r');
  } catch (e) {
    throw unreadable(file, e);
  }
  const CHUNK = 1 << 20;
  const next = Buffer.allocUnsafe(CHUNK); // filled by the read in flight
  let work = Buffer.allocUnsafe(2 * CHUNK); // the unfinished line, then the chunk just read
  let end = 0; // bytes of `work` holding data
  let lineNo = 0;
  const range: JsonlRange = { line: 0, buf: work, start: 0, end: 0 };
  const read = () => fh.read(next, 0, CHUNK, null).catch((e: unknown) => Promise.reject(unreadable(file, e)));
  let pending = read();
  try {
    for (;;) {
      const { bytesRead } = await pending;
      if (bytesRead === 0) break;
      if (end + bytesRead > work.length) {
        // One line longer than the buffer: grow it.
        const bigger = Buffer.allocUnsafe(Math.max(work.length * 2, end + bytesRead));
        work.copy(bigger, 0, 0, end);
        work = bigger;
      }
      next.copy(work, end, 0, bytesRead);
      end += bytesRead;
      pending = read();
      let start = 0;
      let nl = work.indexOf(10, start);
      while (nl !== -1 && nl < end) {
        lineNo++;
        if (trimmed(range, work, start, nl, lineNo)) yield range;
        start = nl + 1;
        nl = work.indexOf(10, start);
      }
      // Keep the unfinished line at the front.
      work.copy(work, 0, start, end);
      end -= start;
    }
    if (end > 0) {
      lineNo++;
      if (trimmed(range, work, 0, end, lineNo)) yield range;
    }
  } finally {
    // A consumer that stops early leaves a read in flight: let it end before closing.
    await pending.catch(() => undefined);
    await fh.close();
  }
}

function unreadable(file: string, e: unknown): Error {
  const code = (e as NodeJS.ErrnoException).code;
  if (code) return new UnreadableInputError(`${file}: cannot read (${code === 'ENOENT' ? 'no such file' : code})`);
  return e as Error;
}

/** Set `r` to the line `buf[from, to)` without its `\r` and BOM; false when the line is blank. */
function trimmed(r: JsonlRange, buf: Buffer, from: number, to: number, lineNo: number): boolean {
  let end = to;
  if (end > from && buf[end - 1] === 13) end--;
  let start = from;
  if (lineNo === 1 && end - start >= 3 && buf[start] === 0xef && buf[start + 1] === 0xbb && buf[start + 2] === 0xbf) start += 3;
  r.line = lineNo;
  r.buf = buf;
  r.start = start;
  r.end = end;
  return !blank(buf, start, end);
}

/**
 * Whether the decoded line would be empty after `trim()`: ASCII is decided on the bytes (a JSON
 * line's first byte settles it); a line of other bytes before any ASCII text is decoded and
 * trimmed, so Unicode white space counts exactly as `trim` counts it.
 */
function blank(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const b = buf[i]!;
    if (b === 0x20 || (b >= 0x09 && b <= 0x0d)) continue;
    if (b < 0x80) return false;
    return buf.toString('utf8', start, end).trim() === '';
  }
  return true;
}
