import type { Harness } from '../harness/types.js';
import { isIdentityPlan } from '../transform/plan.js';
import { sampleVariant, type ResolvedTransform, type Variant } from '../transform/variant.js';
import type { WordLists } from '../transform/words.js';
import { checkVariant, reportFailures, type CheckReport } from './invariants.js';
import { rewriteTrajectory } from './rewrite.js';
import type { Trajectory } from './types.js';

export interface AugmentedVariant {
  /** `SOURCE_ID~vK`. */
  id: string;
  index: number;
  /** The record under the variant's harness state (its `id` is still the source id). */
  record: Trajectory;
  variant: Variant;
  checks: CheckReport;
  failures: string[];
}

/** The variant id of the K-th variant of a source record. */
export function variantId(sourceId: string, k: number): string {
  return `${sourceId}~v${k}`;
}

/**
 * Sample the K-th harness state for a source record, rewrite the record into it and run every
 * check. When no transform changed anything the source record comes back as it was (same object).
 */
export function augmentOne(
  source: Trajectory,
  harness: Harness,
  transforms: readonly ResolvedTransform[],
  seed: string | number,
  k: number,
  words: WordLists,
): AugmentedVariant {
  const variant = sampleVariant(harness, source, transforms, seed, k, words);
  const unchanged = variant.applied.length === 0 || (variant.state === harness && isIdentityPlan(variant.plan));
  const record = unchanged ? source : rewriteTrajectory(source, variant.plan, harness, variant.state);
  const exactOnly = variant.applied.every((a) => a.class !== 'behavioural');
  const semantic = variant.applied.some((a) => a.class === 'semantic');
  const checks = unchanged
    ? { calls: [], leaks: [], roundTrip: [], rules: [] }
    : checkVariant(source, record, variant.plan, harness, variant.state, { roundTrip: exactOnly, rules: semantic });
  return { id: variantId(source.id, k), index: k, record, variant, checks, failures: reportFailures(checks) };
}
