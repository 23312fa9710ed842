import { createHash } from 'node:crypto';
import { canonicalJson } from '../util/canonical-json.js';
import { cmp } from '../problems.js';
import { BUCKETS, openSource, ReviewInputError, stageOfRecord, type Manifest, type ReviewBucket, type ReviewSource } from './folder.js';
import { diffValues, expandJsonStrings, pathMatcher, withoutIgnored, type FieldChange } from './field-diff.js';
import { newTally, readLinesAt, readPartLines } from './part-reader.js';
import { ownString, quickId } from './rebuild.js';
import type { ReviewProgress } from './verify.js';

export interface DiffOptions {
  a: string;
  b: string;
  /** Changed records shown in full per stage (the rest are counted). Default 10. */
  limit?: number;
  /** Path globs left out of the comparison (`meta.source_file`, `meta.**`, `messages.*.content`). */
  ignore?: string[];
  /** Only these stages. */
  stages?: ReviewBucket[];
  onProgress?: (p: ReviewProgress) => void;
}

/** A manifest-level difference: key path, old → new. */
export interface ManifestChange {
  path: string;
  old: string;
  new: string;
}

export interface RecordChange {
  id: string;
  a: { file: string; line: number };
  b: { file: string; line: number };
  changes: FieldChange[];
}

export interface StageDiff {
  stage: ReviewBucket;
  records_a: number;
  records_b: number;
  only_a: number;
  only_b: number;
  changed: number;
  identical: number;
  /** First ids only in A / only in B / changed (up to `limit`). */
  only_a_ids: string[];
  only_b_ids: string[];
  changed_records: RecordChange[];
  /** Ids that occur more than once on one side (paired in order of appearance). */
  duplicate_ids: number;
}

export interface DiffReport {
  identical: boolean;
  a: string;
  b: string;
  ignore: string[];
  manifest: ManifestChange[];
  stages: StageDiff[];
}

/**
 * A compact index of one side's records of one stage: per record its id, where it is (part,
 * line, byte offset and length) and a 16-byte content hash — never the record itself. Ids are
 * the only strings held; the rest sits in typed arrays.
 */
class RecordIndex {
  ids: string[] = [];
  files: string[] = [];
  private fileOf = new Uint16Array(1024);
  private lines = new Uint32Array(1024);
  private offsets = new Float64Array(1024);
  private lengths = new Uint32Array(1024);
  private hashes = Buffer.alloc(1024 * 16);

  get size(): number {
    return this.ids.length;
  }

  add(id: string, file: number, line: number, offset: number, length: number, hash: Buffer): void {
    const i = this.ids.length;
    if (i === this.lines.length) this.grow();
    this.ids.push(id);
    this.fileOf[i] = file;
    this.lines[i] = line;
    this.offsets[i] = offset;
    this.lengths[i] = length;
    hash.copy(this.hashes, i * 16, 0, 16);
  }

  private grow(): void {
    const n = this.lines.length * 2;
    const g = <T extends Uint16Array | Uint32Array | Float64Array>(a: T, C: new (n: number) => T): T => {
      const b = new C(n);
      b.set(a);
      return b;
    };
    this.fileOf = g(this.fileOf, Uint16Array);
    this.lines = g(this.lines, Uint32Array);
    this.offsets = g(this.offsets, Float64Array);
    this.lengths = g(this.lengths, Uint32Array);
    const h = Buffer.alloc(n * 16);
    this.hashes.copy(h);
    this.hashes = h;
  }

  sameHash(i: number, other: RecordIndex, j: number): boolean {
    return this.hashes.compare(other.hashes, j * 16, j * 16 + 16, i * 16, i * 16 + 16) === 0;
  }

  where(i: number): { file: string; line: number; offset: number; length: number } {
    return { file: this.files[this.fileOf[i]!]!, line: this.lines[i]!, offset: this.offsets[i]!, length: this.lengths[i]! };
  }

  /** Record ordinals sorted by id (stable: duplicates keep their order of appearance). */
  sortedById(): Uint32Array {
    const order = Uint32Array.from({ length: this.ids.length }, (_, i) => i);
    const ids = this.ids;
    return order.sort((x, y) => cmp(ids[x]!, ids[y]!) || x - y);
  }
}

const RL_ID = /"extra_info":\{"index":-?\d+,"id":"((?:[^"\\]|\\.)*)"/;

/** A record's id from its line, parsing the whole line only when the fast paths do not apply. */
function lineId(stage: ReviewBucket, text: string, parsed?: unknown): string | undefined {
  if (parsed === undefined) {
    if (stage === 'sft' || stage === 'opd') {
      const id = /^\{"id":"/.test(text) ? quickId(text) : undefined;
      if (id !== undefined) return id;
    } else if (stage === 'rl') {
      const m = RL_ID.exec(text);
      if (m) return ownString(m[1]!.includes('\\') ? (JSON.parse(`"${m[1]}"`) as string) : m[1]!);
    }
  }
  const v = parsed ?? JSON.parse(text);
  const o = v as Record<string, unknown>;
  if (stage === 'rl') return (o.extra_info as { id?: string } | undefined)?.id;
  if (typeof o.id === 'string') return o.id;
  if (stage === 'rejects') return `${String(o.source_file)}:${String(o.source_line)}`;
  return undefined;
}

async function indexStage(
  files: string[],
  stage: ReviewBucket,
  ignored: ((p: string) => boolean) | null,
  progress: ReviewProgress,
  onProgress?: (p: ReviewProgress) => void,
): Promise<RecordIndex> {
  const idx = new RecordIndex();
  idx.files = files;
  for (let f = 0; f < files.length; f++) {
    const file = files[f]!;
    const tally = newTally();
    for await (const l of readPartLines(file, tally)) {
      if (l.text.trim() === '') continue;
      let parsed: unknown;
      let hashed: string = l.text;
      try {
        if (ignored) {
          parsed = JSON.parse(l.text);
          hashed = canonicalJson(withoutIgnored(expandJsonStrings(stage, parsed), ignored));
        }
        const id = lineId(stage, l.text, parsed);
        if (id === undefined) throw new Error('no id');
        idx.add(id, f, l.line, l.offset, l.length, createHash('sha256').update(hashed).digest());
      } catch (e) {
        throw new ReviewInputError(
          `${file}:${l.line}: not an hsa ${stage} record (${e instanceof SyntaxError ? `not JSON: ${e.message}` : 'no id'}); is this a JSONL part?`,
        );
      }
      progress.records++;
      if (progress.records % 512 === 0) onProgress?.({ ...progress, bytesRead: progress.bytesRead + l.offset });
    }
    if (tally.error) throw new ReviewInputError(`${file}: cannot be read to its end (${tally.error})`);
    progress.bytesRead += tally.bytes;
    onProgress?.(progress);
  }
  return idx;
}

/**
 * `hsa diff A B`: two output folders (or two part files) compared — first their manifests (seed,
 * config, inputs and their sha256, transforms, counts), then per stage the records joined by id:
 * only in A, only in B, changed, identical, with field-level differences for the first `limit`
 * changed records. Memory holds per record its id and a compact index entry (part, offset,
 * length, hash); records are read back from disk only for the ones shown.
 */
export async function runDiff(opts: DiffOptions): Promise<DiffReport> {
  const limit = opts.limit ?? 10;
  const ignore = opts.ignore ?? [];
  const ignored = pathMatcher(ignore);
  const A = await openSource(opts.a);
  const B = await openSource(opts.b);
  const singleA = A.manifest === null;
  const singleB = B.manifest === null;
  let stages = BUCKETS.filter((s) => A.parts[s] || B.parts[s]);
  if (singleA || singleB) {
    const sa = Object.keys(A.parts) as ReviewBucket[];
    const sb = Object.keys(B.parts) as ReviewBucket[];
    const common = stages.filter((s) => sa.includes(s) && sb.includes(s));
    if (common.length === 0)
      throw new ReviewInputError(
        `${opts.a} holds ${sa.join(', ') || 'no'} records, ${opts.b} holds ${sb.join(', ') || 'no'} records: two different stages cannot be compared`,
      );
    stages = common;
  } else {
    // Both always have rejects; what matters is whether they share a training stage.
    const common = stages.filter((s) => A.parts[s] && B.parts[s] && s !== 'rejects');
    if (common.length === 0)
      throw new ReviewInputError(
        `${opts.a} (stages ${Object.keys(A.parts).join(', ')}) and ${opts.b} (stages ${Object.keys(B.parts).join(', ')}) share no stage: nothing to compare`,
      );
  }
  if (opts.stages?.length) stages = stages.filter((s) => opts.stages!.includes(s));
  await checkSameShape(A, B, stages);

  const manifest = A.manifest && B.manifest ? manifestChanges(A.manifest, B.manifest).filter((c) => !ignored(c.path)) : [];
  const bytesOf = (s: ReviewSource) => stages.reduce((n, st) => n + (s.manifest?.stages?.[st]?.bytes ?? 0), 0);
  const progress: ReviewProgress = { bytesRead: 0, bytesTotal: bytesOf(A) + bytesOf(B), records: 0 };
  const out: StageDiff[] = [];
  for (const stage of stages) {
    const ia = await indexStage(A.parts[stage] ?? [], stage, ignore.length ? ignored : null, progress, opts.onProgress);
    const ib = await indexStage(B.parts[stage] ?? [], stage, ignore.length ? ignored : null, progress, opts.onProgress);
    out.push(await joinStage(stage, ia, ib, limit, ignored));
  }
  const identical = manifest.length === 0 && out.every((s) => s.only_a === 0 && s.only_b === 0 && s.changed === 0);
  return { identical, a: opts.a, b: opts.b, ignore, manifest, stages: out };
}

/** Two single part files of different stage shapes cannot be compared (an SFT part against an RL part). */
async function checkSameShape(A: ReviewSource, B: ReviewSource, stages: ReviewBucket[]): Promise<void> {
  if (A.manifest && B.manifest) return;
  for (const s of stages) {
    const shapes = await Promise.all(
      [A, B].map(async (src) => {
        for await (const l of readPartLines(src.parts[s]![0]!, newTally())) {
          try {
            return stageOfRecord(JSON.parse(l.text));
          } catch {
            throw new ReviewInputError(`${src.parts[s]![0]}:${l.line}: not JSONL (the line is not JSON)`);
          }
        }
        return undefined;
      }),
    );
    const [x, y] = shapes;
    const kind = (k: ReviewBucket | undefined) => (k === 'opd' ? 'sft' : k);
    if (x && y && kind(x) !== kind(y))
      throw new ReviewInputError(`${A.path} holds ${x} records and ${B.path} holds ${y} records: two different stages cannot be compared`);
  }
}

async function joinStage(stage: ReviewBucket, a: RecordIndex, b: RecordIndex, limit: number, ignored: (p: string) => boolean): Promise<StageDiff> {
  const sa = a.sortedById();
  const sb = b.sortedById();
  const onlyA: number[] = [];
  const onlyB: number[] = [];
  const changed: [number, number][] = [];
  let identical = 0;
  let dups = 0;
  let i = 0;
  let j = 0;
  while (i < sa.length || j < sb.length) {
    const x = i < sa.length ? sa[i]! : -1;
    const y = j < sb.length ? sb[j]! : -1;
    const c = x < 0 ? 1 : y < 0 ? -1 : cmp(a.ids[x]!, b.ids[y]!);
    if (c < 0) {
      onlyA.push(x);
      i++;
    } else if (c > 0) {
      onlyB.push(y);
      j++;
    } else {
      if (i > 0 && a.ids[sa[i - 1]!] === a.ids[x]) dups++;
      if (a.sameHash(x, b, y)) identical++;
      else changed.push([x, y]);
      i++;
      j++;
    }
  }
  // Reports follow A's order (B's for records only in B), which is the input order.
  onlyA.sort((p, q) => p - q);
  onlyB.sort((p, q) => p - q);
  changed.sort((p, q) => p[0] - q[0]);
  const shown = changed.slice(0, limit);
  const texts = async (idx: RecordIndex, ords: number[]) => {
    const byFile = new Map<string, { line: number; offset: number; length: number }[]>();
    for (const o of ords) {
      const w = idx.where(o);
      if (!byFile.has(w.file)) byFile.set(w.file, []);
      byFile.get(w.file)!.push(w);
    }
    const got = new Map<string, string>();
    for (const [file, wanted] of byFile) for (const [line, text] of await readLinesAt(file, wanted)) got.set(`${file}:${line}`, text);
    return (o: number) => {
      const w = idx.where(o);
      return got.get(`${w.file}:${w.line}`)!;
    };
  };
  const ta = await texts(
    a,
    shown.map((p) => p[0]),
  );
  const tb = await texts(
    b,
    shown.map((p) => p[1]),
  );
  const changedRecords: RecordChange[] = shown.map(([x, y]) => {
    const wa = a.where(x);
    const wb = b.where(y);
    const ra = expandJsonStrings(stage, parseAt(ta(x), wa));
    const rb = expandJsonStrings(stage, parseAt(tb(y), wb));
    return { id: a.ids[x]!, a: { file: wa.file, line: wa.line }, b: { file: wb.file, line: wb.line }, changes: diffValues(ra, rb, ignored) };
  });
  return {
    stage,
    records_a: a.size,
    records_b: b.size,
    only_a: onlyA.length,
    only_b: onlyB.length,
    changed: changed.length,
    identical,
    only_a_ids: onlyA.slice(0, limit).map((o) => a.ids[o]!),
    only_b_ids: onlyB.slice(0, limit).map((o) => b.ids[o]!),
    changed_records: changedRecords,
    duplicate_ids: dups,
  };
}

/**
 * What differs between two manifests: seed, hsa version, every config key, the inputs (files,
 * records, sha256), transforms (added, removed, version, class, options), totals, stage counts and
 * reject reasons. Part hashes are left to the record comparison.
 */
export function manifestChanges(a: Manifest, b: Manifest): ManifestChange[] {
  const out: ManifestChange[] = [];
  const fmt = (v: unknown) => (v === undefined ? '(none)' : typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v));
  const cmpAt = (path: string, x: unknown, y: unknown) => {
    if (canonicalJson(x ?? null) !== canonicalJson(y ?? null)) out.push({ path, old: fmt(x), new: fmt(y) });
  };
  cmpAt('seed', a.seed, b.seed);
  cmpAt('hsa_version', a.hsa_version, b.hsa_version);
  for (const c of diffValues(a.config ?? {}, b.config ?? {})) out.push({ path: `config.${c.path}`, old: c.old ?? '(none)', new: c.new ?? '(none)' });
  const trajA = byKey((a.inputs?.trajectories as { file: string }[] | undefined) ?? [], 'file');
  const trajB = byKey((b.inputs?.trajectories as { file: string }[] | undefined) ?? [], 'file');
  for (const f of union(trajA, trajB)) cmpAt(`inputs.trajectories[${f}]`, trajA.get(f), trajB.get(f));
  const hA = (a.inputs?.harness as { path?: string; files?: { file: string }[] } | undefined) ?? {};
  const hB = (b.inputs?.harness as { path?: string; files?: { file: string }[] } | undefined) ?? {};
  cmpAt('inputs.harness.path', hA.path, hB.path);
  const filesA = byKey(hA.files ?? [], 'file');
  const filesB = byKey(hB.files ?? [], 'file');
  for (const f of union(filesA, filesB))
    cmpAt(`inputs.harness.files[${f}]`, (filesA.get(f) as { sha256?: string } | undefined)?.sha256, (filesB.get(f) as { sha256?: string } | undefined)?.sha256);
  cmpAt('inputs.general', a.inputs?.general, b.inputs?.general);
  const tA = byKey(a.transforms ?? [], 'id');
  const tB = byKey(b.transforms ?? [], 'id');
  for (const id of union(tA, tB)) {
    const x = tA.get(id);
    const y = tB.get(id);
    if (!x || !y) cmpAt(`transforms[${id}]`, x ? `version ${x.version}` : undefined, y ? `version ${y.version}` : undefined);
    else {
      cmpAt(`transforms[${id}].version`, x.version, y.version);
      cmpAt(`transforms[${id}].class`, x.class, y.class);
      for (const c of diffValues(x.options ?? {}, y.options ?? {}))
        out.push({ path: `transforms[${id}].options.${c.path}`, old: c.old ?? '(none)', new: c.new ?? '(none)' });
    }
  }
  for (const k of [...new Set([...Object.keys(a.totals ?? {}), ...Object.keys(b.totals ?? {})])].sort()) cmpAt(`totals.${k}`, a.totals?.[k], b.totals?.[k]);
  for (const s of [...new Set([...Object.keys(a.stages ?? {}), ...Object.keys(b.stages ?? {})])].sort()) {
    for (const k of ['parts', 'records', 'bytes'] as const) cmpAt(`stages.${s}.${k}`, a.stages?.[s]?.[k], b.stages?.[s]?.[k]);
  }
  for (const r of [...new Set([...Object.keys(a.reject_reasons ?? {}), ...Object.keys(b.reject_reasons ?? {})])].sort())
    cmpAt(`reject_reasons[${r}]`, a.reject_reasons?.[r], b.reject_reasons?.[r]);
  return out;
}

function parseAt(text: string, at: { file: string; line: number }): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ReviewInputError(`${at.file}:${at.line}: not valid JSON (${(e as Error).message}); run hsa verify on it`);
  }
}

function byKey<T>(list: readonly T[], key: string): Map<string, T> {
  return new Map(list.map((x) => [String((x as Record<string, unknown>)[key]), x]));
}

function union(a: Map<string, unknown>, b: Map<string, unknown>): string[] {
  return [...new Set([...a.keys(), ...b.keys()])].sort(cmp);
}
