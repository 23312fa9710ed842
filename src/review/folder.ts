import { readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { HsaError, UnreadableInputError } from '../errors.js';

/** The stage folders an output folder can hold, in report order. */
export const BUCKETS = ['sft', 'opd', 'rl', 'rejects'] as const;
export type ReviewBucket = (typeof BUCKETS)[number];

/** A part as the manifest lists it. */
export interface ListedPart {
  file: string;
  records: number;
  bytes: number;
  sha256: string;
}

/** The parts of the manifest the review commands rely on (readers ignore anything else). */
export interface Manifest {
  seed?: string;
  hsa_version?: string;
  config?: Record<string, unknown>;
  inputs?: Record<string, unknown>;
  transforms?: { id: string; version: number; class?: string; options?: Record<string, unknown> }[];
  stages?: Record<string, { parts: number; records: number; bytes: number; files: ListedPart[] }>;
  totals?: Record<string, number>;
  reject_reasons?: Record<string, number>;
  [key: string]: unknown;
}

/** A folder or a part file that cannot be reviewed (no manifest, not JSONL, stages that do not match): exit 2. */
export class ReviewInputError extends HsaError {
  constructor(message: string) {
    super('HSA_UNREADABLE', message, 2);
    this.name = 'ReviewInputError';
  }
}

/** An output folder with its manifest, or one part file on its own. */
export interface ReviewSource {
  /** As the user spelled it. */
  path: string;
  manifest: Manifest | null;
  /** Parts per stage, in manifest order (for a single file: the one part under its stage). */
  parts: Partial<Record<ReviewBucket, string[]>>;
}

/** Read `OUT/manifest.json`; a folder without one (or with one that is not JSON) is an error naming it. */
export async function readManifest(dir: string): Promise<Manifest> {
  const file = path.join(dir, 'manifest.json');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ReviewInputError(
      code === 'ENOENT' ? `${file}: no manifest: ${dir} is not an hsa output folder (or its run did not finish)` : `${file}: cannot read (${code ?? 'error'})`,
    );
  }
  try {
    const m = JSON.parse(text) as unknown;
    if (m === null || typeof m !== 'object' || Array.isArray(m)) throw new Error('not an object');
    return m as Manifest;
  } catch (e) {
    throw new ReviewInputError(`${file}: not a valid manifest (${(e as Error).message})`);
  }
}

/**
 * Open what the user named: an output folder (its manifest lists the parts) or a single part file
 * (its stage from its folder name, else from its first record's shape).
 */
export async function openSource(p: string, stageHint?: ReviewBucket): Promise<ReviewSource> {
  let st;
  try {
    st = await stat(p);
  } catch (e) {
    throw new UnreadableInputError(
      `${p}: cannot read (${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or folder' : ((e as NodeJS.ErrnoException).code ?? 'error')})`,
    );
  }
  if (st.isDirectory()) {
    const manifest = await readManifest(p);
    const parts: ReviewSource['parts'] = {};
    for (const b of BUCKETS) {
      const files = manifest.stages?.[b]?.files;
      if (Array.isArray(files)) parts[b] = files.map((f) => path.join(p, f.file));
    }
    return { path: p, manifest, parts };
  }
  if (!/\.jsonl(\.gz)?$/.test(p)) throw new ReviewInputError(`${p}: not a part file (expected an output folder, or a .jsonl or .jsonl.gz part)`);
  const stage = stageHint ?? (await stageOfFile(p));
  return { path: p, manifest: null, parts: { [stage]: [p] } };
}

/** The stage of a lone part file: the folder it sits in when that is a stage name, else its first record's shape. */
async function stageOfFile(p: string): Promise<ReviewBucket> {
  const dir = path.basename(path.dirname(path.resolve(p)));
  if ((BUCKETS as readonly string[]).includes(dir)) return dir as ReviewBucket;
  const { readPartLines, newTally } = await import('./part-reader.js');
  for await (const l of readPartLines(p, newTally())) {
    if (l.text.trim() === '') continue;
    let v: unknown;
    try {
      v = JSON.parse(l.text);
    } catch {
      throw new ReviewInputError(`${p}:${l.line}: not JSONL (the line is not JSON)`);
    }
    const s = stageOfRecord(v);
    if (!s)
      throw new ReviewInputError(
        `${p}:${l.line}: not an hsa output record (neither SFT/OPD {id,messages,tools,meta}, RL {prompt,reward_model,extra_info} nor a reject)`,
      );
    return s;
  }
  return 'sft';
}

/** The stage a record's shape belongs to (SFT and OPD share one shape: OPD ids end in `#J`). */
export function stageOfRecord(v: unknown): ReviewBucket | undefined {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  if ('prompt' in o && 'extra_info' in o) return 'rl';
  if ('kind' in o && 'reason' in o) return 'rejects';
  if (typeof o.id === 'string' && Array.isArray(o.messages)) return /#\d+(\.\d+)?$/.test(o.id) ? 'opd' : 'sft';
  return undefined;
}

/** The id a record is known by in its stage: `id`, or an RL row's `extra_info.id`. */
export function recordId(stage: ReviewBucket, v: unknown): string | undefined {
  if (v === null || typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  if (stage === 'rl') {
    const x = o.extra_info as Record<string, unknown> | undefined;
    return typeof x?.id === 'string' ? x.id : undefined;
  }
  if (typeof o.id === 'string') return o.id;
  // A rejected input line that had no id: known by where it was.
  if (stage === 'rejects' && typeof o.source_file === 'string') return `${o.source_file}:${String(o.source_line)}`;
  return undefined;
}

/** Files in the stage folders that the manifest does not list (leftovers, foreign files). */
export async function unlistedFiles(dir: string, manifest: Manifest): Promise<string[]> {
  const listed = new Set<string>();
  for (const s of Object.values(manifest.stages ?? {})) for (const f of s.files ?? []) listed.add(path.normalize(f.file));
  const out: string[] = [];
  for (const b of BUCKETS) {
    let entries: string[];
    try {
      entries = await readdir(path.join(dir, b));
    } catch {
      continue;
    }
    for (const e of entries.sort()) if (!listed.has(path.join(b, e))) out.push(path.join(b, e));
  }
  return out;
}
