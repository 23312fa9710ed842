import type { RunConfig } from '../config/augment-config.js';
import type { Harness } from '../harness/types.js';
import type { IdIndex } from '../util/id-index.js';
import type { PartContext, PartsResult } from './executor.js';
import type { Shard } from './out-folder.js';
import type { Bucket } from './shared.js';
import type { GeneralPrompt } from './stages.js';

/**
 * Threads that write a run's parts, as the run sees them. The run defines the interface; the
 * caller hands in an implementation (`hsa augment --workers`: scale/workers.ts), so the run itself
 * knows nothing of threads.
 */
export interface PartPool {
  /** Threads writing parts, the main thread included. */
  readonly size: number;
  /**
   * Write every part this process owns, as `runParts` does (same result, same bytes); `ctx`'s
   * `produce` does not note ids (the pool does, in input order).
   */
  runParts(ctx: PartContext, opts: { signal?: AbortSignal | undefined }): Promise<PartsResult>;
}

/** What every thread is started with: the run's config, general prompts, its checked harness and its inputs. */
export interface PartPoolInit {
  cfg: RunConfig;
  general: readonly GeneralPrompt[];
  /** The harness as the main thread loaded and validated it (plain data): threads do not load it again. */
  harness: Harness;
  fingerprint: string;
  buckets: Bucket[];
  files: readonly string[];
  shard: Shard | undefined;
}

/** What the pool uses of the main thread's run: the ids, noted there in input order. */
export interface PartPoolHooks {
  seenIds: IdIndex;
}

/**
 * How the caller hands a run its pool: made once the run knows its harness and inputs (rewrite
 * mode only); undefined when the inputs are too few parts for more than one thread.
 */
export type MakePartPool = (init: PartPoolInit, hooks: PartPoolHooks) => Promise<PartPool | undefined>;
