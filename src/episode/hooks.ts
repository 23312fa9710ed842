import { renderFeedback } from '../harness/feedback.js';
import type { Harness, Hook, HookCheck } from '../harness/types.js';
import { schemaErrors } from '../util/json-schema.js';

/**
 * Declarative hook checks, evaluated by the agent runtime. Conventions (also in docs/harness-format.md, "Hooks"):
 * - a *user turn* starts at a user message that is not hook feedback and not the preamble;
 * - a *tool round* is one assistant message with tool calls; `max_tool_rounds: N` allows N per turn;
 * - `max_chars` counts code points of the reply;
 * - `require_tool` passes when one of its tools was called since the turn started;
 * - `forbid` phrases match case-insensitively as substrings, regexes with the `u` flag.
 */
export interface HookFailure {
  hook: Hook;
  /** The rendered feedback message. */
  feedback: string;
  reason: string;
}

export interface TurnState {
  /** Text of the user message that opened the turn. */
  user: string;
  /** Tool names called since the turn started. */
  called: string[];
  toolRounds: number;
  intent?: string;
}

/** A new user turn's state: nothing called, no tool round yet. */
export function newTurn(user: string, intent: string | undefined): TurnState {
  return { user, called: [], toolRounds: 0, ...(intent !== undefined ? { intent } : {}) };
}

/**
 * A hook's feedback as the message it goes in as: on the hook's channel (`system`, else `user`),
 * named by the prefix and the hook's id. After a tool result (`post_tool_use`) a `tool` channel
 * goes to the user too (the result itself is the tool message).
 */
export function feedbackMessage(f: HookFailure, prefix: string): { role: 'system' | 'user'; name: string; content: string } {
  return { role: f.hook.channel === 'system' ? 'system' : 'user', name: `${prefix}${f.hook.id}`, content: f.feedback };
}

function vars(hook: Hook, extra: Record<string, unknown>): Record<string, unknown> {
  const v: Record<string, unknown> = { hook: hook.id, ...extra };
  for (const c of hook.checks) {
    if (c.type === 'max_chars') v.max_chars ??= c.value;
    if (c.type === 'max_tool_rounds') v.max_tool_rounds ??= c.value;
  }
  return v;
}

function fail(hook: Hook, reason: string, extra: Record<string, unknown>): HookFailure {
  const v = vars(hook, { ...extra, reason });
  let feedback: string;
  try {
    feedback = renderFeedback(hook.feedback, v);
  } catch {
    feedback = `[${hook.id}] ${reason}`;
  }
  return { hook, feedback, reason };
}

function forbidden(c: Extract<HookCheck, { type: 'forbid' }>, text: string): string | null {
  const lower = text.toLowerCase();
  for (const p of c.phrases) if (lower.includes(p.toLowerCase())) return `contains forbidden phrase "${p}"`;
  for (const r of c.regex) if (new RegExp(r, 'u').test(text)) return `matches forbidden pattern /${r}/`;
  return null;
}

/**
 * Tool-round limits (`max_tool_rounds` on pre_inference hooks): checked when the model asks for
 * another tool round. With N rounds used and a limit of N, that request is not run; the hook's
 * feedback goes in and the model must reply. A model that replies on its own after N rounds is
 * never interrupted.
 */
export function toolRoundLimit(h: Harness, turn: TurnState): HookFailure[] {
  const out: HookFailure[] = [];
  for (const hook of h.hooks) {
    if (hook.event !== 'pre_inference' || hook.command) continue;
    for (const c of hook.checks) {
      if (c.type === 'max_tool_rounds' && turn.toolRounds >= c.value) {
        out.push(fail(hook, `${turn.toolRounds} tool rounds used, limit ${c.value}`, { rounds: turn.toolRounds }));
        break;
      }
    }
  }
  return out;
}

/** pre_inference hooks other than round limits: before each model call of a turn. */
export function preInference(h: Harness, turn: TurnState): HookFailure[] {
  const out: HookFailure[] = [];
  for (const hook of h.hooks) {
    if (hook.event !== 'pre_inference' || hook.command) continue;
    for (const c of hook.checks) {
      if (c.type === 'forbid' && c.target === 'user') {
        const why = forbidden(c, turn.user);
        if (why) {
          out.push(fail(hook, `viewer message ${why}`, {}));
          break;
        }
      }
    }
  }
  return out;
}

/** pre_tool_use (or post_tool_use) hooks for one call. */
export function toolHooks(h: Harness, event: 'pre_tool_use' | 'post_tool_use', tool: string, args: unknown, argsText: string, turn: TurnState): HookFailure[] {
  const out: HookFailure[] = [];
  const schema = h.tools.find((t) => t.name === tool)?.parameters;
  for (const hook of h.hooks) {
    if (hook.event !== event || hook.command) continue;
    if (hook.matcher && !hook.matcher.includes(tool)) continue;
    for (const c of hook.checks) {
      let why: string | null = null;
      if (c.type === 'schema_valid' && schema) {
        const errors = schemaErrors(schema, args);
        if (errors.length) why = errors.join('; ');
      } else if (c.type === 'forbid') {
        why = forbidden(c, c.target === 'user' ? turn.user : argsText);
        if (why && c.target === 'user') why = `the viewer's message ${why}`;
      } else if (c.type === 'max_tool_rounds' && turn.toolRounds > c.value) {
        why = `${turn.toolRounds} tool rounds used, limit ${c.value}`;
      }
      if (why) {
        out.push(fail(hook, why, { tool, rounds: turn.toolRounds }));
        break;
      }
    }
  }
  return out;
}

/** stop hooks on a final reply. */
export function stopHooks(h: Harness, reply: string, turn: TurnState): HookFailure[] {
  const out: HookFailure[] = [];
  const chars = [...reply].length;
  for (const hook of h.hooks) {
    if (hook.event !== 'stop' || hook.command) continue;
    for (const c of hook.checks) {
      let why: string | null = null;
      if (c.type === 'max_chars' && chars > c.value) why = `reply is ${chars} chars, limit ${c.value}`;
      else if (c.type === 'forbid') why = forbidden(c, c.target === 'user' ? turn.user : reply);
      else if (c.type === 'require_tool') {
        const applies =
          (!c.intents || (turn.intent !== undefined && c.intents.includes(turn.intent))) &&
          (c.whenReplyMatches === undefined || new RegExp(c.whenReplyMatches, 'u').test(reply));
        if (applies && !c.tools.some((t) => turn.called.includes(t))) why = `reply needs one of ${c.tools.join(', ')} first`;
      }
      if (why) {
        out.push(fail(hook, why, { chars }));
        break;
      }
    }
  }
  return out;
}
