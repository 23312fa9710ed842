import type { z } from 'zod';
import type { Harness } from '../harness/types.js';
import type { RewritePlan } from './plan.js';
import type { Rng } from './rng.js';
import type { WordLists } from './words.js';

export type TransformFamily = 'skills' | 'tools' | 'prompt' | 'hooks';
/**
 * exact: relabel/reorder, trajectories rewritten deterministically, inverse gives the source back.
 * semantic: restyle keeping meaning, the multiset of normalised prompt rules is unchanged.
 * behavioural: changes what the right trajectory is; needs a teacher re-run.
 */
export type TransformClass = 'exact' | 'semantic' | 'behavioural';

/**
 * What the engine reads of the record a variant is for: its id and its chat messages. A
 * trajectory record (trajectory/types.ts) is one; the engine names no record type of its own, so
 * transform/ sits below trajectory/.
 */
export interface VariantRecord {
  id: string;
  messages: VariantMessage[];
}

/** A chat message as the engine reads it: text content (a string or text parts) and any tool calls. */
export interface VariantMessage {
  role: string;
  content?: string | { text: string }[] | null;
  tool_calls?: { function: { name: string; arguments: string } }[];
}

export interface TransformContext<O> {
  /** Options after defaults, validated by the transform's schema. */
  options: O;
  rng: Rng;
  words: WordLists;
  /** The source harness state, before any transform of this variant. */
  source: Harness;
  /** The source trajectory, when the variant is for one (previews of a state alone have none). */
  record?: VariantRecord;
  /** The plan composed so far: from the source state to the state this transform receives. */
  plan: RewritePlan;
  /** True when a name is already in use (in the source or current state, or as a word of the record). */
  isTaken(name: string): boolean;
  /**
   * True for a name that the record's own prompt text (outside the harness's sections, kept
   * verbatim under `--system-prompt locate`) mentions: renames leave such a name as it is, or the
   * variant would show it under its old name. Absent when there is no such text.
   */
  keep?(name: string): boolean;
}

export interface TransformResult {
  state: Harness;
  /** What the trajectory needs beyond re-rendering: identifier maps and argument edits. */
  plan?: Partial<RewritePlan>;
  /** The concrete choices made, for provenance (`meta.transforms[].params`) and previews. */
  params: Record<string, unknown>;
}

export interface TransformDefinition<S extends z.ZodType = z.ZodType> {
  /** `<family>.<name>`; the module is `transforms/<family>/<name>.ts`. */
  id: string;
  family: TransformFamily;
  class: TransformClass;
  /** Bumped whenever the same seed would give different output; part of every seed. */
  version: number;
  description: string;
  /** Options with defaults; every transform has `p`, the probability it applies to a variant. */
  options: S;
  /**
   * Optional: false when `apply` would return `null` for this state whatever its generator draws
   * (no skills to rename, no hooks to reorder). The sampler then skips the transform without making
   * its generator; each transform has a generator of its own, so the output is the same.
   */
  appliesTo?(state: Harness): boolean;
  /** A new state and its plan, or `null` when there is nothing to change in this state. */
  apply(state: Harness, ctx: TransformContext<z.output<S>>): TransformResult | null;
}

/** Identity function that exists for type inference of a transform's options (typescript-eslint's createRule habit). */
export function defineTransform<S extends z.ZodType>(def: TransformDefinition<S>): TransformDefinition<S> {
  return def;
}

export type AnyTransform = TransformDefinition<z.ZodType>;
