import { Worker } from 'node:worker_threads';
import type { RunConfig } from '../config/augment-config.js';
import { HsaError, type ErrorCode } from '../errors.js';
import type { InputItem } from '../output/produce.js';
import { BadRecordError, type Bucket, type Output } from '../output/shared.js';
import type { GeneralPrompt } from '../output/stages.js';

/** Input records sent to a thread at once. */
const BATCH = 32;

export interface BatchRequest {
  id: number;
  partIndex: number;
  items: (InputItem & { pos: number })[];
}

export interface RecordIndex {
  lines?: [number, number][];
  counts?: Output['counts'];
  reasons?: Output['reasons'];
  teacher?: Output['teacher'];
  recovery?: Output['recovery'];
  outputs?: number;
  tokens?: Output['tokens'];
  id?: string;
  error?: { code?: ErrorCode; message: string; exitCode?: number; name: string };
}

export interface BatchReply {
  id: number;
  index: RecordIndex[];
  buffer: ArrayBuffer;
}

const BUCKETS: Bucket[] = ['sft', 'opd', 'rl', 'rejects'];

/** The error a thread reported, as the class the main thread would have thrown. */
function revive(e: NonNullable<RecordIndex['error']>): Error {
  if (e.code === 'HSA_BAD_RECORD') return new BadRecordError(e.message);
  if (e.code) return new HsaError(e.code, e.message, e.exitCode ?? 1);
  return new Error(e.message);
}

interface Pending {
  resolve: (o: Output) => void;
  reject: (e: unknown) => void;
}

/**
 * Worker threads that produce records for the main thread, which keeps reading, ordering and
 * writing. Records go out in batches (round robin, so a batch's results come back in one message)
 * and every result is handed back in the order `produce` was called.
 */
export class WorkerPool {
  private readonly workers: Worker[];
  private next = 0;
  private batchId = 0;
  private batch: BatchRequest | null = null;
  private batchPending: Pending[] = [];
  private readonly inFlight = new Map<number, Pending[]>();
  private failure: unknown;

  constructor(cfg: RunConfig, readonly size: number, general: readonly GeneralPrompt[]) {
    const url = new URL('./worker-thread.js', import.meta.url);
    this.workers = Array.from({ length: size }, () => {
      const w = new Worker(url, { workerData: { cfg, general } });
      w.on('message', (reply: BatchReply) => this.onReply(reply));
      w.on('error', (e) => this.fail(e));
      return w;
    });
  }

  private fail(e: unknown): void {
    this.failure ??= e;
    for (const list of this.inFlight.values()) for (const p of list) p.reject(e);
    this.inFlight.clear();
  }

  private onReply(reply: BatchReply): void {
    const pending = this.inFlight.get(reply.id) ?? [];
    this.inFlight.delete(reply.id);
    const bytes = new Uint8Array(reply.buffer);
    let at = 0;
    reply.index.forEach((r, i) => {
      const p = pending[i]!;
      if (r.error) {
        p.reject(revive(r.error));
        return;
      }
      const lines: Output['lines'] = [];
      for (const [b, len] of r.lines ?? []) {
        lines.push([BUCKETS[b]!, [bytes.subarray(at, at + len)]]);
        at += len;
      }
      p.resolve({ lines, counts: r.counts ?? {}, reasons: r.reasons ?? [], teacher: r.teacher ?? {}, recovery: r.recovery ?? {}, outputs: r.outputs ?? 0, ...(r.tokens ? { tokens: r.tokens } : {}), ...(r.id !== undefined ? { id: r.id } : {}) });
    });
  }

  /** The output of one record, produced on a thread. A batch leaves when full or on `flush`. */
  produce(item: InputItem, pos: number, partIndex: number): Promise<Output> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.batch && this.batch.partIndex !== partIndex) this.flush();
    this.batch ??= { id: this.batchId++, partIndex, items: [] };
    const promise = new Promise<Output>((resolve, reject) => this.batchPending.push({ resolve, reject }));
    this.batch.items.push({ file: item.file, line: item.line, text: item.text, pos });
    if (this.batch.items.length >= BATCH) this.flush();
    return promise;
  }

  /** Send the open batch (called before the main thread waits on a result). */
  flush(): void {
    if (!this.batch) return;
    this.inFlight.set(this.batch.id, this.batchPending);
    this.workers[this.next]!.postMessage(this.batch);
    this.next = (this.next + 1) % this.workers.length;
    this.batch = null;
    this.batchPending = [];
  }

  async close(): Promise<void> {
    // Records still out (a run stopping on an error) settle, so the part's abort does not wait on them.
    const closed = new Error('worker threads stopped');
    for (const p of this.batchPending.splice(0)) p.reject(closed);
    this.batch = null;
    this.fail(closed);
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
