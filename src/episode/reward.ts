import { getPath } from '../util/path.js';
import type { CallRecord, Episode } from './episode.js';
import { rowRuntime } from './world.js';
import { splitReasoning, type TokenCounter, type TokenizerName } from './tokens.js';

/**
 * The HSA-RL reward, one specification for the environment server, `hsa reward` and evaluation
 * (docs/reward.md has the formula with examples). Every component is in [0, 1] except the
 * reasoning-length penalty, which is in [−w, 0]:
 *
 *   reward = w_skill·S + w_tool·T + w_hook·H + w_reply·R + P
 *
 * - S skill selection: F1 of the skills the policy selected through the row's loader (a set:
 *   every loader call with parseable arguments, answered or not) against the expected skills;
 *   1 when both are empty.
 * - T tool rationality: F1 of the calls made (every call that was run or answered with an error,
 *   not the ones a hook kept from running) against the expected calls, as multisets of
 *   (name, canonical arguments); a call with the right name and other arguments earns
 *   `name_only_credit`; minus `invalid_penalty` per unknown tool / non-JSON / schema-invalid call
 *   and `repeat_penalty` per repeated call; clamped to [0, 1]; 1 when both are empty.
 * - H hook compliance: the mean over the row's user turns of
 *   1 − feedback_penalty·(stop-gate feedback rounds) − forced_penalty·[reply forced by a round
 *   limit, or tools called while it was] − blocked_penalty·(calls blocked by pre_tool_use hooks),
 *   clamped; 0 for a turn whose gate never passed or that was never finished.
 * - R reply quality: a judge's score when one is configured, else the mean over user turns of the
 *   token F1 between the turn's final reply (reasoning removed) and the reference reply — tokens
 *   are single CJK/kana characters and runs of other letters and digits, NFKC, lower case; 0 for
 *   a turn with no reply, 1 when both are empty.
 * - P reasoning-length penalty: for each model message (tool-call message or reply) L = tokens of
 *   its reasoning (`<think>` part or `reasoning_content`), q(L) = 0 for L ≤ 100, (L − 100)/100 up
 *   to 200, 1 above; P = −w_reasoning·mean(q) (`aggregate: mean`, the default, so the penalty is
 *   at most w whatever the episode's length) or −w_reasoning·Σq (`aggregate: sum`).
 */
export interface RewardConfig {
  weights: { skill: number; tool: number; hook: number; reply: number };
  tool: { nameOnlyCredit: number; invalidPenalty: number; repeatPenalty: number };
  hook: { feedbackPenalty: number; forcedPenalty: number; blockedPenalty: number };
  reasoning: { weight: number; free: number; saturate: number; aggregate: 'mean' | 'sum' };
  tokenizer: TokenizerName;
}

export const DEFAULT_REWARD_CONFIG: RewardConfig = {
  weights: { skill: 0.25, tool: 0.25, hook: 0.25, reply: 0.25 },
  tool: { nameOnlyCredit: 0.5, invalidPenalty: 0.2, repeatPenalty: 0.1 },
  hook: { feedbackPenalty: 0.5, forcedPenalty: 0.5, blockedPenalty: 0.25 },
  reasoning: { weight: 0.1, free: 100, saturate: 200, aggregate: 'mean' },
  tokenizer: 'qwen3',
};

/** What a reply judge sees for one user turn. */
export interface JudgeInput {
  rowId: string;
  turn: number;
  user: string;
  reply: string;
  reference: string;
  /** The conversation up to and including the reply. */
  messages: Record<string, unknown>[];
}

/** A reply-quality judge (the evaluation issue builds one); scores are in [0, 1]. */
export interface ReplyJudge {
  readonly name: string;
  score(input: JudgeInput): Promise<number>;
}

export interface RewardResult {
  reward: number;
  components: { skill_selection: number; tool_rationality: number; hook_compliance: number; reply_quality: number; reasoning_penalty: number };
  weights: RewardConfig['weights'] & { reasoning: number };
  detail: {
    skills: { selected: string[]; expected: string[]; precision: number; recall: number };
    tools: {
      made: number;
      expected: number;
      matched: number;
      name_only: number;
      invalid: number;
      repeats: number;
      not_run: number;
      stale_names: string[];
      precision: number;
      recall: number;
      f1: number;
    };
    hooks: { turns: number; finished: number; feedback_rounds: number; forced: number; forced_violations: number; exhausted: number; blocked: number };
    reply: { source: string; per_turn: number[] };
    reasoning: { tokenizer: TokenizerName; per_message: { turn: number; kind: string; tokens: number; q: number }[] };
    truncated: string | null;
  };
}

/** q(L): 0 up to `free` tokens, linear to 1 at `saturate`, 1 above. */
export function reasoningQ(tokens: number, cfg: RewardConfig['reasoning'] = DEFAULT_REWARD_CONFIG.reasoning): number {
  if (tokens <= cfg.free) return 0;
  if (tokens >= cfg.saturate) return 1;
  return (tokens - cfg.free) / (cfg.saturate - cfg.free);
}

const TOKEN = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]|(?:(?![\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}])[\p{L}\p{N}])+/gu;

/** Reference-based reply score: token F1 (CJK characters one token each, other words whole). */
export function replyF1(reply: string, reference: string): number {
  const a = reply.normalize('NFKC').toLowerCase().match(TOKEN) ?? [];
  const b = reference.normalize('NFKC').toLowerCase().match(TOKEN) ?? [];
  if (a.length === 0 && b.length === 0) return 1;
  if (a.length === 0 || b.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const t of b) counts.set(t, (counts.get(t) ?? 0) + 1);
  let common = 0;
  for (const t of a) {
    const n = counts.get(t) ?? 0;
    if (n > 0) {
      common++;
      counts.set(t, n - 1);
    }
  }
  return f1(common / a.length, common / b.length);
}

function f1(p: number, r: number): number {
  return p + r === 0 ? 0 : (2 * p * r) / (p + r);
}

function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}

/** Six decimals: the numbers a trainer logs, identical wherever they are computed. */
function round(x: number): number {
  return Math.round(x * 1e6) / 1e6 + 0;
}

function skillOf(c: CallRecord, argument: string): string | undefined {
  try {
    const v = getPath(JSON.parse(c.args), argument);
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Score a finished (or cut-off) episode; `judge` replaces the reference-based reply score. */
export async function scoreEpisode(ep: Episode, cfg: RewardConfig, counter: TokenCounter, judge?: ReplyJudge): Promise<RewardResult> {
  const row = ep.row;
  const planned = Math.max(row.userTurns.length, ep.turns.length);
  // A reference reply recorded with inline reasoning (`<think>…</think>` in the source content) is
  // compared by its visible text, as the policy's reply is: the reasoning is not part of the reply.
  const referenceOf = (t: number) => splitReasoning(row.truth.turns[t]?.reply ?? (t === planned - 1 ? row.truth.referenceReply : '')).text;

  // Skill selection.
  const loader = row.skillLoader;
  const selected = [
    ...new Set(
      loader
        ? ep.calls
            .filter((c) => c.name === loader.tool && c.outcome !== 'not_run')
            .map((c) => skillOf(c, loader.argument))
            .filter((s): s is string => s !== undefined)
        : [],
    ),
  ];
  const expectedSkills = [...new Set(row.truth.expectedSkills)];
  const hitSkills = selected.filter((s) => expectedSkills.includes(s)).length;
  const skillP = selected.length ? hitSkills / selected.length : expectedSkills.length ? 0 : 1;
  const skillR = expectedSkills.length ? hitSkills / expectedSkills.length : 1;
  const skill = selected.length === 0 && expectedSkills.length === 0 ? 1 : f1(skillP, skillR);

  // Tool rationality.
  const made = ep.calls.filter((c) => c.outcome !== 'not_run');
  const expected = new Map<string, number>();
  const expectedNames = new Map<string, number>();
  for (const key of rowRuntime(row).expectedKeys) expected.set(key, (expected.get(key) ?? 0) + 1);
  const leftover: CallRecord[] = [];
  let exact = 0;
  for (const c of made) {
    const key = `${c.name}\u0000${c.args}`;
    const n = expected.get(key) ?? 0;
    if (n > 0) {
      exact++;
      expected.set(key, n - 1);
    } else leftover.push(c);
  }
  for (const [key, n] of expected) {
    const name = key.slice(0, key.indexOf('\u0000'));
    if (n > 0) expectedNames.set(name, (expectedNames.get(name) ?? 0) + n);
  }
  let nameOnly = 0;
  for (const c of leftover) {
    if (c.outcome === 'unknown_tool' || c.outcome === 'bad_json') continue;
    const n = expectedNames.get(c.name) ?? 0;
    if (n > 0) {
      nameOnly++;
      expectedNames.set(c.name, n - 1);
    }
  }
  const matched = exact + cfg.tool.nameOnlyCredit * nameOnly;
  const nExpected = row.truth.expectedCalls.length;
  const toolP = made.length ? matched / made.length : nExpected ? 0 : 1;
  const toolR = nExpected ? matched / nExpected : 1;
  const toolF1 = made.length === 0 && nExpected === 0 ? 1 : f1(toolP, toolR);
  const invalid = made.filter((c) => c.outcome === 'unknown_tool' || c.outcome === 'bad_json' || c.outcome === 'invalid_args').length;
  const repeats = made.filter((c) => c.outcome === 'repeat').length;
  const tool = clamp01(toolF1 - cfg.tool.invalidPenalty * invalid - cfg.tool.repeatPenalty * repeats);
  const stale = [...new Set(made.filter((c) => c.outcome === 'unknown_tool' && c.name in row.renamedTools).map((c) => c.name))].sort();

  // Hook compliance.
  const h = cfg.hook;
  let hookSum = 0;
  for (let t = 0; t < planned; t++) {
    const turn = ep.turns[t];
    if (!turn || !turn.ended || turn.exhausted) continue;
    const forced = turn.forced || turn.forcedViolations > 0 ? 1 : 0;
    hookSum += clamp01(1 - h.feedbackPenalty * turn.feedbackRounds - h.forcedPenalty * forced - h.blockedPenalty * turn.blocked);
  }
  const hook = planned ? hookSum / planned : 1;

  // Reply quality.
  const perTurn: number[] = [];
  for (let t = 0; t < planned; t++) {
    const turn = ep.turns[t];
    const reference = referenceOf(t);
    if (!turn || turn.reply === null) {
      perTurn.push(0);
      continue;
    }
    if (judge) {
      perTurn.push(clamp01(await judge.score({ rowId: row.id, turn: t, user: turn.user, reply: turn.reply, reference, messages: ep.messages })));
    } else perTurn.push(replyF1(turn.reply, reference));
  }
  const reply = planned ? perTurn.reduce((a, b) => a + b, 0) / planned : 1;

  // Reasoning length.
  const counts = ep.reasoningTokens(counter);
  const perMessage = ep.modelMessages.map((m, i) => {
    const tokens = counts[i]!;
    return { turn: m.turn, kind: m.kind, tokens, q: round(reasoningQ(tokens, cfg.reasoning)) };
  });
  const qs = perMessage.map((m) => reasoningQ(m.tokens, cfg.reasoning));
  const qSum = qs.reduce((a, b) => a + b, 0);
  const penalty = -cfg.reasoning.weight * (cfg.reasoning.aggregate === 'sum' ? qSum : qs.length ? qSum / qs.length : 0);

  const w = cfg.weights;
  const total = w.skill * skill + w.tool * tool + w.hook * hook + w.reply * reply + penalty;
  const sum = (f: (t: Episode['turns'][number]) => number) => ep.turns.reduce((a, t) => a + f(t), 0);
  return {
    reward: round(total),
    components: {
      skill_selection: round(skill),
      tool_rationality: round(tool),
      hook_compliance: round(hook),
      reply_quality: round(reply),
      reasoning_penalty: round(penalty),
    },
    weights: { ...w, reasoning: cfg.reasoning.weight },
    detail: {
      skills: { selected, expected: expectedSkills, precision: round(skillP), recall: round(skillR) },
      tools: {
        made: made.length,
        expected: nExpected,
        matched: exact,
        name_only: nameOnly,
        invalid,
        repeats,
        not_run: ep.calls.length - made.length,
        stale_names: stale,
        precision: round(toolP),
        recall: round(toolR),
        f1: round(toolF1),
      },
      hooks: {
        turns: planned,
        finished: ep.turns.filter((t) => t.ended).length,
        feedback_rounds: sum((t) => t.feedbackRounds),
        forced: sum((t) => (t.forced ? 1 : 0)),
        forced_violations: sum((t) => t.forcedViolations),
        exhausted: sum((t) => (t.exhausted ? 1 : 0)),
        blocked: sum((t) => t.blocked),
      },
      reply: { source: judge ? `judge:${judge.name}` : 'reference-token-f1', per_turn: perTurn.map(round) },
      reasoning: { tokenizer: counter.name, per_message: perMessage },
      truncated: ep.truncated ?? null,
    },
  };
}
