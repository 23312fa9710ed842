import path from 'node:path';
import type { RunConfig } from '../config/augment-config.js';
import { HsaError } from '../errors.js';
import { TokenTally } from '../tokenize/stats.js';
import type { JsonlRange } from '../util/jsonl.js';
import { readJsonlRanges } from '../util/jsonl.js';
import { ownsPart, partFileName, readMarker, writeMarker, type PartMarker, type Shard } from './out-folder.js';
import { PartWriter, syncDir, type PartFile } from './part-writer.js';
import type { InputItem } from './produce.js';
import { emptyCounts, emptyTeacherTotals, type Bucket, type Output, type PartCounts, type TeacherTotals } from './shared.js';

/**
 * The part executor: streams the inputs in their defined order, cuts them into parts of
 * `partSize` input records and writes each part's stage files and done marker, skipping parts
 * already done (resume) or owned by another shard. What a record becomes is `produce`'s business.
 */

/** Ctrl-C: finished parts stay finished; a rerun resumes the rest. */
export class InterruptedError extends HsaError {
  constructor() {
    super('HSA_INTERRUPTED', 'interrupted: finished parts are kept; run the same command again to resume', 130);
    this.name = 'InterruptedError';
  }
}

export interface RunProgress {
  bytesRead: number;
  bytesTotal: number;
  records: number;
  outputs: number;
  partsDone: number;
  partsSkipped: number;
}

export interface PartContext {
  cfg: RunConfig;
  fingerprint: string;
  buckets: Bucket[];
  progress: RunProgress;
  onProgress: ((p: RunProgress) => void) | undefined;
  /**
   * The output of one input record, a line of `file`; `duplicateOf` (where its id came first) when
   * the caller has found its id a duplicate already (a part made again on threads, see claimed-parts.ts).
   */
  produce: (file: string, r: JsonlRange, pos: number, partIndex: number, duplicateOf?: string) => Promise<Output>;
  /** A record of a part not written here (resumed, another shard's): its id still counts. */
  noteSkipped: (item: InputItem) => void;
  /** Wait until the teacher answers received so far are in the cache. */
  settle: () => Promise<void>;
}

/** One part being written: every stage's writer, its counts and reject reasons. */
export class PartJob {
  private readonly writers: Record<Bucket, PartWriter>;
  private readonly counts: PartCounts = emptyCounts();
  private readonly reasons: Record<string, number> = {};
  private readonly teacher: TeacherTotals = emptyTeacherTotals();
  private readonly recovery: Record<string, number> = {};
  private tokens: { sft: TokenTally; opd: TokenTally; tooLong: { sft: number; opd: number } } | null = null;
  private first: { file: string; line: number } | null = null;
  /** The id of the record written last (when it parsed), for threads that report a part's ids. */
  lastId: string | undefined;

  constructor(
    private readonly ctx: PartContext,
    private readonly index: number,
  ) {
    const name = partFileName(index, ctx.cfg.gzip);
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
  async add(file: string, r: JsonlRange, pos: number, duplicateOf?: string): Promise<void> {
    this.first ??= { file, line: r.line };
    this.counts.input_records++;
    this.ctx.progress.records++;
    const task = this.ctx.produce(file, r, pos, this.index, duplicateOf);
    // The error is taken when the task is drained; until then it must not count as unhandled.
    task.catch(() => undefined);
    this.queue.push(task);
    while (this.queue.length > this.window) await this.drainOne();
  }

  private readonly queue: Promise<Output>[] = [];
  private get window(): number {
    return this.ctx.cfg.teacher.mode === 'rewrite' ? 0 : Math.max(1, this.ctx.cfg.concurrency) * 8;
  }

  private async drainOne(): Promise<void> {
    const out = await this.queue.shift()!;
    this.lastId = out.id;
    for (const [bucket, line] of out.lines) await this.writers[bucket].writeLine(line);
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
    const marker: PartMarker = {
      index: this.index,
      fingerprint,
      first: this.first,
      counts: this.counts,
      reasons: this.reasons,
      teacher: this.teacher,
      recovery: this.recovery,
      files,
    };
    if (cfg.tokenizer !== null) {
      const t = this.tokens;
      marker.tokens = { sft: t?.sft.histogram() ?? [], opd: t?.opd.histogram() ?? [], too_long: t?.tooLong ?? { sft: 0, opd: 0 } };
    }
    await writeMarker(cfg.out, marker);
    return marker;
  }

  async abort(): Promise<void> {
    // Let produced tasks settle (their errors are the ones already being reported).
    await Promise.allSettled(this.queue.splice(0));
    for (const b of this.ctx.buckets) await this.writers[b].abort();
  }
}

/** What the executor leaves for the manifest. */
export interface PartsResult {
  /** Every part's marker, in part order (written now or found valid); none of other shards' parts. */
  markers: PartMarker[];
  /** Parts the inputs make. */
  parts: number;
  /** The parts this process owns (every part of a whole run). */
  owned: number[];
  /** Input records per trajectory file. */
  records: Record<string, number>;
}

/**
 * Write every part of `files` this process owns. Records are processed as they stream in: a part
 * is open while its records arrive and is committed when it holds partSize input records (or the
 * input ends). On a failure the open part leaves nothing behind and finished parts stay.
 */
export async function runParts(
  shared: PartContext,
  files: readonly string[],
  opts: { signal?: AbortSignal | undefined; shard?: Shard | undefined },
): Promise<PartsResult> {
  const { cfg, fingerprint, buckets, progress } = shared;
  const markers: PartMarker[] = [];
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
      if (skipped)
        committing = committing.then(() => {
          markers.push(skipped);
          progress.partsSkipped++;
          shared.onProgress?.(progress);
        });
    } else {
      const done = job;
      await committing;
      committing = done.commit().then(
        (marker) => {
          markers.push(marker);
          progress.partsDone++;
          shared.onProgress?.(progress);
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
        if ('skip' in job) shared.noteSkipped({ file, line: r.line, text: decode(r) });
        else await job.add(file, r, pos);
        pos++;
        if (pos >= cfg.partSize) await finish();
      }
    }
    await finish();
    await committing;
  } catch (e) {
    await committing.catch(() => undefined);
    // Answers already paid for are kept for the rerun.
    await shared.settle().catch(() => undefined);
    if (job && !('skip' in job)) await job.abort();
    if (opts.signal?.aborted) throw new InterruptedError();
    throw e;
  }
  progress.bytesRead = progress.bytesTotal;
  shared.onProgress?.(progress);
  return { markers, parts: index, owned, records: recordsPerFile };
}

/** A line of the input as text. */
export function decode(r: JsonlRange): string {
  return r.buf.toString('utf8', r.start, r.end);
}
