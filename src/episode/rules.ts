/**
 * Where teacher mode and the environment differ, as one explicit rule set the driver hands the
 * Episode (docs/env.md, "What an episode does", has the same table). Teacher mode makes training
 * data, so a mistake is retried or ends the attempt (`EpisodeRejected`); the environment scores a
 * policy, so a mistake is answered and the episode goes on.
 */
export interface EpisodeRules {
  /**
   * An invalid call (unknown or pre-rename tool, parameter or skill; arguments not JSON or not
   * schema-valid). `retry`: the whole message is checked before anything runs, answered `error: …`
   * and the model asked again at the same step, up to `maxCallRetries`; the failed answer is then
   * dropped, past it the attempt fails. `answer`: each call is answered with a tool error, kept.
   */
  invalidCall: 'retry' | 'answer';
  /** A valid call matching no unused recorded call: `reject` (`teacher_divergent_call`), or `tool_error` (a repeat gets the first result again). */
  unmatchedCall: 'reject' | 'tool_error';
  /** A tool round over `max_tool_rounds`: `drop` the message (its calls are not sent), or answer each call `not_run`; the limit's feedback follows either way. */
  overLimitRound: 'drop' | 'not_run';
  /** A tool call while a reply is forced: `reject` (`teacher_tool_after_forced_reply`), or answer it `not run`, counted. */
  toolWhileForced: 'reject' | 'not_run';
  /**
   * A `pre_inference`, tool-round or `stop` hook with action `reject`: `reject` the attempt
   * (`teacher_hook_rejected`), or `force_reply` (`pre_inference` forces a reply; the others act as
   * any failure of the hook).
   */
  rejectHook: 'reject' | 'force_reply';
  /** A stop gate still failing after its rounds: `reject` (`teacher_hook_failed`), or `take_reply` as it is (the turn is marked exhausted). */
  exhaustedGate: 'reject' | 'take_reply';
  /** Past the turn's model-call limit: `reject` (`teacher_max_rounds`, also checked before a turn's first call), or `truncate` the episode (`step_limit`). */
  turnLimit: 'reject' | 'truncate';
  /**
   * Run the harness's command hooks (when `EpisodeOptions.commandHooks` is set). They are async, so
   * an episode under these rules opens with `begin()` and steps with `stepAsync()`.
   */
  commandHooks: boolean;
  /** The reply the `stop` hooks see: `as_sent`, or with its reasoning (`<think>…</think>`, `reasoning_content`) `split` off. */
  replyText: 'as_sent' | 'split';
}

/** Teacher mode: a source trajectory replayed under a new harness state, for training data. */
export const TEACHER_RULES: EpisodeRules = Object.freeze({
  invalidCall: 'retry',
  unmatchedCall: 'reject',
  overLimitRound: 'drop',
  toolWhileForced: 'reject',
  rejectHook: 'reject',
  exhaustedGate: 'reject',
  turnLimit: 'reject',
  commandHooks: true,
  replyText: 'as_sent',
});

/** The environment (`env serve`, `reward`, `eval`): an RL row played by a policy, scored. */
export const ENVIRONMENT_RULES: EpisodeRules = Object.freeze({
  invalidCall: 'answer',
  unmatchedCall: 'tool_error',
  overLimitRound: 'not_run',
  toolWhileForced: 'not_run',
  rejectHook: 'force_reply',
  exhaustedGate: 'take_reply',
  turnLimit: 'truncate',
  commandHooks: false,
  replyText: 'split',
});
