import pLimit from 'p-limit';
import { INLINE_HARNESS } from '../config/names.js';
import type { RunConfig } from '../config/augment-config.js';
import { newCounters, type TeacherCounters } from '../llm/errors.js';
import { IdIndex } from '../util/id-index.js';
import { decode, runParts, type PartContext, type RunProgress } from './executor.js';
import { buildManifest, manifestConfig, writeManifest } from './manifest.js';
import { prepareOut, removeShardRecords, writeInputs, writeShardRecord, type Shard } from './out-folder.js';
import type { MakePartPool } from './part-pool.js';
import type { OutputSize } from './part-writer.js';
import { produceRecord, type InputItem, type ProduceContext } from './produce.js';
import { inlineHarnessesFor, statePoolFor } from './variants.js';
import { setUpRun, makeTeacher } from './setup.js';
import { noteId, type Bucket, type PartCounts } from './shared.js';

export interface RunSummary {
  out: string;
  /** The manifest written, or null for a shard (`hsa merge` writes it when every shard is done). */
  manifest: string | null;
  /** The shard this run wrote, with the parts it owns. */
  shard?: Shard & { parts: number[]; partsTotal: number };
  resumed: boolean;
  partsSkipped: number;
  totals: PartCounts;
  stages: Record<string, { parts: number; records: number; bytes: number }>;
  rejectReasons: Record<string, number>;
  /** The manifest's teacher block: answers, tokens and recovery counts (a warm rerun states the same). */
  teacher: Record<string, unknown>;
  /** With a tokenizer: the manifest's `tokens` section. */
  tokens?: Record<string, unknown>;
  /** The manifest's `summary`: bytes read and written. */
  size: OutputSize;
}

export interface RunOptions {
  force?: boolean;
  onProgress?: (p: RunProgress) => void;
  warn?: (line: string) => void;
  signal?: AbortSignal;
  counters?: TeacherCounters;
  shard?: Shard;
  /** Worker threads for a rewrite-mode run (`--workers`); the run produces every record itself without. */
  pool?: MakePartPool;
}

/**
 * `hsa augment`: set the run up (inputs, descriptor, teacher, out folder), write its parts (see
 * executor.ts), then `.hsa/inputs.json` and the manifest (or, for a shard, its shard note). Output
 * is a pure function of inputs, config, seed (and cached teacher answers); a rerun resumes at the
 * first part without a valid marker.
 */
export async function runAugment(cfg: RunConfig, opts: RunOptions): Promise<RunSummary> {
  const { transforms, words, harness, files, inputs, general, counter, descriptor, fingerprint } = await setUpRun(cfg, opts.warn);
  const inline = cfg.harness === INLINE_HARNESS;

  // A teacher that cannot start (no key for a remote endpoint) fails before the out folder is touched.
  const teacher = await makeTeacher(cfg, opts.signal, opts.counters ?? newCounters());
  const resumed = await prepareOut(cfg.out, descriptor, fingerprint, opts.force === true, [...cfg.stages, 'rejects'], opts.shard);
  const bytesTotal = inputs.reduce((n, i) => n + i.bytes, 0);
  const progress: RunProgress = { bytesRead: 0, bytesTotal, records: 0, outputs: 0, partsDone: 0, partsSkipped: 0 };
  const seenIds = new IdIndex();
  const buckets: Bucket[] = [...cfg.stages, 'rejects'];

  const pool = inline ? undefined : statePoolFor(cfg, harness, transforms, words);
  if (cfg.teacher.mode !== 'rewrite' && harness.hooks.some((h) => h.command) && !cfg.allowCommandHooks) {
    opts.warn?.(
      `${cfg.harness}: command hooks are not run (pass --allow-command-hooks to run them): ${harness.hooks
        .filter((h) => h.command)
        .map((h) => h.id)
        .join(', ')}`,
    );
  }
  const produceCtx: ProduceContext = {
    cfg,
    harness,
    transforms,
    words,
    general: general?.prompts ?? [],
    pool,
    ...(inline ? { inline: inlineHarnessesFor(cfg, transforms, words) } : {}),
    teacher,
    limit: teacher ? pLimit(Math.max(1, cfg.concurrency)) : undefined,
    warn: opts.warn ?? (() => undefined),
    seenIds,
    ...(counter ? { tokens: counter } : {}),
  };
  // Worker threads (rewrite mode): in-process shards, each writing the parts it claims; ids are
  // noted here, in input order, from the parts' reports (see claimed-parts.ts).
  const threads =
    cfg.teacher.mode === 'rewrite' && opts.pool
      ? await opts.pool({ cfg, general: general?.prompts ?? [], harness, fingerprint, buckets, files, shard: opts.shard }, { seenIds })
      : undefined;
  // On threads the pool notes ids itself (in order, whichever thread made the record).
  const here: ProduceContext = threads ? { ...produceCtx, seenIds: undefined } : produceCtx;
  const shared: PartContext = {
    cfg,
    fingerprint,
    buckets,
    progress,
    onProgress: opts.onProgress,
    produce: (file, r, pos, partIndex, duplicateOf) => produceRecord(here, { file, line: r.line, text: decode(r) }, pos, partIndex, duplicateOf),
    noteSkipped: (item: InputItem) => noteId(item, seenIds),
    settle: async () => {
      await teacher?.settle?.();
    },
  };
  const { markers, parts, owned, records } = threads
    ? await threads.runParts(shared, { signal: opts.signal })
    : await runParts(shared, files, { signal: opts.signal, shard: opts.shard });

  // What `hsa merge` needs besides the part markers: the same bytes from every shard and whole run.
  // The tokenizer's name is stated in the manifest but not in the fingerprint (its bytes are).
  await writeInputs(cfg.out, { fingerprint, parts, records, ...(counter ? { tokenizer: counter.info } : {}) });
  const manifest = buildManifest(descriptor, markers, buckets, manifestConfig(cfg, counter?.info ?? null), records);
  let manifestPath: string | null = null;
  if (opts.shard) {
    await writeShardRecord(cfg.out, { fingerprint, shard: opts.shard.index, shards: opts.shard.count, parts: owned });
  } else {
    manifestPath = await writeManifest(cfg.out, manifest);
    // A whole run over a sharded folder finishes it: the shards' notes go, as after hsa merge.
    await removeShardRecords(cfg.out);
  }
  const m = manifest as {
    totals: PartCounts;
    stages: RunSummary['stages'];
    summary: OutputSize;
    reject_reasons: Record<string, number>;
    teacher: Record<string, unknown>;
    tokens?: Record<string, unknown>;
  };
  return {
    out: cfg.out,
    manifest: manifestPath,
    resumed,
    partsSkipped: progress.partsSkipped,
    totals: m.totals,
    stages: m.stages,
    size: m.summary,
    rejectReasons: m.reject_reasons,
    teacher: m.teacher,
    ...(m.tokens ? { tokens: m.tokens } : {}),
    ...(opts.shard ? { shard: { ...opts.shard, parts: owned, partsTotal: parts } } : {}),
  };
}
