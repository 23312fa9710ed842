import type { Stage } from '../config/augment-config.js';
import type { TokenCounter } from '../tokenize/tokenizer.js';
import type { ExportedFile, JsonlSink, ParquetSink, SchemaElement } from './sinks.js';

/** Where a source record came from (its output part and line). */
export interface SourceAt {
  file: string;
  line: number;
}

/** A record the target cannot hold: counted by `kind` in the export manifest, listed in `rejects.jsonl`. */
export interface Skip {
  /** Stable and short: what the manifest counts by. */
  kind: string;
  /** The particular case, for the rejects line. */
  detail: string;
}

/** What a format gets from the export runner. */
export interface ExportContext {
  /** The source stage being exported. */
  stage: Stage;
  /** `--enable-thinking`: write the column/flag verl reads, when set. */
  enableThinking: boolean | undefined;
  /** `--name`: the dataset name in registries (dataset_info.json) and file stems. */
  name: string;
  /** `--tool-class`: the Python class verl instantiates for each tool (verl-rl). */
  toolClass: string;
  /**
   * `--merge-turns` (llamafactory, swift): consecutive user turns are joined with a blank line, and a
   * system message after the first (hook feedback, a later instruction) is a user turn.
   */
  mergeTurns: boolean;
  /** The token counter (`--tokenizer`; loaded by default for formats that set `needsTokenizer`). */
  counter: TokenCounter | undefined;
  /** A JSONL file under the export folder (folders made as needed). */
  jsonl(file: string): JsonlSink;
  /** A parquet file with an explicit schema (rows buffered per row group: 256 unless given). */
  parquet(file: string, schema: SchemaElement[], rowGroup?: number): ParquetSink;
  /** A small whole file (YAML, JSON, Python) written at once. */
  whole(file: string, text: string, records?: number): Promise<void>;
  /** Record a closed sink's file in the manifest. */
  done(file: ExportedFile): void;
  /** Count a field the target does not carry (templates do not render it), by its path. */
  dropped(field: string): void;
  /** A warning: printed and kept in the export manifest. */
  warn(line: string): void;
}

/** One export in progress: fed the source records in order, one part after another. */
export interface ExportSession {
  /**
   * `--max-tokens`/`--tokenizer`: the record's length as this trainer encodes it, where its own
   * template differs from the tokenizer's chat template; `null` when `add` will skip the record
   * (it is then not counted); absent or `undefined`: the chat template's count.
   */
  countTokens?(record: Record<string, unknown>, counter: TokenCounter): number | null | undefined;
  /** Convert and write one record; a `Skip` when the target cannot represent it. */
  add(record: Record<string, unknown>, at: SourceAt): Skip | undefined;
  /** After each source part (formats that write a file per part close it here). */
  endPart(partIndex: number): Promise<void>;
  /** Close every file; what the export manifest should also say. */
  finish(): Promise<Record<string, unknown>>;
}

/** A trainer format: one module under `src/export/formats/`, listed in the registry. */
export interface ExportFormat {
  id: string;
  description: string;
  /** The source stages it reads; the first is the default. */
  stages: readonly Stage[];
  /**
   * The messages as the trainer renders them, when the format rewrites them (verl-sft writes
   * arguments as transformers' `tojson` does): `--max-tokens` and the token statistics count these.
   */
  countedMessages?(record: Record<string, unknown>): unknown[];
  /** The format measures in the student's tokens (verl-rl): `hsa export` loads `qwen3` unless `--tokenizer` names another. */
  needsTokenizer?: boolean;
  open(ctx: ExportContext): ExportSession;
}

/**
 * One output file per source part that has records, named after it: opened at the part's first
 * record, closed (and listed) at its end.
 */
export class PerPartFile<S extends { close(): Promise<ExportedFile> }> {
  private sink: S | null = null;
  private part = 0;

  constructor(
    private readonly ctx: ExportContext,
    private readonly open: (name: string) => S,
    private readonly name: (part: string) => string,
  ) {}

  /** The current part's file. */
  get(): S {
    return (this.sink ??= this.open(this.name(`part-${String(this.part).padStart(5, '0')}`)));
  }

  /** Close the file of part `index` (if it had records). */
  async end(index: number): Promise<void> {
    if (this.sink) this.ctx.done(await this.sink.close());
    this.sink = null;
    this.part = index + 1;
  }
}

/** Identity function for type inference (the transforms' `defineTransform` habit). */
export function defineFormat(f: ExportFormat): ExportFormat {
  return f;
}
