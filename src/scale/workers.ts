import { open } from 'node:fs/promises';
import type { RunConfig } from '../config/augment-config.js';
import { Worker } from 'node:worker_threads';
import { HsaError, type ErrorCode } from '../errors.js';
import type { PartOutcome, PartReport, Verdict } from '../output/claimed-parts.js';
import type { PartContext, PartsResult } from '../output/executor.js';
import type { MakePartPool, PartPool, PartPoolHooks, PartPoolInit } from '../output/part-pool.js';
import { runClaimedParts, type PeerEvents, type PeerThread } from '../output/part-sequencer.js';
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

/**
 * What a worker thread is started with, before the run has set up (it loads its modules and builds
 * its transforms meanwhile); the rest (`init`) comes as its first message.
 */
export interface WorkerStart {
  cfg: RunConfig;
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

export type ToWorker = { type: 'init'; init: PartPoolInit } | { type: 'verdict'; index: number; verdict: Verdict } | { type: 'stop' };

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
  private readonly flags: Int32Array;
  readonly size: number;

  constructor(
    private readonly init: PartPoolInit,
    private readonly workers: Worker[],
    claims: SharedArrayBuffer,
    private readonly hooks: PartPoolHooks,
  ) {
    this.flags = new Int32Array(claims);
    this.size = workers.length + 1;
    for (const w of workers) {
      w.ref();
      w.postMessage({ type: 'init', init } satisfies ToWorker);
    }
  }

  async runParts(ctx: PartContext, opts: { signal?: AbortSignal | undefined }): Promise<PartsResult> {
    const stopping = () => Atomics.load(this.flags, 1) !== 0;
    try {
      return await runClaimedParts({
        ctx,
        files: this.init.files,
        shard: this.init.shard,
        seenIds: this.hooks.seenIds,
        signal: opts.signal,
        claim: (index) => claimPart(this.flags, index),
        stopAll: () => Atomics.store(this.flags, 1, 1),
        stopping,
        peers: (events) => this.workers.map((w, i) => peer(w, events(i + 1), stopping)),
      });
    } finally {
      // The threads end with the run (a finished one may still be reading the inputs' tail).
      await Promise.all(this.workers.map((w) => w.terminate()));
    }
  }
}

/** A worker thread as the main thread drives it: its messages revived into `events`. */
function peer(w: Worker, events: PeerEvents, stopping: () => boolean): PeerThread {
  let stopped!: () => void;
  const done = new Promise<void>((resolve) => (stopped = resolve));
  w.on('message', (m: FromWorker) => {
    if (m.type === 'report') events.report(m.report.kind === 'failed' ? { ...m.report, error: reviveError(m.report.error) } : m.report);
    else if (m.type === 'outcome') events.outcome('error' in m.outcome ? { index: m.outcome.index, error: reviveError(m.outcome.error) } : m.outcome);
    else if (m.type === 'progress') events.progress(m.records, m.outputs, m.bytes);
    else if (m.type === 'fatal') events.fail(reviveError(m.error));
    else stopped();
  });
  w.on('error', (e) => events.fail(e));
  w.on('exit', (code) => {
    if (code !== 0 && !stopping()) events.fail(new Error(`a worker thread exited with code ${code}`));
    stopped();
  });
  return {
    verdict: (index, verdict) => w.postMessage({ type: 'verdict', index, verdict } satisfies ToWorker),
    stop: () => {
      w.postMessage({ type: 'stop' } satisfies ToWorker);
      return done;
    },
  };
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

/**
 * `--workers N`: a pool of up to N threads (the main thread and N − 1 workers), or none when the
 * inputs make one part. The workers start now, before the run sets up: loading their modules and
 * building their transforms overlaps the main thread's setup (hashing the inputs, loading the
 * harness) instead of delaying their first part. Until the run takes them they do not keep the
 * process alive, and the ones it has no part for are stopped.
 */
export function workerPool(size: number, cfg: RunConfig): MakePartPool {
  const claims = new SharedArrayBuffer(8);
  const url = new URL('./worker-thread.js', import.meta.url);
  const spawned = Array.from({ length: Math.max(0, size - 1) }, (_, i) => {
    const w = new Worker(url, { workerData: { cfg, thread: i + 1, claims } satisfies WorkerStart });
    w.unref();
    // A worker that fails before the run takes it is reported by the run (or not needed).
    w.on('error', () => undefined);
    return w;
  });
  return async (init, hooks) => {
    const parts = Math.ceil((await countLines(init.files)) / init.cfg.partSize);
    const threads = Math.min(size, parts);
    const used = threads > 1 ? spawned.slice(0, threads - 1) : [];
    await Promise.all(spawned.slice(used.length).map((w) => w.terminate()));
    return used.length ? new WorkerPool(init, used, claims, hooks) : undefined;
  };
}
