import { spawnSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { emitCommand } from '../../src/cli/emit.js';
import { REPO } from '../helpers/hsa.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

afterAll(removeTempDirs);

function setup(): { dir: string; config: string } {
  const dir = tempDir('hsa-emit-');
  const config = path.join(dir, 'hsa.yaml');
  writeFileSync(
    config,
    `harness: ${path.join(REPO, 'fixtures/live-commerce/harness')}\ntrajectories: ${path.join(REPO, 'fixtures/live-commerce/trajectories.jsonl')}\nout: out dir\npart_size: 5\n`,
  );
  return { dir, config };
}

const io = () => {
  const got = { out: '', err: '' };
  return { got, io: { out: (t: string) => void (got.out += t), err: (t: string) => void (got.err += t), errIsTty: false } };
};

/** Validate against the batch/v1 Job schema of the Kubernetes API (kubernetes-models' generated validators). */
function validateJob(obj: unknown): void {
  new Job(obj as ConstructorParameters<typeof Job>[0]).validate();
}

describe('hsa emit k8s', () => {
  it('writes an Indexed Job and a merge Job that validate against the Kubernetes Job schema', async () => {
    const { dir, config } = setup();
    const { got, io: sink } = io();
    expect(await emitCommand('k8s', { config, shards: 5, image: 'registry.example/hsa:1', parallelism: 2 }, sink)).toBe(0);
    const augment = parse(readFileSync(path.join(dir, 'hsa-augment-job.yaml'), 'utf8')) as Record<string, any>;
    const merge = parse(readFileSync(path.join(dir, 'hsa-merge-job.yaml'), 'utf8')) as Record<string, any>;
    validateJob(augment);
    validateJob(merge);
    expect(augment.spec).toMatchObject({ completionMode: 'Indexed', completions: 5, parallelism: 2, backoffLimitPerIndex: 3 });
    expect(augment.spec.podFailurePolicy.rules[0]).toEqual({ action: 'FailIndex', onExitCodes: { containerName: 'hsa', operator: 'In', values: [42] } });
    const pod = augment.spec.template.spec;
    expect(pod.restartPolicy).toBe('Never');
    expect(pod.containers[0].image).toBe('registry.example/hsa:1');
    expect(pod.containers[0].args).toEqual(['augment', '--config', config, '--num-shards', '5', '-q']);
    expect(pod.containers[0].volumeMounts).toEqual([{ name: 'work', mountPath: dir }]);
    expect(pod.volumes).toEqual([{ name: 'work', persistentVolumeClaim: { claimName: 'hsa-work' } }]);
    expect(merge.spec.template.spec.containers[0].args).toEqual(['merge', path.join(dir, 'out dir')]);
    expect(got.err).toContain('kubectl wait --for=condition=complete');
  });

  it('the validator is not a rubber stamp: a wrong action or count is refused', () => {
    expect(() =>
      validateJob({
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'x' },
        spec: { podFailurePolicy: { rules: [{ action: 'Retry' }] }, template: { spec: { containers: [] } } },
      }),
    ).toThrow(/action/);
    expect(() =>
      validateJob({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'x' }, spec: { completions: 'five', template: { spec: { containers: [] } } } }),
    ).toThrow(/completions/);
  });
});

describe('hsa emit slurm', () => {
  it('writes an array script, a merge script and a submit script chained with afterok', async () => {
    const { dir, config } = setup();
    expect(await emitCommand('slurm', { config, shards: 4, hsa: 'node /opt/hsa/bin/hsa' }, io().io)).toBe(0);
    const array = readFileSync(path.join(dir, 'hsa-augment.sbatch'), 'utf8');
    expect(array).toContain('#SBATCH --array=0-3\n');
    expect(array).toContain(`exec node /opt/hsa/bin/hsa augment --config ${config} --num-shards 4 --shard-index "$SLURM_ARRAY_TASK_ID" -q`);
    expect(readFileSync(path.join(dir, 'hsa-merge.sbatch'), 'utf8')).toContain(`merge '${path.join(dir, 'out dir')}'`);
    const submit = path.join(dir, 'hsa-submit.sh');
    expect(readFileSync(submit, 'utf8')).toContain('--dependency=afterok:"$array"');
    expect(statSync(submit).mode & 0o111).not.toBe(0);
    for (const f of ['hsa-augment.sbatch', 'hsa-merge.sbatch', 'hsa-submit.sh']) expect(spawnSync('bash', ['-n', path.join(dir, f)]).status).toBe(0);
  });

  it('refuses a missing config or shard count, an unknown engine and overwriting without --force', async () => {
    const { config } = setup();
    await expect(emitCommand('slurm', { shards: 2 }, io().io)).rejects.toThrow(/--config/);
    await expect(emitCommand('slurm', { config, shards: 0 }, io().io)).rejects.toThrow(/--shards/);
    await expect(emitCommand('pbs', { config, shards: 2 }, io().io)).rejects.toThrow(/slurm or k8s/);
    await expect(emitCommand('slurm', { config: path.join(path.dirname(config), 'nope.yaml'), shards: 2 }, io().io)).rejects.toThrow(/nope\.yaml/);
    expect(await emitCommand('slurm', { config, shards: 2 }, io().io)).toBe(0);
    await expect(emitCommand('slurm', { config, shards: 3 }, io().io)).rejects.toThrow(/exists; pass --force/);
    expect(await emitCommand('slurm', { config, shards: 3, force: true }, io().io)).toBe(0);
  });
});
