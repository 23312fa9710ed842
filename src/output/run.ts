import { createReadStream } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { builtinWords } from '../../transforms/index.js';
import type { RunConfig, Stage } from '../config/augment-config.js';
import { HsaError } from '../errors.js';
import { loadHarness } from '../harness/load.js';
import type { Harness } from '../harness/types.js';
import { formatProblem, hasErrors, sortProblems, type Problem } from '../problems.js';
import { augmentOne, StatePool } from '../trajectory/augment.js';
import { checkTrajectory } from '../trajectory/check.js';
import { parseTrajectoryLine } from '../trajectory/read.js';
import { loadRegistry } from '../transform/registry.js';
import { resolveTransforms, type ResolvedTransform } from '../transform/variant.js';
import { mergeWordLists, type WordLists } from '../transform/words.js';
import { canonicalJson, sortKeys } from '../util/canonical-json.js';
import { hashState, hashValue } from '../util/hash.js';
import { expandInputs } from '../util/inputs.js';
import { readJsonlLines } from '../util/jsonl.js';
import { HSA_VERSION } from '../version.js';
import { PartWriter, syncDir, type PartFile } from './part-writer.js';
import { opdRecords, rlRecord, sftRecord, type GeneralPrompt, type Provenance, type StageInput } from './stages.js';

export class BadRecordError extends HsaError {
  constructor(message: string) {
    super('HSA_BAD_RECORD', message, 1);
    this.name = 'BadRecordError';
  }
}

export class OutputError extends HsaError {
  constructor(message: string) {
    super('HSA_OUTPUT', message, 2);
    this.name = 'OutputError';
  }
}

type Bucket = Stage | 'rejects';

/** What the done marker of a part records; the manifest is assembled from these. */
interface PartMarker {
  index: number;
  fingerprint: string;
  first: { file: string; line: number } | null;
  counts: PartCounts;
  /** Rejects by reason category. */
  reasons: Record<string, number>;
  files: Record<Bucket, PartFile>;
}

interface PartCounts {
  input_records: number;
  valid_records: number;
  rejected_records: number;
  variants_expected: number;
  variants_written: number;
  variants_rejected: number;
  kept_sources: number;
}

export interface RunProgress {
  bytesRead: number;
  bytesTotal: number;
  records: number;
  outputs: number;
  partsDone: number;
  partsSkipped: number;
}

export interface RunSummary {
  out: string;
  manifest: string;
  resumed: boolean;
  partsSkipped: number;
  totals: PartCounts;
  stages: Record<string, { parts: number; records: number; bytes: number }>;
  rejectReasons: Record<string, number>;
}

const META_DIR = '.hsa';

/**
 * `hsa augment` in rewrite mode: stream the inputs in their defined order, cut them into parts of
 * `partSize` input records, write each part's stage files atomically with a done marker, then the
 * manifest. Output is a pure function of inputs, config and seed; a rerun resumes at the first part
 * without a valid marker.
 */
export async function runAugment(
  cfg: RunConfig,
  opts: { force?: boolean; onProgress?: (p: RunProgress) => void; warn?: (line: string) => void },
): Promise<RunSummary> {
  const registry = await loadRegistry(cfg.plugins);
  const transforms = resolveTransforms(registry, cfg.transforms, 'rewrite');
  const words = mergeWordLists(builtinWords, cfg.words as Partial<WordLists> | undefined);
  const loaded = await loadHarness(cfg.harness);
  for (const p of sortProblems(loaded.problems)) if (p.severity === 'warning') opts.warn?.(formatProblem(p));
  if (!loaded.harness || hasErrors(loaded.problems)) {
    const lines = sortProblems(loaded.problems.filter((p) => p.severity === 'error')).map(formatProblem);
    throw new HsaError('HSA_BAD_HARNESS', `${cfg.harness}: the harness has errors:\n${lines.join('\n')}`, 1);
  }
  const harness = loaded.harness;
  const files = await expandInputs(cfg.trajectories, 'trajectories');
  const inputs = await Promise.all(files.map(async (file) => ({ file, ...(await hashFile(file)) })));
  const general = cfg.general ? await loadGeneral(cfg.general) : null;

  const outputConfig = outputAffectingConfig(cfg);
  const descriptor = sortKeys({
    hsa_version: HSA_VERSION,
    config: outputConfig,
    seed: cfg.seed,
    inputs: {
      harness: { path: cfg.harness, files: loaded.files.map((f) => ({ file: f.file, sha256: sha(f.text) })) },
      trajectories: inputs.map((i) => ({ file: i.file, sha256: i.sha256, bytes: i.bytes })),
      ...(general ? { general: { file: general.file, sha256: general.sha256, prompts: general.prompts.length } } : {}),
    },
    transforms: transforms.map((t) => ({ id: t.def.id, version: t.def.version, class: t.def.class, options: t.options })),
  }) as Record<string, unknown>;
  const fingerprint = hashValue(descriptor);

  const resumed = await prepareOut(cfg.out, descriptor, fingerprint, opts.force === true);
  const bytesTotal = inputs.reduce((n, i) => n + i.bytes, 0);
  const progress: RunProgress = { bytesRead: 0, bytesTotal, records: 0, outputs: 0, partsDone: 0, partsSkipped: 0 };
  const markers: PartMarker[] = [];
  const seenIds = new Map<string, string>();
  const buckets: Bucket[] = [...cfg.stages, 'rejects'];

  // Records are processed as they stream in: a part is open while its records arrive and is
  // committed when it holds partSize input records (or the input ends).
  const pool = cfg.statePool > 0 ? new StatePool(harness, transforms, cfg.seed, words, cfg.statePool) : undefined;
  const shared: PartContext = { cfg, harness, transforms, words, general: general?.prompts ?? [], fingerprint, seenIds, buckets, progress, pool };
  let index = 0;
  let pos = 0;
  let job: PartJob | { skip: PartMarker } | null = null;
  const finish = async () => {
    if (!job) return;
    if ('skip' in job) {
      markers.push(job.skip);
      progress.partsSkipped++;
    } else {
      markers.push(await job.commit());
      progress.partsDone++;
    }
    opts.onProgress?.(progress);
    job = null;
    index++;
    pos = 0;
  };
  const recordsPerFile: Record<string, number> = {};
  try {
    for (const file of files) {
      recordsPerFile[file] = 0;
      for await (const { line, text } of readJsonlLines(file)) {
        recordsPerFile[file]++;
        progress.bytesRead += text.length + 1;
        if (!job) {
          const existing = await readMarker(cfg.out, index, fingerprint, buckets);
          job = existing ? { skip: existing } : new PartJob(shared, index);
        }
        const item = { file, line, text };
        // A resumed part still registers its ids, so duplicates are found as in a fresh run.
        if ('skip' in job) noteId(item, seenIds);
        else await job.add(item, pos);
        pos++;
        if (pos >= cfg.partSize) await finish();
      }
    }
    await finish();
  } catch (e) {
    if (job && !('skip' in job)) await (job as PartJob).abort();
    throw e;
  }
  progress.bytesRead = bytesTotal;
  opts.onProgress?.(progress);

  const manifest = buildManifest(descriptor, markers, buckets, cfg);
  // The manifest states how many records each input held (the fingerprint only needs the bytes).
  const described = manifest.inputs as { trajectories: { file: string; records?: number }[] };
  manifest.inputs = { ...described, trajectories: described.trajectories.map((t) => ({ ...t, records: recordsPerFile[t.file] ?? 0 })) };
  const manifestPath = path.join(cfg.out, 'manifest.json');
  await writeFile(`${manifestPath}.tmp`, `${JSON.stringify(sortKeys(manifest), null, 2)}\n`);
  await rename(`${manifestPath}.tmp`, manifestPath);
  await syncDir(cfg.out);
  const m = manifest as { totals: PartCounts; stages: RunSummary['stages']; reject_reasons: Record<string, number> };
  return { out: cfg.out, manifest: manifestPath, resumed, partsSkipped: progress.partsSkipped, totals: m.totals, stages: m.stages, rejectReasons: m.reject_reasons };
}

/** The config keys that change output bytes (not concurrency, progress or output chattiness). */
function outputAffectingConfig(cfg: RunConfig): Record<string, unknown> {
  return {
    harness: cfg.harness,
    trajectories: cfg.trajectories,
    general: cfg.general,
    seed: cfg.seed,
    variants: cfg.variants,
    keep_source: cfg.keepSource,
    stages: cfg.stages,
    part_size: cfg.partSize,
    gzip: cfg.gzip,
    on_error: cfg.onError,
    state_pool: cfg.statePool,
    teacher: cfg.teacher,
    arguments: cfg.arguments,
    tools_format: cfg.toolsFormat,
    opd: cfg.opd,
    rl: cfg.rl,
    words: cfg.words ?? null,
    plugins: cfg.plugins,
  };
}

interface PartContext {
  cfg: RunConfig;
  harness: Harness;
  transforms: readonly ResolvedTransform[];
  words: WordLists;
  general: readonly GeneralPrompt[];
  fingerprint: string;
  seenIds: Map<string, string>;
  buckets: Bucket[];
  progress: RunProgress;
  pool: StatePool | undefined;
}

/** One part being written: every stage's writer, its counts and reject reasons. */
class PartJob {
  private readonly writers: Record<Bucket, PartWriter>;
  private readonly counts: PartCounts = { input_records: 0, valid_records: 0, rejected_records: 0, variants_expected: 0, variants_written: 0, variants_rejected: 0, kept_sources: 0 };
  private readonly reasons: Record<string, number> = {};
  private first: { file: string; line: number } | null = null;

  constructor(
    private readonly ctx: PartContext,
    private readonly index: number,
  ) {
    const name = `part-${String(index).padStart(5, '0')}.jsonl${ctx.cfg.gzip ? '.gz' : ''}`;
    this.writers = Object.fromEntries(ctx.buckets.map((b) => [b, new PartWriter(ctx.cfg.out, `${b}/${name}`, ctx.cfg.gzip)])) as Record<Bucket, PartWriter>;
  }

  private reason(r: string): void {
    this.reasons[r] = (this.reasons[r] ?? 0) + 1;
  }

  /** Process one input record (the `pos`-th of this part). */
  async add(item: { file: string; line: number; text: string }, pos: number): Promise<void> {
    const { cfg, harness, transforms, words, general, seenIds, progress, pool } = this.ctx;
    const writers = this.writers;
    const counts = this.counts;
    this.first ??= { file: item.file, line: item.line };
    counts.input_records++;
    progress.records++;
    const ordinalBase = (this.index * cfg.partSize + pos) * (cfg.variants + 1);
    const parsed = parseTrajectoryLine(item.file, item.line, item.text);
    let problems: Problem[] = parsed.ok ? checkTrajectory(parsed.record, harness, { file: item.file, line: item.line }) : parsed.problems;
    if (parsed.ok) {
      const dup = noteId(item, seenIds, parsed.record.id);
      if (dup) problems = [...problems, { file: item.file, line: item.line, id: parsed.record.id, path: 'id', message: `duplicate id (first at ${dup})`, severity: 'error' }];
    }
    const errors = problems.filter((p) => p.severity === 'error');
    if (!parsed.ok || errors.length > 0) {
      if (cfg.onError === 'fail') throw new BadRecordError(errors.map(formatProblem).join('\n'));
      counts.rejected_records++;
      this.reason(errors.some((p) => p.message.startsWith('duplicate id')) ? 'input: duplicate id' : !parsed.ok ? 'input: malformed record' : 'input: record does not match the harness');
      await writers.rejects.writeLine(
        canonicalJson({ kind: 'input', source_file: item.file, source_line: item.line, id: parsed.ok ? parsed.record.id : null, reason: formatProblem(errors[0]!), problems: errors.map(formatProblem), line: item.text }),
      );
      return;
    }
    const source = parsed.record;
    counts.valid_records++;
    const emit = async (x: StageInput) => {
      if (writers.sft) await writers.sft.writeLine(JSON.stringify(sftRecord(x, cfg)));
      if (writers.opd) for (const r of opdRecords(x, cfg, general)) await writers.opd.writeLine(JSON.stringify(r));
      if (writers.rl) await writers.rl.writeLine(JSON.stringify(rlRecord(x, cfg)));
      progress.outputs++;
    };
    const provenance = (variant: number | 'src', applied: Provenance['transforms'], stateHash: string, slot: number | null = null): Provenance => ({
      source_id: source.id,
      source_file: item.file,
      source_line: item.line,
      variant,
      transforms: applied,
      harness: { name: harness.name, version: harness.version, state_hash: stateHash, ...(slot !== null ? { state_slot: slot } : {}) },
      seed: cfg.seed,
    });
    if (cfg.keepSource) {
      counts.kept_sources++;
      await emit({ id: `${source.id}~src`, record: source, state: harness, provenance: provenance('src', [], hashState(harness)), ordinal: ordinalBase + cfg.variants });
    }
    for (let k = 0; k < cfg.variants; k++) {
      counts.variants_expected++;
      const v = augmentOne(source, harness, transforms, cfg.seed, k, words, pool);
      if (v.failures.length > 0) {
        counts.variants_rejected++;
        for (const [check, list] of Object.entries(v.checks)) if (list.length) this.reason(`variant: ${check} check failed`);
        await writers.rejects.writeLine(
          canonicalJson({ kind: 'variant', id: v.id, source_file: item.file, source_line: item.line, reason: `check failed: ${v.failures[0]}`, problems: v.failures, transforms: v.variant.applied }),
        );
        continue;
      }
      counts.variants_written++;
      await emit({ id: v.id, record: v.record, state: v.variant.state, provenance: provenance(k, v.variant.applied, v.variant.stateHash, v.slot), ordinal: ordinalBase + k });
    }
  }

  /** Commit every stage file, then the done marker. */
  async commit(): Promise<PartMarker> {
    const { cfg, buckets, fingerprint } = this.ctx;
    const files = {} as Record<Bucket, PartFile>;
    for (const b of buckets) files[b] = await this.writers[b].commit();
    for (const b of buckets) await syncDir(path.join(cfg.out, b));
    const marker: PartMarker = { index: this.index, fingerprint, first: this.first, counts: this.counts, reasons: this.reasons, files };
    await writeMarker(cfg.out, marker);
    return marker;
  }

  async abort(): Promise<void> {
    for (const b of this.ctx.buckets) await this.writers[b].abort();
  }
}

/** Remember a record id; returns where it was first seen when it is a duplicate. */
function noteId(item: { file: string; line: number; text: string }, seen: Map<string, string>, id?: string): string | undefined {
  let key = id;
  if (key === undefined) {
    try {
      const v = JSON.parse(item.text) as { id?: unknown };
      if (typeof v.id === 'string') key = v.id;
    } catch {
      return undefined;
    }
  }
  if (key === undefined) return undefined;
  const prior = seen.get(key);
  if (prior !== undefined) return prior;
  seen.set(key, `${item.file}:${item.line}`);
  return undefined;
}

/**
 * Make the out folder ready. A folder made by an earlier run with the same fingerprint is resumed;
 * a different fingerprint is refused (naming what changed) unless `force`; leftovers of an
 * interrupted run (temporary files, a stale manifest) are removed.
 */
async function prepareOut(out: string, descriptor: Record<string, unknown>, fingerprint: string, force: boolean): Promise<boolean> {
  const runFile = path.join(out, META_DIR, 'run.json');
  let previous: { fingerprint: string; descriptor: Record<string, unknown> } | undefined;
  try {
    previous = JSON.parse(await readFile(runFile, 'utf8'));
  } catch {
    previous = undefined;
  }
  let entries: string[] = [];
  try {
    entries = await readdir(out);
  } catch {
    entries = [];
  }
  if (force) {
    for (const e of entries) await rm(path.join(out, e), { recursive: true, force: true });
    previous = undefined;
    entries = [];
  } else if (previous && previous.fingerprint !== fingerprint) {
    throw new OutputError(
      `${out} holds a run with different inputs, config or seed (changed: ${changedKeys(previous.descriptor, descriptor).join(', ') || 'hsa version'}); use --force to start over`,
    );
  } else if (!previous && entries.length > 0) {
    throw new OutputError(`${out} is not empty and was not made by hsa augment; choose another --out or use --force`);
  }
  await mkdir(path.join(out, META_DIR, 'done'), { recursive: true });
  await rm(path.join(out, 'manifest.json'), { force: true });
  for (const dir of ['sft', 'opd', 'rl', 'rejects']) {
    await mkdir(path.join(out, dir), { recursive: true });
    for (const f of await readdir(path.join(out, dir))) if (f.endsWith('.tmp')) await rm(path.join(out, dir, f), { force: true });
  }
  if (!previous) {
    await writeFile(`${runFile}.tmp`, `${JSON.stringify({ fingerprint, descriptor }, null, 2)}\n`);
    await rename(`${runFile}.tmp`, runFile);
  }
  return previous !== undefined;
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

async function writeMarker(out: string, marker: PartMarker): Promise<void> {
  const file = markerPath(out, marker.index);
  await writeFile(`${file}.tmp`, `${canonicalJson(marker)}\n`);
  await rename(`${file}.tmp`, file);
  await syncDir(path.dirname(file));
}

/** A part's marker when it is valid: same fingerprint and every file present with its sha256. */
async function readMarker(out: string, index: number, fingerprint: string, buckets: Bucket[]): Promise<PartMarker | undefined> {
  let marker: PartMarker;
  try {
    marker = JSON.parse(await readFile(markerPath(out, index), 'utf8')) as PartMarker;
  } catch {
    return undefined;
  }
  if (marker.fingerprint !== fingerprint) return undefined;
  for (const b of buckets) {
    const f = marker.files[b];
    if (!f) return undefined;
    try {
      const h = await hashFile(path.join(out, f.file));
      if (h.sha256 !== f.sha256) return undefined;
    } catch {
      return undefined;
    }
  }
  return marker;
}

function buildManifest(descriptor: Record<string, unknown>, markers: PartMarker[], buckets: Bucket[], cfg: RunConfig): Record<string, unknown> {
  const totals: PartCounts = { input_records: 0, valid_records: 0, rejected_records: 0, variants_expected: 0, variants_written: 0, variants_rejected: 0, kept_sources: 0 };
  for (const m of markers) for (const k of Object.keys(totals) as (keyof PartCounts)[]) totals[k] += m.counts[k];
  const stages: Record<string, { parts: number; records: number; bytes: number; files: PartFile[] }> = {};
  for (const b of buckets) {
    const files = markers.map((m) => m.files[b]);
    stages[b] = { parts: files.length, records: files.reduce((n, f) => n + f.records, 0), bytes: files.reduce((n, f) => n + f.bytes, 0), files };
  }
  return {
    ...descriptor,
    parts: markers.map((m) => ({ index: m.index, first: m.first, counts: m.counts })),
    stages,
    totals,
    balance: {
      inputs: `${totals.input_records} = ${totals.valid_records} valid + ${totals.rejected_records} rejected`,
      variants: `${totals.variants_expected} = ${totals.variants_written} written + ${totals.variants_rejected} rejected`,
      holds: totals.input_records === totals.valid_records + totals.rejected_records && totals.variants_expected === totals.variants_written + totals.variants_rejected,
    },
    reject_reasons: markers.reduce<Record<string, number>>((acc, m) => {
      for (const [r, n] of Object.entries(m.reasons)) acc[r] = (acc[r] ?? 0) + n;
      return acc;
    }, {}),
    out_format: { gzip: cfg.gzip, arguments: cfg.arguments, tools_format: cfg.toolsFormat },
  };
}

async function hashFile(file: string): Promise<{ sha256: string; bytes: number }> {
  const h = createHash('sha256');
  let bytes = 0;
  try {
    for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
      h.update(chunk);
      bytes += chunk.length;
    }
  } catch (e) {
    throw new HsaError('HSA_UNREADABLE', `${file}: cannot read (${(e as NodeJS.ErrnoException).code ?? 'error'})`, 2);
  }
  await stat(file);
  return { sha256: h.digest('hex'), bytes };
}

function sha(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

async function loadGeneral(file: string): Promise<{ file: string; sha256: string; prompts: GeneralPrompt[] }> {
  const prompts: GeneralPrompt[] = [];
  const problems: string[] = [];
  for await (const { line, text } of readJsonlLines(file)) {
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch (e) {
      problems.push(`${file}:${line}: (json): not valid JSON: ${(e as Error).message}`);
      continue;
    }
    const o = v as Partial<GeneralPrompt>;
    if (typeof o.id !== 'string' || !Array.isArray(o.messages) || o.messages.length === 0) {
      problems.push(`${file}:${line}: ${typeof o.id === 'string' ? `${o.id}: ` : ''}${typeof o.id !== 'string' ? 'id' : 'messages'}: required (a general prompt is {"id","messages":[...],"meta"?})`);
      continue;
    }
    prompts.push({ id: o.id, messages: o.messages, ...(o.meta ? { meta: o.meta } : {}) });
  }
  if (problems.length) throw new BadRecordError(problems.join('\n'));
  const { sha256 } = await hashFile(file);
  return { file, sha256, prompts };
}

