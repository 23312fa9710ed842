import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { resolveRunConfig, type AugmentFlags } from '../../src/config/augment-config.js';
import { ClaimedParts } from '../../src/output/claimed-parts.js';
import type { MakePartPool } from '../../src/output/part-pool.js';
import { runClaimedParts, type PeerEvents, type PeerThread } from '../../src/output/part-sequencer.js';
import { runAugment } from '../../src/output/run.js';
import type { PartContext } from '../../src/output/executor.js';
import type { PartPoolInit } from '../../src/output/part-pool.js';
import { REPO } from '../helpers/hsa.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { treeHashes } from '../helpers/tree.js';

// src/version.ts reads package.json relative to dist/: in process, the version is fixed.
vi.mock('../../src/version.js', () => ({ HSA_VERSION: '0.0.0-test', ENGINE_VERSION: 0 }));

afterAll(removeTempDirs);

const HARNESS = path.join(REPO, 'fixtures/live-commerce/harness');
const SOURCE = readFileSync(path.join(REPO, 'fixtures/live-commerce/trajectories.jsonl'), 'utf8').split('\n').filter(Boolean);

/** An input of the fixture's first `n` records with `edits` applied: record index → the line put there (inserted before it). */
function input(n: number, edits: [number, string][]): string {
  const lines = SOURCE.slice(0, n);
  for (const [at, line] of [...edits].sort((a, b) => b[0] - a[0])) lines.splice(at, 0, line);
  const file = path.join(tempDir('hsa-claimed-'), 'in.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

const BAD = '{"id": 7, "messages": []}';

/**
 * Two threads in one: the main thread and a peer `ClaimedParts` on the same event loop, each
 * claiming exactly the parts `owner` gives it, so which thread meets a reused id or a bad record
 * first is fixed by the test, not by timing.
 */
function twoThreads(owner: (part: number) => 0 | 1): MakePartPool {
  return (init: PartPoolInit, hooks) =>
    Promise.resolve({
      size: 2,
      runParts: (ctx: PartContext, opts: { signal?: AbortSignal | undefined }) => {
        let stop = false;
        return runClaimedParts({
          ctx,
          files: init.files,
          shard: init.shard,
          seenIds: hooks.seenIds,
          signal: opts.signal,
          claim: (i) => owner(i) === 0,
          stopAll: () => (stop = true),
          stopping: () => stop,
          peers: (events) => [peer({ ...ctx, progress: { ...ctx.progress } }, init, events(1), owner, () => stop)],
        });
      },
    });
}

function peer(ctx: PartContext, init: PartPoolInit, events: PeerEvents, owner: (part: number) => 0 | 1, stopping: () => boolean): PeerThread {
  const c = new ClaimedParts({
    thread: 1,
    ctx,
    files: init.files,
    shard: init.shard,
    claim: (i) => owner(i) === 1,
    stopping,
    report: (r) => events.report(r),
    outcome: (o) => events.outcome(o),
  });
  c.run().catch((e: unknown) => events.fail(e));
  return { verdict: (i, v) => c.verdict(i, v), stop: () => c.stop() };
}

/** A run in process: the folder's files (relative path → sha256) and the error it stopped with. */
async function run(flags: AugmentFlags, pool?: MakePartPool): Promise<{ tree: Record<string, string>; error?: string }> {
  const out = path.join(tempDir('hsa-claimed-'), 'out');
  const cfg = await resolveRunConfig({ harness: HARNESS, seed: 'c', variants: 1, partSize: 4, gzip: false, quiet: true, ...flags, out });
  let error: string | undefined;
  try {
    await runAugment(cfg, pool ? { pool } : {});
  } catch (e) {
    error = `${(e as Error).name}: ${(e as Error).message}`;
  }
  return { tree: treeHashes(out), ...(error !== undefined ? { error } : {}) };
}

const ALTERNATE = (p: number) => (p % 2) as 0 | 1;
const PEER_AFTER_FIRST = (p: number) => (p === 0 ? 0 : 1);

describe('parts claimed by threads', () => {
  it('reused ids in the other thread’s parts (and in the same part) give the bytes of one thread', async () => {
    // Record 1 again in part 1 (the peer's), in part 2 twice, and record 9 again in its own part.
    const t = input(20, [
      [5, SOURCE[1]!],
      [9, SOURCE[1]!],
      [10, SOURCE[1]!],
      [12, SOURCE[9]!],
      [14, BAD],
    ]);
    const flags = { trajectories: [t], onError: 'skip' };
    const one = await run(flags);
    expect(one.error).toBeUndefined();
    for (const owner of [ALTERNATE, PEER_AFTER_FIRST]) {
      const two = await run(flags, twoThreads(owner));
      expect(two.error).toBeUndefined();
      expect(two.tree).toEqual(one.tree);
    }
  });

  it('--on-error fail: a reused id in the peer’s part stops the run before the main thread’s later bad record, leaving what one thread leaves', async () => {
    const t = input(20, [
      [5, SOURCE[1]!],
      [9, BAD],
    ]);
    const one = await run({ trajectories: [t] });
    expect(one.error).toMatch(/duplicate id \(first at .*in\.jsonl:2\)/);
    expect(Object.keys(one.tree)).toContain('sft/part-00000.jsonl');
    expect(Object.keys(one.tree)).not.toContain('sft/part-00001.jsonl');
    const two = await run({ trajectories: [t] }, twoThreads(ALTERNATE));
    expect(two).toEqual(one);
  });

  it('--on-error fail: a bad record after a reused id in the same part fails on the reused id, as one thread does', async () => {
    const t = input(20, [
      [5, SOURCE[1]!],
      [6, BAD],
    ]);
    const one = await run({ trajectories: [t] });
    expect(one.error).toMatch(/duplicate id/);
    expect(await run({ trajectories: [t] }, twoThreads(ALTERNATE))).toEqual(one);
  });

  it('--on-error fail: a record both reused and bad (a reused id in a mismatched record) fails with both problems, as one thread does', async () => {
    const record = JSON.parse(SOURCE[1]!) as { messages: { role: string; content: unknown }[] };
    const system = record.messages.find((m) => m.role === 'system')!;
    system.content = `${String(system.content)}\nAn extra rule.`;
    const t = input(20, [[5, JSON.stringify(record)]]);
    const one = await run({ trajectories: [t] });
    expect(one.error).toMatch(/duplicate id/);
    expect(one.error!.split('\n').length).toBeGreaterThan(1);
    expect(await run({ trajectories: [t] }, twoThreads(ALTERNATE))).toEqual(one);
  });

  it('--on-error fail: the first bad record in input order is the one reported, whichever thread meets it first', async () => {
    // Part 1 (the peer's, which it reaches only after part 0 … ) and part 3 (the main thread's) both fail.
    const t = input(20, [
      [6, BAD],
      [13, '{"id": "cut-off", "messages": [{"role": "user"'],
    ]);
    const one = await run({ trajectories: [t] });
    expect(one.error).toMatch(/in\.jsonl:7:/);
    for (const owner of [ALTERNATE, PEER_AFTER_FIRST]) expect(await run({ trajectories: [t] }, twoThreads(owner))).toEqual(one);
  });

  it('resumes a folder with parts missing, ids of the kept parts still counting', async () => {
    const t = input(24, [[17, SOURCE[2]!]]);
    const flags = { trajectories: [t], onError: 'skip' };
    const whole = await run(flags);
    const out = path.join(tempDir('hsa-claimed-'), 'out');
    const cfg = await resolveRunConfig({ harness: HARNESS, seed: 'c', variants: 1, partSize: 4, gzip: false, quiet: true, ...flags, out });
    await runAugment(cfg, { pool: twoThreads(ALTERNATE) });
    // Part 0 (the first use of the id) is kept; parts 3 and 4 go (4 holds the reused id).
    for (const p of ['00003', '00004']) {
      rmSync(path.join(out, '.hsa/done', `part-${p}.json`));
      rmSync(path.join(out, 'sft', `part-${p}.jsonl`));
    }
    const summary = await runAugment(cfg, { pool: twoThreads(PEER_AFTER_FIRST) });
    expect(summary.partsSkipped).toBe(5);
    expect(treeHashes(out)).toEqual(whole.tree);
  });

  it('a shard on threads counts the ids of the other shard’s parts', async () => {
    const t = input(20, [[13, SOURCE[0]!]]);
    const flags = { trajectories: [t], onError: 'skip' };
    const whole = await run(flags);
    const out = path.join(tempDir('hsa-claimed-'), 'out');
    const cfg = await resolveRunConfig({ harness: HARNESS, seed: 'c', variants: 1, partSize: 4, gzip: false, quiet: true, ...flags, out });
    for (const index of [1, 0]) await runAugment(cfg, { pool: twoThreads(ALTERNATE), shard: { index, count: 2, from: '--shard-index' } });
    const { mergeShards } = await import('../../src/scale/merge.js');
    await mergeShards(out);
    expect(treeHashes(out)).toEqual(whole.tree);
  });
});
