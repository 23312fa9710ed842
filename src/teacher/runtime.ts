import { promptMessage, renderRecordPrompt, renderTools } from '../harness/render.js';
import type { Harness } from '../harness/types.js';
import { checkCalls, checkLeaks } from '../trajectory/invariants.js';
import { rewriteTrajectory } from '../trajectory/rewrite.js';
import { textOf, type Message, type ToolCall, type Trajectory } from '../trajectory/types.js';
import { invertPlan, mapId, netParamRenames, type RewritePlan } from '../transform/plan.js';
import { canonicalJson } from '../util/canonical-json.js';
import { getPath } from '../util/path.js';
import { preInference, stopHooks, toolHooks, toolRoundLimit, type HookFailure, type TurnState } from './hooks.js';
import { isTurnStart } from './turns.js';
import { runCommandHooks } from './command-hooks.js';
import type { Teacher, TeacherReply } from './types.js';
import { TeacherRequestError } from '../llm/errors.js';
import { isRecoverable, type CallFailureKind, type TeacherRejectKind } from './reject-kinds.js';
import { schemaErrors } from '../util/json-schema.js';

export type Consistency = 'exact' | 'superset' | 'any';

export interface EpisodeOptions {
  consistency: Consistency;
  /**
   * Model calls allowed in one user turn, whatever the hooks say: a number, or `auto` — derived
   * from the source turn (see `turnRoundLimit`).
   */
  maxRoundsPerTurn: number | 'auto';
  /**
   * Per-call fallback: a call with arguments that are not JSON or not schema-valid, an unknown
   * tool or a pre-rename name is answered with a tool error naming the problem and the model is
   * asked again, at most this many times per episode attempt (default 0: the episode fails).
   */
  maxCallRetries?: number;
  /**
   * Trajectory-level recovery: a failed episode is run again with the next sample index, up to
   * this many attempts in all (default 1). The replay teacher answers every sample alike, so it
   * gets one attempt.
   */
  maxAttempts?: number;
  /**
   * A last check of a trajectory that passed every other (teacher.judge): a reason rejects it as
   * `teacher_judge_rejected` (recoverable: another sample may do better).
   */
  accept?: (trajectory: Trajectory, source: Trajectory) => Promise<string | null>;
  /** Run the harness's command hooks (only with --allow-command-hooks), from this folder. */
  commandHooks?: { cwd: string; warn: (line: string) => void };
  /**
   * How the replay environment maps a call made under `to` back to the source's call (name and
   * arguments), for a mapping a RewritePlan cannot hold (a migration's splits, values and fills);
   * null: the call has no source counterpart (it is divergent). Default: through the inverse plan.
   */
  mapCallBack?: (call: ToolCall) => ToolCall | null;
}

/** What recovery did in one episode; a warm-cache rerun reproduces it (it follows from the answers). */
export interface EpisodeRecovery {
  /** Per-call retries by the failed call's kind, over every attempt. */
  callRetries: Partial<Record<CallFailureKind, number>>;
  /** Episode attempts made (1: no re-run). */
  attempts: number;
  /** Why each failed attempt failed, in order (the last one is the episode's when it is rejected). */
  failures: { kind: TeacherRejectKind; reason: string }[];
}

export interface EpisodeResult {
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
  /** Raw teacher outputs of the last attempt, in order (kept for rejects). */
  raw: unknown[];
  /** Over every attempt; `answers` counts teacher answers received (from the cache or not). */
  stats: { requests: number; cacheHits: number; tokensIn: number; tokensOut: number; answers: number };
  recovery: EpisodeRecovery;
}

/** A failure that ends an episode attempt with a kind and a reason (not an error of hsa). */
class Rejected extends Error {
  constructor(
    readonly kind: TeacherRejectKind,
    message: string,
  ) {
    super(message);
  }
}

/** One invalid call of a teacher answer: what the model is told, and what the reject record says. */
interface CallProblem {
  kind: CallFailureKind;
  /** The tool error the model gets (`error: …`). */
  error: string;
  detail: string;
  /** The arguments are not JSON (they are not sent back as they were). */
  notJson?: boolean;
}

/**
 * The model-call limit of one user turn under `max_rounds: auto`: the source turn's model calls
 * plus a margin (half as many again, at least 4), plus every stop gate's rounds, and never below
 * the old fixed default of 12. Real runs make 13–26 calls in one turn; a fixed 12 rejected them.
 */
export function turnRoundLimit(sourceCalls: number, to: Harness): number {
  const gates = to.hooks.filter((h) => h.event === 'stop').reduce((n, h) => n + h.maxRounds, 0);
  return Math.max(12, sourceCalls + Math.max(4, Math.ceil(sourceCalls / 2)) + gates);
}

/**
 * Run one (source, variant) episode against a teacher under the variant's harness state: replay
 * the source's user turns, call the teacher with the rendered state, execute each tool call in the
 * replay environment (map it back to the source's names, find the recorded call, return its result
 * mapped forward), enforce hooks (a failed stop gate injects its feedback and starts another round,
 * up to the hook's limit), then check the trajectory: valid calls, no leaked old identifier, calls
 * consistent with the reference.
 *
 * Two failure scopes are recovered, as in the method's runtime. Per call: an invalid, unknown-tool
 * or old-name call is answered with a tool error and the model asked again (`maxCallRetries`); the
 * failed call and its error are dropped once a valid answer comes, from the accepted trajectory and
 * from later requests alike, so training data never shows a bad call. Per trajectory: a failed
 * attempt is run again with the next sample index (`maxAttempts`). A source's trailing user turns
 * that the source never answered (a user simulator's `###STOP###`) are not sent: the episode ends at
 * the last answered turn (a source answering no turn at all has every turn sent).
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
  const inverse = invertPlan(plan);
  const tools = renderTools(to);
  const rendered = renderRecordPrompt(to, source);
  const turns = answeredTurns(source, from.hookMessages.namePrefix);
  let last: EpisodeResult | undefined;
  for (let sample = 0; sample < attempts; sample++) {
    recovery.attempts = sample + 1;
    last = await runAttempt(sample);
    if (last.status === 'accepted') break;
    recovery.failures.push({ kind: last.kind!, reason: last.reason! });
    if (!isRecoverable(last.kind!)) break;
  }
  return { ...last!, stats, recovery };

  async function runAttempt(sample: number): Promise<EpisodeResult> {
    const prefix = to.hookMessages.namePrefix;
    const messages: Message[] = [];
    /** A failed answer and its tool errors: sent with the retry, never kept. */
    let pending: Message[] = [];
    let callRetriesLeft = Math.max(0, opts.maxCallRetries ?? 0);
    const raw: unknown[] = [];
    const intent = typeof source.meta?.intent === 'string' ? source.meta.intent : undefined;
    const env = new ReplayEnvironment(source, from, to, inverse, opts.mapCallBack);
    const result = (status: 'accepted' | 'rejected', kind?: TeacherRejectKind, reason?: string): EpisodeResult => {
      const trajectory: Trajectory = { ...source, messages: status === 'rejected' ? [...messages, ...pending] : [...messages] };
      if (source.tools) trajectory.tools = tools;
      return { status, ...(kind !== undefined ? { kind, reason: reason ?? kind } : {}), trajectory, raw, stats, recovery };
    };

    try {
      if (source.messages[0]?.role === 'system') messages.push(promptMessage({ ...source.messages[0], content: rendered.system }, rendered));
      for (const [t, { user, modelCalls }] of turns.entries()) {
        if (t === 0 && rendered.preamble !== '') messages.push(promptMessage({ role: 'user', name: 'harness:preamble', content: rendered.preamble }, rendered, true));
        messages.push(user);
        await runTurn(t, textOf(user.content), opts.maxRoundsPerTurn === 'auto' ? turnRoundLimit(modelCalls, to) : opts.maxRoundsPerTurn);
      }
    } catch (e) {
      if (e instanceof Rejected) return result('rejected', e.kind, e.message);
      throw e;
    }

    const episode = result('accepted');
    const invalid = checkCalls(episode.trajectory, to);
    if (invalid.length) return result('rejected', 'teacher_invalid_call', `invalid call: ${invalid[0]}`);
    const leaks = checkLeaks(episode.trajectory, plan, from, to);
    if (leaks.length) return result('rejected', 'teacher_leak', `leak: ${leaks[0]}`);
    const mismatch = env.consistency(opts.consistency);
    if (mismatch) return result('rejected', 'teacher_inconsistent', mismatch);
    const refused = opts.accept ? await opts.accept(episode.trajectory, source) : null;
    if (refused) return result('rejected', 'teacher_judge_rejected', refused);
    return episode;

    async function runTurn(t: number, userText: string, maxRounds: number): Promise<void> {
      const turn: TurnState = { user: userText, called: [], toolRounds: 0, ...(intent !== undefined ? { intent } : {}) };
      const hookRounds = new Map<string, number>();
      let forceReply = false;
      let retry = 0;
      for (let attempt = 0; ; ) {
        if (attempt >= maxRounds) throw new Rejected('teacher_max_rounds', `turn ${t + 1}: no final reply after ${attempt} model calls (max_rounds ${maxRounds})`);
        if (retry === 0) {
          const pre = preInference(to, turn);
          if (opts.commandHooks && attempt === 0) pre.push(...(await runCommandHooks(to, 'pre_inference', { prompt: turn.user }, opts.commandHooks)));
          for (const f of pre) {
            if (f.hook.action === 'reject') throw new Rejected('teacher_hook_rejected', `hook ${f.hook.id} rejected the turn: ${f.reason}`);
            if (!forceReply) messages.push(feedbackMessage(f));
            if (f.hook.action === 'force_reply') forceReply = true;
          }
        }
        const reply = await call(t, attempt, forceReply, retry);
        if (reply.toolCalls.length > 0) {
          if (forceReply) throw new Rejected('teacher_tool_after_forced_reply', `turn ${t + 1}: tool call after a hook forced a reply`);
          const problems = reply.toolCalls.map(callProblem);
          const first = problems.find((p) => p !== undefined);
          if (first) {
            // Per-call fallback: the model is told what is wrong and asked again at the same step.
            if (callRetriesLeft === 0) {
              const retried = Math.max(0, opts.maxCallRetries ?? 0);
              throw new Rejected(first.kind, `turn ${t + 1}: ${first.detail}${retried ? ` (after ${retried} ${retried === 1 ? 'retry' : 'retries'})` : ''}`);
            }
            callRetriesLeft--;
            recovery.callRetries[first.kind] = (recovery.callRetries[first.kind] ?? 0) + 1;
            // Arguments that are not JSON go back as `{}` (servers that parse the history, such as
            // vLLM's chat templates, refuse them); the error quotes what was sent.
            const sent = reply.toolCalls.map((c, i) => (problems[i]?.notJson ? { ...c, function: { ...c.function, arguments: '{}' } } : c));
            pending.push({ role: 'assistant', content: reply.content ?? '', tool_calls: sent });
            reply.toolCalls.forEach((c, i) => pending.push({ role: 'tool', tool_call_id: c.id, content: problems[i] ? `error: ${problems[i].error}` : 'error: not run, because another call in the same message was invalid; send the calls again' }));
            retry++;
            continue;
          }
          pending = [];
          retry = 0;
          const limit = toolRoundLimit(to, turn)[0];
          attempt++;
          if (limit) {
            // The extra round is not run: the feedback goes in and the model must reply.
            if (limit.hook.action === 'reject') throw new Rejected('teacher_hook_rejected', `hook ${limit.hook.id} rejected the turn: ${limit.reason}`);
            messages.push(feedbackMessage(limit));
            forceReply = true;
            continue;
          }
          messages.push({ role: 'assistant', content: reply.content ?? '', tool_calls: reply.toolCalls });
          turn.toolRounds++;
          for (const c of reply.toolCalls) await runCall(c, turn);
          continue;
        }
        pending = [];
        retry = 0;
        attempt++;
        const text = reply.content ?? '';
        messages.push({ role: 'assistant', content: text });
        const failures = stopHooks(to, text, turn);
        if (failures.length === 0 && opts.commandHooks) failures.push(...(await runCommandHooks(to, 'stop', { prompt: turn.user, last_reply: text }, opts.commandHooks)));
        if (failures.length === 0) return;
        const f = failures[0]!;
        if (f.hook.action === 'reject') throw new Rejected('teacher_hook_rejected', `hook ${f.hook.id} rejected the reply: ${f.reason}`);
        const n = (hookRounds.get(f.hook.id) ?? 0) + 1;
        hookRounds.set(f.hook.id, n);
        if (n > f.hook.maxRounds) throw new Rejected('teacher_hook_failed', `${f.hook.id} failed after ${f.hook.maxRounds} rounds: ${f.reason}`);
        messages.push(feedbackMessage(f));
      }
    }

    async function call(turn: number, attempt: number, forceReply: boolean, retry: number): Promise<TeacherReply> {
      let reply: TeacherReply;
      try {
        reply = await teacher.complete({ messages: [...messages, ...pending], tools, toolChoice: forceReply ? 'none' : 'auto' }, { variantId, turn, attempt, forceReply, sample, retry });
      } catch (e) {
        // A request the teacher refused ends this attempt; unavailability, fatal answers (401,
        // 403, 404) and cache misses end the run.
        if (e instanceof TeacherRequestError) throw new Rejected(e.refusal === 'unusable' ? 'teacher_unusable_answer' : 'teacher_request_refused', e.message);
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
      if (reply.finishReason === 'length') throw new Rejected('teacher_truncated', 'teacher output was cut off (finish_reason length)');
      return reply;
    }

    /** What is wrong with one call of an answer, before anything runs (undefined: nothing). */
    function callProblem(c: ToolCall): CallProblem | undefined {
      const name = c.function.name;
      const tool = to.tools.find((x) => x.name === name);
      if (!tool) {
        const error = `tool "${name}" does not exist; available tools: ${to.tools.map((x) => x.name).join(', ')}`;
        const old = from.tools.some((x) => x.name === name) && name in plan.tools;
        return old ? { kind: 'teacher_old_name', error, detail: `leak: the teacher called the old tool name "${name}" (now "${plan.tools[name]}")` } : { kind: 'teacher_unknown_tool', error, detail: `the teacher called an unknown tool "${name}"` };
      }
      let args: unknown;
      try {
        args = JSON.parse(c.function.arguments);
      } catch (e) {
        const why = `arguments are not valid JSON (${(e as Error).message}); you sent: ${clip(c.function.arguments, 200)}`;
        return { kind: 'teacher_invalid_call', error: why, detail: `arguments of ${name} are not JSON: ${clip(c.function.arguments)}`, notJson: true };
      }
      const oldParam = oldParameterIn(name, args);
      if (oldParam) {
        const params = Object.keys((tool.parameters as { properties?: Record<string, unknown> }).properties ?? {});
        return { kind: 'teacher_old_name', error: `tool "${name}" has no argument "${oldParam}"; its arguments: ${params.join(', ')}`, detail: `leak: the teacher used the old parameter name "${oldParam}" of ${name}` };
      }
      const loader = to.skillLoader;
      if (loader && name === loader.tool) {
        // A skill loaded by its pre-rename id would find the source's recorded call: say it is gone.
        const skill = getPath(args, loader.argument);
        if (typeof skill === 'string' && skill in plan.skills && !to.skills.some((x) => x.id === skill)) {
          return { kind: 'teacher_old_name', error: `skill "${skill}" does not exist; available skills: ${to.skills.map((x) => x.id).join(', ')}`, detail: `leak: the teacher loaded the old skill name "${skill}" (now "${plan.skills[skill]}")` };
        }
      }
      const errors = schemaErrors(tool.parameters, args).map(argumentError);
      if (errors.length) return { kind: 'teacher_invalid_call', error: `${errors.join('; ')} (tool "${name}")`, detail: `invalid call of ${name}: ${errors.join('; ')}` };
      return undefined;
    }

    async function runCall(c: ToolCall, turn: TurnState): Promise<void> {
      const name = c.function.name;
      const args: unknown = JSON.parse(c.function.arguments);
      const failures = toolHooks(to, 'pre_tool_use', name, args, c.function.arguments, turn);
      if (opts.commandHooks) failures.push(...(await runCommandHooks(to, 'pre_tool_use', { tool_name: name, tool_input: args }, opts.commandHooks)));
      const blocking = failures.find((f) => f.hook.action === 'reject' || f.hook.action === 'retry');
      if (blocking) {
        messages.push({ role: 'tool', tool_call_id: c.id, content: blocking.feedback });
        return;
      }
      const result = env.execute(c);
      if (result.kind === 'divergent') throw new Rejected('teacher_divergent_call', `divergent call: ${name}(${clip(c.function.arguments)}) matches no recorded call`);
      messages.push({ role: 'tool', tool_call_id: c.id, content: result.content });
      turn.called.push(name);
      const post = toolHooks(to, 'post_tool_use', name, args, c.function.arguments, turn);
      if (opts.commandHooks) post.push(...(await runCommandHooks(to, 'post_tool_use', { tool_name: name, tool_input: args, tool_response: result.content }, opts.commandHooks)));
      for (const f of post) messages.push(feedbackMessage({ ...f, hook: { ...f.hook, channel: f.hook.channel === 'tool' ? 'user' : f.hook.channel } }));
    }

    function feedbackMessage(f: HookFailure): Message {
      const role = f.hook.channel === 'system' ? 'system' : 'user';
      return { role, name: `${prefix}${f.hook.id}`, content: f.feedback };
    }
  }

  /** A top-level argument key that this tool's parameters had before a rename and no longer have. */
  function oldParameterIn(tool: string, args: unknown): string | undefined {
    if (args === null || typeof args !== 'object' || Array.isArray(args)) return undefined;
    const original = mapId(inverse.tools, tool);
    const renamed = netParamRenames(plan).params[original] ?? {};
    const current = new Set(Object.values(renamed));
    for (const [path, leaf] of Object.entries(renamed)) {
      const old = path.split('.').pop()!;
      if (old !== leaf && !current.has(old) && Object.keys(args).includes(old) && !path.includes('.')) return old;
    }
    return undefined;
  }
}

/**
 * The source's user turns to replay, each with the number of model calls (assistant messages) the
 * source made in it. Trailing turns without an answer are left out when some turn is answered.
 */
function answeredTurns(source: Trajectory, hookPrefix: string): { user: Message; modelCalls: number }[] {
  const turns: { user: Message; modelCalls: number }[] = [];
  for (const m of source.messages) {
    if (isTurnStart(m, hookPrefix)) turns.push({ user: m, modelCalls: 0 });
    else if (m.role === 'assistant' && turns.length > 0) turns[turns.length - 1]!.modelCalls++;
  }
  let end = turns.length;
  while (end > 0 && turns[end - 1]!.modelCalls === 0) end--;
  return end === 0 ? turns : turns.slice(0, end);
}

/** A schema error in the words of a tool error: `missing required argument "item_id"`, `argument "a.b": must be integer`. */
function argumentError(e: string): string {
  const missing = /^arguments(?:\.(\S+))?: missing required property "([^"]+)"$/.exec(e);
  if (missing) return `missing required argument "${missing[1] ? `${missing[1]}.` : ''}${missing[2]}"`;
  const unknown = /^arguments(?:\.(\S+))?: unknown property "([^"]+)"$/.exec(e);
  if (unknown) return `unknown argument "${unknown[1] ? `${unknown[1]}.` : ''}${unknown[2]}"`;
  const at = /^arguments\.(\S+): (.*)$/.exec(e);
  if (at) return `argument "${at[1]}": ${at[2]}`;
  return e;
}

/**
 * The replay environment: a teacher's call is mapped back to the source's names through the inverse
 * plan and matched (name and canonical arguments) to an unused recorded call of the source; its
 * recorded result comes back, mapped forward (a skill load returns the new state's body). One per
 * episode attempt (it remembers which recorded calls were used); exported for other episode users.
 */
export class ReplayEnvironment {
  private readonly recorded = new Map<string, { content: string; used: boolean }[]>();
  private readonly sourceCalls: string[] = [];
  private readonly madeCalls: string[] = [];

  constructor(
    source: Trajectory,
    private readonly from: Harness,
    private readonly to: Harness,
    private readonly inverse: RewritePlan,
    private readonly mapBack?: (call: ToolCall) => ToolCall | null,
  ) {
    const results = new Map<string, string>();
    for (const m of source.messages) if (m.role === 'tool') results.set(m.tool_call_id, textOf(m.content));
    for (const m of source.messages) {
      if (m.role !== 'assistant') continue;
      for (const c of m.tool_calls ?? []) {
        const key = callKey(c.function.name, c.function.arguments);
        this.sourceCalls.push(key);
        const list = this.recorded.get(key) ?? [];
        list.push({ content: results.get(c.id) ?? '', used: false });
        this.recorded.set(key, list);
      }
    }
  }

  execute(c: ToolCall): { kind: 'ok'; content: string } | { kind: 'divergent' } {
    // Map the call back into the source state with the same machinery that rewrites trajectories.
    const mapped = this.mapBack ? this.mapBack(c) : (rewriteTrajectory({ id: 'call', messages: [{ role: 'assistant', content: '', tool_calls: [c] }] }, this.inverse, this.to, this.from).messages[0] as { tool_calls: ToolCall[] }).tool_calls[0]!;
    if (mapped === null) {
      this.madeCalls.push(callKey(c.function.name, c.function.arguments));
      return { kind: 'divergent' };
    }
    const key = callKey(mapped.function.name, mapped.function.arguments);
    this.madeCalls.push(key);
    const hit = this.recorded.get(key)?.find((r) => !r.used);
    if (!hit) return { kind: 'divergent' };
    hit.used = true;
    const loader = this.to.skillLoader;
    if (loader && c.function.name === loader.tool) {
      try {
        const skill = getPath(JSON.parse(c.function.arguments), loader.argument);
        const body = this.to.skills.find((s) => s.id === skill)?.body;
        if (body !== undefined) return { kind: 'ok', content: body };
      } catch {
        /* the recorded result is returned as it is */
      }
    }
    return { kind: 'ok', content: hit.content };
  }

  /** Compare the calls made with the reference's (after mapping back): exact multiset, superset, or any. */
  consistency(mode: Consistency): string | undefined {
    if (mode === 'any') return undefined;
    const count = (xs: string[]) => xs.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map<string, number>());
    const made = count(this.madeCalls);
    const ref = count(this.sourceCalls);
    for (const [k, n] of ref) if ((made.get(k) ?? 0) < n) return `calls differ from the reference: missing ${k.replace('\u0000', ' ')}`;
    if (mode === 'exact') for (const [k, n] of made) if ((ref.get(k) ?? 0) < n) return `calls differ from the reference: extra ${k.replace('\u0000', ' ')}`;
    return undefined;
  }
}

function callKey(name: string, args: string): string {
  try {
    return `${name}\u0000${canonicalJson(JSON.parse(args))}`;
  } catch {
    return `${name}\u0000${args}`;
  }
}

function clip(s: string, n = 80): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}
