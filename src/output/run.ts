import { createReadStream } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import path from 'node:path';
import pLimit from 'p-limit';
import type { RunConfig } from '../config/augment-config.js';
import { HsaError } from '../errors.js';
import { INLINE_HARNESS } from '../config/augment-config.js';
import { loadHarness, type LoadResult } from '../harness/load.js';
import { deriveInlineHarness } from '../ingest/inline-harness.js';
import { withPinnedSections } from '../harness/render.js';
import { formatProblem, hasErrors, sortProblems } from '../problems.js';
import { TeacherCache } from '../llm/cache.js';
import { newCounters, type TeacherCounters } from '../llm/errors.js';
import { ReplayTeacher } from '../teacher/replay.js';
import type { Teacher } from '../teacher/types.js';
import { runTransforms } from './run-transforms.js';
import { canonicalJson, sortKeys } from '../util/canonical-json.js';
import { hashValue } from '../util/hash.js';
import { expandInputs } from '../util/inputs.js';
import { readJsonlLines, readJsonlRanges, type JsonlRange } from '../util/jsonl.js';
import { ENGINE_VERSION, HSA_VERSION } from '../version.js';
import { outputSize, PartWriter, syncDir, type OutputSize, type PartFile } from './part-writer.js';
import { inlineHarnessesFor, produceRecord, statePoolFor, type InputItem, type ProduceContext } from './produce.js';
import { IdIndex } from '../util/id-index.js';
import { BadRecordError, emptyCounts, emptyTeacherTotals, noteId, type Bucket, type Output, type PartCounts, type TeacherTotals } from './shared.js';
import type { GeneralPrompt } from './stages.js';
import type { TokenCounter, TokenizerInfo } from '../tokenize/tokenizer.js';
import { summarise, TokenTally, type TokenHistogram } from '../tokenize/stats.js';
import { ownsPart, type Shard } from '../scale/shard.js';
import { WorkerPool } from '../scale/workers.js';

/** Ctrl-C: finished parts stay finished; a rerun resumes the rest. */
export class InterruptedError extends HsaError {
  constructor() {
    super('HSA_INTERRUPTED', 'interrupted: finished parts are kept; run the same command again to resume', 130);
    this.name = 'InterruptedError';
  }
}

export class OutputError extends HsaError {
  constructor(message: string) {
    super('HSA_OUTPUT', message, 2);
    this.name = 'OutputError';
  }
}


/** What the done marker of a part records; the manifest is assembled from these. */
export interface PartMarker {
  index: number;
  fingerprint: string;
  first: { file: string; line: number } | null;
  counts: PartCounts;
  /** Rejects by reason category. */
  reasons: Record<string, number>;
  teacher: TeacherTotals;
  /** Teacher recovery by kind (`call_retry.<kind>`, `rerun.<kind>`). */
  recovery?: Record<string, number>;
  files: Record<Bucket, PartFile>;
  /** With a tokenizer: token histograms of the records written, and the records over the budget. */
  tokens?: PartTokens;
}

interface PartTokens {
  sft: TokenHistogram;
  opd: TokenHistogram;
  too_long: { sft: number; opd: number };
}






export interface RunProgress {
  bytesRead: number;
  bytesTotal: number;
  records: number;
  outputs: number;
  partsDone: number;
  partsSkipped: number;
}

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

export const META_DIR = '.hsa';

export { runTransforms };

/**
 * What every run over the inputs needs: transforms, words, the valid harness, the input files. With
 * an inline harness (`allowInline`; refused otherwise) `harness` is a placeholder with no sections
 * or tools: each record's own is derived as it is read (see produce.ts).
 */
export async function loadRunInputs(cfg: RunConfig, warn?: (line: string) => void, allowInline = false) {
  const { transforms, words } = await runTransforms(cfg);
  if (cfg.harness === INLINE_HARNESS) {
    if (!allowInline) throw new HsaError('HSA_USAGE', 'this command needs a harness (--harness or `harness:` in the config); inline harnesses work with hsa augment and hsa validate', 2);
    const files = await expandInputs(cfg.trajectories, 'trajectories');
    const harness = deriveInlineHarness({ id: '', messages: [] }, { file: '', line: 0 }).harness!;
    return { transforms, words, loaded: { harness, problems: [], files: [] } as LoadResult, harness, files };
  }
  const loaded = await loadHarness(cfg.harness);
  for (const p of sortProblems(loaded.problems)) if (p.severity === 'warning') warn?.(formatProblem(p));
  if (!loaded.harness || hasErrors(loaded.problems)) {
    const lines = sortProblems(loaded.problems.filter((p) => p.severity === 'error')).map(formatProblem);
    throw new HsaError('HSA_BAD_HARNESS', `${cfg.harness}: the harness has errors:\n${lines.join('\n')}`, 1);
  }
  const files = await expandInputs(cfg.trajectories, 'trajectories');
  // Located records keep their sections in the slots of their log: no transform moves or merges them.
  const harness = cfg.systemPrompt === 'locate' ? withPinnedSections(loaded.harness) : loaded.harness;
  return { transforms, words, loaded, harness, files };
}

/**
 * `hsa augment`: stream the inputs in their defined order, cut them into parts of `partSize` input
 * records, write each part's stage files atomically with a done marker, then the manifest. Output
 * is a pure function of inputs, config, seed (and cached teacher answers); a rerun resumes at the
 * first part without a valid marker.
 */
export async function runAugment(
  cfg: RunConfig,
  opts: { force?: boolean; onProgress?: (p: RunProgress) => void; warn?: (line: string) => void; signal?: AbortSignal; counters?: TeacherCounters; shard?: Shard; workers?: number },
): Promise<RunSummary> {
  const { transforms, words, loaded, harness, files } = await loadRunInputs(cfg, opts.warn, true);
  const inline = cfg.harness === INLINE_HARNESS;
  const inputs = await Promise.all(files.map(async (file) => ({ file, ...(await hashFile(file)) })));
  const general = cfg.general ? await loadGeneral(cfg.general) : null;
  // Loaded only when asked for (its modules are a noticeable share of a short run's start-up).
  const counter = cfg.tokenizer !== null ? await (await import('../tokenize/tokenizer.js')).loadTokenCounter(cfg.tokenizer) : undefined;

  const outputConfig = outputAffectingConfig(cfg, counter);
  const descriptor = sortKeys({
    hsa_version: HSA_VERSION,
    engine_version: ENGINE_VERSION,
    config: outputConfig,
    seed: cfg.seed,
    inputs: {
      harness: { path: cfg.harness, files: loaded.files.map((f) => ({ file: f.file, sha256: sha(f.text) })) },
      trajectories: inputs.map((i) => ({ file: i.file, sha256: i.sha256, bytes: i.bytes })),
      ...(general ? { general: { file: general.file, sha256: general.sha256, prompts: general.prompts.length } } : {}),
    },
    transforms: transforms.map((t) => ({ id: t.def.id, version: t.def.version, class: t.def.class, options: t.options })),
  }) as Record<string, unknown>;
  const fingerprint = hashValue(descriptor);

  // A teacher that cannot start (no key for a remote endpoint) fails before the out folder is touched.
  const teacher = await makeTeacher(cfg, opts.signal, opts.counters ?? newCounters());
  const resumed = await prepareOut(cfg.out, descriptor, fingerprint, opts.force === true, [...cfg.stages, 'rejects'], opts.shard);
  const bytesTotal = inputs.reduce((n, i) => n + i.bytes, 0);
  const progress: RunProgress = { bytesRead: 0, bytesTotal, records: 0, outputs: 0, partsDone: 0, partsSkipped: 0 };
  const markers: PartMarker[] = [];
  const seenIds = new IdIndex();
  const buckets: Bucket[] = [...cfg.stages, 'rejects'];

  // Records are processed as they stream in: a part is open while its records arrive and is
  // committed when it holds partSize input records (or the input ends).
  const pool = inline ? undefined : statePoolFor(cfg, harness, transforms, words);
  if (cfg.teacher.mode !== 'rewrite' && harness.hooks.some((h) => h.command) && !cfg.allowCommandHooks) {
    opts.warn?.(`${cfg.harness}: command hooks are not run (pass --allow-command-hooks to run them): ${harness.hooks.filter((h) => h.command).map((h) => h.id).join(', ')}`);
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
  // Worker threads (rewrite mode): records are produced there from their bytes; ids are still
  // noted here, in input order (resumed and other shards' records included), and a duplicate is
  // produced again here as the reject it is.
  const workers =
    cfg.teacher.mode === 'rewrite' && (opts.workers ?? 1) > 1
      ? new WorkerPool({ cfg, general: general?.prompts ?? [], harness }, opts.workers!, { seenIds, produceHere: (item, pos, partIndex, dup) => produceRecord(here, item, pos, partIndex, dup) })
      : undefined;
  // The pool notes ids itself (in order, whichever thread made the record).
  const here: ProduceContext = { ...produceCtx, seenIds: undefined };
  const noteSkipped = (item: InputItem) => {
    if (workers) workers.noteSkipped(() => noteId(item, seenIds));
    else noteId(item, seenIds);
  };
  const shared: PartContext = {
    cfg,
    fingerprint,
    buckets,
    progress,
    onProgress: opts.onProgress,
    produce: workers ? (file, r, pos, partIndex) => workers.produce(file, r, pos, partIndex) : (file, r, pos, partIndex) => produceRecord(produceCtx, { file, line: r.line, text: decode(r) }, pos, partIndex),
    ...(workers ? { workers, window: workers.size * 64 } : {}),
    settle: async () => {
      await teacher?.settle?.();
    },
  };
  let index = 0;
  let pos = 0;
  // Parts of other shards are read past like resumed parts (their ids still count) but not written.
  let job: PartJob | { skip: PartMarker | null } | null = null;
  const owned: number[] = [];
  // A finished part is committed (fsync, rename, done marker) while the next one is produced; at
  // most one commit is in flight, and markers keep part order.
  let committing: Promise<void> = Promise.resolve();
  const finish = async () => {
    if (!job) return;
    if ('skip' in job) {
      const skipped = job.skip;
      if (skipped) committing = committing.then(() => {
        markers.push(skipped);
        progress.partsSkipped++;
        opts.onProgress?.(progress);
      });
    } else {
      const done = job;
      await committing;
      committing = done.commit().then(
        (marker) => {
          markers.push(marker);
          progress.partsDone++;
          opts.onProgress?.(progress);
        },
        async (e: unknown) => {
          // A part that cannot be committed leaves nothing behind (no temporary files).
          await done.abort();
          throw e;
        },
      );
      // Until it is awaited, a failed commit must not count as an unhandled rejection.
      committing.catch(() => undefined);
    }
    job = null;
    index++;
    pos = 0;
  };
  const recordsPerFile: Record<string, number> = {};
  try {
    for (const file of files) {
      recordsPerFile[file] = 0;
      // Lines stay bytes here: only a record produced in this thread (or one whose id is read) is decoded.
      for await (const r of readJsonlRanges(file)) {
        if (opts.signal?.aborted) throw new InterruptedError();
        recordsPerFile[file]++;
        progress.bytesRead += r.end - r.start + 1;
        if (!job && !ownsPart(opts.shard, index)) job = { skip: null };
        if (!job) {
          owned.push(index);
          const existing = await readMarker(cfg.out, index, fingerprint, buckets);
          job = existing ? { skip: existing } : new PartJob(shared, index);
        }
        // A resumed part still registers its ids, so duplicates are found as in a fresh run.
        if ('skip' in job) noteSkipped({ file, line: r.line, text: decode(r) });
        else await job.add(file, r, pos);
        pos++;
        if (pos >= cfg.partSize) await finish();
      }
    }
    await finish();
    await committing;
    await workers?.settled();
  } catch (e) {
    await committing.catch(() => undefined);
    await workers?.close();
    // Answers already paid for are kept for the rerun.
    await shared.settle().catch(() => undefined);
    if (job && !('skip' in job)) await (job as PartJob).abort();
    if (opts.signal?.aborted) throw new InterruptedError();
    throw e;
  }
  await workers?.close();
  progress.bytesRead = bytesTotal;
  opts.onProgress?.(progress);

  // What `hsa merge` needs besides the part markers: the same bytes from every shard and whole run.
  // The tokenizer's name is stated in the manifest but not in the fingerprint (its bytes are).
  await writeAtomic(path.join(cfg.out, META_DIR, 'inputs.json'), `${canonicalJson({ fingerprint, parts: index, records: recordsPerFile, ...(counter ? { tokenizer: counter.info } : {}) })}\n`);
  const manifest = buildManifest(descriptor, markers, buckets, manifestConfig(cfg, counter?.info ?? null), recordsPerFile);
  let manifestPath: string | null = null;
  if (opts.shard) {
    const { index: i, count: n } = opts.shard;
    await mkdir(path.join(cfg.out, META_DIR, 'shards'), { recursive: true });
    await writeAtomic(shardFile(cfg.out, i, n), `${canonicalJson({ fingerprint, shard: i, shards: n, parts: owned })}\n`);
  } else {
    manifestPath = await writeManifest(cfg.out, manifest);
    // A whole run over a sharded folder finishes it: the shards' notes go, as after hsa merge.
    await rm(path.join(cfg.out, META_DIR, 'shards'), { recursive: true, force: true });
  }
  const m = manifest as { totals: PartCounts; stages: RunSummary['stages']; summary: OutputSize; reject_reasons: Record<string, number>; teacher: Record<string, unknown> };
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
    ...((manifest as { tokens?: Record<string, unknown> }).tokens ? { tokens: (manifest as { tokens: Record<string, unknown> }).tokens } : {}),
    ...(opts.shard ? { shard: { ...opts.shard, parts: owned, partsTotal: index } } : {}),
  };
}

/** Where a finished shard says so (its fingerprint and parts); `hsa merge` names the missing ones. */
export function shardFile(out: string, index: number, count: number): string {
  return path.join(out, META_DIR, 'shards', `shard-${index}-of-${count}.json`);
}

async function writeAtomic(file: string, text: string): Promise<void> {
  // A unique temporary name: shards of one run write the same files at the same time.
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, file);
}

/** Write `manifest.json` last (atomically); returns its path. */
export async function writeManifest(out: string, manifest: Record<string, unknown>): Promise<string> {
  const manifestPath = path.join(out, 'manifest.json');
  await writeAtomic(manifestPath, `${JSON.stringify(sortKeys(manifest), null, 2)}\n`);
  await syncDir(out);
  return manifestPath;
}

/** The teacher of a run: none in rewrite mode, the replay teacher, or an OpenAI-compatible endpoint. */
export async function makeTeacher(cfg: RunConfig, signal: AbortSignal | undefined, counters: TeacherCounters, requireCache = cfg.requireCache): Promise<Teacher | undefined> {
  const t = cfg.teacher;
  if (t.mode === 'rewrite') return undefined;
  if (t.mode === 'replay') return new ReplayTeacher();
  // The client library is loaded only by runs that talk to a teacher.
  const { OpenAiTeacher } = await import('../teacher/openai.js');
  return new OpenAiTeacher(t, new TeacherCache(cfg.cache), { requireCache, ...(signal ? { signal } : {}), counters });
}

/** The config keys that change output bytes (not concurrency, progress or output chattiness). */
function outputAffectingConfig(cfg: RunConfig, counter: TokenCounter | undefined): Record<string, unknown> {
  return {
    // Present only when counting, so runs without a tokenizer keep their fingerprint. The tokenizer
    // is named by its bytes (a folder spelled another way is the same tokenizer).
    ...(counter ? { tokens: { tokenizer_sha256: counter.info.tokenizer_sha256, template_sha256: counter.info.template_sha256, max_tokens: cfg.maxTokens } } : {}),
    harness: cfg.harness,
    trajectories: cfg.trajectories,
    general: cfg.general,
    seed: cfg.seed,
    variants: cfg.variants,
    keep_source: cfg.keepSource,
    stages: cfg.stages,
    part_size: cfg.partSize,
    gzip: cfg.gzip,
    on_error: cfg.onError,
    state_pool: cfg.statePool,
    system_prompt: cfg.systemPrompt,
    validation: { formats: cfg.formats === 'assertion' ? 'assert' : 'annotate' },
    // The teacher's identity and sampling change output; its key, cache folder, rate limits,
    // timeouts and retries do not.
    teacher: {
      mode: cfg.teacher.mode,
      ...(cfg.teacher.mode === 'openai'
        ? { base_url: cfg.teacher.baseUrl, model: cfg.teacher.model, temperature: cfg.teacher.temperature ?? null, top_p: cfg.teacher.topP ?? null, max_tokens: cfg.teacher.maxTokens ?? null, seed: cfg.teacher.seed ?? null, extra_body: cfg.teacher.extraBody ?? null }
        : {}),
      ...(cfg.teacher.mode !== 'rewrite'
        ? { consistency: cfg.teacher.consistency, max_rounds: cfg.teacher.maxRounds, fallback: cfg.teacher.fallback, recovery: { max_call_retries: cfg.teacher.recovery.maxCallRetries, max_attempts: cfg.teacher.recovery.maxAttempts } }
        : {}),
      // The judge decides what is accepted: its identity, rubric and threshold are part of the output's.
      ...(cfg.teacher.judge ? { judge: judgeIdentity(cfg.teacher.judge) } : {}),
    },
    arguments: cfg.arguments,
    tools_format: cfg.toolsFormat,
    opd: cfg.opd,
    sft: cfg.sft,
    rl: cfg.rl,
    words: cfg.words ?? null,
    plugins: cfg.plugins,
    // Only a split run records its split, so the manifest of every other run stays as it was.
    ...(cfg.split ? { split: cfg.split, split_holdout: cfg.splitHoldout } : {}),
  };
}

function judgeIdentity(j: NonNullable<RunConfig['teacher']['judge']>): Record<string, unknown> {
  const e = j.settings.endpoint;
  return { base_url: e.baseUrl, model: e.model, temperature: e.temperature ?? null, seed: e.seed ?? null, rubric: j.settings.rubric, votes: j.settings.votes, aggregate: j.settings.aggregate, evidence: j.settings.evidence, min_score: j.minScore };
}

interface PartContext {
  cfg: RunConfig;
  fingerprint: string;
  buckets: Bucket[];
  progress: RunProgress;
  onProgress: ((p: RunProgress) => void) | undefined;
  /** The output of one input record, a line of `file` (in this thread, or in a worker thread). */
  produce: (file: string, r: JsonlRange, pos: number, partIndex: number) => Promise<Output>;
  /** Wait until the teacher answers received so far are in the cache. */
  settle: () => Promise<void>;
  /** Worker threads: batches are sent before waiting on a result, buffers reused once written. */
  workers?: WorkerPool;
  /** Records in flight per part (default: none in rewrite mode, the teacher's concurrency × 8 otherwise). */
  window?: number;
}


/** One part being written: every stage's writer, its counts and reject reasons. */
class PartJob {
  private readonly writers: Record<Bucket, PartWriter>;
  private readonly counts: PartCounts = emptyCounts();
  private readonly reasons: Record<string, number> = {};
  private readonly teacher: TeacherTotals = emptyTeacherTotals();
  private readonly recovery: Record<string, number> = {};
  private tokens: { sft: TokenTally; opd: TokenTally; tooLong: { sft: number; opd: number } } | null = null;
  private first: { file: string; line: number } | null = null;

  constructor(
    private readonly ctx: PartContext,
    private readonly index: number,
  ) {
    const name = `part-${String(index).padStart(5, '0')}.jsonl${ctx.cfg.gzip ? '.gz' : ''}`;
    this.writers = Object.fromEntries(ctx.buckets.map((b) => [b, new PartWriter(ctx.cfg.out, `${b}/${name}`, ctx.cfg.gzip)])) as Record<Bucket, PartWriter>;
  }

  private reason(r: string): void {
    this.reasons[r] = (this.reasons[r] ?? 0) + 1;
  }

  /**
   * Process one input record (the `pos`-th of this part). Its output lines are produced by a task
   * (immediate in rewrite mode, teacher episodes otherwise) and written strictly in input order, so
   * bytes never depend on which episode finishes first; at most `window` records are in flight.
   */
  async add(file: string, r: JsonlRange, pos: number): Promise<void> {
    this.first ??= { file, line: r.line };
    this.counts.input_records++;
    this.ctx.progress.records++;
    const task = this.ctx.produce(file, r, pos, this.index);
    // The error is taken when the task is drained; until then it must not count as unhandled.
    task.catch(() => undefined);
    this.queue.push(task);
    while (this.queue.length > this.window) await this.drainOne();
  }

  private readonly queue: Promise<Output>[] = [];
  private get window(): number {
    return this.ctx.window ?? (this.ctx.cfg.teacher.mode === 'rewrite' ? 0 : Math.max(1, this.ctx.cfg.concurrency) * 8);
  }

  private async drainOne(): Promise<void> {
    const next = this.queue.shift()!;
    this.ctx.workers?.flushFor(next);
    const out = await next;
    for (const [bucket, line] of out.lines) await this.writers[bucket].writeLine(line);
    this.ctx.workers?.released(out);
    for (const [k, n] of Object.entries(out.counts) as [keyof PartCounts, number][]) this.counts[k] += n;
    for (const r of out.reasons) this.reason(r);
    for (const [k, n] of Object.entries(out.teacher) as [keyof TeacherTotals, number][]) this.teacher[k] += n;
    for (const [k, n] of Object.entries(out.recovery)) this.recovery[k] = (this.recovery[k] ?? 0) + n;
    if (out.tokens) {
      const t = (this.tokens ??= { sft: new TokenTally(), opd: new TokenTally(), tooLong: { sft: 0, opd: 0 } });
      for (const n of out.tokens.sft) t.sft.add(n);
      for (const n of out.tokens.opd) t.opd.add(n);
      t.tooLong.sft += out.tokens.tooLong.sft;
      t.tooLong.opd += out.tokens.tooLong.opd;
    }
    this.ctx.progress.outputs += out.outputs;
    this.ctx.onProgress?.(this.ctx.progress);
  }

  /** Commit every stage file, then the done marker. */
  async commit(): Promise<PartMarker> {
    while (this.queue.length > 0) await this.drainOne();
    const { cfg, buckets, fingerprint } = this.ctx;
    const files = {} as Record<Bucket, PartFile>;
    for (const b of buckets) files[b] = await this.writers[b].commit();
    for (const b of buckets) await syncDir(path.join(cfg.out, b));
    // A part counts as done only when the answers it paid for are stored.
    await this.ctx.settle();
    const marker: PartMarker = { index: this.index, fingerprint, first: this.first, counts: this.counts, reasons: this.reasons, teacher: this.teacher, recovery: this.recovery, files };
    if (cfg.tokenizer !== null) {
      const t = this.tokens;
      marker.tokens = { sft: t?.sft.histogram() ?? [], opd: t?.opd.histogram() ?? [], too_long: t?.tooLong ?? { sft: 0, opd: 0 } };
    }
    await writeMarker(cfg.out, marker);
    return marker;
  }

  async abort(): Promise<void> {
    // Let produced tasks settle (their errors are the ones already being reported); records still
    // in the open batch are sent, or they would never settle.
    this.ctx.workers?.flush();
    await Promise.allSettled(this.queue.splice(0));
    for (const b of this.ctx.buckets) await this.writers[b].abort();
  }
}


/**
 * Make the out folder ready. A folder made by an earlier run with the same fingerprint is resumed;
 * a different fingerprint is refused (naming what changed) unless `force`; leftovers of an
 * interrupted run (temporary files, a stale manifest) are removed.
 */
async function prepareOut(out: string, descriptor: Record<string, unknown>, fingerprint: string, force: boolean, buckets: readonly Bucket[], shard?: Shard): Promise<boolean> {
  const runFile = path.join(out, META_DIR, 'run.json');
  let previous: { fingerprint: string; descriptor: Record<string, unknown> } | undefined;
  try {
    previous = JSON.parse(await readFile(runFile, 'utf8'));
  } catch {
    previous = undefined;
  }
  let entries: string[] = [];
  try {
    entries = await readdir(out);
  } catch {
    entries = [];
  }
  // Shards of one run start on the same folder at once: one may find another's folders before its run.json.
  const ours = new Set<string>([META_DIR, 'manifest.json', ...buckets]);
  if (shard && force) throw new HsaError('HSA_USAGE', `--force with a sharded run would delete the other shards' parts; empty ${out} before the shards start`, 2);
  // A run that stopped before finishing any part (the first bad record under --on-error fail)
  // leaves nothing to resume: a rerun with other flags starts over without --force.
  const nothingFinished = !shard && previous !== undefined && previous.fingerprint !== fingerprint && entries.every((e) => ours.has(e) || STAGE_DIRS.has(e)) && !(await holdsFinishedPart(out, entries));
  if (force || nothingFinished) {
    for (const e of entries) await rm(path.join(out, e), { recursive: true, force: true });
    previous = undefined;
    entries = [];
  } else if (previous && previous.fingerprint !== fingerprint) {
    throw new OutputError(
      `${out} holds a run with different inputs, config or seed (changed: ${changedKeys(previous.descriptor, descriptor).join(', ') || 'hsa version'}); ${shard ? 'a shard never starts over: use another --out' : 'use --force to start over'}`,
    );
  } else if (!previous && entries.length > 0 && !(shard && entries.every((e) => ours.has(e)))) {
    throw new OutputError(`${out} is not empty and was not made by hsa augment; choose another --out or use --force`);
  }
  await mkdir(path.join(out, META_DIR, 'done'), { recursive: true });
  await rm(path.join(out, 'manifest.json'), { force: true });
  // A run killed while writing manifest.json or run.json leaves its temporary file (writeAtomic):
  // removed, so a resumed folder holds the same files as an uninterrupted one. Shards of one run
  // write these at the same time (on other machines too), so a sharded run leaves them.
  if (!shard) {
    for (const [dir, stem] of [[out, 'manifest.json.'], [path.join(out, META_DIR), 'run.json.']] as const) {
      for (const f of await readdir(dir).catch(() => [] as string[])) if (f.startsWith(stem) && f.endsWith('.tmp')) await rm(path.join(dir, f), { force: true });
    }
  }
  for (const dir of buckets) {
    await mkdir(path.join(out, dir), { recursive: true });
    for (const f of await readdir(path.join(out, dir))) if (f.endsWith('.tmp') && ownsPart(shard, partOfFile(f))) await rm(path.join(out, dir, f), { force: true });
  }
  if (!previous) {
    await writeAtomic(runFile, `${JSON.stringify({ fingerprint, descriptor }, null, 2)}\n`);
    // Two shards of different runs that started together: the later rename wins, the other stops here.
    const written = JSON.parse(await readFile(runFile, 'utf8')) as { fingerprint: string; descriptor: Record<string, unknown> };
    if (written.fingerprint !== fingerprint) {
      throw new OutputError(`${out} holds a run with different inputs, config or seed (changed: ${changedKeys(written.descriptor, descriptor).join(', ') || 'hsa version'}); use another --out`);
    }
  }
  return previous !== undefined;
}

/** Every stage folder a run may write, whatever stages this run has. */
const STAGE_DIRS: ReadonlySet<string> = new Set(['sft', 'opd', 'rl', 'rejects']);

/** Whether an out folder holds a finished part: a part marker, a manifest, or a stage file under its final name. */
async function holdsFinishedPart(out: string, entries: readonly string[]): Promise<boolean> {
  if (entries.includes('manifest.json')) return true;
  if ((await readdir(path.join(out, META_DIR, 'done')).catch(() => [] as string[])).length > 0) return true;
  for (const e of entries) {
    if (!STAGE_DIRS.has(e)) continue;
    const files = await readdir(path.join(out, e)).catch(() => [] as string[]);
    if (files.some((f) => !f.endsWith('.tmp'))) return true;
  }
  return false;
}

/** The part index in a stage file name (`part-00012.jsonl.gz.tmp` → 12). */
function partOfFile(name: string): number {
  const m = /^part-(\d+)\./.exec(name);
  return m ? Number(m[1]) : -1;
}

function changedKeys(a: Record<string, unknown>, b: Record<string, unknown>, prefix = ''): string[] {
  const out: string[] = [];
  for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    const x = a[k];
    const y = b[k];
    if (canonicalJson(x) === canonicalJson(y)) continue;
    const key = prefix ? `${prefix}.${k}` : k;
    if (x && y && typeof x === 'object' && typeof y === 'object' && !Array.isArray(x) && !Array.isArray(y) && key.split('.').length < 3) {
      out.push(...changedKeys(x as Record<string, unknown>, y as Record<string, unknown>, key));
    } else out.push(key);
  }
  return out;
}

function markerPath(out: string, index: number): string {
  return path.join(out, META_DIR, 'done', `part-${String(index).padStart(5, '0')}.json`);
}

async function writeMarker(out: string, marker: PartMarker): Promise<void> {
  const file = markerPath(out, marker.index);
  await writeFile(`${file}.tmp`, `${canonicalJson(marker)}\n`);
  await rename(`${file}.tmp`, file);
  await syncDir(path.dirname(file));
}

/** A part's marker when it is valid: same fingerprint and every file present with its sha256. */
async function readMarker(out: string, index: number, fingerprint: string, buckets: Bucket[]): Promise<PartMarker | undefined> {
  const checked = await checkMarker(out, index, fingerprint, buckets);
  return 'marker' in checked ? checked.marker : undefined;
}

/** A part's valid marker, or why it has none: not done, done by a run with another fingerprint, or a file missing or changed. */
export async function checkMarker(out: string, index: number, fingerprint: string, buckets: Bucket[]): Promise<{ marker: PartMarker } | { missing: true } | { foreign: string } | { corrupt: string }> {
  let marker: PartMarker;
  try {
    marker = JSON.parse(await readFile(markerPath(out, index), 'utf8')) as PartMarker;
  } catch {
    return { missing: true };
  }
  if (marker.fingerprint !== fingerprint) return { foreign: String(marker.fingerprint) };
  for (const b of buckets) {
    const f = marker.files?.[b];
    if (!f) return { corrupt: `${b}: not in the done marker` };
    try {
      const h = await hashFile(path.join(out, f.file));
      if (h.sha256 !== f.sha256) return { corrupt: `${f.file}: sha256 differs from the done marker` };
    } catch {
      return { corrupt: `${f.file}: missing` };
    }
  }
  return { marker };
}

/** The config a manifest restates besides the descriptor (all of it in the descriptor too, for `hsa merge`). */
export type ManifestConfig = Pick<RunConfig, 'gzip' | 'arguments' | 'toolsFormat' | 'stages' | 'maxTokens'> & { teacher: Pick<RunConfig['teacher'], 'mode'>; tokenizer: TokenizerInfo | null };

/** What the manifest restates of a run's config. */
export function manifestConfig(cfg: RunConfig, tokenizer: TokenizerInfo | null): ManifestConfig {
  return { gzip: cfg.gzip, arguments: cfg.arguments, toolsFormat: cfg.toolsFormat, stages: cfg.stages, maxTokens: cfg.maxTokens, teacher: { mode: cfg.teacher.mode }, tokenizer };
}

/**
 * The manifest of a finished run from its descriptor and part markers (in part order) alone, so
 * `hsa merge` rebuilds the bytes a whole run writes. `records`: input records per trajectory file.
 */
export function buildManifest(descriptor: Record<string, unknown>, markers: PartMarker[], buckets: Bucket[], cfg: ManifestConfig, records: Record<string, number>): Record<string, unknown> {
  const totals = emptyCounts();
  for (const m of markers) for (const k of Object.keys(totals) as (keyof PartCounts)[]) totals[k] += m.counts[k] ?? 0;
  const teacher: TeacherTotals = emptyTeacherTotals();
  for (const m of markers) for (const k of Object.keys(teacher) as (keyof TeacherTotals)[]) teacher[k] += m.teacher?.[k] ?? 0;
  const recovery: Record<string, number> = {};
  for (const m of markers) for (const [k, n] of Object.entries(m.recovery ?? {})) recovery[k] = (recovery[k] ?? 0) + n;
  const stages: Record<string, { parts: number; records: number; bytes: number; files: PartFile[] }> = {};
  for (const b of buckets) {
    const files = markers.map((m) => m.files[b]);
    stages[b] = { parts: files.length, records: files.reduce((n, f) => n + f.records, 0), bytes: files.reduce((n, f) => n + f.bytes, 0), files };
  }
  const tokens = cfg.tokenizer ? tokenSection(markers, stages, totals, cfg, cfg.tokenizer) : null;
  // The manifest states how many records each input held (the fingerprint only needs the bytes).
  const described = descriptor.inputs as { trajectories: { file: string; bytes?: number; records?: number }[] };
  return {
    ...descriptor,
    inputs: { ...described, trajectories: described.trajectories.map((t) => ({ ...t, records: records[t.file] ?? 0 })) },
    parts: markers.map((m) => ({ index: m.index, first: m.first, counts: m.counts })),
    stages,
    summary: outputSize(described.trajectories, stages),
    totals,
    balance: {
      inputs: `${totals.input_records} = ${totals.valid_records} valid + ${totals.rejected_records} rejected`,
      variants: `${totals.variants_expected} = ${totals.variants_written} written + ${totals.variants_rejected} rejected`,
      ...(tokens ? { tokens: tokens.balance } : {}),
      holds: totals.input_records === totals.valid_records + totals.rejected_records && totals.variants_expected === totals.variants_written + totals.variants_rejected && (tokens?.holds ?? true),
    },
    ...(tokens ? { tokens: tokens.section } : {}),
    reject_reasons: markers.reduce<Record<string, number>>((acc, m) => {
      for (const [r, n] of Object.entries(m.reasons)) acc[r] = (acc[r] ?? 0) + n;
      return acc;
    }, {}),
    out_format: { gzip: cfg.gzip, arguments: cfg.arguments, tools_format: cfg.toolsFormat },
    teacher: { mode: cfg.teacher.mode, ...teacher, recovery: sortKeys(recovery) },
  };
}

/**
 * The manifest's token statistics (per stage: records counted, min / p50 / p95 / max, records over
 * the budget) and the budget's balance: every SFT record made (one per written variant or kept
 * source) is either in sft/ or in rejects as too_long.
 */
function tokenSection(markers: PartMarker[], stages: Record<string, { records: number }>, totals: PartCounts, cfg: ManifestConfig, tokenizer: TokenizerInfo) {
  const per: Record<string, unknown> = {};
  const balance: Record<string, string> = {};
  let holds = true;
  for (const stage of ['sft', 'opd'] as const) {
    if (!cfg.stages.includes(stage)) continue;
    const tally = new TokenTally();
    let tooLong = 0;
    for (const m of markers) {
      if (!m.tokens) continue;
      tally.merge(m.tokens[stage]);
      tooLong += m.tokens.too_long[stage];
    }
    const written = stages[stage]?.records ?? 0;
    per[stage] = { ...(summarise(tally.histogram()) ?? { records: 0 }), too_long: tooLong, add_generation_prompt: stage === 'opd' };
    const budget = cfg.maxTokens !== null ? ` over ${cfg.maxTokens.toLocaleString('en-US')} tokens` : ' over the budget';
    if (stage === 'sft') {
      const made = totals.variants_written + totals.kept_sources;
      balance.sft = `${made} = ${written} written + ${tooLong}${budget}`;
      holds &&= made === written + tooLong;
    } else {
      balance.opd = `${written + tooLong} = ${written} written + ${tooLong}${budget}`;
    }
  }
  return { section: { tokenizer, max_tokens: cfg.maxTokens, stages: per }, balance, holds };
}

function decode(r: JsonlRange): string {
  return r.buf.toString('utf8', r.start, r.end);
}

async function hashFile(file: string): Promise<{ sha256: string; bytes: number }> {
  const h = createHash('sha256');
  let bytes = 0;
  try {
    for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
      h.update(chunk);
      bytes += chunk.length;
    }
  } catch (e) {
    throw new HsaError('HSA_UNREADABLE', `${file}: cannot read (${(e as NodeJS.ErrnoException).code ?? 'error'})`, 2);
  }
  await stat(file);
  return { sha256: h.digest('hex'), bytes };
}

function sha(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

async function loadGeneral(file: string): Promise<{ file: string; sha256: string; prompts: GeneralPrompt[] }> {
  const prompts: GeneralPrompt[] = [];
  const problems: string[] = [];
  for await (const { line, text } of readJsonlLines(file)) {
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch (e) {
      problems.push(`${file}:${line}: (json): not valid JSON: ${(e as Error).message}`);
      continue;
    }
    const o = v as Partial<GeneralPrompt>;
    if (typeof o.id !== 'string' || !Array.isArray(o.messages) || o.messages.length === 0) {
      problems.push(`${file}:${line}: ${typeof o.id === 'string' ? `${o.id}: ` : ''}${typeof o.id !== 'string' ? 'id' : 'messages'}: required (a general prompt is {"id","messages":[...],"meta"?})`);
      continue;
    }
    prompts.push({ id: o.id, messages: o.messages, ...(o.meta ? { meta: o.meta } : {}) });
  }
  if (problems.length) throw new BadRecordError(problems.join('\n'));
  const { sha256 } = await hashFile(file);
  return { file, sha256, prompts };
}

