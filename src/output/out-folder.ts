import { createReadStream } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { HsaError } from '../errors.js';
import { canonicalJson } from '../util/canonical-json.js';
import type { TokenHistogram } from '../tokenize/stats.js';
import type { TokenizerInfo } from '../tokenize/tokenizer.js';
import { syncDir, type PartFile } from './part-writer.js';
import type { Bucket, PartCounts, TeacherTotals } from './shared.js';

/**
 * The out-folder protocol, shared by `hsa augment` and `hsa merge`: `.hsa/run.json` (fingerprint
 * and descriptor), a done marker per finished part, `.hsa/inputs.json`, shard notes, and writes
 * that are atomic (a temporary file renamed into place).
 */
export const META_DIR = '.hsa';

export class OutputError extends HsaError {
  constructor(message: string) {
    super('HSA_OUTPUT', message, 2);
    this.name = 'OutputError';
  }
}

/** Which slice of a run this process writes: parts p with p mod count = index. */
export interface Shard {
  index: number;
  count: number;
  /** Where the index came from (a flag, HSA_*, Kubernetes or Slurm), for messages. */
  from: string;
}

/** Whether part `part` belongs to `shard` (every part when the run is whole). */
export function ownsPart(shard: Shard | undefined, part: number): boolean {
  return !shard || part % shard.count === shard.index;
}

/** What the done marker of a part records; the manifest is assembled from these. */
export interface PartMarker {
  index: number;
  fingerprint: string;
  first: { file: string; line: number } | null;
  counts: PartCounts;
  /** Rejects by reason category. */
  reasons: Record<string, number>;
  teacher: TeacherTotals;
  /** Teacher recovery by kind (`call_retry.<kind>`, `rerun.<kind>`). */
  recovery?: Record<string, number>;
  files: Record<Bucket, PartFile>;
  /** With a tokenizer: token histograms of the records written, and the records over the budget. */
  tokens?: PartTokens;
}

export interface PartTokens {
  sft: TokenHistogram;
  opd: TokenHistogram;
  too_long: { sft: number; opd: number };
}

/** `.hsa/run.json`: the fingerprint of the run that owns the folder and what it was made from. */
export interface RunRecord {
  fingerprint: string;
  descriptor: Record<string, unknown>;
}

/** `.hsa/inputs.json`: written once the inputs are read through, what `hsa merge` needs besides the markers. */
export interface InputsRecord {
  fingerprint: string;
  parts: number;
  records: Record<string, number>;
  tokenizer?: TokenizerInfo;
}

/** `.hsa/shards/shard-I-of-N.json`: a finished shard, its fingerprint and the parts it owns. */
export interface ShardRecord {
  fingerprint: string;
  shard: number;
  shards: number;
  parts: number[];
}

/** Write `text` to `file` through a temporary file renamed into place. */
export async function writeAtomic(file: string, text: string): Promise<void> {
  // A unique temporary name: shards of one run write the same files at the same time.
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, file);
}

/** A file's JSON, or undefined when it is missing or not JSON. */
export async function readJson<T>(file: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

export async function hashFile(file: string): Promise<{ sha256: string; bytes: number }> {
  const h = createHash('sha256');
  let bytes = 0;
  try {
    // 1 MB reads: at the default 64 KB, a large input waits on a thread-pool round trip per chunk.
    for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
      h.update(chunk);
      bytes += chunk.length;
    }
  } catch (e) {
    throw new HsaError('HSA_UNREADABLE', `${file}: cannot read (${(e as NodeJS.ErrnoException).code ?? 'error'})`, 2);
  }
  await stat(file);
  return { sha256: h.digest('hex'), bytes };
}

/**
 * Make the out folder ready. A folder made by an earlier run with the same fingerprint is resumed;
 * a different fingerprint is refused (naming what changed) unless `force`; leftovers of an
 * interrupted run (temporary files, a stale manifest) are removed. Returns whether it resumes.
 */
export async function prepareOut(
  out: string,
  descriptor: Record<string, unknown>,
  fingerprint: string,
  force: boolean,
  buckets: readonly Bucket[],
  shard?: Shard,
): Promise<boolean> {
  const runFile = path.join(out, META_DIR, 'run.json');
  let previous = await readJson<RunRecord>(runFile);
  let entries: string[] = [];
  try {
    entries = await readdir(out);
  } catch {
    entries = [];
  }
  // Shards of one run start on the same folder at once: one may find another's folders before its run.json.
  const ours = new Set<string>([META_DIR, 'manifest.json', ...buckets]);
  if (shard && force)
    throw new HsaError('HSA_USAGE', `--force with a sharded run would delete the other shards' parts; empty ${out} before the shards start`, 2);
  // A run that stopped before finishing any part (the first bad record under --on-error fail)
  // leaves nothing to resume: a rerun with other flags starts over without --force.
  const nothingFinished =
    !shard &&
    previous !== undefined &&
    previous.fingerprint !== fingerprint &&
    entries.every((e) => ours.has(e) || STAGE_DIRS.has(e)) &&
    !(await holdsFinishedPart(out, entries));
  if (force || nothingFinished) {
    for (const e of entries) await rm(path.join(out, e), { recursive: true, force: true });
    previous = undefined;
    entries = [];
  } else if (previous && previous.fingerprint !== fingerprint) {
    throw new OutputError(
      `${out} holds a run with different inputs, config or seed (changed: ${changedKeys(previous.descriptor, descriptor).join(', ') || 'hsa version'}); ${shard ? 'a shard never starts over: use another --out' : 'use --force to start over'}`,
    );
  } else if (!previous && entries.length > 0 && !(shard && entries.every((e) => ours.has(e)))) {
    throw new OutputError(`${out} is not empty and was not made by hsa augment; choose another --out or use --force`);
  }
  await mkdir(path.join(out, META_DIR, 'done'), { recursive: true });
  await rm(path.join(out, 'manifest.json'), { force: true });
  // A run killed while writing manifest.json or run.json leaves its temporary file (writeAtomic):
  // removed, so a resumed folder holds the same files as an uninterrupted one. Shards of one run
  // write these at the same time (on other machines too), so a sharded run leaves them.
  if (!shard) {
    for (const [dir, stem] of [
      [out, 'manifest.json.'],
      [path.join(out, META_DIR), 'run.json.'],
    ] as const) {
      for (const f of await readdir(dir).catch(() => [] as string[]))
        if (f.startsWith(stem) && f.endsWith('.tmp')) await rm(path.join(dir, f), { force: true });
    }
  }
  for (const dir of buckets) {
    await mkdir(path.join(out, dir), { recursive: true });
    for (const f of await readdir(path.join(out, dir)))
      if (f.endsWith('.tmp') && ownsPart(shard, partOfFile(f))) await rm(path.join(out, dir, f), { force: true });
  }
  if (!previous) {
    await writeAtomic(runFile, `${JSON.stringify({ fingerprint, descriptor }, null, 2)}\n`);
    // Two shards of different runs that started together: the later rename wins, the other stops here.
    const written = JSON.parse(await readFile(runFile, 'utf8')) as RunRecord;
    if (written.fingerprint !== fingerprint) {
      throw new OutputError(
        `${out} holds a run with different inputs, config or seed (changed: ${changedKeys(written.descriptor, descriptor).join(', ') || 'hsa version'}); use another --out`,
      );
    }
  }
  return previous !== undefined;
}

/** Every stage folder a run may write, whatever stages this run has. */
const STAGE_DIRS: ReadonlySet<string> = new Set(['sft', 'opd', 'rl', 'rejects']);

/** Whether an out folder holds a finished part: a part marker, a manifest, or a stage file under its final name. */
async function holdsFinishedPart(out: string, entries: readonly string[]): Promise<boolean> {
  if (entries.includes('manifest.json')) return true;
  if ((await readdir(path.join(out, META_DIR, 'done')).catch(() => [] as string[])).length > 0) return true;
  for (const e of entries) {
    if (!STAGE_DIRS.has(e)) continue;
    const files = await readdir(path.join(out, e)).catch(() => [] as string[]);
    if (files.some((f) => !f.endsWith('.tmp'))) return true;
  }
  return false;
}

/** A part's stage file under `bucket/` (`part-00012.jsonl.gz`). */
export function partFileName(index: number, gzip: boolean): string {
  return `part-${String(index).padStart(5, '0')}.jsonl${gzip ? '.gz' : ''}`;
}

/** The part index in a stage file name (`part-00012.jsonl.gz.tmp` → 12). */
function partOfFile(name: string): number {
  const m = /^part-(\d+)\./.exec(name);
  return m ? Number(m[1]) : -1;
}

function changedKeys(a: Record<string, unknown>, b: Record<string, unknown>, prefix = ''): string[] {
  const out: string[] = [];
  for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    const x = a[k];
    const y = b[k];
    if (canonicalJson(x) === canonicalJson(y)) continue;
    const key = prefix ? `${prefix}.${k}` : k;
    if (x && y && typeof x === 'object' && typeof y === 'object' && !Array.isArray(x) && !Array.isArray(y) && key.split('.').length < 3) {
      out.push(...changedKeys(x as Record<string, unknown>, y as Record<string, unknown>, key));
    } else out.push(key);
  }
  return out;
}

function markerPath(out: string, index: number): string {
  return path.join(out, META_DIR, 'done', `part-${String(index).padStart(5, '0')}.json`);
}

/** Write a part's done marker (after its stage files are in place). */
export async function writeMarker(out: string, marker: PartMarker): Promise<void> {
  const file = markerPath(out, marker.index);
  await writeFile(`${file}.tmp`, `${canonicalJson(marker)}\n`);
  await rename(`${file}.tmp`, file);
  await syncDir(path.dirname(file));
}

/** A part's marker when it is valid: same fingerprint and every file present with its sha256. */
export async function readMarker(out: string, index: number, fingerprint: string, buckets: Bucket[]): Promise<PartMarker | undefined> {
  const checked = await checkMarker(out, index, fingerprint, buckets);
  return 'marker' in checked ? checked.marker : undefined;
}

/** A part's valid marker, or why it has none: not done, done by a run with another fingerprint, or a file missing or changed. */
export async function checkMarker(
  out: string,
  index: number,
  fingerprint: string,
  buckets: Bucket[],
): Promise<{ marker: PartMarker } | { missing: true } | { foreign: string } | { corrupt: string }> {
  let marker: PartMarker;
  try {
    marker = JSON.parse(await readFile(markerPath(out, index), 'utf8')) as PartMarker;
  } catch {
    return { missing: true };
  }
  if (marker.fingerprint !== fingerprint) return { foreign: String(marker.fingerprint) };
  for (const b of buckets) {
    const f = marker.files?.[b];
    if (!f) return { corrupt: `${b}: not in the done marker` };
    try {
      const h = await hashFile(path.join(out, f.file));
      if (h.sha256 !== f.sha256) return { corrupt: `${f.file}: sha256 differs from the done marker` };
    } catch {
      return { corrupt: `${f.file}: missing` };
    }
  }
  return { marker };
}

/** `.hsa/run.json` of a folder, or undefined when no run has started there. */
export function readRunRecord(out: string): Promise<RunRecord | undefined> {
  return readJson<RunRecord>(path.join(out, META_DIR, 'run.json'));
}

export async function writeInputs(out: string, inputs: InputsRecord): Promise<void> {
  await writeAtomic(path.join(out, META_DIR, 'inputs.json'), `${canonicalJson(inputs)}\n`);
}

export function readInputs(out: string): Promise<InputsRecord | undefined> {
  return readJson<InputsRecord>(path.join(out, META_DIR, 'inputs.json'));
}

/** Where a finished shard says so (its fingerprint and parts); `hsa merge` names the missing ones. */
export function shardFile(out: string, index: number, count: number): string {
  return path.join(out, META_DIR, 'shards', `shard-${index}-of-${count}.json`);
}

export async function writeShardRecord(out: string, rec: ShardRecord): Promise<void> {
  await mkdir(path.join(out, META_DIR, 'shards'), { recursive: true });
  await writeAtomic(shardFile(out, rec.shard, rec.shards), `${canonicalJson(rec)}\n`);
}

/** The shard notes' file names (`shard-I-of-N.json`), sorted. */
export async function shardRecordNames(out: string): Promise<string[]> {
  try {
    return (await readdir(path.join(out, META_DIR, 'shards'))).filter((n) => /^shard-\d+-of-\d+\.json$/.test(n)).sort();
  } catch {
    return [];
  }
}

export function readShardRecord(out: string, name: string): Promise<ShardRecord | undefined> {
  return readJson<ShardRecord>(path.join(out, META_DIR, 'shards', name));
}

/** The shard notes go once the manifest is written: the folder is then what one whole run leaves. */
export async function removeShardRecords(out: string): Promise<void> {
  await rm(path.join(out, META_DIR, 'shards'), { recursive: true, force: true });
}
