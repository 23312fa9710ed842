import { createReadStream, mkdirSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';
import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Stage } from '../config/augment-config.js';
import { HsaError, UnreadableInputError, UsageError } from '../errors.js';
import type { TokenCounter } from '../tokenize/tokenizer.js';
import { TokenTally, tooLongReason, type TokenSummary } from '../tokenize/stats.js';
import { sha256 } from '../util/hash.js';
import { readJsonlLines } from '../util/jsonl.js';
import { sortKeys } from '../util/canonical-json.js';
import { HSA_VERSION } from '../version.js';
import { formats, type FormatId } from './formats/index.js';
import { toolsList, isSkip } from './messages.js';
import { hashFile, JsonlSink, ParquetSink, writeWholeFile, type ExportedFile } from './sinks.js';
import type { ExportContext, Skip } from './types.js';

export interface ExportOptions {
  /** The hsa output folder (with manifest.json). */
  source: string;
  to: string;
  out: string;
  /** The source stage; default: the format's first. */
  stage?: string;
  /** `--max-tokens`: SFT/OPD records over it go to the export's rejects. */
  maxTokens?: number;
  /** The token counter (with --max-tokens or --tokenizer); counts go to the manifest. */
  counter?: TokenCounter;
  enableThinking?: boolean;
  name?: string;
  toolClass?: string;
  /** `--merge-turns` (llamafactory and swift; see ExportContext). */
  mergeTurns?: boolean;
  force?: boolean;
  warn?: (line: string) => void;
}

export interface ExportSummary {
  out: string;
  manifest: string;
  format: string;
  stage: Stage;
  read: number;
  written: number;
  skipped: number;
  too_long: number;
  skips: Record<string, number>;
  files: number;
  tokens: TokenSummary | null;
  warnings: string[];
}

/** The export's own manifest, beside what it wrote. */
export const EXPORT_MANIFEST = 'export-manifest.json';
const REJECTS = 'rejects.jsonl';

/** The formats `--to` accepts, for messages. */
export function formatIds(): string[] {
  return Object.keys(formats);
}

/**
 * Check everything that can be checked before a byte is written: the format, the stage, the
 * source folder and its manifest, the out folder.
 */
export async function planExport(
  opts: ExportOptions,
): Promise<{ format: (typeof formats)[FormatId]; stage: Stage; manifestText: string; files: { file: string; records: number; sha256: string }[] }> {
  if (!Object.hasOwn(formats, opts.to)) throw new UsageError(`--to: unknown format "${opts.to}" (formats: ${formatIds().join(', ')})`);
  const format = formats[opts.to as FormatId];
  const stage = (opts.stage ?? format.stages[0]) as Stage;
  if (!format.stages.includes(stage)) throw new UsageError(`--stage ${stage}: ${format.id} exports ${format.stages.join(' or ')} records`);
  const manifestFile = path.join(opts.source, 'manifest.json');
  let manifestText: string;
  try {
    manifestText = await readFile(manifestFile, 'utf8');
  } catch {
    const st = await stat(opts.source).catch(() => null);
    throw new UnreadableInputError(
      st ? `${opts.source}: not an hsa output folder (no manifest.json; run hsa augment, and let it finish)` : `${opts.source}: no such folder`,
    );
  }
  let manifest: { stages?: Record<string, { files?: { file: string; records: number; sha256: string }[] }> };
  try {
    manifest = JSON.parse(manifestText);
  } catch (e) {
    throw new UnreadableInputError(`${manifestFile}: not valid JSON (${(e as Error).message})`);
  }
  if (!manifest || typeof manifest !== 'object' || !manifest.stages || typeof manifest.stages !== 'object')
    throw new UnreadableInputError(`${manifestFile}: stages: missing — not an hsa output manifest`);
  const files = manifest.stages[stage]?.files;
  if (!Array.isArray(files))
    throw new UsageError(
      `${manifestFile}: stages.${stage}: this run wrote no ${stage} stage (its stages: ${Object.keys(manifest.stages)
        .filter((s) => s !== 'rejects')
        .join(', ')})`,
    );
  const outAbs = path.resolve(opts.out);
  const srcAbs = path.resolve(opts.source);
  if (outAbs === srcAbs || outAbs.startsWith(srcAbs + path.sep) || srcAbs.startsWith(outAbs + path.sep))
    throw new UsageError(`--out ${opts.out}: must be outside the source folder ${opts.source}`);
  const outStat = await stat(opts.out).catch(() => null);
  if (outStat && !outStat.isDirectory()) throw new UsageError(`--out ${opts.out}: exists and is not a folder`);
  const entries = await readdir(opts.out).catch(() => null);
  if (entries && entries.length > 0 && !opts.force) {
    const ours = entries.includes(EXPORT_MANIFEST);
    throw new UsageError(`--out ${opts.out}: not empty${ours ? ' (an earlier export)' : ''}; choose another folder or pass --force to replace it`);
  }
  return { format, stage, manifestText, files };
}

/**
 * `hsa export`: stream the source stage's parts (in manifest order, each checked against its
 * sha256) through one trainer format into `out`, with a rejects file and `export-manifest.json`.
 * Output depends only on the source folder's bytes and the options: never on paths or time.
 */
export async function runExport(opts: ExportOptions): Promise<ExportSummary> {
  const { format, stage, manifestText, files } = await planExport(opts);
  const out = opts.out;
  const created = !(await stat(out).catch(() => null));
  if (!created) for (const e of await readdir(out)) await rm(path.join(out, e), { recursive: true, force: true });
  await mkdir(out, { recursive: true });
  const written: ExportedFile[] = [];
  const dropped: Record<string, number> = {};
  const warnings: string[] = [];
  const skips: Record<string, number> = {};
  const open: (JsonlSink | ParquetSink)[] = [];
  const ensureDir = (file: string) => mkdirSync(path.dirname(path.join(out, file)), { recursive: true });
  const ctx: ExportContext = {
    stage,
    enableThinking: opts.enableThinking,
    name: opts.name ?? 'hsa',
    toolClass: opts.toolClass ?? DEFAULT_TOOL_CLASS,
    mergeTurns: opts.mergeTurns === true,
    counter: opts.counter,
    jsonl(file) {
      ensureDir(file);
      const s = new JsonlSink(out, file);
      open.push(s);
      return s;
    },
    parquet(file, schema, rowGroup) {
      ensureDir(file);
      const s = new ParquetSink(out, file, schema, rowGroup);
      open.push(s);
      return s;
    },
    async whole(file, text, records = 0) {
      written.push(await writeWholeFile(out, file, text, records));
    },
    done(f) {
      written.push(f);
    },
    dropped(field) {
      dropped[field] = (dropped[field] ?? 0) + 1;
    },
    warn(line) {
      warnings.push(line);
      opts.warn?.(line);
    },
  };
  const tally = opts.counter ? new TokenTally() : null;
  let read = 0;
  let skipped = 0;
  let tooLong = 0;
  try {
    const session = format.open(ctx);
    const rejects = ctx.jsonl(REJECTS);
    const reject = (record: Record<string, unknown> | null, at: { file: string; line: number }, skip: Skip, extra: Record<string, unknown> = {}) => {
      skips[skip.kind] = (skips[skip.kind] ?? 0) + 1;
      rejects.write({ id: record?.id ?? null, source_file: at.file, source_line: at.line, kind: skip.kind, reason: skip.detail, ...extra });
    };
    for (const [index, f] of files.entries()) {
      const full = path.join(opts.source, f.file);
      const h = await hashFile(full).catch(() => {
        throw new UnreadableInputError(`${full}: cannot read (listed in ${opts.source}/manifest.json)`);
      });
      if (h.sha256 !== f.sha256)
        throw new HsaError('HSA_BAD_RECORD', `${full}: sha256 differs from the one in manifest.json (the folder changed after hsa augment wrote it)`, 1);
      for await (const { line, text } of f.file.endsWith('.gz') ? readGzipLines(full) : readJsonlLines(full)) {
        read++;
        const at = { file: f.file, line };
        let record: Record<string, unknown>;
        try {
          record = JSON.parse(text);
        } catch (e) {
          throw new HsaError('HSA_BAD_RECORD', `${full}:${line}: not valid JSON (${(e as Error).message})`, 1);
        }
        let counted: number | null = null;
        if (opts.counter && stage !== 'rl') {
          const tools = toolsList(record.tools);
          if (isSkip(tools)) {
            skipped++;
            reject(record, at, tools);
            continue;
          }
          let tokens: number | null;
          try {
            // The trainer's own encoding where the format knows it differs (null: the format skips the record).
            const own = session.countTokens?.(record, opts.counter);
            tokens = own !== undefined ? own : opts.counter.count((format.countedMessages?.(record) ?? record.messages) as unknown[], tools, stage === 'opd');
          } catch (e) {
            throw new HsaError(
              'HSA_BAD_RECORD',
              `${full}:${line}: record ${String(record.id)} does not render through the chat template (${(e as Error).message})`,
              1,
            );
          }
          if (tokens !== null && opts.maxTokens !== undefined && tokens > opts.maxTokens) {
            tooLong++;
            reject(record, at, { kind: 'too_long', detail: tooLongReason(tokens, opts.maxTokens) }, { tokens, max_tokens: opts.maxTokens });
            continue;
          }
          counted = tokens;
        }
        const skip = session.add(record, at);
        if (skip) {
          skipped++;
          reject(record, at, skip);
        } else if (counted !== null) tally!.add(counted); // statistics describe the records written
      }
      await session.endPart(index);
    }
    const notes = await session.finish();
    written.push(await rejects.close());
    for (const s of open)
      if (!written.some((w) => w.file === s.file)) throw new HsaError('HSA_INTERNAL', `${format.id}: ${s.file} was opened and never closed`, 70);
    const summaryTokens = tally?.summary() ?? null;
    const writtenRecords = read - skipped - tooLong;
    const manifest = sortKeys({
      hsa_version: HSA_VERSION,
      format: format.id,
      stage,
      source: { manifest_sha256: sha256(manifestText), files: files.map((f) => ({ file: f.file, records: f.records, sha256: f.sha256 })) },
      options: {
        name: ctx.name,
        ...(format.id === 'verl-rl' ? { tool_class: ctx.toolClass } : {}),
        ...(format.id === 'llamafactory' || format.id === 'swift' ? { merge_turns: ctx.mergeTurns } : {}),
        enable_thinking: opts.enableThinking ?? null,
        max_tokens: opts.maxTokens ?? null,
        tokenizer: opts.counter?.info ?? null,
      },
      files: written.filter((w) => w.file !== REJECTS).sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0)),
      rejects: written.find((w) => w.file === REJECTS),
      counts: { read, written: writtenRecords, skipped, too_long: tooLong },
      balance: {
        read: `${read} = ${writtenRecords} written + ${skipped} skipped + ${tooLong} over the token budget`,
        holds: read === files.reduce((n, f) => n + f.records, 0),
      },
      skips,
      dropped_fields: dropped,
      warnings,
      ...(summaryTokens ? { tokens: { [stage]: summaryTokens, add_generation_prompt: stage === 'opd' } } : {}),
      ...notes,
    }) as Record<string, unknown>;
    const manifestFile = await writeWholeFile(out, EXPORT_MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
    return {
      out,
      manifest: path.join(out, manifestFile.file),
      format: format.id,
      stage,
      read,
      written: writtenRecords,
      skipped,
      too_long: tooLong,
      skips,
      files: written.length,
      tokens: summaryTokens,
      warnings,
    };
  } catch (e) {
    // Nothing half-written stays: the folder is removed when this export made it, emptied otherwise.
    if (created) await rm(out, { recursive: true, force: true });
    else for (const entry of await readdir(out).catch(() => [] as string[])) await rm(path.join(out, entry), { recursive: true, force: true });
    throw e;
  }
}

/** The non-blank lines of a gzip part (`--gzip` runs), decompressed as a stream. */
async function* readGzipLines(file: string): AsyncGenerator<{ line: number; text: string }> {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  let line = 0;
  try {
    for await (const chunk of createReadStream(file).pipe(createGunzip()) as AsyncIterable<Buffer>) {
      const parts = (rest + decoder.write(chunk)).split('\n');
      rest = parts.pop()!;
      for (const p of parts) {
        line++;
        const text = p.endsWith('\r') ? p.slice(0, -1) : p;
        if (text.trim() !== '') yield { line, text };
      }
    }
  } catch (e) {
    throw new UnreadableInputError(`${file}: cannot decompress (${(e as Error).message})`);
  }
  rest += decoder.end();
  if (rest.trim() !== '') yield { line: line + 1, text: rest };
}

/**
 * The class verl instantiates per tool (`class_name` in the YAML). verl's `BaseTool` loads and
 * answers every call with a fixed text; pass `--tool-class` naming the replay tool of your
 * environment (for hsa rows, one that answers from `extra_info.env.tool_replay`).
 */
export const DEFAULT_TOOL_CLASS = 'verl.tools.base_tool.BaseTool';
