import type { Harness } from '../harness/types.js';
import type { AnyTransform, TransformClass } from './define.js';
import type { RewritePlan } from './plan.js';

/** A transform chosen for a run, with its validated options. */
export interface ResolvedTransform {
  def: AnyTransform;
  options: { p: number } & Record<string, unknown>;
}

/** One applied transform, as recorded in provenance. */
export interface AppliedTransform {
  id: string;
  version: number;
  class: TransformClass;
  params: Record<string, unknown>;
}

export interface Variant {
  state: Harness;
  plan: RewritePlan;
  applied: AppliedTransform[];
  /** sha256 of the state's canonical JSON. */
  stateHash: string;
}
