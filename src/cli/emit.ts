import { chmod, mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { resolveRunConfig } from '../config/augment-config.js';
import { UsageError } from '../errors.js';
import { k8sFiles, slurmFiles, type EmitSpec, type EmittedFile } from '../scale/emit.js';
import type { Io } from './io.js';

export interface EmitOptions {
  config?: string;
  shards?: number;
  image?: string;
  claim?: string;
  /** The hsa command inside the job (words separated by spaces). */
  hsa?: string;
  name?: string;
  /** Where the files go (default: the config's folder). */
  dir?: string;
  parallelism?: number;
  backoffLimitPerIndex?: number;
  force?: boolean;
}

const ENGINES = ['slurm', 'k8s'] as const;

/** `hsa emit slurm|k8s`: write the batch job files that run a config as M shards plus the merge. */
export async function emitCommand(engine: string, opts: EmitOptions, io: Io): Promise<number> {
  if (!(ENGINES as readonly string[]).includes(engine)) throw new UsageError(`hsa emit: the engine must be slurm or k8s, not "${engine}"`);
  if (!opts.config) throw new UsageError('hsa emit: --config hsa.yaml is required (the jobs run that config)');
  if (!opts.shards || opts.shards < 1) throw new UsageError('hsa emit: --shards M (at least 1) is required');
  // The config is read now, so a job is never emitted for a config that cannot run.
  const cfg = await resolveRunConfig({ config: opts.config });
  const config = path.resolve(opts.config);
  const spec: EmitSpec = {
    config,
    out: path.resolve(cfg.out),
    workdir: path.dirname(config),
    shards: opts.shards,
    hsa: (opts.hsa ?? 'hsa').split(/\s+/).filter(Boolean),
    name: opts.name ?? 'hsa',
  };
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(spec.name) || spec.name.length > 40)
    throw new UsageError(`--name ${spec.name}: must be a lowercase DNS label (a-z, 0-9, -) of at most 40 characters`);
  const files: EmittedFile[] =
    engine === 'slurm'
      ? slurmFiles(spec)
      : k8sFiles({
          ...spec,
          image: opts.image ?? 'hsa:latest',
          claim: opts.claim ?? 'hsa-work',
          parallelism: Math.min(opts.parallelism ?? spec.shards, spec.shards),
          backoffLimitPerIndex: opts.backoffLimitPerIndex ?? 3,
        });
  const dir = path.resolve(opts.dir ?? spec.workdir);
  await mkdir(dir, { recursive: true });
  for (const f of files) {
    const file = path.join(dir, f.name);
    if (!opts.force && (await stat(file).catch(() => undefined))) throw new UsageError(`${file} exists; pass --force to overwrite it`);
  }
  for (const f of files) {
    const file = path.join(dir, f.name);
    await writeFile(file, f.text);
    if (f.executable) await chmod(file, 0o755);
    io.out(`${file}\n`);
  }
  const at = (suffix: string) => path.join(dir, `${spec.name}${suffix}`);
  io.err(
    engine === 'slurm'
      ? `submit: ${at('-submit.sh')}   (sbatch the array of ${spec.shards}, then the merge with --dependency=afterok)\n`
      : `submit: kubectl apply -f ${at('-augment-job.yaml')} && kubectl wait --for=condition=complete --timeout=24h job/${spec.name}-augment && kubectl apply -f ${at('-merge-job.yaml')}\n`,
  );
  return 0;
}
