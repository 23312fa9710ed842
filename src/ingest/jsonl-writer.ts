import { LineFileWriter } from '../util/line-writer.js';

/**
 * A JSONL file of values (each written as `JSON.stringify(value)`), written to `<file>.tmp` and
 * renamed into place by `commit`, so a file under its final name is always complete; `abort`
 * removes the temporary file. A target that exists and is not a regular file (`/dev/null`, a FIFO,
 * `/dev/stdout`) is written directly: renaming a temporary file onto it would replace the device.
 * The file protocol is LineFileWriter's, shared with `hsa migrate`.
 */
export class JsonlFileWriter {
  private constructor(private readonly w: LineFileWriter) {}

  static async open(file: string): Promise<JsonlFileWriter> {
    return new JsonlFileWriter(await LineFileWriter.open(file));
  }

  get file(): string {
    return this.w.file;
  }

  get lines(): number {
    return this.w.lines;
  }

  write(value: unknown): Promise<void> | undefined {
    return this.w.write(JSON.stringify(value));
  }

  commit(): Promise<void> {
    return this.w.commit();
  }

  abort(): Promise<void> {
    return this.w.abort();
  }
}
