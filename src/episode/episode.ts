import type { Harness } from '../harness/types.js';
import { canonicalJson } from '../util/canonical-json.js';
import { schemaErrors } from '../util/json-schema.js';
import { getPath } from '../util/path.js';
import { callKey } from './call-key.js';
import { feedbackMessage, newTurn, preInference, stopHooks, toolHooks, toolRoundLimit, type HookFailure, type TurnState } from './hooks.js';
import { BAD_JSON, type PolicyCall, type PolicyMessage } from './message.js';
import { DEFAULT_EPISODE_OPTIONS, fixedRoundLimit, type EpisodeOptions } from './options.js';
import type { EpisodeRow } from './row.js';
import { splitReasoning, type TokenCounter } from './tokens.js';

/**
 * The episode of an RL row, shared by the RL environment, `hsa reward` and `hsa eval`: one session
 * state built from the row alone, advanced one policy message at a time. It follows the rules of a
 * teacher-mode episode (replay-episode.ts) with the same hook checks and call key, with one
 * difference that belongs to an environment: the policy's mistakes never end the episode — they
 * are answered (a tool error, hook feedback) and scored (docs/env.md describes both).
 *
 * - A tool call is answered from the row's replay table (`extra_info.env.tool_replay`, new names):
 *   matched by name and canonical arguments to an unused recorded call. A call already answered
 *   gets the same result again and counts as a repeat; an unknown tool, arguments that fail the
 *   tool's schema (or a `pre_tool_use` hook), or a valid call with no recorded result get a tool
 *   error. Every call gets exactly one tool message, so any chat template accepts the history.
 * - A final reply runs the `stop` hooks: a failed gate puts its feedback on the hook's channel and
 *   the turn goes on, up to the hook's `maxRounds`; then the next user turn, or the end.
 * - A tool round beyond `max_tool_rounds` is not run: its calls are answered "not run", the hook's
 *   feedback goes in and the policy must reply (calls made while a reply is forced are not run).
 * - Past `maxRoundsPerTurn` policy messages in one user turn the episode is cut off (`step_limit`).
 */

export type CallOutcome = 'ok' | 'repeat' | 'unknown_tool' | 'bad_json' | 'invalid_args' | 'blocked' | 'no_record' | 'not_run';

export interface CallRecord {
  turn: number;
  name: string;
  /** Canonical JSON of the parsed arguments (the text as sent when it is not JSON). */
  args: string;
  outcome: CallOutcome;
  /** The hook that blocked or answered it, if one did. */
  hook?: string;
}

export interface ModelMessageRecord {
  turn: number;
  kind: 'tool_calls' | 'reply';
  reasoning: string;
}

export interface TurnRecord {
  user: string;
  /** The reply that ended the turn (the last one given when the turn was cut off). */
  reply: string | null;
  /** Stop-gate failures answered with feedback in this turn. */
  feedbackRounds: number;
  /** The turn's reply was forced by a tool-round limit (not by a hook on the viewer's message). */
  forced: boolean;
  /** Tool calls made while a reply was forced. */
  forcedViolations: number;
  /** A `stop` gate still failed after its last round (the reply was taken as it was). */
  exhausted: boolean;
  /** Tool calls blocked by a `pre_tool_use` hook other than schema validation. */
  blocked: number;
  /** `pre_inference` / `post_tool_use` feedback messages injected. */
  otherFeedback: number;
  ended: boolean;
}

/** What the environment answers to one policy message. */
export interface StepResult {
  /** The messages the environment adds (tool results, hook feedback, the next user turn). */
  messages: Record<string, unknown>[];
  done: boolean;
  /** The next model call must be a reply (a hook forced it): `tool_choice: none`. */
  forceReply: boolean;
  /** Why the episode ended early (`step_limit`), if it did. */
  truncated?: string;
}

type Msg = Record<string, unknown>;

/** The row's tools and hooks in the shape the hook checks take (nothing else of a harness is needed). */
function harnessOfRow(row: EpisodeRow): Harness {
  return {
    name: row.dataSource,
    version: '',
    sections: [],
    pinned: [],
    unordered: [],
    separator: '\n\n',
    catalog: { id: 'skills', title: '' },
    variables: {},
    skillNaming: 'identifier',
    skillLoader: row.skillLoader,
    skills: [],
    tools: row.hookTools,
    hooks: row.hooks,
    hookMessages: { namePrefix: row.hookPrefix },
    promptStyle: null,
  };
}

/** What every episode of a row derives from it alone, built once per (read-only, shared) row. */
export interface RowRuntime {
  harness: Harness;
  toolNames: Set<string>;
  /** Recorded results by call key (name and canonical arguments), in recorded order. */
  replay: Map<string, string[]>;
  /** The expected calls' keys, in order. */
  expectedKeys: string[];
}

const runtimes = new WeakMap<EpisodeRow, RowRuntime>();

/** The row's runtime (see RowRuntime); sessions of one row share it, as they share the row. */
export function rowRuntime(row: EpisodeRow): RowRuntime {
  let rt = runtimes.get(row);
  if (rt) return rt;
  const replay = new Map<string, string[]>();
  for (const r of row.replay) {
    const key = callKey(r.name, canonicalJson(r.arguments));
    const list = replay.get(key);
    if (list) list.push(r.result);
    else replay.set(key, [r.result]);
  }
  rt = { harness: harnessOfRow(row), toolNames: new Set(row.tools.map((t) => t.function.name)), replay, expectedKeys: row.truth.expectedCalls.map((e) => callKey(e.name, canonicalJson(e.arguments))) };
  runtimes.set(row, rt);
  return rt;
}

export class Episode {
  readonly row: EpisodeRow;
  readonly options: EpisodeOptions;
  /** The whole conversation so far, prompt included. */
  readonly messages: Msg[];
  readonly calls: CallRecord[] = [];
  readonly modelMessages: ModelMessageRecord[] = [];
  readonly turns: TurnRecord[] = [];
  /** Skills loaded through the row's loader (calls answered ok or repeated), in order. */
  readonly loadedSkills: string[] = [];
  done = false;
  truncated: string | undefined;
  private readonly harness: Harness;
  private readonly runtime: RowRuntime;
  /** Recorded results answered so far, by call key (they are used in recorded order). */
  private readonly used = new Map<string, number>();
  private turn!: TurnState;
  private turnIndex = -1;
  private steps = 0;
  private forceReply = false;
  /** The reply is forced because the policy ran into a tool-round limit. */
  private limitForced = false;
  private hookRounds = new Map<string, number>();
  /** Reasoning tokens of the model messages counted so far, and the counter that counted them. */
  private reasoningCounts: number[] = [];
  private countedWith: TokenCounter | undefined;

  constructor(row: EpisodeRow, options: EpisodeOptions = DEFAULT_EPISODE_OPTIONS) {
    this.row = row;
    this.options = options;
    this.runtime = rowRuntime(row);
    this.harness = this.runtime.harness;
    this.messages = row.prompt.map((m) => ({ ...m }));
    const firstUser = row.userTurns[0];
    if (firstUser === undefined) {
      this.done = true;
      return;
    }
    this.startTurn(firstUser);
    // pre_inference feedback for the first model call follows the prompt.
    this.messages.push(...this.beforeModelCall());
  }

  /** The messages the policy starts from (the prompt, plus any pre-inference feedback). */
  get initialMessages(): Msg[] {
    return this.messages.slice();
  }

  get forcedReply(): boolean {
    return this.forceReply;
  }

  /**
   * The reasoning tokens of every model message so far, each message counted once: the server
   * counts a message when it arrives, so the reward at the end counts only the last one.
   */
  reasoningTokens(counter: TokenCounter): readonly number[] {
    if (this.countedWith !== counter) {
      this.countedWith = counter;
      this.reasoningCounts = [];
    }
    for (let i = this.reasoningCounts.length; i < this.modelMessages.length; i++) this.reasoningCounts.push(counter.count(this.modelMessages[i]!.reasoning));
    return this.reasoningCounts;
  }

  /** Apply one policy message; the episode must not be done. */
  step(m: PolicyMessage): StepResult {
    if (this.done) throw new Error('episode is done');
    const out: Msg[] = [];
    const { reasoning, text } = splitReasoning(m.content, m.reasoningField);
    const turn = this.turns[this.turnIndex]!;
    this.steps++;
    this.messages.push(m.raw);
    if (m.calls.length > 0) {
      this.modelMessages.push({ turn: this.turnIndex, kind: 'tool_calls', reasoning });
      const limit = this.forceReply ? undefined : toolRoundLimit(this.harness, this.turn)[0];
      if (this.forceReply || limit) {
        // The round is not run: every call is answered, then the hook's feedback (once).
        const why = limit ? `not run: ${limit.hook.id} limits tool rounds for this turn; reply now` : 'not run: reply now, without calling tools';
        for (const c of m.calls) {
          out.push({ role: 'tool', tool_call_id: c.id, content: why });
          this.calls.push({ turn: this.turnIndex, name: c.name, args: c.args === BAD_JSON ? c.argumentsText : canonicalJson(c.args), outcome: 'not_run' });
        }
        if (this.forceReply) turn.forcedViolations += m.calls.length;
        if (limit) {
          out.push(this.feedbackMessage(limit));
          this.limitForced = true;
        }
        this.forceReply = true;
      } else {
        this.turn.toolRounds++;
        for (const c of m.calls) out.push(...this.runCall(c));
      }
    } else {
      this.modelMessages.push({ turn: this.turnIndex, kind: 'reply', reasoning });
      turn.reply = text;
      if (this.limitForced) turn.forced = true;
      const failure = stopHooks(this.harness, text, this.turn)[0];
      let ends = true;
      if (failure) {
        const n = (this.hookRounds.get(failure.hook.id) ?? 0) + 1;
        this.hookRounds.set(failure.hook.id, n);
        if (n > failure.hook.maxRounds) turn.exhausted = true;
        else {
          turn.feedbackRounds++;
          out.push(this.feedbackMessage(failure));
          ends = false;
        }
      }
      if (ends) {
        turn.ended = true;
        const next = this.row.userTurns[this.turnIndex + 1];
        if (next === undefined) {
          this.done = true;
          this.messages.push(...out);
          return { messages: out, done: true, forceReply: false };
        }
        this.startTurn(next);
        out.push({ role: 'user', content: next });
      }
    }
    if (this.steps >= fixedRoundLimit(this.options)) {
      this.done = true;
      this.truncated = 'step_limit';
      this.messages.push(...out);
      return { messages: out, done: true, forceReply: false, truncated: 'step_limit' };
    }
    out.push(...this.beforeModelCall());
    this.messages.push(...out);
    return { messages: out, done: false, forceReply: this.forceReply };
  }

  private startTurn(user: string): void {
    this.turnIndex++;
    this.turn = newTurn(user, this.row.intent);
    this.turns.push({ user, reply: null, feedbackRounds: 0, forced: false, forcedViolations: 0, exhausted: false, blocked: 0, otherFeedback: 0, ended: false });
    this.steps = 0;
    this.forceReply = false;
    this.limitForced = false;
    this.hookRounds = new Map();
  }

  private beforeModelCall(): Msg[] {
    const out: Msg[] = [];
    for (const f of preInference(this.harness, this.turn)) {
      if (!this.forceReply) {
        out.push(this.feedbackMessage(f));
        this.turns[this.turnIndex]!.otherFeedback++;
      }
      // `reject` cannot end a policy's episode here: like `force_reply`, the policy must answer.
      if (f.hook.action !== 'retry') this.forceReply = true;
    }
    return out;
  }

  private runCall(c: PolicyCall): Msg[] {
    const args = c.args === BAD_JSON ? c.argumentsText : canonicalJson(c.args);
    const record = (outcome: CallOutcome, hook?: string): void => {
      this.calls.push({ turn: this.turnIndex, name: c.name, args, outcome, ...(hook ? { hook } : {}) });
    };
    const tool = (content: string): Msg => ({ role: 'tool', tool_call_id: c.id, content });
    if (!this.runtime.toolNames.has(c.name)) {
      record('unknown_tool');
      return [tool(`Error: there is no tool named "${c.name}". Call one of the tools you were given.`)];
    }
    if (c.args === BAD_JSON) {
      record('bad_json');
      return [tool(`Error: the arguments of ${c.name} are not valid JSON.`)];
    }
    const turn = this.turns[this.turnIndex]!;
    const blocking = toolHooks(this.harness, 'pre_tool_use', c.name, c.args, c.argumentsText, this.turn).find((f) => f.hook.action === 'reject' || f.hook.action === 'retry');
    const schema = this.row.hookTools.find((t) => t.name === c.name)?.parameters;
    const invalid = schema ? schemaErrors(schema, c.args) : [];
    if (invalid.length) {
      record('invalid_args', blocking?.hook.id);
      return [tool(blocking ? blocking.feedback : `Error: the arguments of ${c.name} do not match its schema (${invalid.join('; ')}).`)];
    }
    if (blocking) {
      record('blocked', blocking.hook.id);
      turn.blocked++;
      return [tool(blocking.feedback)];
    }
    const key = callKey(c.name, args);
    const hits = this.runtime.replay.get(key);
    if (!hits) {
      record('no_record');
      return [tool(`Error: ${c.name} returned nothing for these arguments.`)];
    }
    // The first unused recorded result, or (a repeat) the first one again.
    const n = this.used.get(key) ?? 0;
    const fresh = n < hits.length;
    const result = fresh ? hits[n]! : hits[0]!;
    if (fresh) this.used.set(key, n + 1);
    record(fresh ? 'ok' : 'repeat');
    this.turn.called.push(c.name);
    const loader = this.row.skillLoader;
    if (loader && c.name === loader.tool) {
      const skill = getPath(c.args, loader.argument);
      if (typeof skill === 'string') this.loadedSkills.push(skill);
    }
    const out: Msg[] = [tool(result)];
    for (const f of toolHooks(this.harness, 'post_tool_use', c.name, c.args, c.argumentsText, this.turn)) {
      out.push(this.feedbackMessage(f));
      turn.otherFeedback++;
    }
    return out;
  }

  private feedbackMessage(f: HookFailure): Msg {
    return feedbackMessage(f, this.row.hookPrefix);
  }
}
