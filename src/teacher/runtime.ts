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
import { TeacherRequestError } from './errors.js';

export type Consistency = 'exact' | 'superset' | 'any';

export interface EpisodeOptions {
  consistency: Consistency;
  /** Model calls allowed in one user turn, whatever the hooks say. */
  maxRoundsPerTurn: number;
  /** Run the harness's command hooks (only with --allow-command-hooks), from this folder. */
  commandHooks?: { cwd: string; warn: (line: string) => void };
}

export interface EpisodeResult {
  status: 'accepted' | 'rejected';
  reason?: string;
  /** The trajectory as run (complete when accepted, up to the failure when rejected). */
  trajectory: Trajectory;
  /** Raw teacher outputs, in order (kept for rejects). */
  raw: unknown[];
  stats: { requests: number; cacheHits: number; tokensIn: number; tokensOut: number };
}

/** A failure that ends an episode with a reason (not an error of hsa). */
class Rejected extends Error {}

/**
 * Run one (source, variant) episode against a teacher under the variant's harness state: replay
 * the source's user turns, call the teacher with the rendered state, execute each tool call in the
 * replay environment (map it back to the source's names, find the recorded call, return its result
 * mapped forward), enforce hooks (a failed stop gate injects its feedback and starts another round,
 * up to the hook's limit), then check the trajectory: valid calls, no leaked old identifier, calls
 * consistent with the reference.
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
  const prefix = to.hookMessages.namePrefix;
  const sourcePrefix = from.hookMessages.namePrefix;
  const inverse = invertPlan(plan);
  const tools = renderTools(to);
  const rendered = renderRecordPrompt(to, source);
  const messages: Message[] = [];
  const raw: unknown[] = [];
  const stats = { requests: 0, cacheHits: 0, tokensIn: 0, tokensOut: 0 };
  const intent = typeof source.meta?.intent === 'string' ? source.meta.intent : undefined;
  const env = new ReplayEnvironment(source, from, to, inverse);
  const result = (status: 'accepted' | 'rejected', reason?: string): EpisodeResult => {
    const trajectory: Trajectory = { ...source, messages: [...messages] };
    if (source.tools) trajectory.tools = tools;
    return { status, ...(reason !== undefined ? { reason } : {}), trajectory, raw, stats };
  };

  try {
    if (source.messages[0]?.role === 'system') messages.push(promptMessage({ ...source.messages[0], content: rendered.system }, rendered));
    const userTurns = source.messages.filter((m) => isTurnStart(m, sourcePrefix));
    for (const [t, user] of userTurns.entries()) {
      if (t === 0 && rendered.preamble !== '') messages.push(promptMessage({ role: 'user', name: 'harness:preamble', content: rendered.preamble }, rendered, true));
      messages.push(user);
      await runTurn(t, textOf(user.content));
    }
  } catch (e) {
    if (e instanceof Rejected) return result('rejected', e.message);
    throw e;
  }

  const episode = result('accepted');
  const invalid = checkCalls(episode.trajectory, to);
  if (invalid.length) return { ...episode, status: 'rejected', reason: `invalid call: ${invalid[0]}` };
  const leaks = checkLeaks(episode.trajectory, plan, from, to);
  if (leaks.length) return { ...episode, status: 'rejected', reason: `leak: ${leaks[0]}` };
  const mismatch = env.consistency(opts.consistency);
  if (mismatch) return { ...episode, status: 'rejected', reason: mismatch };
  return episode;

  async function runTurn(t: number, userText: string): Promise<void> {
    const turn: TurnState = { user: userText, called: [], toolRounds: 0, ...(intent !== undefined ? { intent } : {}) };
    const hookRounds = new Map<string, number>();
    let forceReply = false;
    for (let attempt = 0; ; attempt++) {
      if (attempt >= opts.maxRoundsPerTurn) throw new Rejected(`turn ${t + 1}: no final reply after ${attempt} model calls`);
      const pre = preInference(to, turn);
      if (opts.commandHooks && attempt === 0) pre.push(...(await runCommandHooks(to, 'pre_inference', { prompt: turn.user }, opts.commandHooks)));
      for (const f of pre) {
        if (f.hook.action === 'reject') throw new Rejected(`hook ${f.hook.id} rejected the turn: ${f.reason}`);
        if (!forceReply) messages.push(feedbackMessage(f));
        if (f.hook.action === 'force_reply') forceReply = true;
      }
      const reply = await call(t, attempt, forceReply);
      if (reply.toolCalls.length > 0) {
        if (forceReply) throw new Rejected(`turn ${t + 1}: tool call after a hook forced a reply`);
        const limit = toolRoundLimit(to, turn)[0];
        if (limit) {
          // The extra round is not run: the feedback goes in and the model must reply.
          if (limit.hook.action === 'reject') throw new Rejected(`hook ${limit.hook.id} rejected the turn: ${limit.reason}`);
          messages.push(feedbackMessage(limit));
          forceReply = true;
          continue;
        }
        messages.push({ role: 'assistant', content: reply.content ?? '', tool_calls: reply.toolCalls });
        turn.toolRounds++;
        for (const c of reply.toolCalls) await runCall(c, turn);
        continue;
      }
      const text = reply.content ?? '';
      messages.push({ role: 'assistant', content: text });
      const failures = stopHooks(to, text, turn);
      if (failures.length === 0 && opts.commandHooks) failures.push(...(await runCommandHooks(to, 'stop', { prompt: turn.user, last_reply: text }, opts.commandHooks)));
      if (failures.length === 0) return;
      const f = failures[0]!;
      if (f.hook.action === 'reject') throw new Rejected(`hook ${f.hook.id} rejected the reply: ${f.reason}`);
      const n = (hookRounds.get(f.hook.id) ?? 0) + 1;
      hookRounds.set(f.hook.id, n);
      if (n > f.hook.maxRounds) throw new Rejected(`${f.hook.id} failed after ${f.hook.maxRounds} rounds: ${f.reason}`);
      messages.push(feedbackMessage(f));
    }
  }

  async function call(turn: number, attempt: number, forceReply: boolean): Promise<TeacherReply> {
    let reply: TeacherReply;
    try {
      reply = await teacher.complete({ messages: [...messages], tools, toolChoice: forceReply ? 'none' : 'auto' }, { variantId, turn, attempt, forceReply });
    } catch (e) {
      // A request the teacher refused ends this variant; unavailability and cache misses end the run.
      if (e instanceof TeacherRequestError) throw new Rejected(e.message);
      throw e;
    }
    stats.requests += reply.cached ? 0 : 1;
    stats.cacheHits += reply.cached && teacher.kind === 'openai' ? 1 : 0;
    stats.tokensIn += reply.usage.prompt;
    stats.tokensOut += reply.usage.completion;
    if (reply.raw !== undefined) raw.push(reply.raw);
    if (reply.finishReason === 'length') throw new Rejected('teacher output was cut off (finish_reason length)');
    return reply;
  }

  async function runCall(c: ToolCall, turn: TurnState): Promise<void> {
    const name = c.function.name;
    const known = to.tools.some((t) => t.name === name);
    if (!known) {
      const old = from.tools.some((t) => t.name === name) && name in plan.tools;
      throw new Rejected(old ? `leak: the teacher called the old tool name "${name}" (now "${plan.tools[name]}")` : `the teacher called an unknown tool "${name}"`);
    }
    let args: unknown;
    try {
      args = JSON.parse(c.function.arguments);
    } catch {
      throw new Rejected(`arguments of ${name} are not JSON: ${clip(c.function.arguments)}`);
    }
    const oldParam = oldParameterIn(name, args);
    if (oldParam) throw new Rejected(`leak: the teacher used the old parameter name "${oldParam}" of ${name}`);
    const failures = toolHooks(to, 'pre_tool_use', name, args, c.function.arguments, turn);
    if (opts.commandHooks) failures.push(...(await runCommandHooks(to, 'pre_tool_use', { tool_name: name, tool_input: args }, opts.commandHooks)));
    const blocking = failures.find((f) => f.hook.action === 'reject' || f.hook.action === 'retry');
    if (blocking) {
      messages.push({ role: 'tool', tool_call_id: c.id, content: blocking.feedback });
      return;
    }
    const result = env.execute(c);
    if (result.kind === 'divergent') throw new Rejected(`divergent call: ${name}(${clip(c.function.arguments)}) matches no recorded call`);
    messages.push({ role: 'tool', tool_call_id: c.id, content: result.content });
    turn.called.push(name);
    const post = toolHooks(to, 'post_tool_use', name, args, c.function.arguments, turn);
    if (opts.commandHooks) post.push(...(await runCommandHooks(to, 'post_tool_use', { tool_name: name, tool_input: args, tool_response: result.content }, opts.commandHooks)));
    for (const f of post) messages.push(feedbackMessage({ ...f, hook: { ...f.hook, channel: f.hook.channel === 'tool' ? 'user' : f.hook.channel } }));
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

  function feedbackMessage(f: HookFailure): Message {
    const role = f.hook.channel === 'system' ? 'system' : 'user';
    return { role, name: `${prefix}${f.hook.id}`, content: f.feedback };
  }
}

/**
 * The replay environment: a teacher's call is mapped back to the source's names through the inverse
 * plan and matched (name and canonical arguments) to an unused recorded call of the source; its
 * recorded result comes back, mapped forward (a skill load returns the new state's body).
 */
class ReplayEnvironment {
  private readonly recorded = new Map<string, { content: string; used: boolean }[]>();
  private readonly sourceCalls: string[] = [];
  private readonly madeCalls: string[] = [];

  constructor(
    source: Trajectory,
    private readonly from: Harness,
    private readonly to: Harness,
    private readonly inverse: RewritePlan,
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
    const back = rewriteTrajectory({ id: 'call', messages: [{ role: 'assistant', content: '', tool_calls: [c] }] }, this.inverse, this.to, this.from);
    const mapped = (back.messages[0] as { tool_calls: ToolCall[] }).tool_calls[0]!;
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

function clip(s: string): string {
  return s.length > 80 ? `${s.slice(0, 80)}…` : s;
}
