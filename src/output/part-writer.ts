import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
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

/**
 * Writes one JSONL part: lines go through an optional gzip (fixed level, no name, mtime 0 — so the
 * bytes depend only on the content) to a temporary file, hashed on the way. `commit` fsyncs and
 * renames it to its final name; a part under its final name is always complete.
 */
export class PartWriter {
  private readonly head = new PassThrough({ highWaterMark: 1 << 20 });
  private readonly hash = createHash('sha256');
  private bytes = 0;
  private records = 0;
  /** Lines are encoded straight into this buffer, which goes to the stream when full. */
  private buf = Buffer.allocUnsafe(CHUNK);
  private pos = 0;
  private readonly done: Promise<void>;

  constructor(
    private readonly outDir: string,
    readonly file: string,
    gzip: boolean,
  ) {
    const tap = new Transform({
      transform: (chunk: Buffer, _enc, cb) => {
        this.hash.update(chunk);
        this.bytes += chunk.length;
        cb(null, chunk);
      },
    });
    const sink = createWriteStream(this.tmpPath);
    const stages: (PassThrough | Transform | Writable)[] = [this.head];
    if (gzip) stages.push(createGzip({ level: 6, strategy: constants.Z_DEFAULT_STRATEGY }));
    stages.push(tap, sink);
    this.done = pipeline(stages as unknown as [PassThrough, Writable]);
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
    if (typeof line === 'string') need += line.length * 3; // the most UTF-8 bytes a UTF-16 string can take
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
    // The stream keeps the chunk until it is written: the next lines go into a new buffer.
    const chunk = this.buf.subarray(0, this.pos);
    this.buf = Buffer.allocUnsafe(CHUNK);
    this.pos = 0;
    if (!this.head.write(chunk)) await once(this.head, 'drain');
  }

  /** Finish, fsync and rename into place. */
  async commit(): Promise<PartFile> {
    await this.flush();
    this.head.end();
    await this.done;
    const fh = await open(this.tmpPath, 'r+');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(this.tmpPath, this.finalPath);
    return { file: this.file, records: this.records, bytes: this.bytes, sha256: this.hash.digest('hex') };
  }

  /** Drop the temporary file (after a failure). */
  async abort(): Promise<void> {
    this.head.destroy();
    await this.done.catch(() => undefined);
    await rm(this.tmpPath, { force: true });
  }
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
