import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HSA_BIN, REPO } from '../helpers/hsa.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { treeHashes } from '../helpers/tree.js';

afterAll(removeTempDirs);

const HARNESS = path.join(REPO, 'fixtures/live-commerce/harness');
const TRAJ = path.join(REPO, 'fixtures/live-commerce/trajectories.jsonl');
const tmp = () => tempDir('hsa-shards-');

/**
 * An input with the categories a sharded run can get wrong: a reused id whose first use is in
 * another shard's part, a malformed line (rejects), and enough records for many parts.
 */
function input(n: number): string {
  const lines = readFileSync(TRAJ, 'utf8').split('\n').filter(Boolean).slice(0, n);
  lines.splice(9, 0, lines[1]!); // duplicate of a record in part 0, landing in part 3
  lines.splice(14, 0, '{"id": "broken", "messages": [');
  const file = path.join(tmp(), 'in.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** The real CLI with extra environment; `killWhen` (polled) gets the child SIGKILLed midway. */
function hsa(args: string[], env: Record<string, string> = {}, killWhen?: () => boolean): Promise<Run> {
  return new Promise((resolve, reject) => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(HSA_SHARD_INDEX|HSA_NUM_SHARDS|JOB_COMPLETION_INDEX|SLURM_)/.test(k)));
    const child = spawn(process.execPath, [HSA_BIN, ...args], { cwd: REPO, env: { ...clean, NO_COLOR: '1', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const timer = killWhen
      ? setInterval(() => {
          if (killWhen()) child.kill('SIGKILL');
        }, 2)
      : undefined;
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (timer) clearInterval(timer);
      resolve({ code, signal, stderr });
    });
  });
}

const augment = (traj: string, out: string, extra: string[] = []) => [
  'augment',
  '--no-gzip',
  '--harness',
  HARNESS,
  '-t',
  traj,
  '-o',
  out,
  '--seed',
  '5',
  '-k',
  '1',
  '--part-size',
  '3',
  '--on-error',
  'skip',
  '-q',
  ...extra,
];
const shard = (i: number, m: number) => ['--num-shards', String(m), '--shard-index', String(i)];
const markers = (out: string) => (existsSync(path.join(out, '.hsa/done')) ? readdirSync(path.join(out, '.hsa/done')).filter((f) => f.endsWith('.json')) : []);

describe('sharded runs and hsa merge', () => {
  // One whole run to compare every sharded folder with.
  let traj = '';
  let expected: Record<string, string> = {};
  beforeAll(async () => {
    traj = input(22);
    const whole = tmp();
    expect((await hsa(augment(traj, whole))).code).toBe(0);
    expected = treeHashes(whole);
    expect(Object.keys(expected)).toContain('manifest.json');
    expect(Object.keys(expected)).toContain('sft/part-00007.jsonl');
    const manifest = JSON.parse(readFileSync(path.join(whole, 'manifest.json'), 'utf8')) as { reject_reasons: Record<string, number> };
    expect(manifest.reject_reasons).toMatchObject({ input_duplicate_id: 1, input_malformed: 1 });
  });

  it("gives, as one shard of one and hsa merge, the whole run's folder byte for byte", async () => {
    const one = tmp();
    expect((await hsa(augment(traj, one, shard(0, 1)))).code).toBe(0);
    expect(existsSync(path.join(one, 'manifest.json'))).toBe(false);
    expect((await hsa(['merge', one, '-q'])).code).toBe(0);
    expect(treeHashes(one)).toEqual(expected);
  });

  it('gives it as 3 shards run out of order', async () => {
    const three = tmp();
    for (const i of [2, 0, 1]) expect((await hsa(augment(traj, three, shard(i, 3)))).code).toBe(0);
    expect((await hsa(['merge', three, '-q'])).code).toBe(0);
    expect(treeHashes(three)).toEqual(expected);
  });

  it('gives it as 7 shards at once, one SIGKILLed mid-part and rerun', async () => {
    // Seven shards at once on one folder; shard 0 (parts 0 and 7) is killed while it writes part 0.
    const seven = tmp();
    const writing = () => existsSync(path.join(seven, 'sft/part-00000.jsonl.tmp')) || markers(seven).includes('part-00000.json');
    const killed = hsa(augment(traj, seven, shard(0, 7)), {}, writing);
    const others = [6, 3, 1, 5, 2, 4].map((i) => hsa(augment(traj, seven, shard(i, 7))));
    const k = await killed;
    expect((await Promise.all(others)).map((r) => r.code)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(k.signal).toBe('SIGKILL');
    expect(markers(seven)).not.toContain('part-00007.json');
    const early = await hsa(['merge', seven]);
    expect(early.code).toBe(1);
    expect(early.stderr).toMatch(/missing parts: 0, 7 of 8 \(shard 0 of 7 not finished\)|missing parts: 7 of 8 \(shard 0 of 7 not finished\)/);
    expect(existsSync(path.join(seven, 'manifest.json'))).toBe(false);
    // The rerun resumes (removing what the killed process left) and the merge completes.
    expect((await hsa(augment(traj, seven, shard(0, 7)))).code).toBe(0);
    expect((await hsa(['merge', seven, '-q'])).code).toBe(0);
    expect(treeHashes(seven)).toEqual(expected);
    // Merging again changes nothing.
    expect((await hsa(['merge', seven, '-q'])).code).toBe(0);
    expect(treeHashes(seven)).toEqual(expected);
  }, 60_000);

  it('takes the shard from a Slurm array task, and merge refuses naming the shard not done', async () => {
    const traj = input(12);
    const out = tmp();
    const r = await hsa(augment(traj, out), { SLURM_ARRAY_TASK_ID: '7', SLURM_ARRAY_TASK_MIN: '7', SLURM_ARRAY_TASK_COUNT: '2' });
    expect(r.code).toBe(0);
    // Parts 0 and 2 of 5 (shard 0 of 2) are there, 1 and 3 are not.
    expect(markers(out)).toEqual(['part-00000.json', 'part-00002.json', 'part-00004.json']);
    const before = treeHashes(out);
    const m = await hsa(['merge', out]);
    expect(m.code).toBe(1);
    expect(m.stderr).toContain('missing parts: 1, 3 of 5 (shard 1 of 2 not finished)');
    expect(treeHashes(out)).toEqual(before);
    // Kubernetes' index with the count from the config's shards: key finishes the run.
    const cfg = path.join(tmp(), 'hsa.yaml');
    writeFileSync(cfg, 'shards: 2\n');
    expect((await hsa([...augment(traj, out), '--config', cfg], { JOB_COMPLETION_INDEX: '1' })).code).toBe(0);
    expect((await hsa(['merge', out, '-q'])).code).toBe(0);
    expect(existsSync(path.join(out, 'manifest.json'))).toBe(true);
  });

  it('refuses bad shard input with exit 42 (do not retry) or 1, overwriting nothing', async () => {
    const traj = input(12);
    const out = path.join(tmp(), 'out');
    const index = await hsa(augment(traj, out, shard(2, 2)));
    expect(index.code).toBe(42);
    expect(index.stderr).toContain('shard index 2 (from --shard-index) must be below the number of shards 2');
    expect(existsSync(out)).toBe(false);
    expect((await hsa(augment(traj, out, shard(0, 2)))).code).toBe(0);
    const before = treeHashes(out);
    // A shard of another seed in the same folder.
    const seed = await hsa([...augment(traj, out, shard(1, 2)), '--seed', '6']);
    expect(seed.code).toBe(42);
    expect(seed.stderr).toMatch(/holds a run with different inputs, config or seed \(changed: config\.seed, seed\); a shard never starts over/);
    expect(treeHashes(out)).toEqual(before);
    // An index from the environment without a count is a config error too.
    const count = await hsa(augment(traj, out), { JOB_COMPLETION_INDEX: '1' });
    expect(count.code).toBe(42);
    expect(count.stderr).toContain('the number of shards is unknown');
    // A corrupted part: merge names it and writes nothing.
    expect((await hsa(augment(traj, out, shard(1, 2)))).code).toBe(0);
    const file = path.join(out, 'sft/part-00002.jsonl');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"id"', '"Id"'));
    // A part done under another fingerprint (as a racing shard of another run could leave).
    const marker = path.join(out, '.hsa/done/part-00001.json');
    writeFileSync(marker, readFileSync(marker, 'utf8').replace(/"fingerprint":"[0-9a-f]+"/, `"fingerprint":"${'ab'.repeat(32)}"`));
    const corrupt = treeHashes(out);
    const m = await hsa(['merge', out]);
    expect(m.code).toBe(1);
    expect(m.stderr).toContain('corrupt part 2: sft/part-00002.jsonl: sha256 differs from the done marker');
    expect(m.stderr).toContain('foreign part 1: done by a run with other inputs, config or seed (fingerprint abababababab…)');
    expect(treeHashes(out)).toEqual(corrupt);
    // Under --on-error fail a bad record is permanent: exit 42.
    const bad = await hsa(augment(traj, tmp(), [...shard(0, 2), '--on-error', 'fail']));
    expect(bad.code).toBe(42);
    expect(bad.stderr).toMatch(/in\.jsonl:\d+/);
  });
});
