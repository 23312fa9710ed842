import { HsaError } from '../errors.js';
import { canonicalJson } from '../util/canonical-json.js';
import { TeacherCache } from './cache.js';
import { EndpointClient, requestBody, type EndpointSettings } from './client.js';
import { TeacherRequestError, type TeacherCounters } from './errors.js';
import type { Rubric } from './judge-schema.js';

export type { Rubric } from './judge-schema.js';

/** What the judge grounds a verdict in: the viewer's message, the evidence, the reference and the reply. */
export interface JudgeCase {
  user: string;
  reply: string;
  reference: string;
  evidence: string[];
}

export interface Verdict {
  /** The weighted mean of the criteria, each scaled to [0, 1]. */
  score: number;
  /** The aggregated level of each criterion. */
  criteria: Record<string, number>;
  /** Every vote's reason, in vote order. */
  reasons: string[];
}

/** The judge's answer could not be read (no JSON, a criterion missing or off its scale) in any vote. */
export class JudgeAnswerError extends TeacherRequestError {
  constructor(message: string) {
    super(message, 'unusable');
    this.name = 'JudgeAnswerError';
  }
}

/** A labels file that does not fit the set or the rubric. */
export class LabelsError extends HsaError {
  constructor(message: string) {
    super('HSA_BAD_RECORD', message, 1);
    this.name = 'LabelsError';
  }
}

export interface JudgeSettings {
  endpoint: EndpointSettings;
  rubric: Rubric;
  votes: number;
  aggregate: 'majority' | 'mean';
  evidence: 'tool_results' | 'none';
}

function systemPrompt(r: Rubric): string {
  const criteria = r.criteria.map((c) => {
    const levels = Object.entries(c.scale.levels)
      .sort((a, b) => Number(a[0]) - Number(b[0]))
      .map(([k, v]) => `  ${k}: ${v}`)
      .join('\n');
    return `- ${c.id} (integer ${c.scale.min}..${c.scale.max}): ${c.description}\n${levels}`;
  });
  return [
    `You are a strict grader of an assistant's reply (rubric "${r.name}").`,
    r.instructions ?? 'Judge only the reply. Claims must be grounded in the evidence; the reference reply is one good answer, not the only one.',
    'Criteria:',
    ...criteria,
    `Answer with JSON only: {"scores": {${r.criteria.map((c) => `"${c.id}": <integer>`).join(', ')}}, "reason": "<one sentence>"}`,
  ].join('\n');
}

function userPrompt(c: JudgeCase, withEvidence: boolean): string {
  const parts = [`Viewer message:\n${c.user}`];
  if (withEvidence)
    parts.push(
      `Evidence (tool results the reply must be grounded in):\n${c.evidence.length ? c.evidence.map((e, i) => `[${i + 1}] ${e}`).join('\n') : '(none)'}`,
    );
  parts.push(`Reference reply:\n${c.reference}`, `Reply to grade:\n${c.reply}`);
  return parts.join('\n\n');
}

function readVote(content: string | null, r: Rubric): { scores: Record<string, number>; reason: string } | string {
  const text = content ?? '';
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end < start) return 'no JSON object in the answer';
  let v: unknown;
  try {
    v = JSON.parse(text.slice(start, end + 1));
  } catch {
    return 'the answer is not valid JSON';
  }
  const o = v as { scores?: Record<string, unknown>; reason?: unknown };
  const scores: Record<string, number> = {};
  for (const c of r.criteria) {
    const s = o.scores?.[c.id];
    if (typeof s !== 'number' || !Number.isInteger(s) || s < c.scale.min || s > c.scale.max)
      return `scores.${c.id}: expected an integer ${c.scale.min}..${c.scale.max}`;
    scores[c.id] = s;
  }
  return { scores, reason: typeof o.reason === 'string' ? o.reason : '' };
}

/** The level most votes gave; a tie goes to the lower median of the votes (a cautious verdict). */
function majority(xs: number[]): number {
  const counts = new Map<number, number>();
  for (const x of xs) counts.set(x, (counts.get(x) ?? 0) + 1);
  const top = Math.max(...counts.values());
  const modes = [...counts.entries()].filter(([, n]) => n === top).map(([x]) => x);
  if (modes.length === 1) return modes[0]!;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

/**
 * A rubric judge behind an OpenAI-compatible endpoint, through the endpoint client (cache,
 * retries, rate limits): k votes, each sent as its own sample (seed + vote index, part of the cache
 * key), read as JSON scores per criterion, aggregated by majority or mean, scaled to [0, 1] and
 * weighted. A vote that cannot be read is dropped; when none can, the case fails.
 */
export class RubricJudge {
  private readonly client: EndpointClient;
  private readonly system: string;

  constructor(
    readonly settings: JudgeSettings,
    cacheDir: string,
    counters: TeacherCounters,
    requireCache = false,
    /** Where its key is set (`judge.api_key_env` in a judge, reward or eval config; `teacher.judge.api_key_env` in hsa.yaml). */
    keySetting = 'judge.api_key_env',
  ) {
    this.client = new EndpointClient(settings.endpoint, new TeacherCache(cacheDir), { requireCache, counters, who: 'the judge', keySetting, keyFlag: null });
    this.system = systemPrompt(settings.rubric);
  }

  async judge(c: JudgeCase): Promise<Verdict> {
    const s = this.settings;
    const messages = [
      { role: 'system' as const, content: this.system },
      { role: 'user' as const, content: userPrompt(c, s.evidence === 'tool_results') },
    ];
    const votes = await Promise.all(
      Array.from({ length: s.votes }, (_, k) =>
        this.client.complete(requestBody(s.endpoint, { model: s.endpoint.model, messages }, k), k).then((r) => readVote(r.content, s.rubric)),
      ),
    );
    const good = votes.filter((v): v is Exclude<typeof v, string> => typeof v !== 'string');
    if (good.length === 0) throw new JudgeAnswerError(`judge ${s.endpoint.model}: no usable vote (${[...new Set(votes as string[])].join('; ')})`);
    const criteria: Record<string, number> = {};
    let sum = 0;
    let weights = 0;
    for (const cr of s.rubric.criteria) {
      const xs = good.map((v) => v.scores[cr.id]!);
      const level = s.aggregate === 'mean' ? xs.reduce((a, b) => a + b, 0) / xs.length : majority(xs);
      criteria[cr.id] = Math.round(level * 1e4) / 1e4;
      const w = cr.weight ?? 1;
      sum += w * ((level - cr.scale.min) / (cr.scale.max - cr.scale.min));
      weights += w;
    }
    return { score: Math.round((sum / weights) * 1e6) / 1e6, criteria, reasons: good.map((v) => v.reason) };
  }

  settle(): Promise<void> {
    return this.client.settle();
  }
}

/** What evidenceOf reads of an episode row (src/episode/row.ts): the reference's calls and the replay table. */
export interface EvidenceRow {
  replay: readonly { name: string; arguments: unknown; result: string }[];
  truth: { expectedCalls: readonly JudgedCall[]; turns: readonly { calls: readonly JudgedCall[] }[] };
}

interface JudgedCall {
  name: string;
  arguments: unknown;
}

/** One reply to score (the reward module's JudgeInput, the fields a rubric judge reads). */
export interface ReplyInput {
  rowId: string;
  turn: number;
  user: string;
  reply: string;
  reference: string;
}

/** The reward module's reply judge (src/episode/reward.ts ReplyJudge), structurally. */
export interface ReplyScorer {
  readonly name: string;
  score(input: ReplyInput): Promise<number>;
}

/**
 * The evidence of a turn: the recorded results of the calls the reference made in that turn (what
 * a good reply is grounded in, whether or not the policy made the calls itself).
 */
export function evidenceOf(row: EvidenceRow, turn: number): string[] {
  const calls = row.truth.turns[turn]?.calls ?? (turn === 0 ? row.truth.expectedCalls : []);
  const out: string[] = [];
  const used = new Set<number>();
  for (const c of calls) {
    const key = canonicalJson(c.arguments);
    const i = row.replay.findIndex((r, j) => !used.has(j) && r.name === c.name && canonicalJson(r.arguments) === key);
    if (i < 0) continue;
    used.add(i);
    out.push(`${c.name}: ${row.replay[i]!.result}`);
  }
  return out;
}

/** The reward module's reply judge, backed by a rubric judge; rows are looked up by id for their evidence. */
export function replyJudge(judge: RubricJudge, rowOf: (id: string) => EvidenceRow | undefined): ReplyScorer {
  return {
    name: `${judge.settings.endpoint.model}/${judge.settings.rubric.name}/k${judge.settings.votes}-${judge.settings.aggregate}`,
    async score(input: ReplyInput): Promise<number> {
      const row = rowOf(input.rowId);
      const v = await judge.judge({ user: input.user, reply: input.reply, reference: input.reference, evidence: row ? evidenceOf(row, input.turn) : [] });
      return v.score;
    },
  };
}

/** The turns of a conversation: each viewer message, the final reply to it and the tool results in between. */
function turnsOf(
  messages: readonly { role: string; name?: string; content?: unknown; tool_calls?: unknown }[],
  hookPrefix: string,
): { user: string; reply: string; evidence: string[] }[] {
  const out: { user: string; reply: string; evidence: string[] }[] = [];
  const text = (c: unknown) =>
    typeof c === 'string'
      ? c
      : Array.isArray(c)
        ? c.map((p) => (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join('')
        : '';
  for (const m of messages) {
    if (m.role === 'user' && !(typeof m.name === 'string' && m.name.startsWith(hookPrefix)) && m.name !== 'harness:preamble')
      out.push({ user: text(m.content), reply: '', evidence: [] });
    const t = out[out.length - 1];
    if (!t) continue;
    if (m.role === 'tool') t.evidence.push(text(m.content));
    else if (m.role === 'assistant' && !(Array.isArray(m.tool_calls) && m.tool_calls.length)) t.reply = text(m.content);
  }
  return out;
}

/**
 * The acceptance check of `augment --teacher openai|replay` with `teacher.judge`: every turn's
 * final reply is judged (the evidence: the tool results of that turn; the reference: the source's
 * reply to the same turn) and the trajectory is refused when the mean score is below `minScore`,
 * with the judge's reasons. An unusable judge answer refuses it too (another sample may pass).
 */
export function teacherAcceptance(judge: RubricJudge, minScore: number, hookPrefix: (t: { messages: unknown[] }) => string = () => 'hook:') {
  return async (trajectory: { messages: unknown[] }, source: { messages: unknown[] }): Promise<string | null> => {
    type M = Parameters<typeof turnsOf>[0][number];
    const turns = turnsOf(trajectory.messages as M[], hookPrefix(trajectory));
    const reference = turnsOf(source.messages as M[], hookPrefix(source));
    if (turns.length === 0) return null;
    try {
      const verdicts = await Promise.all(
        turns.map((t, i) =>
          judge.judge({
            user: t.user,
            reply: t.reply,
            reference: reference[i]?.reply ?? '',
            evidence: judge.settings.evidence === 'tool_results' ? t.evidence : [],
          }),
        ),
      );
      await judge.settle();
      const mean = verdicts.reduce((a, v) => a + v.score, 0) / verdicts.length;
      if (mean >= minScore) return null;
      const why = verdicts
        .map((v, i) => `turn ${i}: ${v.score.toFixed(3)} ${canonicalJson(v.criteria)}${v.reasons.length ? ` (${v.reasons.join(' | ')})` : ''}`)
        .join('; ');
      return `judge ${judge.settings.endpoint.model}: score ${mean.toFixed(3)} < min_score ${minScore}: ${why}`;
    } catch (e) {
      if (e instanceof TeacherRequestError) return `judge ${judge.settings.endpoint.model}: ${e.message}`;
      throw e;
    }
  };
}
