/**
 * Why a teacher episode failed, as a fixed set of kinds: the kinds are counted (summary, manifest),
 * the free-text detail (names, numbers, arguments) stays in the reject record. Names embedded in
 * counted reasons made hundreds of distinct "reasons" out of a handful of causes.
 */
export const TEACHER_REJECT_KINDS = {
  /** A schema-valid call that matches no unused recorded call of the source. */
  teacher_divergent_call: 'a valid call that the source never made',
  /** Arguments not JSON, not valid against the tool's schema (a missing required argument), after every per-call retry. */
  teacher_invalid_call: 'arguments not JSON or not valid against the schema, after every retry',
  /** A tool that is not in the state's tool list (and never was), after every per-call retry. */
  teacher_unknown_tool: 'a tool that does not exist, after every retry',
  /** A tool or parameter name from before the rename, after every per-call retry. */
  teacher_old_name: 'a pre-rename tool or parameter name, after every retry',
  /** A stop gate still failed after the hook's max_rounds. */
  teacher_hook_failed: 'a stop gate still failing after its rounds',
  /** A hook with action `reject` refused the turn, the call or the reply. */
  teacher_hook_rejected: 'a hook with action reject refused the turn',
  /** A tool call where a hook had forced a reply. */
  teacher_tool_after_forced_reply: 'a tool call after a hook forced a reply',
  /** No final reply within the turn's model-call limit (max_rounds). */
  teacher_max_rounds: 'no final reply within max_rounds model calls',
  /** The calls made differ from the reference's (teacher.consistency). */
  teacher_inconsistent: 'calls differ from the reference',
  /** An old identifier in what the teacher wrote (reply text). */
  teacher_leak: 'an old identifier in what the teacher wrote',
  /** finish_reason `length`. */
  teacher_truncated: 'the answer was cut off (finish_reason length)',
  /** The endpoint refused one request (a 4xx other than 401/403/404/429). */
  teacher_request_refused: 'the endpoint refused the request',
  /** A 200 answer that is not a usable completion. */
  teacher_unusable_answer: 'an answer that is not a completion',
  /** The judge (teacher.judge) scored the replies below teacher.judge.min_score. */
  teacher_judge_rejected: 'the judge scored the replies below min_score',
} as const;

export type TeacherRejectKind = keyof typeof TEACHER_REJECT_KINDS;

/** Per-call failures: answered with a tool error and asked again (they never reach a written trajectory). */
export type CallFailureKind = 'teacher_invalid_call' | 'teacher_unknown_tool' | 'teacher_old_name';

/**
 * Failures another sample of the whole episode may avoid (trajectory-level recovery). A refused
 * request would be refused again: the request is the same.
 */
export function isRecoverable(kind: TeacherRejectKind): boolean {
  return kind !== 'teacher_request_refused';
}

/** A failure that ends a teacher-mode episode attempt with a kind and a reason (not an error of hsa). */
export class EpisodeRejected extends Error {
  constructor(
    readonly kind: TeacherRejectKind,
    message: string,
  ) {
    super(message);
  }
}
