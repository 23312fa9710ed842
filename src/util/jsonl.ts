import { createReadStream } from 'node:fs';
import { UnreadableInputError } from '../errors.js';

export interface JsonlLine {
  /** 1-based line number in the file. */
  line: number;
  text: string;
}

/**
 * Stream the non-blank lines of a JSONL file. Splits raw buffers on `\n` itself (faster than
 * readline), decodes each line on its own, drops a trailing `\r` and a leading BOM. Memory holds
 * one read chunk plus the longest line, whatever the file size.
 */
export async function* readJsonlLines(file: string): AsyncGenerator<JsonlLine> {
  const stream = createReadStream(file, { highWaterMark: 1 << 20 });
  let pending: Buffer[] = [];
  let lineNo = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let start = 0;
      let nl = chunk.indexOf(10, start);
      while (nl !== -1) {
        lineNo++;
        const piece = chunk.subarray(start, nl);
        const buf = pending.length ? Buffer.concat([...pending, piece]) : piece;
        pending = [];
        const text = decodeLine(buf, lineNo);
        if (text.trim() !== '') yield { line: lineNo, text };
        start = nl + 1;
        nl = chunk.indexOf(10, start);
      }
      if (start < chunk.length) pending.push(chunk.subarray(start));
    }
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code) throw new UnreadableInputError(`${file}: cannot read (${code === 'ENOENT' ? 'no such file' : code})`);
    throw e;
  }
  if (pending.length) {
    lineNo++;
    const text = decodeLine(Buffer.concat(pending), lineNo);
    if (text.trim() !== '') yield { line: lineNo, text };
  }
}

function decodeLine(buf: Buffer, lineNo: number): string {
  let end = buf.length;
  if (end > 0 && buf[end - 1] === 13) end--;
  let start = 0;
  if (lineNo === 1 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) start = 3;
  return buf.toString('utf8', start, end);
}
