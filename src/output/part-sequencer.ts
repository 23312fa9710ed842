import type { IdIndex } from '../util/id-index.js';
import { ClaimedParts, type PartOutcome, type PartReport, type Verdict } from './claimed-parts.js';
import { InterruptedError, type PartContext, type PartsResult, type RunProgress } from './executor.js';
import { ownsPart, type PartMarker, type Shard } from './out-folder.js';

export interface SequencerOptions {
  /** The run's ids, noted here in input order (every part's, resumed and other shards' included). */
  seenIds: IdIndex;
  files: readonly string[];
  progress: RunProgress;
  onProgress: ((p: RunProgress) => void) | undefined;
  /** Hand a verdict to the thread that reported the part. */
  verdict(thread: number, index: number, v: Verdict): void;
}

const END = Symbol('end');

/**
 * The main thread's side of claimed parts: takes the threads' part reports in any order and
 * settles them in part order, as one thread would have met them. A part's ids are noted then; a
 * part none of whose records reuses an id seen before is committed (one commit at a time, so a
 * failure leaves exactly the parts one thread leaves: every earlier one, no later one); a part with
 * a duplicate is made again by its thread with the duplicates known, and reported again (only
 * ids past what was noted count then). The first failure in part order stops the run.
 */
export class PartSequencer {
  private readonly reports = new Map<number, PartReport[]>();
  private readonly outcomes = new Map<number, PartOutcome>();
  private total: number | undefined;
  private failure: { error: unknown } | undefined;
  private wake: (() => void) | null = null;

  constructor(private readonly o: SequencerOptions) {}

  receive(r: PartReport): void {
    const list = this.reports.get(r.index);
    if (list) list.push(r);
    else this.reports.set(r.index, [r]);
    this.poke();
  }

  outcome(o: PartOutcome): void {
    this.outcomes.set(o.index, o);
    this.poke();
  }

  /** The inputs make `parts` parts (known once a thread has read them through). */
  end(parts: number): void {
    this.total ??= parts;
    this.poke();
  }

  /** Stop at once with `error` (Ctrl-C, a thread that died, an unreadable input). */
  fail(error: unknown): void {
    this.failure ??= { error };
    this.poke();
  }

  private poke(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  private async next<T>(take: () => T | undefined): Promise<T> {
    for (;;) {
      if (this.failure) throw this.failure.error;
      const v = take();
      if (v !== undefined) return v;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** Every part's marker in part order (none of other shards' parts); throws the run's first failure. */
  async run(): Promise<PartMarker[]> {
    const { progress, onProgress } = this.o;
    const markers: PartMarker[] = [];
    for (let p = 0; ; p++) {
      let r: PartReport | typeof END = await this.next(() => this.reports.get(p)?.shift() ?? (this.total !== undefined && p >= this.total ? END : undefined));
      if (r === END) return markers;
      this.reports.delete(p);
      let noted = -1;
      const dups = new Map<number, string>();
      for (;;) {
        const { last, fresh } = this.note(r, noted, dups);
        noted = last;
        if (r.kind === 'foreign') break;
        if (r.kind === 'resumed') {
          markers.push(r.marker);
          progress.partsSkipped++;
          onProgress?.(progress);
          break;
        }
        if (fresh) {
          this.o.verdict(r.thread, p, { remake: [...dups] });
          r = await this.next(() => this.reports.get(p)?.shift());
          continue;
        }
        if (r.kind === 'failed') throw r.error;
        this.o.verdict(r.thread, p, 'commit');
        const o = await this.next(() => this.outcomes.get(p));
        this.outcomes.delete(p);
        if ('error' in o) throw o.error;
        markers.push(o.marker);
        progress.partsDone++;
        onProgress?.(progress);
        break;
      }
    }
  }

  /**
   * Note the ids of `r` past position `from` (those up to it were noted from an earlier report of
   * the part); in a part this run writes, a duplicate is kept in `dups`. Returns the last position
   * noted and whether a duplicate was new.
   */
  private note(r: PartReport, from: number, dups: Map<number, string>): { last: number; fresh: boolean } {
    const writes = r.kind === 'done' || r.kind === 'failed';
    let last = from;
    let fresh = false;
    for (let i = 0; i < r.ids.length; i++) {
      const pos = r.at[3 * i]!;
      if (pos <= from) continue;
      const dup = this.o.seenIds.note(r.ids[i]!, this.o.files[r.at[3 * i + 1]!]!, r.at[3 * i + 2]!);
      if (dup !== undefined && writes) {
        dups.set(pos, dup);
        fresh = true;
      }
      last = pos;
    }
    return { last, fresh };
  }
}

/** What a thread other than the main one sends the main thread (a worker's messages, revived). */
export interface PeerEvents {
  report(r: PartReport): void;
  outcome(o: PartOutcome): void;
  /** Records, outputs and input bytes done since the last call. */
  progress(records: number, outputs: number, bytes: number): void;
  /** The thread failed outside any part (it died, or could not start). */
  fail(error: unknown): void;
}

/** Another thread as the main thread drives it. */
export interface PeerThread {
  verdict(index: number, v: Verdict): void;
  /** Resolves once it has dropped its open part and the parts waiting for a verdict. */
  stop(): Promise<void>;
}

export interface ClaimedRun {
  /** The main thread's producer and progress (its `produce` does not note ids). */
  ctx: PartContext;
  files: readonly string[];
  shard: Shard | undefined;
  seenIds: IdIndex;
  signal: AbortSignal | undefined;
  /** The main thread's claim on a part (the peers claim in their own threads). */
  claim(index: number): boolean;
  /** Tell every thread to stop (read by `stopping`). */
  stopAll(): void;
  stopping(): boolean;
  /** The other threads, started on the run with the main thread's event sinks. */
  peers(events: (thread: number) => PeerEvents): PeerThread[];
}

/**
 * Write the parts this process owns on the main thread and its peers, as `runParts` does alone:
 * the main thread claims and writes parts like any thread and settles every thread's reports in
 * part order (see PartSequencer). On a failure every thread drops its open and waiting parts.
 */
export async function runClaimedParts(run: ClaimedRun): Promise<PartsResult> {
  const { ctx, files, shard, signal } = run;
  const { progress, onProgress } = ctx;
  const seq = new PartSequencer({
    seenIds: run.seenIds,
    files,
    progress,
    onProgress,
    verdict: (thread, index, verdict) => (thread === 0 ? main.verdict(index, verdict) : peers[thread - 1]!.verdict(index, verdict)),
  });
  const main = new ClaimedParts({
    thread: 0,
    ctx,
    files,
    shard,
    claim: (index) => run.claim(index),
    stopping: () => run.stopping(),
    report: (r) => seq.receive(r),
    outcome: (o) => seq.outcome(o),
    signal,
  });
  const peers = run.peers(() => ({
    report: (r) => seq.receive(r),
    outcome: (o) => seq.outcome(o),
    progress: (records, outputs, bytes) => {
      progress.records += records;
      progress.outputs += outputs;
      progress.bytesRead += bytes;
      onProgress?.(progress);
    },
    fail: (e) => seq.fail(e),
  }));
  const interrupt = () => seq.fail(new InterruptedError());
  signal?.addEventListener('abort', interrupt, { once: true });
  const scanned = main.run().then(
    (r) => {
      seq.end(r.parts);
      return r;
    },
    (e: unknown) => {
      seq.fail(e);
      throw e;
    },
  );
  scanned.catch(() => undefined);
  try {
    const markers = await seq.run();
    const { parts, records } = await scanned;
    progress.bytesRead = progress.bytesTotal;
    onProgress?.(progress);
    const owned = Array.from({ length: parts }, (_, i) => i).filter((i) => ownsPart(shard, i));
    return { markers, parts, owned, records };
  } catch (e) {
    // What is left is what one thread leaves: every part before the failing one, none after.
    run.stopAll();
    await Promise.all([main.stop(), ...peers.map((p) => p.stop())]);
    if (signal?.aborted) throw new InterruptedError();
    throw e;
  } finally {
    signal?.removeEventListener('abort', interrupt);
  }
}
