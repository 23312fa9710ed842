import type { Harness } from '../harness/types.js';
import { isIdentityPlan } from '../transform/plan.js';
import { sampleVariant, type ResolvedTransform, type Variant } from '../transform/variant.js';
import type { WordLists } from '../words/types.js';
import { createRng } from '../transform/rng.js';
import { promptLayout } from '../harness/render.js';
import { checkVariant, leakFinder, reportFailures, type CheckReport } from './invariants.js';
import { rewriteTrajectory } from './rewrite.js';
import type { Trajectory } from './types.js';

/**
 * A pool of harness states shared by all records (`--state-pool N`): slot j is sampled once, seeded
 * from (run seed, "pool:j", transform id@version); a record's variants pick distinct slots with a
 * generator seeded from (run seed, source id). Per-state work (sampling, renames,
 * schema validators, rule sets) is then paid once per slot instead of once per output record.
 * Output stays a pure function of inputs, config and seed.
 */
export class StatePool {
  private readonly states = new Map<number, Variant>();

  constructor(
    readonly harness: Harness,
    readonly transforms: readonly ResolvedTransform[],
    readonly seed: string | number,
    readonly words: WordLists,
    readonly size: number,
  ) {}

  /**
   * The slot of a record's K-th variant. A record's variants get distinct slots (while there are
   * at least as many slots as variants): two variants of one record under one state would be the
   * same trajectory twice, and the same teacher requests twice.
   */
  slotFor(sourceId: string, k: number): number {
    // A record asks for its variants' slots one after the other: the draws of the last record are
    // kept and continued (the same sequence as drawing from the start each time).
    let d = this.draws;
    if (d?.sourceId !== sourceId) d = this.draws = { sourceId, rng: createRng(this.seed, sourceId, 'state-pool'), taken: new Set(), slots: [] };
    while (d.slots.length <= k) {
      const i = d.slots.length;
      let slot = d.rng.int(this.size);
      while (i < this.size && d.taken.has(slot)) slot = d.rng.int(this.size);
      d.taken.add(slot);
      d.slots.push(slot);
    }
    return d.slots[k]!;
  }

  private draws: { sourceId: string; rng: ReturnType<typeof createRng>; taken: Set<number>; slots: number[] } | undefined;

  get(slot: number): Variant {
    let v = this.states.get(slot);
    if (!v) {
      v = sampleVariant(this.harness, undefined, this.transforms, this.seed, slot, this.words, `pool:${slot}`);
      this.states.set(slot, v);
    }
    return v;
  }
}

export interface AugmentedVariant {
  /** `SOURCE_ID~vK`. */
  id: string;
  index: number;
  /** The record under the variant's harness state (its `id` is still the source id). */
  record: Trajectory;
  variant: Variant;
  checks: CheckReport;
  failures: string[];
  /** The pool slot whose state was used, or null for a state sampled for this record. */
  slot: number | null;
  /**
   * Old names the record's own prompt text (around located sections, kept verbatim) mentions: such
   * a variant would leak them, so it is rejected with its own reason.
   */
  promptText: string[];
}

/** The variant id of the K-th variant of a source record. */
export function variantId(sourceId: string, k: number): string {
  return `${sourceId}~v${k}`;
}

/**
 * Sample the K-th harness state for a source record, rewrite the record into it and run every
 * check. When no transform changed anything the source record comes back as it was (same object).
 */
/**
 * The K-th variant's state and plan only, without the rewritten reference: enough for a teacher
 * episode, whose own checks decide (used by the openai teacher when no fallback needs a reference).
 */
export function sampleOne(
  source: Trajectory,
  harness: Harness,
  transforms: readonly ResolvedTransform[],
  seed: string | number,
  k: number,
  words: WordLists,
  pool?: StatePool,
): AugmentedVariant {
  const slot = pool && pool.size > 0 ? pool.slotFor(source.id, k) : null;
  const variant = slot !== null ? pool!.get(slot) : sampleVariant(harness, source, transforms, seed, k, words);
  return {
    id: variantId(source.id, k),
    index: k,
    record: source,
    variant,
    checks: { calls: [], leaks: [], roundTrip: [], rules: [], bodies: [] },
    failures: [],
    slot,
    promptText: promptTextLeaks(source, variant, harness),
  };
}

export function augmentOne(
  source: Trajectory,
  harness: Harness,
  transforms: readonly ResolvedTransform[],
  seed: string | number,
  k: number,
  words: WordLists,
  pool?: StatePool,
): AugmentedVariant {
  if (pool && pool.size > 0) {
    const slot = pool.slotFor(source.id, k);
    const pooled = finish(source, harness, pool.get(slot), k, slot);
    // A shared state cannot avoid words of this particular record; when it collides (a check
    // fails), the variant falls back to a state sampled for the record, deterministically.
    if (pooled.failures.length === 0 && pooled.promptText.length === 0) return pooled;
  }
  return finish(source, harness, sampleVariant(harness, source, transforms, seed, k, words), k, null);
}

function finish(source: Trajectory, harness: Harness, variant: Variant, k: number, slot: number | null): AugmentedVariant {
  const unchanged = variant.applied.length === 0 || (variant.state === harness && isIdentityPlan(variant.plan));
  const record = unchanged ? source : rewriteTrajectory(source, variant.plan, harness, variant.state);
  const exactOnly = variant.applied.every((a) => a.class !== 'behavioural');
  const semantic = variant.applied.some((a) => a.class === 'semantic');
  const checks = unchanged
    ? { calls: [], leaks: [], roundTrip: [], rules: [], bodies: [] }
    : checkVariant(source, record, variant.plan, harness, variant.state, { roundTrip: exactOnly, rules: semantic });
  return {
    id: variantId(source.id, k),
    index: k,
    record,
    variant,
    checks,
    failures: reportFailures(checks),
    slot,
    promptText: promptTextLeaks(source, variant, harness),
  };
}

const NO_LEAKS: string[] = [];

/** Old names mentioned in the record's own text of its system message (see AugmentedVariant.promptText). */
function promptTextLeaks(source: Trajectory, variant: Variant, harness: Harness): string[] {
  const layout = promptLayout(source.messages[0]);
  if (layout?.kind !== 'slots' || variant.applied.length === 0) return NO_LEAKS;
  const finder = leakFinder(variant.plan, harness, variant.state).text;
  if (finder.size === 0) return NO_LEAKS;
  const out: string[] = [];
  layout.outer.forEach((text, i) => {
    const where =
      i === 0
        ? 'before the first section'
        : i === layout.ids.length
          ? 'after the last section'
          : `between sections "${layout.ids[i - 1]}" and "${layout.ids[i]}"`;
    for (const name of finder.mentions(text, 'record'))
      out.push(`messages.0: the record's own prompt text ${where} mentions old name "${name}" (kept verbatim)`);
  });
  return out;
}
