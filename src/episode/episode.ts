import { canonicalJson } from '../util/canonical-json.js';
import { schemaErrors } from '../util/json-schema.js';
import { getPath } from '../util/path.js';
import { runCommandHooks, type CommandHookInput } from './command-hooks.js';
import { feedbackMessage, newTurn, preInference, stopHooks, toolHooks, toolRoundLimit, type HookFailure, type TurnState } from './hooks.js';
import { BAD_JSON, type PolicyCall, type PolicyMessage } from './message.js';
import { DEFAULT_EPISODE_OPTIONS, type EpisodeOptions } from './options.js';
import { EpisodeRejected, type CallFailureKind } from './reject-kinds.js';
import type { EpisodeRow } from './row.js';
import { ENVIRONMENT_RULES, type EpisodeRules } from './rules.js';
import { splitReasoning, type TokenCounter } from './tokens.js';
import { rowWorld, type EpisodeWorld, type Msg } from './world.js';

/**
 * The one episode core, advanced one model message at a time (docs/env.md, "What an episode
 * does"). The environment server, `hsa reward` and `hsa eval` feed it a policy's messages under
 * ENVIRONMENT_RULES; teacher mode (src/teacher/runtime.ts) feeds it a teacher's under TEACHER_RULES.
 *
 * - A tool call is answered from the world's recorded calls, matched by name and canonical
 *   arguments; `pre_tool_use` hooks run first (one that blocks answers the call with its feedback),
 *   `post_tool_use` feedback follows. Every kept call gets exactly one tool message.
 * - A final reply runs the `stop` hooks: a failed gate puts its feedback on the hook's channel and
 *   the turn goes on, up to the hook's `maxRounds`; then the next user turn, or the end.
 * - A tool round beyond `max_tool_rounds` is not run: the hook's feedback goes in and the model
 *   must reply.
 * - The rules decide what a mistake does (rules.ts): answered and scored, or retried / rejected.
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

/** What the episode answers to one model message. */
export interface StepResult {
  /** The messages the episode adds (tool results, hook feedback, the next user turn). */
  messages: Msg[];
  done: boolean;
  /** The next model call must be a reply (a hook forced it): `tool_choice: none`. */
  forceReply: boolean;
  /** Why the episode ended early (`step_limit`), if it did. */
  truncated?: string;
}

/** A step's work: yields command-hook runs (rules.commandHooks), returns what it produced. */
type Work<T> = Generator<Promise<HookFailure[]>, T, HookFailure[]>;

export class Episode {
  readonly world: EpisodeWorld;
  readonly options: EpisodeOptions;
  readonly rules: EpisodeRules;
  /** The whole conversation so far, prompt included (a retried answer is not in it). */
  readonly messages: Msg[];
  readonly calls: CallRecord[] = [];
  readonly modelMessages: ModelMessageRecord[] = [];
  readonly turns: TurnRecord[] = [];
  /** Skills loaded through the world's loader (calls answered ok or repeated), in order. */
  readonly loadedSkills: string[] = [];
  /** Per-call retries by the failed call's kind (rules.invalidCall `retry`). */
  readonly callRetries: Partial<Record<CallFailureKind, number>> = {};
  done = false;
  truncated: string | undefined;
  /** A failed answer and its tool errors: sent with the retry, never kept (rules.invalidCall `retry`). */
  private pending: Msg[] = [];
  /** Per-call retries made at the current step. */
  private retry = 0;
  private readonly rlRow: EpisodeRow | undefined;
  private turn!: TurnState;
  private turnIndex = -1;
  /** Model messages taken in this turn (a retried answer is not one). */
  private steps = 0;
  private forceReply = false;
  /** The reply is forced because the model ran into a tool-round limit. */
  private limitForced = false;
  private hookRounds = new Map<string, number>();
  private callRetriesLeft: number;
  private opened = false;
  /** Reasoning tokens of the model messages counted so far, and the counter that counted them. */
  private reasoningCounts: number[] = [];
  private countedWith: TokenCounter | undefined;

  /**
   * An episode of an RL row (the environment), or of a world under rules. Under rules without
   * command hooks it opens here; otherwise call `begin()` first.
   */
  constructor(from: EpisodeRow | EpisodeWorld, options: EpisodeOptions = DEFAULT_EPISODE_OPTIONS, rules: EpisodeRules = ENVIRONMENT_RULES) {
    const world = 'answer' in from ? from : rowWorld(from, options);
    this.rlRow = 'row' in world ? (world.row as EpisodeRow) : undefined;
    this.world = world;
    this.options = options;
    this.rules = rules;
    this.callRetriesLeft = Math.max(0, options.maxCallRetries ?? 0);
    this.messages = world.prompt.slice();
    const firstUser = world.userTurns[0];
    if (firstUser === undefined) {
      this.done = true;
      this.opened = true;
      return;
    }
    this.startTurn(firstUser);
    if (!rules.commandHooks) this.openSync();
  }

  /** The RL row the episode plays (environment episodes only). */
  get row(): EpisodeRow {
    if (!this.rlRow) throw new Error('this episode has no RL row');
    return this.rlRow;
  }

  /** Open the episode: the turn limit, then `pre_inference` feedback for the first model call. */
  async begin(): Promise<void> {
    if (this.opened) return;
    this.opened = true;
    await drive(this.open());
  }

  private openSync(): void {
    this.opened = true;
    driveSync(this.open());
  }

  /** The messages the policy starts from (the prompt, plus any pre-inference feedback). */
  get initialMessages(): Msg[] {
    return this.messages.slice();
  }

  get forcedReply(): boolean {
    return this.forceReply;
  }

  /** Where the next model call stands: the user turn, the model messages taken in it, the per-call retries made at it. */
  get position(): { turn: number; attempt: number; retry: number } {
    return { turn: this.turnIndex, attempt: this.steps, retry: this.retry };
  }

  /** What the next model call is sent: the conversation, with a retried answer and its errors. */
  get conversation(): Msg[] {
    return [...this.messages, ...this.pending];
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

  /** Apply one model message; the episode must not be done (rules without command hooks). */
  step(m: PolicyMessage): StepResult {
    return driveSync(this.run(m));
  }

  /** Apply one model message, running command hooks if the rules do; may throw EpisodeRejected. */
  stepAsync(m: PolicyMessage): Promise<StepResult> {
    return drive(this.run(m));
  }

  private *run(m: PolicyMessage): Work<StepResult> {
    if (this.done) throw new Error('episode is done');
    const rules = this.rules;
    const out: Msg[] = [];
    // Everything goes into the conversation as it happens: a rejected attempt keeps what came before.
    const emit = (x: Msg): void => {
      this.messages.push(x);
      out.push(x);
    };
    const { reasoning, text } = splitReasoning(m.content, m.reasoningField);
    const turn = this.turns[this.turnIndex]!;
    if (m.calls.length > 0) {
      if (this.forceReply && rules.toolWhileForced === 'reject')
        throw new EpisodeRejected('teacher_tool_after_forced_reply', `turn ${this.turnIndex + 1}: tool call after a hook forced a reply`);
      if (rules.invalidCall === 'retry' && this.retried(m)) return { messages: [], done: false, forceReply: this.forceReply };
      this.pending = [];
      this.retry = 0;
      this.steps++;
      this.modelMessages.push({ turn: this.turnIndex, kind: 'tool_calls', reasoning });
      const limit = this.forceReply ? undefined : toolRoundLimit(this.world.harness, this.turn)[0];
      if (limit && limit.hook.action === 'reject' && rules.rejectHook === 'reject')
        throw new EpisodeRejected('teacher_hook_rejected', `hook ${limit.hook.id} rejected the turn: ${limit.reason}`);
      if (!(limit && rules.overLimitRound === 'drop')) this.messages.push(m.raw);
      if (this.forceReply || limit) {
        // The round is not run: its calls are answered `not run` (or the message dropped), then the hook's feedback (once).
        if (rules.overLimitRound === 'not_run') {
          const why = limit ? `not run: ${limit.hook.id} limits tool rounds for this turn; reply now` : 'not run: reply now, without calling tools';
          for (const c of m.calls) {
            emit({ role: 'tool', tool_call_id: c.id, content: why });
            this.calls.push({ turn: this.turnIndex, name: c.name, args: c.args === BAD_JSON ? c.argumentsText : canonicalJson(c.args), outcome: 'not_run' });
          }
        }
        if (this.forceReply) turn.forcedViolations += m.calls.length;
        if (limit) {
          emit(this.feedbackMessage(limit));
          this.limitForced = true;
        }
        this.forceReply = true;
      } else {
        this.turn.toolRounds++;
        for (const c of m.calls) yield* this.runCall(c, emit);
      }
    } else {
      this.pending = [];
      this.retry = 0;
      this.steps++;
      this.messages.push(m.raw);
      this.modelMessages.push({ turn: this.turnIndex, kind: 'reply', reasoning });
      const reply = rules.replyText === 'split' ? text : m.content;
      turn.reply = reply;
      if (this.limitForced) turn.forced = true;
      const failures = stopHooks(this.world.harness, reply, this.turn);
      if (failures.length === 0) failures.push(...(yield* this.commandHooks('stop', { prompt: this.turn.user, last_reply: reply })));
      const failure = failures[0];
      let ends = true;
      if (failure) {
        if (failure.hook.action === 'reject' && rules.rejectHook === 'reject')
          throw new EpisodeRejected('teacher_hook_rejected', `hook ${failure.hook.id} rejected the reply: ${failure.reason}`);
        const n = (this.hookRounds.get(failure.hook.id) ?? 0) + 1;
        this.hookRounds.set(failure.hook.id, n);
        if (n > failure.hook.maxRounds) {
          if (rules.exhaustedGate === 'reject')
            throw new EpisodeRejected('teacher_hook_failed', `${failure.hook.id} failed after ${failure.hook.maxRounds} rounds: ${failure.reason}`);
          turn.exhausted = true;
        } else {
          turn.feedbackRounds++;
          emit(this.feedbackMessage(failure));
          ends = false;
        }
      }
      if (ends) {
        turn.ended = true;
        const next = this.world.userTurns[this.turnIndex + 1];
        if (next === undefined) {
          this.done = true;
          return { messages: out, done: true, forceReply: false };
        }
        this.startTurn(next);
        emit(this.world.userMessage(this.turnIndex));
      }
    }
    if (this.steps >= this.world.roundLimit(this.turnIndex)) {
      this.checkTurnLimit();
      this.done = true;
      this.truncated = 'step_limit';
      return { messages: out, done: true, forceReply: false, truncated: 'step_limit' };
    }
    yield* this.beforeModelCall(emit);
    return { messages: out, done: false, forceReply: this.forceReply };
  }

  /** Under rules.turnLimit `reject`: fail when the turn has no model call left. */
  private checkTurnLimit(): void {
    const max = this.world.roundLimit(this.turnIndex);
    if (this.rules.turnLimit === 'reject' && this.steps >= max)
      throw new EpisodeRejected('teacher_max_rounds', `turn ${this.turnIndex + 1}: no final reply after ${this.steps} model calls (max_rounds ${max})`);
  }

  /**
   * rules.invalidCall `retry`: when a call of the answer is invalid, the answer and a tool error per
   * call go into `pending` and the model is asked again at the same step (true), or, with no retry
   * left, the attempt fails.
   */
  private retried(m: PolicyMessage): boolean {
    const problems = m.calls.map((c) => this.world.callProblem(c));
    const first = problems.find((p) => p !== undefined);
    if (!first) return false;
    if (this.callRetriesLeft === 0) {
      const retried = Math.max(0, this.options.maxCallRetries ?? 0);
      throw new EpisodeRejected(
        first.kind,
        `turn ${this.turnIndex + 1}: ${first.detail}${retried ? ` (after ${retried} ${retried === 1 ? 'retry' : 'retries'})` : ''}`,
      );
    }
    this.callRetriesLeft--;
    this.callRetries[first.kind] = (this.callRetries[first.kind] ?? 0) + 1;
    // Arguments that are not JSON go back as `{}` (servers that parse the history, such as vLLM's
    // chat templates, refuse them); the error quotes what was sent.
    const sent = (m.raw.tool_calls as { function: object }[]).map((c, i) =>
      problems[i]?.notJson ? { ...c, function: { ...c.function, arguments: '{}' } } : c,
    );
    this.pending.push({ ...m.raw, tool_calls: sent });
    m.calls.forEach((c, i) =>
      this.pending.push({
        role: 'tool',
        tool_call_id: c.id,
        content: problems[i] ? `error: ${problems[i].error}` : 'error: not run, because another call in the same message was invalid; send the calls again',
      }),
    );
    this.retry++;
    return true;
  }

  private startTurn(user: string): void {
    this.turnIndex++;
    this.turn = newTurn(user, this.world.intent);
    this.turns.push({ user, reply: null, feedbackRounds: 0, forced: false, forcedViolations: 0, exhausted: false, blocked: 0, otherFeedback: 0, ended: false });
    this.steps = 0;
    this.forceReply = false;
    this.limitForced = false;
    this.hookRounds = new Map();
  }

  private *open(): Work<void> {
    this.checkTurnLimit();
    yield* this.beforeModelCall((x) => this.messages.push(x));
  }

  /** `pre_inference` feedback before a model call (command hooks before a turn's first call). */
  private *beforeModelCall(emit: (x: Msg) => void): Work<void> {
    const pre = preInference(this.world.harness, this.turn);
    if (this.steps === 0) pre.push(...(yield* this.commandHooks('pre_inference', { prompt: this.turn.user })));
    for (const f of pre) {
      if (f.hook.action === 'reject' && this.rules.rejectHook === 'reject')
        throw new EpisodeRejected('teacher_hook_rejected', `hook ${f.hook.id} rejected the turn: ${f.reason}`);
      if (!this.forceReply) {
        emit(this.feedbackMessage(f));
        this.turns[this.turnIndex]!.otherFeedback++;
      }
      // Under rules.rejectHook `force_reply`, `reject` cannot end the episode: the model must answer.
      if (f.hook.action !== 'retry') this.forceReply = true;
    }
  }

  private *runCall(c: PolicyCall, emit: (x: Msg) => void): Work<void> {
    const args = c.args === BAD_JSON ? c.argumentsText : canonicalJson(c.args);
    const record = (outcome: CallOutcome, hook?: string): void => {
      this.calls.push({ turn: this.turnIndex, name: c.name, args, outcome, ...(hook ? { hook } : {}) });
    };
    const tool = (content: string): void => emit({ role: 'tool', tool_call_id: c.id, content });
    if (!this.world.toolNames.has(c.name)) {
      record('unknown_tool');
      return tool(`Error: there is no tool named "${c.name}". Call one of the tools you were given.`);
    }
    if (c.args === BAD_JSON) {
      record('bad_json');
      return tool(`Error: the arguments of ${c.name} are not valid JSON.`);
    }
    const turn = this.turns[this.turnIndex]!;
    const pre = toolHooks(this.world.harness, 'pre_tool_use', c.name, c.args, c.argumentsText, this.turn);
    pre.push(...(yield* this.commandHooks('pre_tool_use', { tool_name: c.name, tool_input: c.args })));
    const blocking = pre.find((f) => f.hook.action === 'reject' || f.hook.action === 'retry');
    const schema = this.world.harness.tools.find((t) => t.name === c.name)?.parameters;
    const invalid = schema ? schemaErrors(schema, c.args) : [];
    if (invalid.length) {
      record('invalid_args', blocking?.hook.id);
      return tool(blocking ? blocking.feedback : `Error: the arguments of ${c.name} do not match its schema (${invalid.join('; ')}).`);
    }
    if (blocking) {
      record('blocked', blocking.hook.id);
      turn.blocked++;
      return tool(blocking.feedback);
    }
    const hit = this.world.answer(c);
    if (!hit) {
      if (this.rules.unmatchedCall === 'reject')
        throw new EpisodeRejected('teacher_divergent_call', `divergent call: ${c.name}(${clip(c.argumentsText)}) matches no recorded call`);
      record('no_record');
      return tool(`Error: ${c.name} returned nothing for these arguments.`);
    }
    record(hit.repeat ? 'repeat' : 'ok');
    tool(hit.content);
    this.turn.called.push(c.name);
    const loader = this.world.harness.skillLoader;
    if (loader && c.name === loader.tool) {
      const skill = getPath(c.args, loader.argument);
      if (typeof skill === 'string') this.loadedSkills.push(skill);
    }
    const post = toolHooks(this.world.harness, 'post_tool_use', c.name, c.args, c.argumentsText, this.turn);
    post.push(...(yield* this.commandHooks('post_tool_use', { tool_name: c.name, tool_input: c.args, tool_response: hit.content })));
    for (const f of post) {
      emit(this.feedbackMessage(f));
      turn.otherFeedback++;
    }
  }

  /** The command hooks of one event, when the rules run them and the options allow them. */
  private *commandHooks(event: 'pre_inference' | 'pre_tool_use' | 'post_tool_use' | 'stop', input: CommandHookInput): Work<HookFailure[]> {
    const allowed = this.options.commandHooks;
    if (!this.rules.commandHooks || !allowed) return [];
    return yield runCommandHooks(this.world.harness, event, input, allowed);
  }

  private feedbackMessage(f: HookFailure): Msg {
    return feedbackMessage(f, this.world.hookPrefix);
  }
}

/** Run a step's work without command hooks (the environment's rules). */
function driveSync<T>(work: Work<T>): T {
  const r = work.next();
  if (!r.done) throw new Error('this episode runs command hooks: use begin() and stepAsync()');
  return r.value;
}

/** Run a step's work, awaiting each command-hook run. */
async function drive<T>(work: Work<T>): Promise<T> {
  let r = work.next();
  while (!r.done) r = work.next(await r.value);
  return r.value;
}

function clip(s: string, n = 80): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}
