import type { Harness } from '../harness/types.js';
import type { Trajectory } from '../trajectory/types.js';
import type { RewritePlan } from '../transform/plan.js';
import type { EpisodeOptions } from '../episode/options.js';
import { isRecoverable, type CallFailureKind, type TeacherRejectKind } from '../episode/reject-kinds.js';
import { EpisodeRejected, prepareEpisode, runAttempt, type AttemptResult } from '../episode/replay-episode.js';
import { TeacherRequestError } from '../llm/errors.js';
import type { Teacher, TeacherReply } from './types.js';

/** What recovery did in one episode; a warm-cache rerun reproduces it (it follows from the answers). */
export interface EpisodeRecovery {
  /** Per-call retries by the failed call's kind, over every attempt. */
  callRetries: Partial<Record<CallFailureKind, number>>;
  /** Episode attempts made (1: no re-run). */
  attempts: number;
  /** Why each failed attempt failed, in order (the last one is the episode's when it is rejected). */
  failures: { kind: TeacherRejectKind; reason: string }[];
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
 * part. The episode's rules (src/episode/replay-episode.ts, described in docs/env.md) decide what
 * each answer does; the driver runs the attempts — a failed attempt is run again with the next
 * sample index, up to `maxAttempts` (the replay teacher, answering every sample alike, gets one) —
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
    const attempt = await runAttempt(
      setup,
      sample,
      async (req, step) => {
        let reply: TeacherReply;
        try {
          reply = await teacher.complete(req, step);
        } catch (e) {
          // A request the teacher refused ends this attempt; unavailability, fatal answers (401,
          // 403, 404) and cache misses end the run.
          if (e instanceof TeacherRequestError) throw new EpisodeRejected(e.refusal === 'unusable' ? 'teacher_unusable_answer' : 'teacher_request_refused', e.message);
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
      },
      opts,
      recovery.callRetries,
    );
    last = { ...attempt, raw, stats, recovery };
    if (last.status === 'accepted') break;
    recovery.failures.push({ kind: last.kind!, reason: last.reason! });
    if (!isRecoverable(last.kind!)) break;
  }
  return last!;
}
