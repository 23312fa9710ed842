import { createHash } from 'node:crypto';
import { closeSync, createReadStream, fsyncSync, openSync, writeSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileWriter, ParquetWriter } from 'hyparquet-writer';

/** One element of a flattened parquet schema (the thrift `SchemaElement` fields hsa uses). */
export interface SchemaElement {
  name: string;
  type?: 'BOOLEAN' | 'INT64' | 'BYTE_ARRAY';
  converted_type?: 'UTF8' | 'LIST';
  repetition_type?: 'REQUIRED' | 'OPTIONAL' | 'REPEATED';
  num_children?: number;
}

/** One file an export wrote, as its manifest lists it. */
export interface ExportedFile {
  /** Relative to the export folder, `/`-separated. */
  file: string;
  records: number;
  bytes: number;
  sha256: string;
}

/** Bytes buffered before a JSONL sink writes them out. */
const FLUSH_BYTES = 1 << 20;

/**
 * A JSONL file written to a temporary name, hashed on the way, fsynced and renamed on close: a file
 * under its final name is complete.
 */
export class JsonlSink {
  private readonly fd: number;
  private readonly hash = createHash('sha256');
  private chunks: string[] = [];
  private pending = 0;
  private bytes = 0;
  private records = 0;

  constructor(
    private readonly root: string,
    readonly file: string,
  ) {
    this.fd = openSync(`${path.join(root, file)}.tmp`, 'w');
  }

  /** Append one record (`JSON.stringify`, one line). */
  write(value: unknown): void {
    this.writeLine(JSON.stringify(value));
  }

  writeLine(line: string): void {
    this.chunks.push(line, '\n');
    this.pending += line.length + 1;
    this.records++;
    if (this.pending >= FLUSH_BYTES) this.flush();
  }

  private flush(): void {
    if (this.chunks.length === 0) return;
    const buf = Buffer.from(this.chunks.join(''), 'utf8');
    this.chunks = [];
    this.pending = 0;
    this.hash.update(buf);
    this.bytes += buf.length;
    for (let off = 0; off < buf.length;) off += writeSync(this.fd, buf, off);
  }

  async close(): Promise<ExportedFile> {
    this.flush();
    fsyncSync(this.fd);
    closeSync(this.fd);
    const full = path.join(this.root, this.file);
    await rename(`${full}.tmp`, full);
    return { file: this.file, records: this.records, bytes: this.bytes, sha256: this.hash.digest('hex') };
  }
}

/** Rows buffered before a parquet sink writes them as one row group (by default). */
const ROW_GROUP = 256;

/**
 * A parquet file written with hyparquet-writer from an explicit schema (so no column type is ever
 * guessed from the data), a row group at a time; temporary name, renamed on close.
 */
export class ParquetSink {
  private readonly writer: ParquetWriter;
  private rows: Record<string, unknown>[] = [];
  private records = 0;
  private readonly columns: string[];

  constructor(
    private readonly root: string,
    readonly file: string,
    schema: SchemaElement[],
    private readonly rowGroup = ROW_GROUP,
  ) {
    // hyparquet-writer's file writer flushes every ~1 MB, so a file never sits whole in memory.
    this.writer = new ParquetWriter({ writer: fileWriter(`${path.join(root, file)}.tmp`), schema: schema, createdBy: 'hsa' });
    this.columns = topLevelColumns(schema);
  }

  write(row: Record<string, unknown>): void {
    this.rows.push(row);
    this.records++;
    if (this.rows.length >= this.rowGroup) this.flush();
  }

  private flush(): void {
    if (this.rows.length === 0) return;
    const rows = this.rows;
    this.rows = [];
    // hyparquet-writer's node fileWriter writes synchronously; its Promise return is for async writers.
    void this.writer.write({ columnData: this.columns.map((name) => ({ name, data: rows.map((r) => r[name] ?? null) })), rowGroupSize: rows.length });
  }

  async close(): Promise<ExportedFile> {
    this.flush();
    await this.writer.finish();
    const full = path.join(this.root, this.file);
    await rename(`${full}.tmp`, full);
    const { sha256, bytes } = await hashFile(full);
    return { file: this.file, records: this.records, bytes, sha256 };
  }
}

function topLevelColumns(schema: SchemaElement[]): string[] {
  // Walk the flattened schema tree: the root's direct children are the columns.
  const names: string[] = [];
  let i = 1;
  const skip = (): void => {
    const n = schema[i]!.num_children ?? 0;
    i++;
    for (let k = 0; k < n; k++) skip();
  };
  while (i < schema.length) {
    names.push(schema[i]!.name);
    skip();
  }
  return names;
}

/** sha256 and size of a file, streamed. */
export async function hashFile(file: string): Promise<{ sha256: string; bytes: number }> {
  const h = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    h.update(chunk);
    bytes += chunk.length;
  }
  return { sha256: h.digest('hex'), bytes };
}

/** Write a small whole file (YAML, JSON) atomically and describe it. */
export async function writeWholeFile(root: string, file: string, text: string, records = 0): Promise<ExportedFile> {
  const full = path.join(root, file);
  await mkdir(path.dirname(full), { recursive: true });
  await writeFile(`${full}.tmp`, text);
  await rename(`${full}.tmp`, full);
  const buf = Buffer.from(text, 'utf8');
  return { file, records, bytes: buf.length, sha256: createHash('sha256').update(buf).digest('hex') };
}

/** Remove a temporary file left by a sink that was never closed. */
export async function removeTemp(root: string, file: string): Promise<void> {
  await rm(`${path.join(root, file)}.tmp`, { force: true });
}
