import { mkdir, open, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { HsaError } from '../errors.js';

/**
 * A JSONL file written to `<file>.tmp` and renamed into place by `commit`, so a file under its
 * final name is always complete; `abort` removes the temporary file. Lines are buffered and
 * written in large chunks. A target that exists and is not a regular file (`/dev/null`, a FIFO,
 * `/dev/stdout`) is written directly: renaming a temporary file onto it would replace the device.
 */
export class JsonlFileWriter {
  private fh: FileHandle | undefined;
  private chunks: string[] = [];
  private size = 0;
  lines = 0;

  private constructor(
    readonly file: string,
    private readonly direct: boolean,
  ) {}

  static async open(file: string): Promise<JsonlFileWriter> {
    const existing = await stat(file).catch(() => null);
    const w = new JsonlFileWriter(file, existing !== null && !existing.isFile() && !existing.isDirectory());
    try {
      await mkdir(path.dirname(path.resolve(file)), { recursive: true });
      w.fh = await open(w.direct ? file : `${file}.tmp`, 'w');
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
