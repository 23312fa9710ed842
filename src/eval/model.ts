import pLimit from 'p-limit';
import { Episode } from '../episode/episode.js';
import { DEFAULT_EPISODE_OPTIONS, type EpisodeOptions } from '../episode/options.js';
import { readPolicyMessage } from '../episode/message.js';
import { scoreEpisode, type ReplyJudge, type RewardConfig, type RewardResult } from '../episode/reward.js';
import type { TokenCounter } from '../episode/tokens.js';
import { TeacherCache } from '../llm/cache.js';
import { TeacherFatalError, TeacherRequestError, TeacherUnavailableError, newCounters, type TeacherCounters } from '../llm/errors.js';
import { OpenAiTeacher, type OpenAiTeacherConfig } from '../teacher/openai.js';
import type { Message } from '../trajectory/types.js';
import type { EvalRow } from './set.js';

/** The model under evaluation: any OpenAI-compatible endpoint, with the teacher client's settings. */
export type ModelSettings = OpenAiTeacherConfig;

/** One row's outcome: the reward (every component) or why the model could not be run on it. */
export interface EpisodeOutcome {
  row: EvalRow;
  result?: RewardResult;
  finished: boolean;
  /** A request the endpoint refused or answered with something unusable (this row only). */
  error?: string;
}

export interface RunModelOptions {
  concurrency: number;
  reward: RewardConfig;
  counter: TokenCounter;
  cacheDir: string;
  judge?: ReplyJudge;
  episode?: EpisodeOptions;
  requireCache?: boolean;
}

/**
 * Run the model through every row's episode (the RL environment's core: replay table, hooks,
 * tool errors) and score it with the reward module. Requests go through the teacher's client, so
 * they share its cache (a warm rerun sends nothing), retries, rate limits and in-flight dedup;
 * rows run `concurrency` at a time and come back in set order, so the result never depends on
 * timing. An endpoint that stays unreachable or refuses the run stops the evaluation (after every
 * answer received is stored, so a rerun resumes from the cache); a request refused for one row
 * only marks that row.
 */
export async function runModel(
  rows: readonly EvalRow[],
  model: ModelSettings,
  o: RunModelOptions,
): Promise<{ outcomes: EpisodeOutcome[]; counters: TeacherCounters }> {
  const counters = newCounters();
  const controller = new AbortController();
  const client = new OpenAiTeacher(model, new TeacherCache(o.cacheDir), {
    requireCache: o.requireCache ?? false,
    signal: controller.signal,
    counters,
    who: 'the model',
    keySetting: 'model.api_key_env',
    keyFlag: '--key-env',
  });
  const limit = pLimit(Math.max(1, o.concurrency));
  let stop: Error | undefined;
  const outcomes = await Promise.all(
    rows.map((r) =>
      limit(async (): Promise<EpisodeOutcome> => {
        if (stop) return { row: r, finished: false, error: 'not run' };
        try {
          return await runOne(r, client, o);
        } catch (e) {
          if (e instanceof TeacherRequestError) return { row: r, finished: false, error: e.message };
          if (!stop) {
            stop = e as Error;
            controller.abort(e);
          }
          return { row: r, finished: false, error: 'not run' };
        }
      }),
    ),
  );
  await client.settle();
  if (stop) {
    const done = outcomes.filter((x) => x.result).length;
    const why = stop instanceof TeacherUnavailableError || stop instanceof TeacherFatalError ? stop.message : `${stop.name}: ${stop.message}`;
    throw new ModelRunError(
      `model ${model.model} at ${model.baseUrl}: ${why} (${done} of ${rows.length} episodes finished; their answers are in the cache ${o.cacheDir}, so a rerun resumes)`,
      stop,
    );
  }
  return { outcomes, counters };
}

async function runOne(r: EvalRow, client: OpenAiTeacher, o: RunModelOptions): Promise<EpisodeOutcome> {
  const ep = new Episode(r.row, o.episode ?? DEFAULT_EPISODE_OPTIONS);
  let step = 0;
  while (!ep.done) {
    const reply = await client.complete(
      { messages: ep.messages as unknown as Message[], tools: r.row.tools, toolChoice: ep.forcedReply ? 'none' : 'auto' },
      { variantId: r.row.id, turn: ep.turns.length - 1, attempt: step++, forceReply: ep.forcedReply },
    );
    const raw: Record<string, unknown> = { role: 'assistant', content: reply.content };
    if (reply.toolCalls.length) raw.tool_calls = reply.toolCalls;
    const reasoning = (reply.raw as { choices?: { message?: { reasoning_content?: unknown } }[] } | undefined)?.choices?.[0]?.message?.reasoning_content;
    if (typeof reasoning === 'string') raw.reasoning_content = reasoning;
    // The model's own mistakes (arguments that are not JSON) are answered and scored, never fatal.
    ep.step(readPolicyMessage(raw, `${r.row.id} step ${step}`, 'tool_error'));
  }
  const result = await scoreEpisode(ep, { ...o.reward, tokenizer: o.counter.name }, o.counter, o.judge);
  return { row: r, result, finished: ep.truncated === undefined };
}

/** The evaluation stopped: the endpoint was unreachable or refused the run. */
export class ModelRunError extends TeacherUnavailableError {
  constructor(
    message: string,
    readonly causeError: Error,
  ) {
    super(message);
    this.name = 'ModelRunError';
  }
}
