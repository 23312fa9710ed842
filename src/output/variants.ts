import path from 'node:path';
import type { RunConfig } from '../config/augment-config.js';
import type { EpisodeOptions } from '../episode/options.js';
import type { Harness } from '../harness/types.js';
import { InlineHarnesses } from '../ingest/inline-harness.js';
import { newCounters } from '../llm/errors.js';
import { augmentOne, sampleOne, StatePool, type AugmentedVariant } from '../trajectory/augment.js';
import type { Trajectory } from '../trajectory/types.js';
import type { ResolvedTransform } from '../transform/variant.js';
import type { WordLists } from '../words/types.js';

// The variants of a record and the teacher episode options of a run: what `hsa augment`
// (produce.ts) and `hsa teacher export` (batch.ts) share, so both ask the same requests.

/** What sampling a record's variants needs of the run. */
export interface VariantContext {
  cfg: RunConfig;
  harness: Harness;
  transforms: readonly ResolvedTransform[];
  words: WordLists;
  pool: StatePool | undefined;
}

/**
 * The variants of a source record under the run's config: each one's harness state (from the pool
 * when there is one), plan, and — when the result may be it — the rewritten and checked reference.
 * `hsa augment` and `hsa teacher export` both take variants from here, so they ask the same
 * requests.
 */
export function variantsOf(ctx: VariantContext, source: Trajectory): AugmentedVariant[] {
  return Array.from({ length: ctx.cfg.variants }, (_, k) => variantOf(ctx, source, k));
}

/** The K-th variant of a source record (see `variantsOf`). */
export function variantOf(ctx: VariantContext, source: Trajectory, k: number): AugmentedVariant {
  const { cfg, harness, transforms, words, pool } = ctx;
  // The openai teacher needs no rewritten reference unless a fallback may keep it.
  const needsReference = cfg.teacher.mode !== 'openai' || cfg.teacher.fallback === 'rewrite';
  return (needsReference ? augmentOne : sampleOne)(source, harness, transforms, cfg.seed, k, words, pool);
}

/**
 * The inline harnesses of a run, each with its own state pool seeded by (run seed, harness hash),
 * then by slot as usual; at most 16 harnesses (and their pools) are kept at a time: logs mostly either
 * repeat a few tool sets or give every record its own, and a pool holds up to state_pool states.
 */
export function inlineHarnessesFor(cfg: RunConfig, transforms: readonly ResolvedTransform[], words: WordLists): InlineHarnesses<StatePool | undefined> {
  return new InlineHarnesses((h, hash) => statePoolFor({ ...cfg, seed: `${cfg.seed}:${hash}` }, h, transforms, words));
}

/** The run's shared harness states (`state_pool`), or undefined for a state per record and variant. */
export function statePoolFor(cfg: RunConfig, harness: Harness, transforms: readonly ResolvedTransform[], words: WordLists): StatePool | undefined {
  return cfg.statePool > 0 ? new StatePool(harness, transforms, cfg.seed, words, cfg.statePool) : undefined;
}

/** How the run's teacher episodes go (shared by `hsa augment` and `hsa teacher export`). */
export function episodeOptions(cfg: RunConfig, warn: (line: string) => void): EpisodeOptions {
  return {
    consistency: cfg.teacher.consistency,
    maxRoundsPerTurn: cfg.teacher.maxRounds,
    maxCallRetries: cfg.teacher.recovery.maxCallRetries,
    maxAttempts: cfg.teacher.recovery.maxAttempts,
    ...(cfg.allowCommandHooks ? { commandHooks: { cwd: harnessRoot(cfg.harness), warn } } : {}),
    ...(cfg.teacher.judge ? { accept: acceptanceOf(cfg) } : {}),
  };
}

/** One judge per run (its client holds the cache index and the rate limiter), made on first use. */
const acceptances = new WeakMap<RunConfig, NonNullable<EpisodeOptions['accept']>>();

function acceptanceOf(cfg: RunConfig): NonNullable<EpisodeOptions['accept']> {
  let a = acceptances.get(cfg);
  if (!a) {
    const j = cfg.teacher.judge!;
    // The judge (and the OpenAI client under it) is loaded on first use: rewrite-mode runs never need it.
    let made: Promise<NonNullable<EpisodeOptions['accept']>> | undefined;
    a = async (trajectory, source) => {
      made ??= import('../llm/judge.js').then(({ RubricJudge, teacherAcceptance }) =>
        teacherAcceptance(new RubricJudge(j.settings, cfg.cache, newCounters(), cfg.requireCache, 'teacher.judge.api_key_env'), j.minScore),
      );
      return (await made)(trajectory, source);
    };
    acceptances.set(cfg, a);
  }
  return a;
}

/** The folder command hooks run in: the harness folder, or the folder of a single-file harness. */
function harnessRoot(harness: string): string {
  return harness.endsWith('.yaml') || harness.endsWith('.yml') ? path.dirname(harness) : harness;
}
