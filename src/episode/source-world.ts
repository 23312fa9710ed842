import { promptMessage, renderRecordPrompt, renderTools, type RenderedPrompt } from '../harness/render.js';
import type { Harness, OpenAiTool } from '../harness/types.js';
import { checkCalls, checkLeaks } from '../trajectory/invariants.js';
import { textOf, type Message, type ToolCall, type Trajectory } from '../trajectory/types.js';
import { invertPlan, mapId, netParamRenames, type RewritePlan } from '../transform/plan.js';
import { schemaErrors } from '../util/json-schema.js';
import { getPath } from '../util/path.js';
import { copyWith } from '../util/copy.js';
import { BAD_JSON, type PolicyCall, type PolicyMessage } from './message.js';
import type { ModelReply } from './model.js';
import type { EpisodeOptions } from './options.js';
import type { TeacherRejectKind } from './reject-kinds.js';
import { answeredTurns, ReplayEnvironment, turnRoundLimit } from './replay-env.js';
import type { CallProblem, EpisodeWorld, Msg } from './world.js';

/**
 * Teacher mode's world: a source trajectory replayed under a variant's harness state. The prompt
 * is rendered from the state; the user turns are the source's up to the last one it answered (a
 * user simulator's trailing `###STOP###` is not sent; a source answering none has every turn
 * sent); a call is checked for old names and schema errors, then answered by the replay
 * environment (mapped back to the source's names, matched to an unused recorded call).
 */

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

/** One attempt's world (the replay environment remembers which recorded calls were used). */
export function sourceWorld(setup: EpisodeSetup, opts: EpisodeOptions): EpisodeWorld & { env: ReplayEnvironment } {
  const { source, from, to, inverse, rendered, turns } = setup;
  const prompt: Msg[] = [];
  if (source.messages[0]?.role === 'system') prompt.push(promptMessage(copyWith(source.messages[0], { content: rendered.system }), rendered));
  if (turns.length > 0) {
    if (rendered.preamble !== '') prompt.push(promptMessage({ role: 'user', name: 'harness:preamble', content: rendered.preamble }, rendered, true));
    prompt.push(turns[0]!.user);
  }
  const env = new ReplayEnvironment(source, from, to, inverse, opts.mapCallBack);
  const max = opts.maxRoundsPerTurn;
  return {
    env,
    harness: to,
    hookPrefix: to.hookMessages.namePrefix,
    intent: typeof source.meta?.intent === 'string' ? source.meta.intent : undefined,
    prompt,
    userTurns: turns.map((t) => textOf(t.user.content)),
    userMessage: (t) => turns[t]!.user,
    roundLimit: (t) => (max === 'auto' ? turnRoundLimit(turns[t]!.modelCalls, to) : max),
    toolNames: new Set(to.tools.map((t) => t.name)),
    callProblem: (c) => callProblem(setup, c),
    answer(c) {
      const result = env.execute(toolCallOf(c));
      return result.kind === 'ok' ? { content: result.content, repeat: false } : undefined;
    },
  };
}

/** A teacher's answer as the model message an episode takes (the kept message in teacher shape). */
export function teacherMessage(reply: ModelReply): PolicyMessage {
  const content = reply.content ?? '';
  if (reply.toolCalls.length === 0) return { content, calls: [], raw: { role: 'assistant', content } };
  const calls = reply.toolCalls.map((c): PolicyCall & { call: ToolCall } => {
    let args: unknown;
    try {
      args = JSON.parse(c.function.arguments);
    } catch {
      args = BAD_JSON;
    }
    return { id: c.id, name: c.function.name, argumentsText: c.function.arguments, args, call: c };
  });
  return { content, calls, raw: { role: 'assistant', content, tool_calls: reply.toolCalls } };
}

function toolCallOf(c: PolicyCall): ToolCall {
  return (c as PolicyCall & { call: ToolCall }).call;
}

/**
 * The end of an accepted attempt: the trajectory must have valid calls, no leaked old name and
 * calls consistent with the reference, then pass the `accept` check if there is one.
 */
export async function settleAttempt(
  setup: EpisodeSetup,
  env: ReplayEnvironment,
  trajectory: Trajectory,
  opts: EpisodeOptions,
): Promise<{ kind: TeacherRejectKind; reason: string } | undefined> {
  const { source, from, to, plan } = setup;
  const invalid = checkCalls(trajectory, to);
  if (invalid.length) return { kind: 'teacher_invalid_call', reason: `invalid call: ${invalid[0]}` };
  const leaks = checkLeaks(trajectory, plan, from, to);
  if (leaks.length) return { kind: 'teacher_leak', reason: `leak: ${leaks[0]}` };
  const mismatch = env.consistency(opts.consistency ?? 'exact');
  if (mismatch) return { kind: 'teacher_inconsistent', reason: mismatch };
  const refused = opts.accept ? await opts.accept(trajectory, source) : null;
  if (refused) return { kind: 'teacher_judge_rejected', reason: refused };
  return undefined;
}

/** What is wrong with one call of an answer, before anything runs (undefined: nothing). */
function callProblem(setup: EpisodeSetup, pc: PolicyCall): CallProblem | undefined {
  const { from, to, plan } = setup;
  const c = toolCallOf(pc);
  const name = c.function.name;
  const tool = to.tools.find((x) => x.name === name);
  if (!tool) {
    const error = `tool "${name}" does not exist; available tools: ${to.tools.map((x) => x.name).join(', ')}`;
    const old = from.tools.some((x) => x.name === name) && name in plan.tools;
    return old
      ? { kind: 'teacher_old_name', error, detail: `leak: the teacher called the old tool name "${name}" (now "${plan.tools[name]}")` }
      : { kind: 'teacher_unknown_tool', error, detail: `the teacher called an unknown tool "${name}"` };
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
    return {
      kind: 'teacher_old_name',
      error: `tool "${name}" has no argument "${oldParam}"; its arguments: ${params.join(', ')}`,
      detail: `leak: the teacher used the old parameter name "${oldParam}" of ${name}`,
    };
  }
  const loader = to.skillLoader;
  if (loader && name === loader.tool) {
    // A skill loaded by its pre-rename id would find the source's recorded call: say it is gone.
    const skill = getPath(args, loader.argument);
    if (typeof skill === 'string' && skill in plan.skills && !to.skills.some((x) => x.id === skill)) {
      return {
        kind: 'teacher_old_name',
        error: `skill "${skill}" does not exist; available skills: ${to.skills.map((x) => x.id).join(', ')}`,
        detail: `leak: the teacher loaded the old skill name "${skill}" (now "${plan.skills[skill]}")`,
      };
    }
  }
  const errors = schemaErrors(tool.parameters, args).map(argumentError);
  if (errors.length)
    return { kind: 'teacher_invalid_call', error: `${errors.join('; ')} (tool "${name}")`, detail: `invalid call of ${name}: ${errors.join('; ')}` };
  return undefined;
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
