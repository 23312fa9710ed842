import { createHash } from 'node:crypto';
import { closeSync, createWriteStream, fsync, openSync, write } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { PassThrough, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { constants, createGzip } from 'node:zlib';
import type { OutputLine } from '../util/json-out.js';

export interface PartFile {
  /** Path relative to the out folder, e.g. `sft/part-00000.jsonl.gz`. */
  file: string;
  records: number;
  bytes: number;
  sha256: string;
}

const CHUNK = 1 << 20;
/** Plain parts: the size of each of the two buffers (one filled while the other is written). */
const PLAIN_CHUNK = 2 << 20;

/**
 * Writes one JSONL part to a temporary file, hashed on the way. `commit` fsyncs and renames it to
 * its final name; a part under its final name is always complete.
 *
 * Plain parts are encoded into two reused buffers: while one is written to the file (by libuv's
 * thread pool, so the kernel's copy and any writeback wait are off the main thread), the next
 * lines go into the other. A buffer handed to a stream could not be reused (each flush left a dead
 * buffer for the garbage collector, tens of MB at a time). Writes are issued one at a time, in
 * order. Gzip parts go through zlib's stream (fixed level, no name, mtime 0, OS byte 3 — so the
 * bytes depend only on the content).
 */
export class PartWriter {
  private readonly hash = createHash('sha256');
  private bytes = 0;
  private records = 0;
  private buf: Buffer;
  private pos = 0;
  /** Plain parts: the other buffer, and the write in flight from it (it rejects with a write error). */
  private other: Buffer | null = null;
  private writing: Promise<void> | null = null;
  /** Plain parts: the temporary file, open for writing. */
  private fd: number | null = null;
  /** Gzip parts: the compressing pipeline to the temporary file. */
  private readonly gz: { head: PassThrough; done: Promise<void> } | null = null;

  constructor(
    private readonly outDir: string,
    readonly file: string,
    gzip: boolean,
  ) {
    if (!gzip) {
      this.fd = openSync(this.tmpPath, 'w');
      this.buf = Buffer.allocUnsafe(PLAIN_CHUNK); // the other one when first needed (a rejects part rarely does)
      return;
    }
    this.buf = Buffer.allocUnsafe(CHUNK);
    const head = new PassThrough({ highWaterMark: CHUNK });
    const tap = new Transform({
      transform: (chunk: Buffer, _enc, cb) => {
        // The header's OS byte is the zlib build's platform code (3 on Unix, 10 on Windows): fixed
        // to 3 so the bytes do not depend on the system that wrote them (RFC 1952 §2.3.1; readers ignore it).
        if (this.bytes === 0 && chunk.length > 9) chunk[9] = 3;
        this.hash.update(chunk);
        this.bytes += chunk.length;
        cb(null, chunk);
      },
    });
    const stages = [head, createGzip({ level: 6, strategy: constants.Z_DEFAULT_STRATEGY }), tap, createWriteStream(this.tmpPath)];
    this.gz = { head, done: pipeline(stages as unknown as [PassThrough, Writable]) };
  }

  get tmpPath(): string {
    return `${this.outDir}/${this.file}.tmp`;
  }

  get finalPath(): string {
    return `${this.outDir}/${this.file}`;
  }

  /** Append one record line (without the newline). */
  async writeLine(line: OutputLine): Promise<void> {
    this.records++;
    let need = 1;
    if (typeof line === 'string')
      need += line.length * 3; // the most UTF-8 bytes a UTF-16 string can take
    else for (const p of line) need += typeof p === 'string' ? p.length * 3 : p.byteLength;
    if (this.pos + need > this.buf.length) {
      await this.flush();
      if (need > this.buf.length) this.buf = Buffer.allocUnsafe(need);
    }
    if (typeof line === 'string') this.pos += this.buf.write(line, this.pos, 'utf8');
    else
      for (const p of line) {
        if (typeof p === 'string') this.pos += this.buf.write(p, this.pos, 'utf8');
        else {
          this.buf.set(p, this.pos);
          this.pos += p.byteLength;
        }
      }
    this.buf[this.pos++] = 10;
  }

  private async flush(): Promise<void> {
    if (this.pos === 0) return;
    const chunk = this.buf.subarray(0, this.pos);
    this.pos = 0;
    if (this.fd !== null) {
      this.hash.update(chunk);
      this.bytes += chunk.length;
      await this.writing; // the other buffer is free again (or its write failed: that error is thrown)
      this.writing = writeAll(this.fd, chunk);
      this.writing.catch(() => undefined); // reported by the next flush or the commit, not as unhandled
      [this.buf, this.other] = [this.other ?? Buffer.allocUnsafe(PLAIN_CHUNK), this.buf];
      this.syncEarly(this.fd);
      return;
    }
    // The stream keeps the chunk until it is written: the next lines go into a new buffer.
    this.buf = Buffer.allocUnsafe(CHUNK);
    if (!this.gz!.head.write(chunk)) await once(this.gz!.head, 'drain');
  }

  /**
   * Every 64 MB, flush what is written so far to disk in the background, so the fsync at commit
   * (which the run waits for at its end) has little left to do.
   */
  private syncing: Promise<void> | null = null;
  private syncedUpTo = 0;

  private syncEarly(fd: number): void {
    if (this.syncing || this.bytes - this.syncedUpTo < 64 << 20) return;
    this.syncedUpTo = this.bytes;
    // Errors surface at commit, whose own fsync reports them.
    this.syncing = new Promise<void>((resolve) => fsync(fd, () => resolve())).then(() => {
      this.syncing = null;
    });
  }

  /** Finish, fsync and rename into place. */
  async commit(): Promise<PartFile> {
    await this.flush();
    if (this.fd !== null) {
      const fd = this.fd;
      this.fd = null;
      try {
        await this.writing;
        // The part's buffers are not needed any more (it stays referenced until its marker is written).
        this.buf = Buffer.alloc(0);
        this.other = null;
        await this.syncing;
        await new Promise<void>((resolve, reject) => fsync(fd, (e) => (e ? reject(e) : resolve())));
      } finally {
        closeSync(fd);
      }
    } else {
      this.gz!.head.end();
      await this.gz!.done;
      const fh = await open(this.tmpPath, 'r+');
      try {
        await fh.sync();
      } finally {
        await fh.close();
      }
    }
    await rename(this.tmpPath, this.finalPath);
    return { file: this.file, records: this.records, bytes: this.bytes, sha256: this.hash.digest('hex') };
  }

  /** Drop the temporary file (after a failure). */
  async abort(): Promise<void> {
    await this.writing?.catch(() => undefined);
    await this.syncing;
    if (this.fd !== null) {
      closeSync(this.fd);
      this.fd = null;
    }
    if (this.gz) {
      this.gz.head.destroy();
      await this.gz.done.catch(() => undefined);
    }
    await rm(this.tmpPath, { force: true });
  }
}

/** Write all of `chunk` at the file's current position (a short write continues where it stopped). */
function writeAll(fd: number, chunk: Buffer): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const next = (off: number) =>
      write(fd, chunk, off, chunk.length - off, null, (e, n) => {
        if (e) return reject(e);
        if (off + n < chunk.length) next(off + n);
        else resolve();
      });
    next(0);
  });
}

/** fsync a folder so a rename inside it is durable. */
export async function syncDir(dir: string): Promise<void> {
  try {
    const fh = await open(dir, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    /* some file systems cannot fsync folders; the rename is still atomic */
  }
}

/** The manifest's `summary`: bytes read, bytes written (every part as stored, rejects included), and their ratio. */
export interface OutputSize {
  input_bytes: number;
  output_bytes: number;
  /** output ÷ input, to three decimals (0 for an empty input). */
  bytes_per_input_byte: number;
}

/** The size summary of a run from its inputs' sizes and its stages' part files. */
export function outputSize(inputs: readonly { bytes?: number }[], stages: Record<string, { bytes: number }>): OutputSize {
  const input = inputs.reduce((n, i) => n + (i.bytes ?? 0), 0);
  const output = Object.values(stages).reduce((n, s) => n + s.bytes, 0);
  return { input_bytes: input, output_bytes: output, bytes_per_input_byte: input === 0 ? 0 : Math.round((1000 * output) / input) / 1000 };
}
