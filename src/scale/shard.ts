import { HsaError, UsageError } from '../errors.js';
import type { Shard } from '../output/out-folder.js';

/** Exit code of a shard that must not be retried: the same input would fail the same way. */
export const DO_NOT_RETRY = 42;

/** Error codes a rerun of the same command cannot cure (bad input, config, refused folder or key). */
const PERMANENT = new Set([
  'HSA_USAGE',
  'HSA_BAD_HARNESS',
  'HSA_BAD_RECORD',
  'HSA_BAD_CONFIG',
  'HSA_BAD_PLUGIN',
  'HSA_TRANSFORM_REFUSED',
  'HSA_RENDER',
  'HSA_OUTPUT',
  'HSA_TEACHER_FATAL',
  'HSA_CACHE_MISS',
]);

/** A permanent failure of a shard: exit 42, which `hsa emit` maps to "do not retry". */
export class DoNotRetryError extends HsaError {
  constructor(cause: HsaError) {
    super(cause.code, cause.message, DO_NOT_RETRY);
    this.name = 'DoNotRetryError';
  }
}

/** The error a shard reports to its batch engine: permanent failures exit 42, the rest keep their (retryable) code. */
export function forBatchEngine(e: unknown): unknown {
  return e instanceof HsaError && PERMANENT.has(e.code) && !(e instanceof DoNotRetryError) ? new DoNotRetryError(e) : e;
}

export interface ShardFlags {
  numShards?: number;
  shardIndex?: number;
}

function parseIndex(name: string, value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < 0) throw new UsageError(`${name}=${JSON.stringify(value)}: must be a non-negative integer`);
  return n;
}

/**
 * The shard of this process, or undefined for a whole run. Flags win; then HSA_SHARD_INDEX /
 * HSA_NUM_SHARDS; then Kubernetes' JOB_COMPLETION_INDEX (count from --num-shards or the config's
 * `shards:`); then a Slurm array (SLURM_ARRAY_TASK_ID − SLURM_ARRAY_TASK_MIN of SLURM_ARRAY_TASK_COUNT).
 */
export function resolveShard(flags: ShardFlags, env: NodeJS.ProcessEnv, configShards?: number): Shard | undefined {
  const count = (from: string, envCount?: string): number => {
    const n = flags.numShards ?? (envCount !== undefined ? parseIndex(from, envCount) : configShards);
    if (n === undefined)
      throw new UsageError(
        `the shard index comes from ${from.split(' ')[0]} but the number of shards is unknown: pass --num-shards or set shards: in the config`,
      );
    return n;
  };
  let shard: Shard | undefined;
  if (flags.shardIndex !== undefined) shard = { index: flags.shardIndex, count: count('--shard-index'), from: '--shard-index' };
  else if (env.HSA_SHARD_INDEX !== undefined)
    shard = {
      index: parseIndex('HSA_SHARD_INDEX', env.HSA_SHARD_INDEX),
      count: count('HSA_SHARD_INDEX HSA_NUM_SHARDS', env.HSA_NUM_SHARDS),
      from: 'HSA_SHARD_INDEX',
    };
  else if (env.JOB_COMPLETION_INDEX !== undefined)
    shard = { index: parseIndex('JOB_COMPLETION_INDEX', env.JOB_COMPLETION_INDEX), count: count('JOB_COMPLETION_INDEX'), from: 'JOB_COMPLETION_INDEX' };
  else if (env.SLURM_ARRAY_TASK_ID !== undefined) {
    const id = parseIndex('SLURM_ARRAY_TASK_ID', env.SLURM_ARRAY_TASK_ID);
    const min = env.SLURM_ARRAY_TASK_MIN !== undefined ? parseIndex('SLURM_ARRAY_TASK_MIN', env.SLURM_ARRAY_TASK_MIN) : 0;
    if (id < min) throw new UsageError(`SLURM_ARRAY_TASK_ID=${id} is below SLURM_ARRAY_TASK_MIN=${min}`);
    shard = { index: id - min, count: count('SLURM_ARRAY_TASK_ID SLURM_ARRAY_TASK_COUNT', env.SLURM_ARRAY_TASK_COUNT), from: 'SLURM_ARRAY_TASK_ID' };
  } else if (flags.numShards !== undefined)
    throw new UsageError('--num-shards needs --shard-index (or HSA_SHARD_INDEX, JOB_COMPLETION_INDEX or a Slurm array task)');
  if (!shard) return undefined;
  if (shard.count < 1) throw new UsageError(`the number of shards must be at least 1, not ${shard.count}`);
  if (shard.index >= shard.count) throw new UsageError(`shard index ${shard.index} (from ${shard.from}) must be below the number of shards ${shard.count}`);
  return shard;
}
