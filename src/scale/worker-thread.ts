/**
 * The body of a `--workers` thread: builds the run's transforms and words once, takes the harness
 * the main thread checked (states are seeded by slot and built on first use, so every thread's
 * pool holds the same states whichever records it gets), then turns batches of input bytes into
 * output bytes with `produceRecord`. Batches are done one at a time, in arrival order; input and
 * output bytes live in shared slabs (see `BatchRequest`), reused once the main thread is done.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { INLINE_HARNESS } from '../config/augment-config.js';
import { HsaError } from '../errors.js';
import { runTransforms } from '../output/run-transforms.js';
import { produceRecord, type ProduceContext } from '../output/produce.js';
import { inlineHarnessesFor, statePoolFor } from '../output/variants.js';
import type { OutputLine } from '../util/json-out.js';
import type { PartPoolInit } from '../output/part-pool.js';
import { BUCKETS, type BatchReply, type BatchRequest, type RecordIndex } from './workers.js';

const { cfg, general, harness } = workerData as PartPoolInit;
const ready = (async (): Promise<ProduceContext> => {
  const { transforms, words } = await runTransforms(cfg);
  const inline = cfg.harness === INLINE_HARNESS;
  // Each thread counts with its own tokenizer (the same bytes as the main thread's, so the same counts).
  // (Its module, with the template engine and tokenizer library, is loaded only for a run that counts.)
  const counter = cfg.tokenizer !== null ? await (await import('../tokenize/tokenizer.js')).loadTokenCounter(cfg.tokenizer) : undefined;
  return {
    ...(counter ? { tokens: counter } : {}),
    cfg,
    harness,
    transforms,
    words,
    general,
    pool: inline ? undefined : statePoolFor(cfg, harness, transforms, words),
    ...(inline ? { inline: inlineHarnessesFor(cfg, transforms, words) } : {}),
    teacher: undefined,
    limit: undefined,
    warn: () => undefined,
  };
})();

/** Input slabs (the main thread's, by id) and output slabs (this thread's, by id, with the free ones). */
const inputs: Buffer[] = [];
const outputs: Buffer[] = [];
const free: number[] = [];
let queue: Promise<void> = Promise.resolve();

parentPort!.on('message', (req: BatchRequest) => {
  if (req.slab) inputs[req.input] = Buffer.from(req.slab);
  free.push(...req.free);
  queue = queue.then(() => handle(req));
});

/** Output lines encoded into a free output slab (the largest), grown by doubling when it fills. */
class Encoder {
  readonly id: number;
  buf: Buffer;
  at = 0;
  /** The slab to post with the reply: a new or grown one. */
  fresh: SharedArrayBuffer | undefined;

  constructor() {
    let best = -1;
    free.forEach((id, i) => {
      if (best < 0 || outputs[id]!.length > outputs[free[best]!]!.length) best = i;
    });
    if (best >= 0) {
      this.id = free.splice(best, 1)[0]!;
      this.buf = outputs[this.id]!;
    } else {
      this.id = outputs.length;
      this.buf = this.grow(4 << 20);
    }
  }

  private grow(size: number): Buffer {
    this.fresh = new SharedArrayBuffer(size);
    const buf = Buffer.from(this.fresh);
    outputs[this.id] = buf;
    return buf;
  }

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const old = this.buf;
    this.buf = this.grow(Math.max(old.length * 2, this.at + n));
    old.copy(this.buf, 0, 0, this.at);
  }

  /** Append one line; returns its byte length. */
  line(line: OutputLine): number {
    const start = this.at;
    for (const p of typeof line === 'string' ? [line] : line) {
      if (typeof p === 'string') {
        this.room(p.length * 3);
        this.at += this.buf.write(p, this.at, 'utf8');
      } else {
        this.room(p.byteLength);
        this.buf.set(p, this.at);
        this.at += p.byteLength;
      }
    }
    return this.at - start;
  }
}

async function handle(req: BatchRequest): Promise<void> {
  const input = inputs[req.input]!;
  const n = req.meta.length / 4;
  const enc = new Encoder();
  const reply = (index: RecordIndex[]) =>
    parentPort!.postMessage({ id: req.id, index, out: enc.id, ...(enc.fresh ? { slab: enc.fresh } : {}), used: enc.at } satisfies BatchReply);
  let ctx: ProduceContext;
  try {
    ctx = await ready;
  } catch (e) {
    const error = describe(e);
    reply(Array.from({ length: n }, () => ({ error })));
    return;
  }
  const index: RecordIndex[] = [];
  for (let i = 0; i < n; i++) {
    const [line, off, len, pos] = [req.meta[i * 4]!, req.meta[i * 4 + 1]!, req.meta[i * 4 + 2]!, req.meta[i * 4 + 3]!];
    try {
      const out = await produceRecord(ctx, { file: req.file, line, text: input.toString('utf8', off, off + len) }, pos, req.partIndex);
      const lines: [number, number][] = out.lines.map(([bucket, l]) => [BUCKETS.indexOf(bucket), enc.line(l)]);
      // The id as produceRecord notes it (only for a record that parsed), for the main thread's duplicate check.
      index.push({
        lines,
        counts: out.counts,
        reasons: out.reasons,
        teacher: out.teacher,
        recovery: out.recovery,
        outputs: out.outputs,
        ...(out.tokens ? { tokens: out.tokens } : {}),
        ...(out.id !== undefined ? { id: out.id } : {}),
      });
    } catch (e) {
      index.push({ error: describe(e) });
    }
  }
  reply(index);
}

function describe(e: unknown): NonNullable<RecordIndex['error']> {
  if (e instanceof HsaError) return { code: e.code, message: e.message, exitCode: e.exitCode, name: e.name };
  return { message: (e as Error)?.stack ?? String(e), name: 'Error' };
}
