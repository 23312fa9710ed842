/**
 * The body of a `--workers` thread: one of the run's in-process shards (see output/claimed-parts.ts).
 * It builds the run's transforms and words once, takes the harness the main thread checked (states
 * are seeded by slot and built on first use, so every thread's pool holds the same states), then
 * reads the inputs through, writes the parts it claims and reports each to the main thread, which
 * answers with a verdict: commit, drop, or make again with the duplicate ids found in it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { INLINE_HARNESS } from '../config/names.js';
import { ClaimedParts } from '../output/claimed-parts.js';
import type { PartContext, RunProgress } from '../output/executor.js';
import { runTransforms } from '../output/run-transforms.js';
import { produceRecord, type ProduceContext } from '../output/produce.js';
import { inlineHarnessesFor, statePoolFor } from '../output/variants.js';
import { claimPart, describeError, type FromWorker, type ToWorker, type WorkerStart } from './workers.js';
import type { PartPoolInit } from '../output/part-pool.js';

const { cfg, thread, claims } = workerData as WorkerStart;
const flags = new Int32Array(claims);
const post = (m: FromWorker) => parentPort!.postMessage(m);

// Started while the main thread sets the run up: what needs only the config is built meanwhile.
const built = (async () => {
  const { transforms, words } = await runTransforms(cfg);
  // Each thread counts with its own tokenizer (the same bytes as the main thread's, so the same counts).
  // (Its module, with the template engine and tokenizer library, is loaded only for a run that counts.)
  const counter = cfg.tokenizer !== null ? await (await import('../tokenize/tokenizer.js')).loadTokenCounter(cfg.tokenizer) : undefined;
  return { transforms, words, counter };
})();
built.catch(() => undefined);

async function context({ harness, general }: PartPoolInit): Promise<ProduceContext> {
  const { transforms, words, counter } = await built;
  const inline = cfg.harness === INLINE_HARNESS;
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
}

/** Progress goes to the main thread as increments, every 32 records and at each part's end. */
const sent = { records: 0, outputs: 0, bytes: 0 };
function sendProgress(p: RunProgress, force = false): void {
  if (!force && p.records - sent.records < 32) return;
  post({ type: 'progress', records: p.records - sent.records, outputs: p.outputs - sent.outputs, bytes: p.bytesRead - sent.bytes });
  sent.records = p.records;
  sent.outputs = p.outputs;
  sent.bytes = p.bytesRead;
}

// Verdicts come only for reported parts, so only once the thread runs; a stop may come any time.
let claimer: ClaimedParts | undefined;
parentPort!.on('message', (m: ToWorker) => {
  if (m.type === 'init') void start(m.init);
  else if (m.type === 'verdict') claimer?.verdict(m.index, m.verdict);
  else if (claimer) void claimer.stop().then(() => post({ type: 'stopped' }));
  else post({ type: 'stopped' });
});

async function start(init: PartPoolInit): Promise<void> {
  try {
    await run(init);
  } catch (e) {
    post({ type: 'fatal', error: describeError(e) });
  }
}

async function run(init: PartPoolInit): Promise<void> {
  const { fingerprint, buckets, files, shard } = init;
  const produceCtx = await context(init);
  const progress: RunProgress = { bytesRead: 0, bytesTotal: 0, records: 0, outputs: 0, partsDone: 0, partsSkipped: 0 };
  const ctx: PartContext = {
    cfg,
    fingerprint,
    buckets,
    progress,
    onProgress: (p) => sendProgress(p),
    produce: (file, r, pos, partIndex, duplicateOf) =>
      produceRecord(produceCtx, { file, line: r.line, text: r.buf.toString('utf8', r.start, r.end) }, pos, partIndex, duplicateOf),
    noteSkipped: () => undefined,
    settle: () => Promise.resolve(),
  };
  const c = new ClaimedParts({
    thread,
    ctx,
    files,
    shard,
    claim: (index) => claimPart(flags, index),
    stopping: () => Atomics.load(flags, 1) !== 0,
    report: (r) => {
      sendProgress(progress, true);
      post({ type: 'report', report: r.kind === 'failed' ? { ...r, error: describeError(r.error) } : r });
    },
    outcome: (o) => post({ type: 'outcome', outcome: 'error' in o ? { index: o.index, error: describeError(o.error) } : o }),
  });
  claimer = c;
  await c.run();
}
