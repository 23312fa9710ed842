import { readJsonlRanges, type JsonlRange } from '../util/jsonl.js';
import { InterruptedError, PartJob, type PartContext } from './executor.js';
import { ownsPart, readMarker, type PartMarker, type Shard } from './out-folder.js';

/**
 * Parts claimed by threads: `--workers N` runs N in-process shards that share one part counter.
 * Every thread reads all the inputs (as bytes: only the records of its own parts are decoded) and
 * writes each part it claims whole — records, files, done marker — as one shard would, so the
 * bytes are a part's whoever makes it. What threads cannot know alone is whether a record's id
 * came earlier in another thread's part: each part is reported with its records' ids, and the
 * sequencer (part-sequencer.ts) notes them in input order and says whether the part may be
 * committed or must be made again with its duplicates known.
 */

/** A part's record ids in input order: `ids[i]` is at `at[3i]` (position in the part), `at[3i+1]` (input file index), `at[3i+2]` (line). */
export interface PartIds {
  ids: string[];
  at: number[];
}

/** What a thread says about a part it claimed, once it is through the part's records. */
export type PartReport = PartIds & { index: number; thread: number } & (
    | { kind: 'foreign' } // another shard's: only its ids count here
    | { kind: 'resumed'; marker: PartMarker } // done by an earlier run with this fingerprint
    | { kind: 'done' } // written to temporary files, waiting for the sequencer's word
    | { kind: 'failed'; error: unknown } // a record (the last id, when it had one) or a write failed; nothing is left of the part
  );

/**
 * The sequencer's word on a reported part: put it in place, drop it (the run stops), or make it
 * again with the duplicate ids found in it (position in the part, where the id came first).
 */
export type Verdict = 'commit' | 'drop' | { remake: [number, string][] };

/** What a committed part leaves (or why it could not be committed). */
export type PartOutcome = { index: number; marker: PartMarker } | { index: number; error: unknown };

export interface ClaimingThread {
  thread: number;
  /** This thread's producer and progress (`produce` does not note ids: the sequencer does). */
  ctx: PartContext;
  files: readonly string[];
  shard: Shard | undefined;
  /** Take part `index` unless another thread has; every thread asks in part order. */
  claim(index: number): boolean;
  /** The run is stopping (a failure, Ctrl-C): the open part is dropped. */
  stopping(): boolean;
  report(r: PartReport): void;
  outcome(o: PartOutcome): void;
  signal?: AbortSignal | undefined;
}

/** The record's id as duplicate detection notes it: a string `id` of a line that is JSON. */
export function idOf(text: string): string | undefined {
  try {
    const v = JSON.parse(text) as { id?: unknown };
    return typeof v.id === 'string' ? v.id : undefined;
  } catch {
    return undefined;
  }
}

function decode(r: JsonlRange): string {
  return r.buf.toString('utf8', r.start, r.end);
}

class Stopped extends Error {}

/** The part a thread is in: what it writes (a job) or only reads ids of, and the ids so far. */
interface OpenPart extends PartIds {
  index: number;
  job: PartJob | null;
  kind: 'foreign' | 'resumed' | 'done';
  marker?: PartMarker;
}

/**
 * One thread's side: read the inputs through, claim parts as they start, write the claimed ones
 * and report each; a `done` part waits (its files under temporary names) for the sequencer's
 * verdict while the thread goes on with the next part.
 */
export class ClaimedParts {
  private readonly waiting = new Map<number, PartJob>();
  private readonly committing = new Set<Promise<unknown>>();
  private stopped = false;
  private running: Promise<unknown> = Promise.resolve();

  constructor(private readonly t: ClaimingThread) {}

  /** Read every input; resolves with the parts they make and the records per file once every claimed part is reported. */
  run(): Promise<{ parts: number; records: Record<string, number> }> {
    const run = this.scan();
    this.running = run.catch(() => undefined);
    return run;
  }

  private async scan(): Promise<{ parts: number; records: Record<string, number> }> {
    const { t } = this;
    const { cfg, progress } = t.ctx;
    const records: Record<string, number> = {};
    let index = 0;
    let pos = 0;
    let open: OpenPart | null = null;
    const close = () => {
      if (open) this.report(open);
      open = null;
      index++;
      pos = 0;
    };
    try {
      for (const [fi, file] of t.files.entries()) {
        records[file] = 0;
        for await (const r of readJsonlRanges(file)) {
          if (t.signal?.aborted) throw new InterruptedError();
          if (this.stopped || t.stopping()) throw new Stopped();
          records[file]++;
          if (pos === 0 && t.claim(index)) open = await this.open(index);
          if (open) {
            progress.bytesRead += r.end - r.start + 1;
            if (!open.job) this.note(open, idOf(decode(r)), pos, fi, r.line);
            else if (!(await this.add(open, fi, file, r, pos))) open = null; // failed: the rest of the part is only read past
          }
          if (++pos >= cfg.partSize) close();
        }
      }
      if (pos > 0) close();
      return { parts: index, records };
    } catch (e) {
      await open?.job?.abort();
      if (e instanceof Stopped) return { parts: index, records };
      throw e;
    }
  }

  private async open(index: number): Promise<OpenPart> {
    const { cfg, fingerprint, buckets } = this.t.ctx;
    const part = { index, ids: [], at: [] };
    if (!ownsPart(this.t.shard, index)) return { ...part, job: null, kind: 'foreign' };
    const marker = await readMarker(cfg.out, index, fingerprint, buckets);
    if (marker) return { ...part, job: null, kind: 'resumed', marker };
    return { ...part, job: new PartJob(this.t.ctx, index), kind: 'done' };
  }

  private note(part: PartIds, id: string | undefined, pos: number, fi: number, line: number): void {
    if (id === undefined) return;
    part.ids.push(id);
    part.at.push(pos, fi, line);
  }

  /**
   * Write one record of a part; false when it failed: the part is then dropped and reported
   * `failed` (the sequencer decides, in input order, whether that stops the run).
   */
  private async add(part: OpenPart, fi: number, file: string, r: JsonlRange, pos: number, duplicateOf?: string): Promise<boolean> {
    const line = r.line;
    try {
      await part.job!.add(file, r, pos, duplicateOf);
    } catch (error) {
      // The failing record's id counts too: were it a duplicate, one thread would have made it a reject.
      this.note(part, idOf(decode(r)), pos, fi, line);
      await part.job!.abort();
      this.t.report({ index: part.index, thread: this.t.thread, ids: part.ids, at: part.at, kind: 'failed', error });
      return false;
    }
    this.note(part, part.job!.lastId, pos, fi, line);
    return true;
  }

  private report(part: OpenPart): void {
    const { thread } = this.t;
    const base = { index: part.index, thread, ids: part.ids, at: part.at };
    if (part.kind === 'foreign') this.t.report({ ...base, kind: 'foreign' });
    else if (part.kind === 'resumed') this.t.report({ ...base, kind: 'resumed', marker: part.marker! });
    else {
      this.waiting.set(part.index, part.job!);
      this.t.report({ ...base, kind: 'done' });
    }
  }

  /** The sequencer's word on a part this thread reported `done` (or, for `remake`, `failed`). */
  verdict(index: number, v: Verdict): void {
    const job = this.waiting.get(index);
    this.waiting.delete(index);
    if (v === 'commit') {
      if (!job) return;
      this.track(
        job.commit().then(
          (marker) => this.t.outcome({ index, marker }),
          async (error: unknown) => {
            await job.abort();
            this.t.outcome({ index, error });
          },
        ),
      );
    } else if (v === 'drop') {
      if (job) this.track(job.abort());
    } else {
      // The temporary files go before the part is written again under the same names.
      const dups = new Map(v.remake);
      this.track((job ? job.abort() : Promise.resolve()).then(() => this.makeAgain(index, dups)));
    }
  }

  /** Work on parts already reported (a commit, a drop, a part made again), awaited by `stop`. */
  private track(p: Promise<void>): void {
    const tracked = p
      .catch(() => undefined)
      .finally(() => {
        this.committing.delete(tracked);
      });
    this.committing.add(tracked);
  }

  /**
   * Make part `index` again in this thread with its duplicates known (`dups`: position → where the
   * id came first), reading the inputs up to it; reported like a claimed part (rare: a reused id).
   */
  private async makeAgain(index: number, dups: ReadonlyMap<number, string>): Promise<void> {
    const { t } = this;
    // Its records were counted when the part was first made.
    const ctx: PartContext = { ...t.ctx, progress: { ...t.ctx.progress }, onProgress: undefined };
    const part: OpenPart = { index, ids: [], at: [], job: null, kind: 'done' };
    const first = index * ctx.cfg.partSize;
    let seen = 0;
    try {
      for (const [fi, file] of t.files.entries()) {
        for await (const r of readJsonlRanges(file)) {
          const pos = seen++ - first;
          if (pos < 0) continue;
          if (pos >= ctx.cfg.partSize) break;
          if (this.stopped || t.stopping()) throw new Stopped();
          part.job ??= new PartJob(ctx, index);
          if (!(await this.add(part, fi, file, r, pos, dups.get(pos)))) return;
        }
        if (seen - first >= ctx.cfg.partSize) break;
      }
    } catch (e) {
      await part.job?.abort();
      if (!(e instanceof Stopped)) t.report({ index, thread: t.thread, ids: part.ids, at: part.at, kind: 'failed', error: e });
      return;
    }
    if (this.stopped) await part.job?.abort();
    else this.report(part);
  }

  /** Stop: the open part and every part waiting for its verdict leave nothing behind. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
    await Promise.all([...this.committing]);
    const jobs = [...this.waiting.values()];
    this.waiting.clear();
    await Promise.all(jobs.map((j) => j.abort()));
  }
}
