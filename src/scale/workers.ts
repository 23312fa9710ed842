import { open } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { HsaError, type ErrorCode } from '../errors.js';
import { ClaimedParts, type PartOutcome, type PartReport, type Verdict } from '../output/claimed-parts.js';
import { InterruptedError, type PartContext, type PartsResult } from '../output/executor.js';
import { ownsPart } from '../output/out-folder.js';
import type { MakePartPool, PartPool, PartPoolHooks, PartPoolInit } from '../output/part-pool.js';
import { PartSequencer } from '../output/part-sequencer.js';
import { BadRecordError } from '../output/shared.js';

/** An error as it crosses threads (errors are not cloned with their class). */
export interface ThreadError {
  code?: ErrorCode;
  message: string;
  exitCode?: number;
}

export function describeError(e: unknown): ThreadError {
  if (e instanceof HsaError) return { code: e.code, message: e.message, exitCode: e.exitCode };
  return { message: (e as Error)?.stack ?? String(e) };
}

/** The error a thread reported, as the class the main thread would have thrown. */
export function reviveError(e: ThreadError): Error {
  if (e.code === 'HSA_BAD_RECORD') return new BadRecordError(e.message);
  if (e.code) return new HsaError(e.code, e.message, e.exitCode ?? 1);
  return new Error(e.message);
}

/** What a worker thread is started with. */
export interface WorkerInit {
  init: PartPoolInit;
  thread: number;
  /** `[next part to claim, stop]`, shared by every thread. */
  claims: SharedArrayBuffer;
}

/** A worker's report with its error made cloneable. */
export type WireReport = Exclude<PartReport, { kind: 'failed' }> | (Extract<PartReport, { kind: 'failed' }> & { error: ThreadError });

export type FromWorker =
  | { type: 'report'; report: WireReport }
  | { type: 'outcome'; outcome: { index: number; marker: Extract<PartOutcome, { marker: unknown }>['marker'] } | { index: number; error: ThreadError } }
  | { type: 'progress'; records: number; outputs: number; bytes: number }
  | { type: 'fatal'; error: ThreadError }
  | { type: 'stopped' };

export type ToWorker = { type: 'verdict'; index: number; verdict: Verdict } | { type: 'stop' };

/** Claim part `index` on the shared counter (every thread asks in part order, so the counter is at `index` or past it). */
export function claimPart(claims: Int32Array, index: number): boolean {
  return Atomics.compareExchange(claims, 0, index, index + 1) === index;
}

/**
 * `--workers N` as N in-process shards (see output/claimed-parts.ts): the main thread and N − 1
 * worker threads claim parts from one shared counter, each writes the parts it claims whole, and
 * the main thread settles them in part order (ids noted, commits one at a time) and writes the
 * manifest. Only part reports cross threads (ids and markers, a few KB a part), never records.
 */
export class WorkerPool implements PartPool {
  private readonly workers: Worker[];
  private readonly claims = new SharedArrayBuffer(8);
  private readonly flags = new Int32Array(this.claims);

  constructor(
    private readonly init: PartPoolInit,
    readonly size: number,
    private readonly hooks: PartPoolHooks,
  ) {
    const url = new URL('./worker-thread.js', import.meta.url);
    this.workers = Array.from(
      { length: size - 1 },
      (_, i) => new Worker(url, { workerData: { init, thread: i + 1, claims: this.claims } satisfies WorkerInit }),
    );
  }

  async runParts(ctx: PartContext, opts: { signal?: AbortSignal | undefined }): Promise<PartsResult> {
    const { files, shard } = this.init;
    const { progress, onProgress } = ctx;
    const stopping = () => Atomics.load(this.flags, 1) !== 0;
    const seq = new PartSequencer({
      seenIds: this.hooks.seenIds,
      files,
      progress,
      onProgress,
      verdict: (thread, index, verdict) => {
        if (thread === 0) main.verdict(index, verdict);
        else this.workers[thread - 1]!.postMessage({ type: 'verdict', index, verdict } satisfies ToWorker);
      },
    });
    const main = new ClaimedParts({
      thread: 0,
      ctx,
      files,
      shard,
      claim: (index) => claimPart(this.flags, index),
      stopping,
      report: (r) => seq.receive(r),
      outcome: (o) => seq.outcome(o),
      signal: opts.signal,
    });
    const stopped = this.workers.map(
      (w) =>
        new Promise<void>((resolve) => {
          w.on('message', (m: FromWorker) => {
            if (m.type === 'report') seq.receive(m.report.kind === 'failed' ? { ...m.report, error: reviveError(m.report.error) } : m.report);
            else if (m.type === 'outcome') seq.outcome('error' in m.outcome ? { index: m.outcome.index, error: reviveError(m.outcome.error) } : m.outcome);
            else if (m.type === 'progress') {
              progress.records += m.records;
              progress.outputs += m.outputs;
              progress.bytesRead += m.bytes;
              onProgress?.(progress);
            } else if (m.type === 'fatal') seq.fail(reviveError(m.error));
            else resolve();
          });
          w.on('error', (e) => seq.fail(e));
          w.on('exit', (code) => {
            if (code !== 0 && !stopping()) seq.fail(new Error(`a worker thread exited with code ${code}`));
            resolve();
          });
        }),
    );
    const interrupt = () => seq.fail(new InterruptedError());
    opts.signal?.addEventListener('abort', interrupt, { once: true });
    const scanned = main.run().then(
      (r) => {
        seq.end(r.parts);
        return r;
      },
      (e: unknown) => {
        seq.fail(e);
        throw e;
      },
    );
    scanned.catch(() => undefined);
    try {
      const markers = await seq.run();
      const { parts, records } = await scanned;
      progress.bytesRead = progress.bytesTotal;
      onProgress?.(progress);
      const owned = Array.from({ length: parts }, (_, i) => i).filter((i) => ownsPart(shard, i));
      return { markers, parts, owned, records };
    } catch (e) {
      // Every thread drops its open part and the parts waiting for a verdict: what is left is what one thread leaves.
      Atomics.store(this.flags, 1, 1);
      for (const w of this.workers) w.postMessage({ type: 'stop' } satisfies ToWorker);
      await main.stop();
      await Promise.all(stopped);
      if (opts.signal?.aborted) throw new InterruptedError();
      throw e;
    } finally {
      opts.signal?.removeEventListener('abort', interrupt);
      await Promise.all(this.workers.map((w) => w.terminate()));
    }
  }
}

/**
 * Records the inputs may hold at most (their lines): a run of fewer parts than threads gets fewer
 * threads, and one part none (a thread's start costs more than it could give back).
 */
export async function countLines(files: readonly string[]): Promise<number> {
  let n = 0;
  const buf = Buffer.allocUnsafe(1 << 20);
  for (const file of files) {
    const fh = await open(file, 'r');
    try {
      let last = 10;
      for (let got; (got = (await fh.read(buf, 0, buf.length, null)).bytesRead) > 0;) {
        for (let i = buf.indexOf(10, 0); i !== -1 && i < got; i = buf.indexOf(10, i + 1)) n++;
        last = buf[got - 1]!;
      }
      if (last !== 10) n++;
    } finally {
      await fh.close();
    }
  }
  return n;
}

/** `--workers N`: a pool of up to N threads (the main thread and N − 1 workers), or none when the inputs make one part. */
export function workerPool(size: number): MakePartPool {
  return async (init, hooks) => {
    const parts = Math.ceil((await countLines(init.files)) / init.cfg.partSize);
    const threads = Math.min(size, parts);
    return threads > 1 ? new WorkerPool(init, threads, hooks) : undefined;
  };
}
