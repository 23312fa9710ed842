import { open, type FileHandle } from 'node:fs/promises';
import { UnreadableInputError } from '../errors.js';

export interface JsonlLine {
  /** 1-based line number in the file. */
  line: number;
  text: string;
}

/**
 * Stream the non-blank lines of a JSONL file. Splits on `\n` itself (faster than readline),
 * decodes each line on its own, drops a trailing `\r` and a leading BOM. Two reused buffers: the
 * next chunk is read while the lines of the current one are handed out (a stream would allocate a
 * new chunk per read, each left for the garbage collector). Memory holds the buffers plus the
 * longest line, whatever the file size.
 */
export async function* readJsonlLines(file: string): AsyncGenerator<JsonlLine> {
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
        const text = decodeLine(work, start, nl, lineNo);
        if (text.trim() !== '') yield { line: lineNo, text };
        start = nl + 1;
        nl = work.indexOf(10, start);
      }
      // Keep the unfinished line at the front.
      work.copy(work, 0, start, end);
      end -= start;
    }
    if (end > 0) {
      lineNo++;
      const text = decodeLine(work, 0, end, lineNo);
      if (text.trim() !== '') yield { line: lineNo, text };
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

function decodeLine(buf: Buffer, from: number, to: number, lineNo: number): string {
  let end = to;
  if (end > from && buf[end - 1] === 13) end--;
  let start = from;
  if (lineNo === 1 && end - start >= 3 && buf[start] === 0xef && buf[start + 1] === 0xbb && buf[start + 2] === 0xbf) start += 3;
  return buf.toString('utf8', start, end);
}
