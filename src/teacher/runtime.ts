import type { Harness } from '../harness/types.js';
import type { Message, Trajectory } from '../trajectory/types.js';
import type { RewritePlan } from '../transform/plan.js';
import type { EpisodeOptions } from '../episode/options.js';
import { Episode } from '../episode/episode.js';
import { EpisodeRejected, isRecoverable, type CallFailureKind, type TeacherRejectKind } from '../episode/reject-kinds.js';
import { TEACHER_RULES } from '../episode/rules.js';
import { prepareEpisode, settleAttempt, sourceWorld, teacherMessage, type EpisodeSetup } from '../episode/source-world.js';
import { TeacherRequestError } from '../llm/errors.js';
import type { Teacher, TeacherReply, TeacherRequest, TeacherStep } from './types.js';

/** What recovery did in one episode; a warm-cache rerun reproduces it (it follows from the answers). */
export interface EpisodeRecovery {
  /** Per-call retries by the failed call's kind, over every attempt. */
  callRetries: Partial<Record<CallFailureKind, number>>;
  /** Episode attempts made (1: no re-run). */
  attempts: number;
  /** Why each failed attempt failed, in order (the last one is the episode's when it is rejected). */
  failures: { kind: TeacherRejectKind; reason: string }[];
}

export interface AttemptResult {
  status: 'accepted' | 'rejected';
  /** The reject kind (one of a fixed set), when rejected. */
  kind?: TeacherRejectKind;
  /** The free-text detail, when rejected. */
  reason?: string;
  /**
   * The trajectory as run: complete when accepted (failed calls that were retried and their
   * errors are not in it), up to the failure when rejected (the failed calls included).
   */
  trajectory: Trajectory;
}

export interface EpisodeResult extends AttemptResult {
  /** Raw teacher outputs of the last attempt, in order (kept for rejects). */
  raw: unknown[];
  /** Over every attempt; `answers` counts teacher answers received (from the cache or not). */
  stats: { requests: number; cacheHits: number; tokensIn: number; tokensOut: number; answers: number };
  recovery: EpisodeRecovery;
}

/**
 * Teacher mode's driver: run one (source, variant) episode with a teacher answering the model's
 * part. Each attempt is the one episode core (src/episode/episode.ts) under TEACHER_RULES, played
 * against the source's world (src/episode/source-world.ts); the driver runs the attempts — a
 * failed attempt is run again with the next sample index, up to `maxAttempts` (the replay teacher, answering every sample alike, gets one) —
 * asks the teacher, turns a request it refused into a reject, and counts requests, cache hits,
 * tokens and answers over every attempt.
 */
export async function runEpisode(
  source: Trajectory,
  from: Harness,
  to: Harness,
  plan: RewritePlan,
  variantId: string,
  teacher: Teacher,
  opts: EpisodeOptions,
): Promise<EpisodeResult> {
  const stats = { requests: 0, cacheHits: 0, tokensIn: 0, tokensOut: 0, answers: 0 };
  const recovery: EpisodeRecovery = { callRetries: {}, attempts: 0, failures: [] };
  const attempts = teacher.kind === 'replay' ? 1 : Math.max(1, opts.maxAttempts ?? 1);
  const setup = prepareEpisode(source, from, to, plan, variantId);
  let last: EpisodeResult | undefined;
  for (let sample = 0; sample < attempts; sample++) {
    recovery.attempts = sample + 1;
    const raw: unknown[] = [];
    const { callRetries, ...attempt } = await runAttempt(setup, sample, opts, async (req, step) => {
      let reply: TeacherReply;
      try {
        reply = await teacher.complete(req, step);
      } catch (e) {
        // A request the teacher refused ends this attempt; unavailability, fatal answers (401,
        // 403, 404) and cache misses end the run.
        if (e instanceof TeacherRequestError)
          throw new EpisodeRejected(e.refusal === 'unusable' ? 'teacher_unusable_answer' : 'teacher_request_refused', e.message);
        throw e;
      }
      stats.requests += reply.cached ? 0 : 1;
      stats.cacheHits += reply.cached && teacher.kind === 'openai' ? 1 : 0;
      stats.tokensIn += reply.usage.prompt;
      stats.tokensOut += reply.usage.completion;
      if (reply.raw !== undefined) {
        raw.push(reply.raw);
        stats.answers++;
      }
      return reply;
    });
    for (const [kind, n] of Object.entries(callRetries) as [CallFailureKind, number][]) recovery.callRetries[kind] = (recovery.callRetries[kind] ?? 0) + n;
    last = { ...attempt, raw, stats, recovery };
    if (last.status === 'accepted') break;
    recovery.failures.push({ kind: last.kind!, reason: last.reason! });
    if (!isRecoverable(last.kind!)) break;
  }
  return last!;
}

/** Asks the teacher for the next message; may throw EpisodeRejected (a request it refused). */
type Ask = (req: TeacherRequest, step: TeacherStep) => Promise<TeacherReply>;

/** One attempt: the teacher's answers fed into an episode until it is done or rejected, then settled. */
async function runAttempt(
  setup: EpisodeSetup,
  sample: number,
  opts: EpisodeOptions,
  ask: Ask,
): Promise<AttemptResult & { callRetries: Partial<Record<CallFailureKind, number>> }> {
  const world = sourceWorld(setup, opts);
  const ep = new Episode(world, opts, TEACHER_RULES);
  const result = (status: 'accepted' | 'rejected', kind?: TeacherRejectKind, reason?: string) => {
    const trajectory: Trajectory = { ...setup.source, messages: (status === 'rejected' ? ep.conversation : [...ep.messages]) as unknown as Message[] };
    if (setup.source.tools) trajectory.tools = setup.tools;
    return { status, ...(kind !== undefined ? { kind, reason: reason ?? kind } : {}), trajectory, callRetries: ep.callRetries };
  };
  try {
    await ep.begin();
    while (!ep.done) {
      const { turn, attempt, retry } = ep.position;
      const forceReply = ep.forcedReply;
      const reply = await ask(
        { messages: ep.conversation as unknown as Message[], tools: setup.tools, toolChoice: forceReply ? 'none' : 'auto' },
        { variantId: setup.variantId, turn, attempt, forceReply, sample, retry },
      );
      if (reply.finishReason === 'length') throw new EpisodeRejected('teacher_truncated', 'teacher output was cut off (finish_reason length)');
      await ep.stepAsync(teacherMessage(reply));
    }
  } catch (e) {
    if (e instanceof EpisodeRejected) return result('rejected', e.kind, e.message);
    throw e;
  }
  const accepted = result('accepted');
  const refused = await settleAttempt(setup, world.env, accepted.trajectory, opts);
  return refused ? result('rejected', refused.kind, refused.reason) : accepted;
}
