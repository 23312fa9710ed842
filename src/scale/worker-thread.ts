/**
 * The body of a `--workers` thread: builds the run's transforms, words, harness and state pool once
 * (states are seeded by slot, so every thread's pool holds the same states), then turns batches of
 * input lines into output records with `produceRecord`. Results go back as one transferred buffer
 * of UTF-8 lines plus a small JSON index, so the main thread copies bytes into the parts and never
 * rebuilds objects.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { RunConfig } from '../config/augment-config.js';
import { INLINE_HARNESS } from '../config/augment-config.js';
import { HsaError } from '../errors.js';
import { loadRunInputs } from '../output/run.js';
import { inlineHarnessesFor, produceRecord, statePoolFor, type ProduceContext } from '../output/produce.js';
import type { Bucket } from '../output/shared.js';
import type { GeneralPrompt } from '../output/stages.js';
import { loadTokenCounter } from '../tokenize/tokenizer.js';
import type { BatchReply, BatchRequest, RecordIndex } from './workers.js';

const { cfg, general } = workerData as { cfg: RunConfig; general: GeneralPrompt[] };
const ready = (async (): Promise<ProduceContext> => {
  const { transforms, words, harness } = await loadRunInputs(cfg, undefined, true);
  const inline = cfg.harness === INLINE_HARNESS;
  // Each thread counts with its own tokenizer (the same bytes as the main thread's, so the same counts).
  const counter = cfg.tokenizer !== null ? await loadTokenCounter(cfg.tokenizer) : undefined;
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

const BUCKETS: Bucket[] = ['sft', 'opd', 'rl', 'rejects'];

parentPort!.on('message', (req: BatchRequest) => {
  void handle(req);
});

async function handle(req: BatchRequest): Promise<void> {
  let ctx: ProduceContext;
  try {
    ctx = await ready;
  } catch (e) {
    const error = describe(e);
    parentPort!.postMessage({ id: req.id, index: req.items.map(() => ({ error })), buffer: new ArrayBuffer(0) } satisfies BatchReply);
    return;
  }
  // Lines are encoded straight into one buffer (grown by doubling): no buffer per piece for the collector.
  let buf = Buffer.allocUnsafe(1 << 20);
  let at = 0;
  const room = (n: number) => {
    if (at + n <= buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(buf.length * 2, at + n));
    buf.copy(grown, 0, 0, at);
    buf = grown;
  };
  const index: RecordIndex[] = [];
  for (const item of req.items) {
    try {
      const out = await produceRecord(ctx, item, item.pos, req.partIndex);
      const lines: [number, number][] = [];
      for (const [bucket, line] of out.lines) {
        const start = at;
        for (const p of typeof line === 'string' ? [line] : line) {
          if (typeof p === 'string') {
            room(p.length * 3);
            at += buf.write(p, at, 'utf8');
          } else {
            room(p.byteLength);
            buf.set(p, at);
            at += p.byteLength;
          }
        }
        lines.push([BUCKETS.indexOf(bucket), at - start]);
      }
      // The id as produceRecord notes it (only for a record that parsed), for the main thread's duplicate check.
      index.push({ lines, counts: out.counts, reasons: out.reasons, teacher: out.teacher, recovery: out.recovery, outputs: out.outputs, ...(out.tokens ? { tokens: out.tokens } : {}), ...(out.id !== undefined ? { id: out.id } : {}) });
    } catch (e) {
      index.push({ error: describe(e) });
    }
  }
  // A fresh ArrayBuffer of exactly the bytes written, handed over without a copy on the other side.
  const buffer = new ArrayBuffer(at);
  new Uint8Array(buffer).set(buf.subarray(0, at));
  parentPort!.postMessage({ id: req.id, index, buffer } satisfies BatchReply, [buffer]);
}

function describe(e: unknown): NonNullable<RecordIndex['error']> {
  if (e instanceof HsaError) return { code: e.code, message: e.message, exitCode: e.exitCode, name: e.name };
  return { message: (e as Error)?.stack ?? String(e), name: 'Error' };
}
