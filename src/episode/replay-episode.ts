import { promptMessage, renderRecordPrompt, renderTools, type RenderedPrompt } from '../harness/render.js';
import type { Harness, OpenAiTool } from '../harness/types.js';
import { checkCalls, checkLeaks } from '../trajectory/invariants.js';
import { textOf, type Message, type ToolCall, type Trajectory } from '../trajectory/types.js';
import { invertPlan, mapId, netParamRenames, type RewritePlan } from '../transform/plan.js';
import { schemaErrors } from '../util/json-schema.js';
import { getPath } from '../util/path.js';
import { runCommandHooks } from './command-hooks.js';
import { feedbackMessage, newTurn, preInference, stopHooks, toolHooks, toolRoundLimit, type TurnState } from './hooks.js';
import type { ModelReply, ModelRequest, ModelStep } from './model.js';
import type { EpisodeOptions } from './options.js';
import type { CallFailureKind, TeacherRejectKind } from './reject-kinds.js';
import { answeredTurns, ReplayEnvironment, turnRoundLimit } from './replay-env.js';

/**
 * One attempt of a source trajectory's episode under a new harness state (teacher mode): the rules,
 * with the model handed in as `ask`. The teacher driver (src/teacher/runtime.ts) runs the attempts
 * (trajectory-level recovery), calls the teacher and counts what it answered.
 */

/** A failure that ends an episode attempt with a kind and a reason (not an error of hsa). */
export class EpisodeRejected extends Error {
  constructor(
    readonly kind: TeacherRejectKind,
    message: string,
  ) {
    super(message);
  }
}

/** Asks the model for the next message; may throw EpisodeRejected (a request the model refused). */
export type AskModel = (req: ModelRequest, step: ModelStep) => Promise<ModelReply>;

/** What every attempt of one episode shares, derived once. */
export interface EpisodeSetup {
  source: Trajectory;
  from: Harness;
  to: Harness;
  plan: RewritePlan;
  inverse: RewritePlan;
  variantId: string;
  tools: OpenAiTool[];
  rendered: RenderedPrompt;
  turns: { user: Message; modelCalls: number }[];
}

export function prepareEpisode(source: Trajectory, from: Harness, to: Harness, plan: RewritePlan, variantId: string): EpisodeSetup {
  const inverse = invertPlan(plan);
  const tools = renderTools(to);
  const rendered = renderRecordPrompt(to, source);
  const turns = answeredTurns(source, from.hookMessages.namePrefix);
  return { source, from, to, plan, inverse, variantId, tools, rendered, turns };
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
 * Run one attempt of a (source, variant) episode under the variant's harness state: replay the
 * source's user turns, ask the model with the rendered state, execute each tool call in the replay
 * environment (map it back to the source's names, find the recorded call, return its result mapped
 * forward), enforce hooks (a failed stop gate injects its feedback and starts another round, up to
 * the hook's limit), then check the trajectory: valid calls, no leaked old identifier, calls
 * consistent with the reference, and the `accept` check if there is one.
 *
 * Per call, an invalid, unknown-tool or old-name call is answered with a tool error and the model
 * asked again (`maxCallRetries`, counted into `callRetries`); the failed call and its error are
 * dropped once a valid answer comes, from the accepted trajectory and from later requests alike, so
 * training data never shows a bad call. A source's trailing user turns that the source never
 * answered (a user simulator's `###STOP###`) are not sent: the episode ends at the last answered
 * turn (a source answering no turn at all has every turn sent).
 */
export async function runAttempt(setup: EpisodeSetup, sample: number, ask: AskModel, opts: EpisodeOptions, callRetries: Partial<Record<CallFailureKind, number>>): Promise<AttemptResult> {
  const { source, from, to, plan, inverse, tools, rendered, turns, variantId } = setup;
  const prefix = to.hookMessages.namePrefix;
  const messages: Message[] = [];
  /** A failed answer and its tool errors: sent with the retry, never kept. */
  let pending: Message[] = [];
  let callRetriesLeft = Math.max(0, opts.maxCallRetries ?? 0);
  const intent = typeof source.meta?.intent === 'string' ? source.meta.intent : undefined;
  const env = new ReplayEnvironment(source, from, to, inverse, opts.mapCallBack);
  const result = (status: 'accepted' | 'rejected', kind?: TeacherRejectKind, reason?: string): AttemptResult => {
    const trajectory: Trajectory = { ...source, messages: status === 'rejected' ? [...messages, ...pending] : [...messages] };
    if (source.tools) trajectory.tools = tools;
    return { status, ...(kind !== undefined ? { kind, reason: reason ?? kind } : {}), trajectory };
  };

  try {
    if (source.messages[0]?.role === 'system') messages.push(promptMessage({ ...source.messages[0], content: rendered.system }, rendered));
    for (const [t, { user, modelCalls }] of turns.entries()) {
      if (t === 0 && rendered.preamble !== '') messages.push(promptMessage({ role: 'user', name: 'harness:preamble', content: rendered.preamble }, rendered, true));
      messages.push(user);
      await runTurn(t, textOf(user.content), opts.maxRoundsPerTurn === 'auto' ? turnRoundLimit(modelCalls, to) : opts.maxRoundsPerTurn);
    }
  } catch (e) {
    if (e instanceof EpisodeRejected) return result('rejected', e.kind, e.message);
    throw e;
  }

  const episode = result('accepted');
  const invalid = checkCalls(episode.trajectory, to);
  if (invalid.length) return result('rejected', 'teacher_invalid_call', `invalid call: ${invalid[0]}`);
  const leaks = checkLeaks(episode.trajectory, plan, from, to);
  if (leaks.length) return result('rejected', 'teacher_leak', `leak: ${leaks[0]}`);
  const mismatch = env.consistency(opts.consistency ?? 'exact');
  if (mismatch) return result('rejected', 'teacher_inconsistent', mismatch);
  const refused = opts.accept ? await opts.accept(episode.trajectory, source) : null;
  if (refused) return result('rejected', 'teacher_judge_rejected', refused);
  return episode;

  async function runTurn(t: number, userText: string, maxRounds: number): Promise<void> {
    const turn = newTurn(userText, intent);
    const hookRounds = new Map<string, number>();
    let forceReply = false;
    let retry = 0;
    for (let attempt = 0; ; ) {
      if (attempt >= maxRounds) throw new EpisodeRejected('teacher_max_rounds', `turn ${t + 1}: no final reply after ${attempt} model calls (max_rounds ${maxRounds})`);
      if (retry === 0) {
        const pre = preInference(to, turn);
        if (opts.commandHooks && attempt === 0) pre.push(...(await runCommandHooks(to, 'pre_inference', { prompt: turn.user }, opts.commandHooks)));
        for (const f of pre) {
          if (f.hook.action === 'reject') throw new EpisodeRejected('teacher_hook_rejected', `hook ${f.hook.id} rejected the turn: ${f.reason}`);
          if (!forceReply) messages.push(feedbackMessage(f, prefix));
          if (f.hook.action === 'force_reply') forceReply = true;
        }
      }
      const reply = await call(t, attempt, forceReply, retry);
      if (reply.toolCalls.length > 0) {
        if (forceReply) throw new EpisodeRejected('teacher_tool_after_forced_reply', `turn ${t + 1}: tool call after a hook forced a reply`);
        const problems = reply.toolCalls.map(callProblem);
        const first = problems.find((p) => p !== undefined);
        if (first) {
          // Per-call fallback: the model is told what is wrong and asked again at the same step.
          if (callRetriesLeft === 0) {
            const retried = Math.max(0, opts.maxCallRetries ?? 0);
            throw new EpisodeRejected(first.kind, `turn ${t + 1}: ${first.detail}${retried ? ` (after ${retried} ${retried === 1 ? 'retry' : 'retries'})` : ''}`);
          }
          callRetriesLeft--;
          callRetries[first.kind] = (callRetries[first.kind] ?? 0) + 1;
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
          if (limit.hook.action === 'reject') throw new EpisodeRejected('teacher_hook_rejected', `hook ${limit.hook.id} rejected the turn: ${limit.reason}`);
          messages.push(feedbackMessage(limit, prefix));
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
      if (f.hook.action === 'reject') throw new EpisodeRejected('teacher_hook_rejected', `hook ${f.hook.id} rejected the reply: ${f.reason}`);
      const n = (hookRounds.get(f.hook.id) ?? 0) + 1;
      hookRounds.set(f.hook.id, n);
      if (n > f.hook.maxRounds) throw new EpisodeRejected('teacher_hook_failed', `${f.hook.id} failed after ${f.hook.maxRounds} rounds: ${f.reason}`);
      messages.push(feedbackMessage(f, prefix));
    }
  }

  async function call(turn: number, attempt: number, forceReply: boolean, retry: number): Promise<ModelReply> {
    const reply = await ask({ messages: [...messages, ...pending], tools, toolChoice: forceReply ? 'none' : 'auto' }, { variantId, turn, attempt, forceReply, sample, retry });
    if (reply.finishReason === 'length') throw new EpisodeRejected('teacher_truncated', 'teacher output was cut off (finish_reason length)');
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
    const oldParam = oldParameterIn(setup, name, args);
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
    if (result.kind === 'divergent') throw new EpisodeRejected('teacher_divergent_call', `divergent call: ${name}(${clip(c.function.arguments)}) matches no recorded call`);
    messages.push({ role: 'tool', tool_call_id: c.id, content: result.content });
    turn.called.push(name);
    const post = toolHooks(to, 'post_tool_use', name, args, c.function.arguments, turn);
    if (opts.commandHooks) post.push(...(await runCommandHooks(to, 'post_tool_use', { tool_name: name, tool_input: args, tool_response: result.content }, opts.commandHooks)));
    for (const f of post) messages.push(feedbackMessage(f, prefix));
  }
}

/** A top-level argument key that this tool's parameters had before a rename and no longer have. */
function oldParameterIn({ plan, inverse }: EpisodeSetup, tool: string, args: unknown): string | undefined {
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

function clip(s: string, n = 80): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}
