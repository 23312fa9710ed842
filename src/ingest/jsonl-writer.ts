import { mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { HsaError } from '../errors.js';

/**
 * A JSONL file written to `<file>.tmp` and renamed into place by `commit`, so a file under its
 * final name is always complete; `abort` removes the temporary file. Lines are buffered and
 * written in large chunks.
 */
export class JsonlFileWriter {
  private fh: FileHandle | undefined;
  private chunks: string[] = [];
  private size = 0;
  lines = 0;

  private constructor(readonly file: string) {}

  static async open(file: string): Promise<JsonlFileWriter> {
    const w = new JsonlFileWriter(file);
    try {
      await mkdir(path.dirname(path.resolve(file)), { recursive: true });
      w.fh = await open(`${file}.tmp`, 'w');
    } catch (e) {
      throw new HsaError('HSA_OUTPUT', `${file}: cannot write (${(e as NodeJS.ErrnoException).code ?? 'error'})`, 2);
    }
    return w;
  }

  async write(value: unknown): Promise<void> {
    const line = `${JSON.stringify(value)}\n`;
    this.chunks.push(line);
    this.size += line.length;
    this.lines++;
    if (this.size >= 1 << 20) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.chunks.length === 0) return;
    const text = this.chunks.join('');
    this.chunks = [];
    this.size = 0;
    await this.fh!.write(text);
  }

  async commit(): Promise<void> {
    await this.flush();
    await this.fh!.sync();
    await this.fh!.close();
    await rename(`${this.file}.tmp`, this.file);
  }

  async abort(): Promise<void> {
    await this.fh?.close().catch(() => undefined);
    await rm(`${this.file}.tmp`, { force: true });
  }
}
