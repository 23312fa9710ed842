import path from 'node:path';
import type { RunConfig } from '../config/augment-config.js';
import { sortKeys } from '../util/canonical-json.js';
import { summarise, TokenTally } from '../tokenize/stats.js';
import type { TokenizerInfo } from '../tokenize/tokenizer.js';
import { writeAtomic, type PartMarker } from './out-folder.js';
import { outputSize, syncDir, type PartFile } from './part-writer.js';
import { emptyCounts, emptyTeacherTotals, type Bucket, type PartCounts, type TeacherTotals } from './shared.js';

/** The config a manifest restates besides the descriptor (all of it in the descriptor too, for `hsa merge`). */
export type ManifestConfig = Pick<RunConfig, 'gzip' | 'arguments' | 'toolsFormat' | 'stages' | 'maxTokens'> & {
  teacher: Pick<RunConfig['teacher'], 'mode'>;
  tokenizer: TokenizerInfo | null;
};

/** What the manifest restates of a run's config. */
export function manifestConfig(cfg: RunConfig, tokenizer: TokenizerInfo | null): ManifestConfig {
  return {
    gzip: cfg.gzip,
    arguments: cfg.arguments,
    toolsFormat: cfg.toolsFormat,
    stages: cfg.stages,
    maxTokens: cfg.maxTokens,
    teacher: { mode: cfg.teacher.mode },
    tokenizer,
  };
}

/** What the manifest restates, read back from a run's descriptor (`hsa merge` has no config, only the folder). */
export function describedManifestConfig(descriptor: Record<string, unknown>, tokenizer: TokenizerInfo | null): ManifestConfig {
  const config = descriptor.config as {
    stages: RunConfig['stages'];
    tokens?: { max_tokens: number | null };
    gzip: boolean;
    arguments: RunConfig['arguments'];
    tools_format: RunConfig['toolsFormat'];
    teacher: { mode: RunConfig['teacher']['mode'] };
  };
  return {
    gzip: config.gzip,
    arguments: config.arguments,
    toolsFormat: config.tools_format,
    teacher: { mode: config.teacher.mode },
    stages: config.stages,
    maxTokens: config.tokens?.max_tokens ?? null,
    tokenizer,
  };
}

/**
 * The manifest of a finished run from its descriptor and part markers (in part order) alone, so
 * `hsa merge` rebuilds the bytes a whole run writes. `records`: input records per trajectory file.
 */
export function buildManifest(
  descriptor: Record<string, unknown>,
  markers: PartMarker[],
  buckets: Bucket[],
  cfg: ManifestConfig,
  records: Record<string, number>,
): Record<string, unknown> {
  const totals = emptyCounts();
  for (const m of markers) for (const k of Object.keys(totals) as (keyof PartCounts)[]) totals[k] += m.counts[k] ?? 0;
  const teacher: TeacherTotals = emptyTeacherTotals();
  for (const m of markers) for (const k of Object.keys(teacher) as (keyof TeacherTotals)[]) teacher[k] += m.teacher?.[k] ?? 0;
  const recovery: Record<string, number> = {};
  for (const m of markers) for (const [k, n] of Object.entries(m.recovery ?? {})) recovery[k] = (recovery[k] ?? 0) + n;
  const stages: Record<string, { parts: number; records: number; bytes: number; files: PartFile[] }> = {};
  for (const b of buckets) {
    const files = markers.map((m) => m.files[b]);
    stages[b] = { parts: files.length, records: files.reduce((n, f) => n + f.records, 0), bytes: files.reduce((n, f) => n + f.bytes, 0), files };
  }
  const tokens = cfg.tokenizer ? tokenSection(markers, stages, totals, cfg, cfg.tokenizer) : null;
  // The manifest states how many records each input held (the fingerprint only needs the bytes).
  const described = descriptor.inputs as { trajectories: { file: string; bytes?: number; records?: number }[] };
  return {
    ...descriptor,
    inputs: { ...described, trajectories: described.trajectories.map((t) => ({ ...t, records: records[t.file] ?? 0 })) },
    parts: markers.map((m) => ({ index: m.index, first: m.first, counts: m.counts })),
    stages,
    summary: outputSize(described.trajectories, stages),
    totals,
    balance: {
      inputs: `${totals.input_records} = ${totals.valid_records} valid + ${totals.rejected_records} rejected`,
      variants: `${totals.variants_expected} = ${totals.variants_written} written + ${totals.variants_rejected} rejected`,
      ...(tokens ? { tokens: tokens.balance } : {}),
      holds:
        totals.input_records === totals.valid_records + totals.rejected_records &&
        totals.variants_expected === totals.variants_written + totals.variants_rejected &&
        (tokens?.holds ?? true),
    },
    ...(tokens ? { tokens: tokens.section } : {}),
    reject_reasons: markers.reduce<Record<string, number>>((acc, m) => {
      for (const [r, n] of Object.entries(m.reasons)) acc[r] = (acc[r] ?? 0) + n;
      return acc;
    }, {}),
    out_format: { gzip: cfg.gzip, arguments: cfg.arguments, tools_format: cfg.toolsFormat },
    teacher: { mode: cfg.teacher.mode, ...teacher, recovery: sortKeys(recovery) },
  };
}

/**
 * The manifest's token statistics (per stage: records counted, min / p50 / p95 / max, records over
 * the budget) and the budget's balance: every SFT record made (one per written variant or kept
 * source) is either in sft/ or in rejects as too_long.
 */
function tokenSection(markers: PartMarker[], stages: Record<string, { records: number }>, totals: PartCounts, cfg: ManifestConfig, tokenizer: TokenizerInfo) {
  const per: Record<string, unknown> = {};
  const balance: Record<string, string> = {};
  let holds = true;
  for (const stage of ['sft', 'opd'] as const) {
    if (!cfg.stages.includes(stage)) continue;
    const tally = new TokenTally();
    let tooLong = 0;
    for (const m of markers) {
      if (!m.tokens) continue;
      tally.merge(m.tokens[stage]);
      tooLong += m.tokens.too_long[stage];
    }
    const written = stages[stage]?.records ?? 0;
    per[stage] = { ...(summarise(tally.histogram()) ?? { records: 0 }), too_long: tooLong, add_generation_prompt: stage === 'opd' };
    const budget = cfg.maxTokens !== null ? ` over ${cfg.maxTokens.toLocaleString('en-US')} tokens` : ' over the budget';
    if (stage === 'sft') {
      const made = totals.variants_written + totals.kept_sources;
      balance.sft = `${made} = ${written} written + ${tooLong}${budget}`;
      holds &&= made === written + tooLong;
    } else {
      balance.opd = `${written + tooLong} = ${written} written + ${tooLong}${budget}`;
    }
  }
  return { section: { tokenizer, max_tokens: cfg.maxTokens, stages: per }, balance, holds };
}

/** Write `manifest.json` last (atomically); returns its path. */
export async function writeManifest(out: string, manifest: Record<string, unknown>): Promise<string> {
  const manifestPath = path.join(out, 'manifest.json');
  await writeAtomic(manifestPath, `${JSON.stringify(sortKeys(manifest), null, 2)}\n`);
  await syncDir(out);
  return manifestPath;
}
