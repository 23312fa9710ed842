import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HSA_BIN, REPO, runHsa } from '../helpers/hsa.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { treeHashes } from '../helpers/tree.js';

afterAll(removeTempDirs);

// scripts/slurm-local.sh start (run by .ci/run) brings up a one-node Slurm with this config.
const SLURM_CONF = process.env.SLURM_CONF ?? '/tmp/hsa-slurm/slurm.conf';
const env = { ...process.env, SLURM_CONF };

/** Why the Slurm test cannot run here, or undefined when a controller answers. */
function missing(): string | undefined {
  const sbatch = spawnSync('sbatch', ['--version'], { encoding: 'utf8', env });
  if (sbatch.error || sbatch.status !== 0) return 'sbatch is not installed (scripts/slurm-local.sh start installs and starts a local Slurm)';
  const sinfo = spawnSync('sinfo', ['-h', '-o', '%t'], { encoding: 'utf8', env });
  if (sinfo.status !== 0 || !/idle|mix|alloc/.test(sinfo.stdout))
    return `no Slurm node takes jobs (SLURM_CONF=${SLURM_CONF}): run scripts/slurm-local.sh start`;
  return undefined;
}

const reason = missing();
if (reason && process.env.CI === 'true') throw new Error(`CI must run the real Slurm test: ${reason}`);
if (reason) console.warn(`skipping the Slurm test: ${reason}`);

describe.skipIf(reason !== undefined)('hsa emit slurm on a real Slurm', () => {
  it("runs the emitted array of 4 shards and the dependent merge, giving the single run's folder byte for byte", () => {
    const dir = tempDir('hsa-slurm-');
    const lines = readFileSync(path.join(REPO, 'fixtures/live-commerce/trajectories.jsonl'), 'utf8').split('\n').filter(Boolean).slice(0, 14);
    writeFileSync(path.join(dir, 'in.jsonl'), `${lines.join('\n')}\n`);
    const config = path.join(dir, 'hsa.yaml');
    writeFileSync(
      config,
      `harness: ${path.join(REPO, 'fixtures/live-commerce/harness')}\ntrajectories: in.jsonl\nout: out\npart_size: 2\nvariants: 2\nseed: slurm\n`,
    );
    const emitted = runHsa(['emit', 'slurm', '--config', config, '--shards', '4', '--hsa', `${process.execPath} ${HSA_BIN}`]);
    expect(emitted.code, emitted.stderr).toBe(0);

    // --wait: the merge job's sbatch returns when the merge (after every shard) has ended, with its exit code.
    const submit = spawnSync('sh', [path.join(dir, 'hsa-submit.sh'), '--wait'], { encoding: 'utf8', env, timeout: 50_000 });
    const logs = () => spawnSync('sh', ['-c', `cat ${dir}/*.log`], { encoding: 'utf8' }).stdout;
    expect(submit.status, `${submit.stderr}\n${logs()}`).toBe(0);
    const merged = path.join(dir, 'out');
    expect(existsSync(path.join(merged, 'manifest.json'))).toBe(true);
    // Every shard ran as its own array task (quiet), then the merge over the 4 shards' parts.
    const names = spawnSync('sh', ['-c', `cd ${dir} && ls *.log`], { encoding: 'utf8' })
      .stdout.split('\n')
      .filter(Boolean);
    expect(names.filter((n) => /^hsa-augment-\d+_[0-3]\.log$/.test(n))).toHaveLength(4);
    expect(logs()).toMatch(/^merged: 7 parts from 4 shards → .*out\/manifest\.json\n$/);

    // Paths in the output are written relative to the folder hsa runs in: the jobs run in the config's.
    const whole = runHsa(['augment', '--config', config, '-o', path.join(dir, 'whole'), '-q'], { cwd: dir });
    expect(whole.code, whole.stderr).toBe(0);
    expect(treeHashes(merged)).toEqual(treeHashes(path.join(dir, 'whole')));
  }, 60_000);
});
