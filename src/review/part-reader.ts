import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { createGunzip } from 'node:zlib';
import { UnreadableInputError } from '../errors.js';

/** One line of a part: its 1-based number, text, and where its bytes stand (decompressed for .gz). */
export interface PartLine {
  line: number;
  text: string;
  offset: number;
  length: number;
}

/** What reading a whole part found out about its bytes (set once the iteration ends). */
export interface PartTally {
  /** sha256 and size of the file as stored (compressed bytes for .gz). */
  sha256: string;
  bytes: number;
  /** Lines, blank ones included (a blank line is not a record). */
  lines: number;
  /** Whether the last line ended with a newline (parts written by hsa always do). */
  endsWithNewline: boolean;
  /** Set when the file could not be read to its end (a truncated gzip, a read error). */
  error?: string;
}

/**
 * Stream the lines of a part file (plain JSONL or .jsonl.gz) without holding more than one chunk
 * and the longest line, hashing the stored bytes on the way. Lines are decoded one by one
 * (ASCII-only lines stay one-byte strings). A stream that breaks off (a truncated gzip) ends the
 * iteration and leaves the reason in `tally.error` instead of throwing, so a verifier can name it.
 */
export async function* readPartLines(file: string, tally: PartTally): AsyncGenerator<PartLine> {
  const hash = createHash('sha256');
  let bytes = 0;
  const raw = createReadStream(file, { highWaterMark: 1 << 20 });
  const opened = new Promise<void>((resolve, reject) => {
    raw.once('open', () => resolve());
    raw.once('error', reject);
  });
  try {
    await opened;
  } catch (e) {
    throw new UnreadableInputError(
      `${file}: cannot read (${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : ((e as NodeJS.ErrnoException).code ?? 'error')})`,
    );
  }
  const gz = file.endsWith('.gz');
  // A plain part is hashed as its chunks are consumed. A .gz part is piped into gunzip, which
  // already reads it by 'data' events with backpressure, so a second listener sees the same chunks
  // at the same pace (on a plain stream a 'data' listener would switch it to flowing mode and
  // the iterator would buffer the whole file).
  let source: AsyncIterable<Buffer> = raw;
  if (gz) {
    raw.on('data', (chunk) => {
      hash.update(chunk as Buffer);
      bytes += (chunk as Buffer).length;
    });
    const gunzip = createGunzip();
    raw.on('error', (e) => gunzip.destroy(e));
    source = raw.pipe(gunzip);
  }
  let rest: Buffer = Buffer.alloc(0);
  let base = 0; // offset of rest[0] in the (decompressed) stream
  let lineNo = 0;
  let last = 10;
  try {
    for await (const chunk of source) {
      if (!gz) {
        hash.update(chunk);
        bytes += chunk.length;
      }
      if (chunk.length === 0) continue;
      last = chunk[chunk.length - 1]!;
      const buf = rest.length ? Buffer.concat([rest, chunk]) : chunk;
      let start = 0;
      let nl = buf.indexOf(10, start);
      while (nl !== -1) {
        lineNo++;
        const end = nl > start && buf[nl - 1] === 13 ? nl - 1 : nl;
        yield { line: lineNo, text: buf.toString('utf8', start, end), offset: base + start, length: nl - start };
        start = nl + 1;
        nl = buf.indexOf(10, start);
      }
      // Copy the unfinished line: the chunk's memory is reused by the stream.
      rest = Buffer.from(buf.subarray(start));
      base += start;
    }
    if (rest.length > 0) {
      lineNo++;
      yield { line: lineNo, text: rest.toString('utf8'), offset: base, length: rest.length };
    }
  } catch (e) {
    tally.error = (e as Error).message;
  } finally {
    raw.destroy();
  }
  tally.sha256 = hash.digest('hex');
  tally.bytes = bytes;
  tally.lines = lineNo;
  tally.endsWithNewline = last === 10;
}

/** An empty tally to pass to `readPartLines`. */
export function newTally(): PartTally {
  return { sha256: '', bytes: 0, lines: 0, endsWithNewline: true };
}

/**
 * The texts of some lines of a part, by line number: read at their offsets for a plain file, or by
 * streaming a .gz once. For the few records a report shows in full.
 */
export async function readLinesAt(file: string, wanted: readonly { line: number; offset: number; length: number }[]): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  if (wanted.length === 0) return out;
  if (file.endsWith('.gz')) {
    const lines = new Set(wanted.map((w) => w.line));
    const max = Math.max(...lines);
    for await (const l of readPartLines(file, newTally())) {
      if (lines.has(l.line)) out.set(l.line, l.text);
      if (l.line >= max) break;
    }
    return out;
  }
  const fh = await open(file, 'r');
  try {
    for (const w of wanted) {
      const buf = Buffer.allocUnsafe(w.length);
      await fh.read(buf, 0, w.length, w.offset);
      let text = buf.toString('utf8');
      if (text.endsWith('\r')) text = text.slice(0, -1);
      out.set(w.line, text);
    }
  } finally {
    await fh.close();
  }
  return out;
}
