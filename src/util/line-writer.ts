import { mkdir, open, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { HsaError } from '../errors.js';
import type { OutputLine } from './json-out.js';

/**
 * A JSONL file of output lines (a string, or pieces with shared UTF-8 bytes, as recordLine makes
 * them), written to `<file>.tmp` in large chunks and renamed into place by `commit`, so a file
 * under its final name is complete. A target that is no regular file (`/dev/null`) is written directly.
 */
export class LineFileWriter {
  private fh: FileHandle | undefined;
  private chunks: (string | Uint8Array)[] = [];
  private size = 0;
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

  /** One line (without its newline). */
  async write(line: OutputLine): Promise<void> {
    if (typeof line === 'string') {
      this.chunks.push(line, '\n');
      this.size += line.length + 1;
    } else {
      for (const p of line) {
        this.chunks.push(p);
        this.size += p.length;
      }
      this.chunks.push('\n');
      this.size++;
    }
    this.lines++;
    if (this.size >= 1 << 20) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.chunks.length === 0) return;
    // Runs of strings are joined and encoded once; shared bytes are copied as they are.
    const parts: Uint8Array[] = [];
    let text = '';
    for (const c of this.chunks) {
      if (typeof c === 'string') text += c;
      else {
        if (text !== '') parts.push(Buffer.from(text, 'utf8'));
        text = '';
        parts.push(c);
      }
    }
    if (text !== '') parts.push(Buffer.from(text, 'utf8'));
    this.chunks = [];
    this.size = 0;
    await this.fh!.write(Buffer.concat(parts));
  }

  async commit(): Promise<void> {
    await this.flush();
    if (this.direct) return void (await this.fh!.close());
    await this.fh!.sync();
    await this.fh!.close();
    await rename(`${this.file}.tmp`, this.file);
  }

  async abort(): Promise<void> {
    await this.fh?.close().catch(() => undefined);
    if (!this.direct) await rm(`${this.file}.tmp`, { force: true });
  }
}
