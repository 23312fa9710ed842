import { mkdir, open, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { HsaError } from '../errors.js';
import type { OutputLine } from './json-out.js';

/** Bytes gathered before a write: two buffers of this size, one filled while the other is written. */
const CHUNK = 1 << 20;
/** Texts up to this length (the glue between shared pieces) are copied by hand when ASCII. */
const SHORT = 16;

/**
 * A JSONL file of output lines (a string, or pieces with shared UTF-8 bytes, as recordLine makes
 * them), written to `<file>.tmp` in large chunks and renamed into place by `commit`, so a file
 * under its final name is complete. A target that is no regular file (`/dev/null`) is written directly.
 *
 * Lines are encoded straight into one of two reused buffers (no joined string, no Buffer per
 * chunk); `write` returns a promise only when a full buffer goes to the file, and that write runs
 * while the other buffer fills.
 */
export class LineFileWriter {
  private fh: FileHandle | undefined;
  private buf: Buffer = Buffer.allocUnsafe(CHUNK);
  private pos = 0;
  /** Buffers whose bytes are in the file (free to fill again). */
  private readonly free: Buffer[] = [];
  /** The last file write handed out; each waits for the one before it. */
  private inFlight: Promise<void> | undefined;
  /** File writes handed out and not yet done. */
  private writing = 0;
  lines = 0;

  private constructor(
    readonly file: string,
    private readonly direct: boolean,
  ) {}

  static async open(file: string): Promise<LineFileWriter> {
    const existing = await stat(file).catch(() => null);
    const w = new LineFileWriter(file, existing !== null && !existing.isFile() && !existing.isDirectory());
    try {
      await mkdir(path.dirname(path.resolve(file)), { recursive: true });
      w.fh = await open(w.direct ? file : `${file}.tmp`, 'w');
    } catch (e) {
      throw new HsaError('HSA_OUTPUT', `${file}: cannot write (${(e as NodeJS.ErrnoException).code ?? 'error'})`, 2);
    }
    return w;
  }

  /**
   * One line (without its newline). Returns a promise when the line filled a buffer and the
   * previous buffer's write had to be waited for (await it before the next write), else nothing.
   */
  write(line: OutputLine): Promise<void> | undefined {
    if (typeof line === 'string') this.text(line);
    else
      for (const p of line) {
        if (typeof p === 'string') this.text(p);
        else this.bytes(p);
      }
    this.room(1);
    this.buf[this.pos++] = 10;
    this.lines++;
    return this.pos >= CHUNK - (CHUNK >> 4) ? this.flush() : undefined;
  }

  private text(s: string): void {
    if (s.length <= SHORT && this.pos + SHORT <= this.buf.length && this.ascii(s)) return;
    // A UTF-16 code unit takes at most 3 bytes of UTF-8.
    if (this.pos + s.length * 3 > this.buf.length) {
      const n = Buffer.byteLength(s, 'utf8');
      if (this.pos + n > this.buf.length) this.grow(n);
    }
    this.pos += this.buf.write(s, this.pos, 'utf8');
  }

  /** A short ASCII text copied here, code unit by code unit (cheaper than a call into Buffer.write); false, nothing written, when not ASCII. */
  private ascii(s: string): boolean {
    const buf = this.buf;
    const at = this.pos;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) return false;
      buf[at + i] = c;
    }
    this.pos = at + s.length;
    return true;
  }

  private bytes(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  private room(n: number): void {
    if (this.pos + n > this.buf.length) this.grow(n);
  }

  /** A line longer than what is left: a bigger buffer for this one (the bytes so far kept). */
  private grow(n: number): void {
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(bigger, 0, 0, this.pos);
    this.buf = bigger;
  }

  /**
   * Hands the filled buffer to the file, after the writes before it, and goes on in a free one (a
   * new one when every buffer is still being written: a caller that does not wait is not made to).
   * Returns the write before this one while it is still going: a caller that waits for it fills the
   * next buffer while this one is written (waiting for this one would leave the thread idle).
   */
  private flush(): Promise<void> | undefined {
    if (this.pos === 0) return undefined;
    const full = this.buf;
    const length = this.pos;
    const before = this.inFlight;
    const previous = this.writing > 0 ? before : undefined;
    const fh = this.fh!;
    this.writing++;
    const done: Promise<void> = (async () => {
      try {
        if (before) await before;
        for (let off = 0; off < length;) off += (await fh.write(full, off, length - off)).bytesWritten;
      } finally {
        this.writing--;
      }
      this.free.push(full);
    })();
    // A failed write is reported where it is awaited (a later write, commit or abort), not as unhandled.
    done.catch(() => undefined);
    this.inFlight = done;
    this.buf = this.free.pop() ?? Buffer.allocUnsafe(CHUNK);
    this.pos = 0;
    return previous;
  }

  async commit(): Promise<void> {
    await this.settle();
    if (!this.direct) await rename(`${this.file}.tmp`, this.file);
  }

  /**
   * Commit several files: every one written out, synced and closed side by side (each `fsync` is
   * 15–30 ms of waiting), then renamed, so a failure before the renames leaves none of them.
   */
  static async commitAll(writers: readonly LineFileWriter[]): Promise<void> {
    await Promise.all(writers.map((w) => w.settle()));
    for (const w of writers) if (!w.direct) await rename(`${w.file}.tmp`, w.file);
  }

  /** Every line on disk and the file closed (synced first unless written in place). */
  private async settle(): Promise<void> {
    void this.flush(); // (the last write waits for every one before it)
    await this.inFlight;
    if (!this.direct) await this.fh!.sync();
    await this.fh!.close();
  }

  async abort(): Promise<void> {
    await this.inFlight?.catch(() => undefined);
    await this.fh?.close().catch(() => undefined);
    if (!this.direct) await rm(`${this.file}.tmp`, { force: true });
  }
}
