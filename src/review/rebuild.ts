import { open } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { INLINE_HARNESS } from '../config/names.js';
import { HsaError } from '../errors.js';
import { deriveInlineHarness, InlineHarnesses, type InlineHarness } from '../ingest/inline-harness.js';
import { loadHarness } from '../harness/load.js';
import { withPinnedSections } from '../harness/render.js';
import type { Harness } from '../harness/types.js';
import type { SystemPromptMode } from '../trajectory/check.js';
import { formatProblem, hasErrors, sortProblems } from '../problems.js';
import { StatePool } from '../trajectory/augment.js';
import { parseTrajectoryLine } from '../trajectory/read.js';
import type { Trajectory } from '../trajectory/types.js';
import { emptyPlan } from '../transform/plan.js';
import { loadRegistry } from '../transform/registry.js';
import { resolveTransforms, sampleVariant, type ResolvedTransform, type Variant } from '../transform/variant.js';
import { builtinWords, mergeWordLists } from '../words/selection.js';
import type { WordLists } from '../words/types.js';
import { expandInputs } from '../util/inputs.js';
import type { Manifest } from './folder.js';
import { readPartLines, newTally } from './part-reader.js';

/**
 * The harness states of a run, rebuilt from the harness and the manifest (seed, transforms with
 * versions and options, words, state pool): what lets `verify` and `show` run the engine's own
 * leak and round-trip checks on a record read from disk. A record's state is the pool slot its
 * meta names, or the state sampled for that record and variant; its hash must equal the record's
 * `meta.harness.state_hash`, which proves the rebuild.
 */
export class StateRebuilder {
  /** Records whose state could not be rebuilt (sampled for the record, and no --sources): judged by their meta instead. */
  unrebuilt = 0;

  /** An inline run's harnesses (each record's own tools and system message), each with its pool as the run seeded it. */
  private inline: InlineHarnesses<StatePool | undefined> | undefined;

  private constructor(
    /** The run's harness (a placeholder for an inline run: see harnessOf). */
    readonly harness: Harness,
    private readonly transforms: ResolvedTransform[],
    private readonly seed: string,
    private readonly words: WordLists,
    private readonly pool: StatePool | undefined,
    /** Differences between this harness and the run's (files and sha256), as warnings. */
    readonly warnings: string[],
    /** How the run took a logged system message (`--system-prompt`): a source is read back the same way. */
    readonly systemPrompt: SystemPromptMode,
  ) {}

  /** Whether the run derived each record's harness from the record (`augment` without --harness). */
  static isInlineRun(manifest: Manifest): boolean {
    return manifest.config?.harness === INLINE_HARNESS;
  }

  /**
   * For an inline run: each record's harness is derived from its source (given with --sources) as
   * augment derived it, with the state pool augment seeded by (run seed, harness hash).
   */
  static async createInline(manifest: Manifest): Promise<StateRebuilder> {
    const { transforms, words, seed, poolSize } = await StateRebuilder.runSettings(manifest);
    const placeholder = deriveInlineHarness({ id: '', messages: [] }, { file: '', line: 0 }).harness!;
    const r = new StateRebuilder(placeholder, transforms, seed, words, undefined, [], 'match');
    r.inline = new InlineHarnesses((h, hash) => (poolSize > 0 ? new StatePool(h, transforms, `${seed}:${hash}`, words, poolSize) : undefined));
    return r;
  }

  /** The run's transforms, words, seed and pool size from its manifest; a transform whose version changed is an error. */
  private static async runSettings(manifest: Manifest): Promise<{ transforms: ResolvedTransform[]; words: WordLists; seed: string; poolSize: number }> {
    const cfg = manifest.config ?? {};
    const plugins = Array.isArray(cfg.plugins) ? (cfg.plugins as string[]) : [];
    const registry = await loadRegistry(plugins);
    const listed = manifest.transforms ?? [];
    const problems: string[] = [];
    for (const t of listed) {
      const def = registry[t.id];
      if (!def) problems.push(`transforms.${t.id}: not in this build of hsa`);
      else if (def.version !== t.version) problems.push(`transforms.${t.id}: the run used version ${t.version}, this build has ${def.version}`);
    }
    if (problems.length) throw new HsaError('HSA_USAGE', `cannot rebuild the run's harness states:\n${problems.join('\n')}`, 2);
    const teacherMode = (cfg.teacher as { mode?: string } | undefined)?.mode ?? 'rewrite';
    const transforms = resolveTransforms(
      registry,
      Object.fromEntries(listed.map((t) => [t.id, t.options ?? {}])),
      teacherMode === 'rewrite' ? 'rewrite' : 'teacher',
    );
    const words = mergeWordLists(builtinWords, cfg.words ?? undefined);
    const seed = String(manifest.seed ?? cfg.seed ?? '0');
    const poolSize = typeof cfg.state_pool === 'number' ? cfg.state_pool : 0;
    return { transforms, words, seed, poolSize };
  }

  /**
   * The harness a record was augmented under: the run's, or (inline run) the one its source's own
   * tools and system message make — the source's tool list becomes that harness's rendered list, as
   * augment made it. Undefined for an inline run without the source, or a source that makes none.
   */
  harnessOf(source: Trajectory | undefined): Harness | undefined {
    if (!this.inline) return this.harness;
    if (!source) return undefined;
    return this.inlineOf(source).inline.harness ?? undefined;
  }

  /**
   * A source's own harness, derived once per source object: deriving it sets the source's `tools` to
   * the harness's rendered list (OpenAI-safe names), so a second derivation would hash other tools
   * and make another harness than the one augment made.
   */
  private inlineOf(source: Trajectory): { inline: InlineHarness; extra: StatePool | undefined } {
    let got = this.derived.get(source);
    if (!got) {
      got = this.inline!.for(source, { file: '', line: 0 });
      this.derived.set(source, got);
    }
    return got;
  }

  private readonly derived = new WeakMap<Trajectory, { inline: InlineHarness; extra: StatePool | undefined }>();

  /** Load the harness and resolve the run's transforms; a transform whose version changed is an error. */
  static async create(manifest: Manifest, harnessPath: string): Promise<StateRebuilder> {
    const cfg = manifest.config ?? {};
    // `--harness inline`, as augment spells a run without a harness folder: the sources' own harnesses.
    if (harnessPath === INLINE_HARNESS) {
      if (StateRebuilder.isInlineRun(manifest)) return StateRebuilder.createInline(manifest);
      throw new HsaError(
        'HSA_USAGE',
        `--harness inline: this run was made with the harness ${JSON.stringify(cfg.harness ?? null)} (manifest.json config.harness), not with each record's own tools; give that harness`,
        2,
      );
    }
    const { transforms, words, seed, poolSize } = await StateRebuilder.runSettings(manifest);
    const loaded = await loadHarness(harnessPath);
    if (!loaded.harness || hasErrors(loaded.problems)) {
      const lines = sortProblems(loaded.problems.filter((p) => p.severity === 'error')).map(formatProblem);
      throw new HsaError('HSA_BAD_HARNESS', `${harnessPath}: the harness has errors:\n${lines.join('\n')}`, 2);
    }
    const warnings: string[] = [];
    const runFiles = ((manifest.inputs?.harness as { files?: { file: string; sha256: string }[] } | undefined)?.files ?? []).map(
      (f) => [f.file, f.sha256] as const,
    );
    const now = new Map(loaded.files.map((f) => [f.file, createHash('sha256').update(f.text).digest('hex')]));
    for (const [file, sha] of runFiles) {
      if (!now.has(file)) warnings.push(`${path.join(harnessPath, file)}: the run's harness had this file; this one does not`);
      else if (now.get(file) !== sha) warnings.push(`${path.join(harnessPath, file)}: differs from the run's harness (sha256)`);
    }
    const systemPrompt: SystemPromptMode = cfg.system_prompt === 'locate' || cfg.system_prompt === 'replace' ? cfg.system_prompt : 'match';
    // As the run made its states (src/output/setup.ts): a located run pins every section in its slot.
    const harness = systemPrompt === 'locate' ? withPinnedSections(loaded.harness) : loaded.harness;
    const pool = poolSize > 0 ? new StatePool(harness, transforms, seed, words, poolSize) : undefined;
    return new StateRebuilder(harness, transforms, seed, words, pool, warnings, systemPrompt);
  }

  /**
   * The state and plan of a record from its provenance: the harness itself for a kept source, the
   * pool slot it names, or (needs the source) the state sampled for it. Undefined when it needs a
   * source that is not given.
   */
  variantFor(meta: { variant?: unknown; harness?: { state_slot?: unknown } }, source: Trajectory | undefined): Variant | undefined {
    let harness = this.harness;
    let pool = this.pool;
    if (this.inline) {
      if (!source) return undefined;
      const own = this.inlineOf(source);
      if (!own.inline.harness) return undefined;
      harness = own.inline.harness;
      pool = own.extra;
    }
    if (meta.variant === 'src') return { state: harness, plan: emptyPlan(), applied: [], stateHash: '' };
    const slot = meta.harness?.state_slot;
    if (typeof slot === 'number' && pool) return pool.get(slot);
    if (!source || typeof meta.variant !== 'number') return undefined;
    return sampleVariant(harness, source, this.transforms, this.seed, meta.variant, this.words);
  }
}

/**
 * Source records by id, from `--sources` files: the index holds per id only the file, line and byte
 * range (never the record); a record is read back when asked for.
 */
export class SourceIndex {
  private readonly at = new Map<string, { file: number; line: number; offset: number; length: number }>();
  private constructor(private readonly files: string[]) {}

  static async create(patterns: readonly string[]): Promise<SourceIndex> {
    const files = await expandInputs(patterns, 'sources');
    const idx = new SourceIndex(files);
    for (let f = 0; f < files.length; f++) {
      for await (const l of readPartLines(files[f]!, newTally())) {
        const id = quickId(l.text);
        if (id !== undefined && !idx.at.has(id)) idx.at.set(id, { file: f, line: l.line, offset: l.offset, length: l.length });
      }
    }
    return idx;
  }

  get size(): number {
    return this.at.size;
  }

  /** The source record with this id (parsed as augment parses it), or undefined. */
  async get(id: string): Promise<{ record: Trajectory; file: string; line: number } | undefined> {
    const a = this.at.get(id);
    if (!a) return undefined;
    const file = this.files[a.file]!;
    const fh = await open(file, 'r');
    try {
      const buf = Buffer.allocUnsafe(a.length);
      await fh.read(buf, 0, a.length, a.offset);
      const parsed = parseTrajectoryLine(
        file,
        a.line,
        buf
          .toString('utf8')
          .replace(/\r$/, '')
          .replace(/^\uFEFF/, ''),
      );
      return parsed.ok ? { record: parsed.record, file, line: a.line } : undefined;
    } finally {
      await fh.close();
    }
  }
}

/** A record's id without parsing all of it when the line starts with it (output records do). */
export function quickId(text: string): string | undefined {
  const m = /^\s*\{"id":"((?:[^"\\]|\\.)*)"/.exec(text);
  if (m) return ownString(m[1]!.includes('\\') ? (JSON.parse(`"${m[1]}"`) as string) : m[1]!);
  try {
    const v = JSON.parse(text) as { id?: unknown };
    return typeof v.id === 'string' ? v.id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A copy of a string that does not share the memory of the text it was cut from. V8 keeps a
 * substring as a slice of its parent, so an id cut from a 45 KB line and kept in an index would
 * keep the whole line alive (an index of ids would hold the dataset).
 */
export function ownString(s: string): string {
  return Buffer.from(s, 'utf8').toString('utf8');
}
