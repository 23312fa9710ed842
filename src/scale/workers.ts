import { Worker } from 'node:worker_threads';
import { HsaError, type ErrorCode } from '../errors.js';
import type { PartPool, PartPoolHooks, PartPoolInit } from '../output/part-pool.js';
import { BadRecordError, type Bucket, type Output } from '../output/shared.js';
import type { JsonlRange } from '../util/jsonl.js';

/** Input records sent to a thread at once, and the input bytes after which a batch leaves anyway. */
const BATCH = 32;
const BATCH_BYTES = 1 << 20;
/** Input buffers kept for reuse on the main thread. */
const SPARES = 8;

/**
 * A batch as a thread receives it: which of its input slabs holds the lines' bytes and, per
 * line, its number, offset and length. Slabs are shared memory, each posted once (`slab` set
 * when new): V8 counts every ArrayBuffer that arrives as new external memory, and a buffer
 * posted per batch made each heap run a full collection every few dozen MB.
 */
export interface BatchRequest {
  id: number;
  partIndex: number;
  file: string;
  input: number;
  slab?: SharedArrayBuffer;
  /** `line, offset, length, pos` for each record. */
  meta: number[];
  /** Output slabs the main thread has written out (free for the thread again). */
  free: number[];
}

export interface RecordIndex {
  /** Bucket and byte length of each output line, in order. */
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
  /** The output slab holding the lines back to back (`used` bytes of it); `slab` when new or grown. */
  out: number;
  slab?: SharedArrayBuffer;
  used: number;
}

export const BUCKETS: readonly Bucket[] = ['sft', 'opd', 'rl', 'rejects'];

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

/** A batch on the main thread: its input bytes (kept until every record's id is noted) and its output buffer (until written). */
interface Batch {
  id: number;
  worker: number;
  partIndex: number;
  file: string;
  input: Buffer;
  used: number;
  meta: number[];
  pending: Pending[];
  /** Records not yet noted (their input bytes may still be needed) and outputs not yet written. */
  unnoted: number;
  unwritten: number;
  /** The worker's input slab it was copied to, and the output slab holding its lines. */
  slabIn: number;
  out: number;
}

/** One thread's shared slabs as the main thread sees them, and which it may fill or has written out. */
interface Slabs {
  inputs: Buffer[];
  idle: number[];
  outputs: Buffer[];
  free: number[];
}

/**
 * `size` threads producing records: the main thread and `size − 1` worker threads. The main thread
 * reads, splits lines, notes ids in input order and writes, and produces the batches the workers
 * have no room for: a thread of its own would cost a heap, its code compiled again and its own
 * state pool, CPU that two cores do not have (see docs/scale.md).
 *
 * Bytes cross threads, never objects: a batch's input lines go out as one transferred buffer with
 * their offsets, and its output lines come back as one transferred buffer with their lengths (plus
 * a small index of counts); both buffers go back and forth for reuse, so steady state allocates
 * nothing per batch. Workers decode, parse, rewrite, check and encode. A batch goes to the worker
 * with the fewest batches out unless each has two, then to the main thread when it has none;
 * results are handed back in the order `produce` was called, whoever made them.
 */
export class WorkerPool implements PartPool {
  private readonly workers: Worker[];
  private readonly load: number[];
  private readonly slabs: Slabs[];
  private readonly inputs: Buffer[] = [];
  private batchId = 0;
  private batch: Batch | null = null;
  private readonly inFlight = new Map<number, Batch>();
  private readonly ofOutput = new WeakMap<Output, Batch>();
  private failure: unknown;
  /** Ids are noted through this chain, in input order (resumed and other shards' records included). */
  private noted: Promise<unknown> = Promise.resolve();

  constructor(
    init: PartPoolInit,
    readonly size: number,
    private readonly hooks: PartPoolHooks,
  ) {
    const url = new URL('./worker-thread.js', import.meta.url);
    this.workers = Array.from({ length: size - 1 }, () => {
      const w = new Worker(url, { workerData: init });
      w.on('message', (reply: BatchReply) => this.onReply(reply));
      w.on('error', (e) => this.fail(e));
      return w;
    });
    this.load = this.workers.map(() => 0);
    this.slabs = this.workers.map(() => ({ inputs: [], idle: [], outputs: [], free: [] }));
  }

  private fail(e: unknown): void {
    this.failure ??= e;
    for (const b of this.inFlight.values()) for (const p of b.pending) p.reject(e);
    this.inFlight.clear();
  }

  private onReply(reply: BatchReply): void {
    const b = this.inFlight.get(reply.id);
    if (!b) return;
    this.inFlight.delete(reply.id);
    this.load[b.worker]!--;
    const slabs = this.slabs[b.worker]!;
    slabs.idle.push(b.slabIn);
    if (reply.slab) slabs.outputs[reply.out] = Buffer.from(reply.slab);
    b.out = reply.out;
    const bytes = slabs.outputs[reply.out]!.subarray(0, reply.used);
    let at = 0;
    reply.index.forEach((r, i) => {
      const p = b.pending[i]!;
      if (r.error) {
        this.written(b);
        p.reject(revive(r.error));
        return;
      }
      const lines: Output['lines'] = [];
      for (const [k, len] of r.lines ?? []) {
        lines.push([BUCKETS[k]!, [bytes.subarray(at, at + len)]]);
        at += len;
      }
      const out: Output = {
        lines,
        counts: r.counts ?? {},
        reasons: r.reasons ?? [],
        teacher: r.teacher ?? {},
        recovery: r.recovery ?? {},
        outputs: r.outputs ?? 0,
        ...(r.tokens ? { tokens: r.tokens } : {}),
        ...(r.id !== undefined ? { id: r.id } : {}),
      };
      this.ofOutput.set(out, b);
      p.resolve(out);
    });
  }

  /**
   * The output of one record (a line `range` of `file`, copied here), produced on a thread and
   * settled in input order with its id noted. A batch leaves when full or on `flush`.
   */
  produce(file: string, range: JsonlRange, pos: number, partIndex: number): Promise<Output> {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the failure a worker reported, passed on unchanged
    if (this.failure) return Promise.reject(this.failure);
    if (this.batch && (this.batch.partIndex !== partIndex || this.batch.file !== file)) this.flush();
    // The range is the reader's, reused for the next line: what the chain needs later is taken now.
    const { line, start, end } = range;
    const len = end - start;
    const b = (this.batch ??= this.open(partIndex, file, len));
    if (b.used + len > b.input.length) {
      const bigger = Buffer.allocUnsafeSlow(Math.max(b.input.length * 2, b.used + len));
      b.input.copy(bigger, 0, 0, b.used);
      b.input = bigger;
    }
    range.buf.copy(b.input, b.used, start, end);
    b.meta.push(line, b.used, len, pos);
    b.used += len;
    const i = b.pending.length;
    const task = new Promise<Output>((resolve, reject) => b.pending.push({ resolve, reject }));
    if (b.pending.length >= BATCH || b.used >= BATCH_BYTES) this.flush();
    const done: Promise<Output> = this.noted
      .then(() => task)
      .then((out) => {
        const dup = out.id !== undefined ? this.hooks.seenIds.note(out.id, file, line) : undefined;
        if (!dup) return out;
        // The record is written as a reject made here; its output from the thread is dropped.
        this.written(b);
        return this.hooks.produceHere(
          { file, line, text: b.input.toString('utf8', b.meta[i * 4 + 1], b.meta[i * 4 + 1]! + b.meta[i * 4 + 2]!) },
          pos,
          partIndex,
          dup,
        );
      })
      .finally(() => this.noteDone(b));
    this.noted = done.catch(() => undefined);
    if (this.batch === b) this.unsent.add(done);
    return done;
  }

  /** The results of the records in the open batch (not sent yet). */
  private unsent = new WeakSet<Promise<Output>>();

  /**
   * Send the open batch if `result` is one of its records (called before the main thread waits on
   * it). Waiting on an earlier record sends nothing: a batch leaves full, not a record at a time
   * (with a full window every wait used to send the one record just read, and batches of one
   * record cost the main thread a message, a slab copy and a buffer each).
   */
  flushFor(result: Promise<Output>): void {
    if (this.unsent.has(result)) this.flush();
  }

  /** A record not produced (a resumed part, another shard's) whose id still counts, in order. */
  noteSkipped(note: () => void): void {
    this.noted = this.noted.then(note);
  }

  /** Every id noted (after the last record was handed to `produce`). */
  async settled(): Promise<void> {
    await this.noted;
  }

  /** An output handed out by `produce` is written: its batch's buffer can be reused once all are. */
  released(out: Output): void {
    const b = this.ofOutput.get(out);
    if (b) this.written(b);
  }

  private written(b: Batch): void {
    if (--b.unwritten > 0 || b.out < 0) return;
    this.slabs[b.worker]!.free.push(b.out);
    b.out = -1;
  }

  private noteDone(b: Batch): void {
    if (--b.unnoted > 0) return;
    if (this.inputs.length < SPARES) this.inputs.push(b.input);
  }

  private open(partIndex: number, file: string, first: number): Batch {
    const i = this.inputs.findIndex((a) => a.length >= first);
    const input = i >= 0 ? this.inputs.splice(i, 1)[0]! : Buffer.allocUnsafeSlow(Math.max(BATCH_BYTES + (256 << 10), first));
    return { id: this.batchId++, worker: -1, partIndex, file, input, used: 0, meta: [], pending: [], unnoted: 0, unwritten: 0, slabIn: -1, out: -1 };
  }

  /** Batches the main thread has taken, made one record at a time between its other work. */
  private readonly local: Batch[] = [];
  private localRunning = false;

  private async runLocal(): Promise<void> {
    if (this.localRunning) return;
    this.localRunning = true;
    try {
      for (let b = this.local[0]; b; b = this.local[0]) {
        for (let i = 0; i < b.pending.length; i++) {
          // Let replies and reads in between: a worker waiting for its next batch is lost CPU.
          await new Promise((resolve) => setImmediate(resolve));
          const [line, off, len, pos] = b.meta.slice(i * 4, i * 4 + 4) as [number, number, number, number];
          this.hooks
            .produceHere({ file: b.file, line, text: b.input.toString('utf8', off, off + len) }, pos, b.partIndex)
            .then(b.pending[i]!.resolve, b.pending[i]!.reject);
        }
        this.local.shift();
      }
    } finally {
      this.localRunning = false;
    }
  }

  /** Send the open batch (called before the main thread waits on a result). */
  flush(): void {
    const b = this.batch;
    if (!b) return;
    this.batch = null;
    this.unsent = new WeakSet();
    b.unnoted = b.unwritten = b.pending.length;
    // The worker with the fewest batches out (ties: the first), so a slow one does not hold up the rest.
    const least = Math.min(...this.load);
    if (this.workers.length === 0 || (least >= 2 && this.local.length === 0)) {
      this.local.push(b);
      void this.runLocal();
      return;
    }
    b.worker = this.load.indexOf(least);
    this.load[b.worker]!++;
    this.inFlight.set(b.id, b);
    const slabs = this.slabs[b.worker]!;
    // An idle input slab big enough, else a new one (posted with this batch, once).
    const k = slabs.idle.findIndex((i) => slabs.inputs[i]!.length >= b.used);
    let slab: SharedArrayBuffer | undefined;
    if (k >= 0) b.slabIn = slabs.idle.splice(k, 1)[0]!;
    else {
      slab = new SharedArrayBuffer(Math.max(BATCH_BYTES + (256 << 10), b.used));
      b.slabIn = slabs.inputs.length;
      slabs.inputs.push(Buffer.from(slab));
    }
    b.input.copy(slabs.inputs[b.slabIn]!, 0, 0, b.used);
    const req: BatchRequest = {
      id: b.id,
      partIndex: b.partIndex,
      file: b.file,
      input: b.slabIn,
      ...(slab ? { slab } : {}),
      meta: b.meta,
      free: slabs.free.splice(0),
    };
    this.workers[b.worker]!.postMessage(req);
  }

  async close(): Promise<void> {
    // Records still out (a run stopping on an error) settle, so the part's abort does not wait on them.
    const closed = new Error('worker threads stopped');
    for (const p of this.batch?.pending.splice(0) ?? []) p.reject(closed);
    this.batch = null;
    this.fail(closed);
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
