import { UsageError } from '../errors.js';
import { BadMessageError } from '../episode/message.js';
import { scoreEpisode, type ReplyJudge, type RewardResult } from '../episode/reward.js';
import { readEvalConfig } from '../eval/config.js';
import { judgeSettings } from '../config/judge-settings.js';
import { replyJudge, RubricJudge } from '../llm/judge.js';
import { defaultCacheDir } from '../llm/cache.js';
import { newCounters } from '../llm/errors.js';
import { readRewardConfig } from '../episode/reward-config.js';
import { replayRollout } from '../episode/rollout.js';
import { RowRefError, RowSet, type RowRef } from '../episode/rows.js';
import { expandInputs } from '../util/inputs.js';
import { readJsonlLines } from '../util/jsonl.js';
import { resolveCounter } from './env.js';
import type { Io } from './io.js';

export interface RewardOptions {
  rows: string[];
  rollouts: string;
  rewardConfig?: string;
  tokenizer?: string;
  /** Non-JSON tool-call arguments: a bad rollout (default) or the policy's mistake. */
  invalidArguments?: string;
  /** An eval config whose `judge:` scores reply quality (docs/eval.md). */
  judgeConfig?: string;
  json?: boolean;
  quiet?: boolean;
}

const COMPONENTS = ['skill_selection', 'tool_rationality', 'hook_compliance', 'reply_quality', 'reasoning_penalty'] as const;

/**
 * `hsa reward`: score finished rollouts offline with the environment's own episode core and
 * reward. Each rollout line names its row (`index` = `extra_info.index`, `id`, `position`, the
 * `row` itself, or an `extra_info` holding `index` or `id`) and holds the conversation in `messages`. Stdout gets one JSON line per rollout
 * (every component, or the error that kept it from being scored); the summary goes to stderr, or
 * as a last `{"summary": …}` line with `--json`. Exit 1 when any rollout could not be scored.
 */
export async function rewardCommand(o: RewardOptions, io: Io): Promise<number> {
  const badJson = o.invalidArguments ?? 'error';
  if (badJson !== 'error' && badJson !== 'tool_error') throw new UsageError(`--invalid-arguments: must be error or tool_error, not "${badJson}"`);
  const files = await expandInputs(o.rows, '--rows');
  const cfg = await readRewardConfig(o.rewardConfig);
  const counter = await resolveCounter(o.tokenizer, cfg.tokenizer, io);
  const rows = await RowSet.load(files);
  const judge = o.judgeConfig ? await judgeOf(o.judgeConfig, rows) : undefined;
  const scored: RewardResult[] = [];
  let bad = 0;
  let lastProgress = Date.now();
  for await (const { line, text } of readJsonlLines(o.rollouts)) {
    const where = `${o.rollouts}:${line}`;
    try {
      let r: unknown;
      try {
        r = JSON.parse(text);
      } catch (e) {
        throw new LineError(`not valid JSON (${(e as Error).message})`);
      }
      if (r === null || typeof r !== 'object' || Array.isArray(r)) throw new LineError('expected an object {"index"|"id"|"position"|"row", "messages"}');
      const rec = { ...(r as Record<string, unknown>) };
      // A verl-style rollout names its row in extra_info (index, else id).
      const extra = rec.extra_info;
      if (
        rec.index === undefined &&
        rec.id === undefined &&
        rec.position === undefined &&
        rec.row === undefined &&
        extra !== null &&
        typeof extra === 'object'
      ) {
        const e = extra as Record<string, unknown>;
        if (e.index !== undefined) rec.index = e.index;
        else if (e.id !== undefined) rec.id = e.id;
      }
      const keys = ['index', 'id', 'position', 'row'].filter((k) => rec[k] !== undefined);
      if (keys.length !== 1) throw new LineError('give exactly one of index (extra_info.index), id, position or row');
      const row = rows.resolve({ [keys[0]!]: rec[keys[0]!] } as RowRef);
      if (!Array.isArray(rec.messages)) throw new LineError('messages: expected an array of Chat Completions messages');
      const { episode, ignored } = replayRollout(row, rec.messages, 'messages', badJson);
      const result = await scoreEpisode(episode, { ...cfg, tokenizer: counter.name }, counter, judge);
      scored.push(result);
      io.out(
        `${JSON.stringify({ rollout: line, index: row.index, id: row.id, finished: episode.done, ...(ignored ? { ignored_messages: ignored } : {}), ...result })}\n`,
      );
    } catch (e) {
      let why: string;
      if (e instanceof LineError || e instanceof BadMessageError) why = e.message;
      else if (e instanceof RowRefError) why = e.message;
      else throw e;
      bad++;
      io.out(`${JSON.stringify({ rollout: line, error: why })}\n`);
      io.err(`${where}: ${why}\n`);
    }
    if (!o.quiet && Date.now() - lastProgress > 5000) {
      lastProgress = Date.now();
      io.err(`hsa reward: ${scored.length + bad} rollouts read\n`);
    }
  }
  const mean = (f: (r: RewardResult) => number) => (scored.length ? Math.round((scored.reduce((a, r) => a + f(r), 0) / scored.length) * 1e6) / 1e6 : null);
  const summary = {
    rollouts: scored.length + bad,
    scored: scored.length,
    bad,
    mean_reward: mean((r) => r.reward),
    mean: Object.fromEntries(COMPONENTS.map((c) => [c, mean((r) => r.components[c])])),
    tokenizer: counter.name,
  };
  if (o.json) io.out(`${JSON.stringify({ summary })}\n`);
  else if (!o.quiet) {
    io.err(`hsa reward: ${summary.scored} of ${summary.rollouts} rollouts scored${bad ? `, ${bad} bad` : ''}; mean reward ${summary.mean_reward ?? '-'}\n`);
    io.err(`  ${COMPONENTS.map((c) => `${c} ${summary.mean[c] ?? '-'}`).join(', ')}\n`);
  }
  return bad ? 1 : 0;
}

class LineError extends Error {}

/** The reward module's ReplyJudge from the `judge:` section of an eval config (cached with the teacher's answers). */
async function judgeOf(file: string, rows: RowSet): Promise<ReplyJudge> {
  const c = await readEvalConfig(file);
  if (!c.judge) throw new UsageError(`${file}: judge: required for --judge-config`);
  const judge = new RubricJudge(await judgeSettings(c.judge), c.cache ?? defaultCacheDir(), newCounters(), c.require_cache ?? false);
  const inner = replyJudge(judge, (id) => rows.withId(id));
  // Each score waits for its answers to be stored, so an interrupted run keeps what it paid for.
  return {
    name: inner.name,
    async score(input) {
      try {
        return await inner.score(input);
      } finally {
        await judge.settle();
      }
    },
  };
}
