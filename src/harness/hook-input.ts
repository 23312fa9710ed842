import { HOOK_EVENT_ALIASES, type HookInput } from './schema.js';
import type { Hook, HookCheck } from './types.js';

/** A hook as written in harness.yaml, with its defaults filled in and its event alias resolved. */
export function normaliseHook(h: HookInput): Hook {
  const event = HOOK_EVENT_ALIASES[h.event]!;
  // A forbid check looks at the reply on stop/pre_inference hooks and at the call's arguments on tool hooks.
  const forbidTarget = event === 'stop' || event === 'pre_inference' ? 'reply' : 'arguments';
  const checks: HookCheck[] = (h.checks ?? []).map((c): HookCheck => {
    if ('max_chars' in c) return { type: 'max_chars', value: c.max_chars };
    if ('forbid' in c) return { type: 'forbid', phrases: c.forbid.phrases ?? [], regex: c.forbid.regex ?? [], target: c.forbid.target ?? forbidTarget };
    if ('require_tool' in c) {
      const out: HookCheck = { type: 'require_tool', tools: c.require_tool.tools };
      if (c.require_tool.intents) out.intents = c.require_tool.intents;
      if (c.require_tool.when_reply_matches !== undefined) out.whenReplyMatches = c.require_tool.when_reply_matches;
      return out;
    }
    if ('schema_valid' in c) return { type: 'schema_valid' };
    return { type: 'max_tool_rounds', value: c.max_tool_rounds };
  });
  const hook: Hook = {
    id: h.id,
    event,
    checks,
    action: h.action ?? (event === 'pre_tool_use' ? 'reject' : 'retry'),
    channel: h.channel ?? (event === 'pre_tool_use' || event === 'post_tool_use' ? 'tool' : 'user'),
    feedback: h.feedback ?? `[${h.id}] {{reason}}`,
    maxRounds: h.max_rounds ?? 3,
  };
  if (h.description !== undefined) hook.description = h.description;
  if (h.matcher !== undefined) hook.matcher = typeof h.matcher === 'string' ? [h.matcher] : h.matcher;
  if (h.command !== undefined) hook.command = h.command;
  if (h.timeout !== undefined) hook.timeout = h.timeout;
  return hook;
}
