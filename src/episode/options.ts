import type { ToolCall, Trajectory } from '../trajectory/types.js';

export type Consistency = 'exact' | 'superset' | 'any';

/** Model calls allowed in one user turn by default (and the floor of `auto`, see turnRoundLimit). */
export const DEFAULT_MAX_ROUNDS = 12;

/**
 * How an episode runs, in teacher mode and in the environment alike. The fields past
 * `maxRoundsPerTurn` belong to teacher mode (a source trajectory replayed under a new harness
 * state); the environment, `hsa reward` and `hsa eval` read only `maxRoundsPerTurn`.
 */
export interface EpisodeOptions {
  /**
   * Model calls allowed in one user turn: a number, or `auto` — derived from the source turn
   * (teacher mode, see `turnRoundLimit`; an RL row has no source turn and takes the default).
   * Past it a teacher episode is rejected (`teacher_max_rounds`) and a policy's is cut off
   * (`step_limit`).
   */
  maxRoundsPerTurn: number | 'auto';
  /** The calls made against the reference's: the same multiset, a superset, or any (default `exact`). */
  consistency?: Consistency;
  /**
   * Per-call fallback: a call with arguments that are not JSON or not schema-valid, an unknown
   * tool or a pre-rename name is answered with a tool error naming the problem and the model is
   * asked again, at most this many times per episode attempt (default 0: the episode fails).
   */
  maxCallRetries?: number;
  /**
   * Trajectory-level recovery: a failed episode is run again with the next sample index, up to
   * this many attempts in all (default 1). The replay teacher answers every sample alike, so it
   * gets one attempt.
   */
  maxAttempts?: number;
  /**
   * A last check of a trajectory that passed every other (teacher.judge): a reason rejects it as
   * `teacher_judge_rejected` (recoverable: another sample may do better).
   */
  accept?: (trajectory: Trajectory, source: Trajectory) => Promise<string | null>;
  /** Run the harness's command hooks (only with --allow-command-hooks), from this folder. */
  commandHooks?: { cwd: string; warn: (line: string) => void };
  /**
   * How the replay environment maps a call made under `to` back to the source's call (name and
   * arguments), for a mapping a RewritePlan cannot hold (a migration's splits, values and fills);
   * null: the call has no source counterpart (it is divergent). Default: through the inverse plan.
   */
  mapCallBack?: (call: ToolCall) => ToolCall | null;
}

export const DEFAULT_EPISODE_OPTIONS: EpisodeOptions = { maxRoundsPerTurn: DEFAULT_MAX_ROUNDS };

/** The per-turn limit as a number (an RL row has no source turn for `auto`). */
export function fixedRoundLimit(opts: EpisodeOptions): number {
  return opts.maxRoundsPerTurn === 'auto' ? DEFAULT_MAX_ROUNDS : opts.maxRoundsPerTurn;
}
