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
  // Each line is decoded when asked for (a batch decoded at once lives long enough to be promoted by the GC).
  for await (const { buf, spans } of readLineSpans(file)) {
    for (let i = 0; i < spans.length; i += 3) yield { line: spans[i]!, text: buf.toString('utf8', spans[i + 1], spans[i + 2]) };
  }
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
 * records). The range object is reused: copy what must outlive the next step.
 */
export async function* readJsonlRanges(file: string): AsyncGenerator<JsonlRange> {
  const range: JsonlRange = { line: 0, buf: Buffer.alloc(0), start: 0, end: 0 };
  for await (const { buf, spans } of readLineSpans(file)) {
    range.buf = buf;
    for (let i = 0; i < spans.length; i += 3) {
      range.line = spans[i]!;
      range.start = spans[i + 1]!;
      range.end = spans[i + 2]!;
      yield range;
    }
  }
}

/** The non-blank lines of one read chunk: `[line, start, end]` triples into `buf`. */
export interface LineSpans {
  buf: Buffer;
  spans: number[];
}

/**
 * The reader under the others, a step per read chunk. Two reused buffers: the next chunk is read
 * while the lines of the current one are handed out (a stream would allocate a new chunk per read,
 * each left for the garbage collector). The spans (and the bytes they point at) are valid only
 * until the next step.
 */
export async function* readLineSpans(file: string): AsyncGenerator<LineSpans> {
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
  const out: LineSpans = { buf: work, spans: [] };
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
      out.buf = work;
      out.spans.length = 0;
      let start = 0;
      let nl = work.indexOf(10, start);
      while (nl !== -1 && nl < end) {
        span(out.spans, work, start, nl, ++lineNo);
        start = nl + 1;
        nl = work.indexOf(10, start);
      }
      if (out.spans.length > 0) yield out;
      // Keep the unfinished line at the front.
      work.copy(work, 0, start, end);
      end -= start;
    }
    if (end > 0) {
      out.buf = work;
      out.spans.length = 0;
      span(out.spans, work, 0, end, ++lineNo);
      if (out.spans.length > 0) yield out;
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

/** Add the line `buf[from, to)` without its `\r` and BOM to `spans`, unless it is blank. */
function span(spans: number[], buf: Buffer, from: number, to: number, lineNo: number): void {
  let end = to;
  if (end > from && buf[end - 1] === 13) end--;
  let start = from;
  if (lineNo === 1 && end - start >= 3 && buf[start] === 0xef && buf[start + 1] === 0xbb && buf[start + 2] === 0xbf) start += 3;
  if (!blank(buf, start, end)) spans.push(lineNo, start, end);
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
