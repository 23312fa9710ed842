import type { RunConfig } from '../config/augment-config.js';
import type { Harness } from '../harness/types.js';
import type { IdIndex } from '../util/id-index.js';
import type { JsonlRange } from '../util/jsonl.js';
import type { InputItem } from './produce.js';
import type { Output } from './shared.js';
import type { GeneralPrompt } from './stages.js';

/**
 * Threads that produce a run's records, as the part executor sees them. The run defines the
 * interface; the caller hands in an implementation (`hsa augment --workers`: scale/workers.ts),
 * so the run itself knows nothing of threads.
 */
export interface PartPool {
  /** Threads producing records, the main thread included (records in flight per part: size × 64). */
  readonly size: number;
  /** The output of one record (a line `range` of `file`), settled in input order with its id noted. */
  produce(file: string, range: JsonlRange, pos: number, partIndex: number): Promise<Output>;
  /** Send the records not sent yet. */
  flush(): void;
  /** Send the open batch if `result` is one of its records (called before waiting on it). */
  flushFor(result: Promise<Output>): void;
  /** An output handed out by `produce` is written: its buffers may be reused. */
  released(out: Output): void;
  /** A record not produced (a resumed part, another shard's) whose id still counts, in order. */
  noteSkipped(note: () => void): void;
  /** Every id noted (after the last record was handed to `produce`). */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/** What every thread is started with: the run's config, general prompts and its checked harness. */
export interface PartPoolInit {
  cfg: RunConfig;
  general: readonly GeneralPrompt[];
  /** The harness as the main thread loaded and validated it (plain data): threads do not load it again. */
  harness: Harness;
}

/** What the pool does on the main thread besides sending records: duplicate ids are found here, in input order. */
export interface PartPoolHooks {
  seenIds: IdIndex;
  /**
   * Produce a record in this thread (without noting its id): the main thread's share of the
   * records, and a duplicate made again as the reject it is (`duplicateOf`: where its id came first).
   */
  produceHere: (item: InputItem, pos: number, partIndex: number, duplicateOf?: string) => Promise<Output>;
}

/** How the caller hands a run its pool: made once the run knows its harness and ids (rewrite mode only). */
export type MakePartPool = (init: PartPoolInit, hooks: PartPoolHooks) => PartPool;
