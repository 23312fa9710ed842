// The hooks family and a small harness of hooks, shared by the hooks transform tests.
import type { Harness, Hook } from '../../src/harness/types.js';
import type { AnyTransform } from '../../src/transform/define.js';
import channel from '../../transforms/hooks/channel.js';
import feedbackStyle from '../../transforms/hooks/feedback-style.js';
import order from '../../transforms/hooks/order.js';
import rename from '../../transforms/hooks/rename.js';
import threshold from '../../transforms/hooks/threshold.js';
import toggle from '../../transforms/hooks/toggle.js';
import { applyTransform, baseHarness, stateErrors } from './state.js';

/** The hooks family in the order a registry would apply it. Built here: transforms/index.ts is the lead's. */
export const exactAndSemantic: Record<string, AnyTransform> = {
  [rename.id]: rename,
  [feedbackStyle.id]: feedbackStyle,
  [channel.id]: channel,
  [order.id]: order,
};
export const behavioural: Record<string, AnyTransform> = { [threshold.id]: threshold, [toggle.id]: toggle };
export const family: Record<string, AnyTransform> = { ...exactAndSemantic, ...behavioural };

export function hook(id: string, over: Partial<Hook> = {}): Hook {
  return {
    id,
    event: 'stop',
    checks: [{ type: 'max_chars', value: 80 }],
    action: 'retry',
    channel: 'user',
    feedback: `[${id}] Too long: {{chars}} > {{max_chars}}.`,
    maxRounds: 3,
    ...over,
  };
}

export function harness(hooks: Hook[] = []): Harness {
  return baseHarness({
    sections: [{ id: 'role', kind: 'text', text: '# Role\nYou host the room.', placement: 'system' }],
    tools: [
      {
        name: 'refuse_request',
        description: 'Decline.',
        parameters: { type: 'object', properties: { reason: { type: 'string' } } },
        sourceName: 'refuse_request',
        sourceFormat: 'openai',
      },
    ],
    hooks,
  });
}

export const stopGate = hook('stop_gate');
export const stopLoop = hook('stop_loop', {
  event: 'pre_inference',
  checks: [{ type: 'max_tool_rounds', value: 4 }],
  action: 'force_reply',
  channel: 'system',
  feedback: '[stop_loop] {{rounds}} rounds (limit {{max_tool_rounds}}).',
});
export const whitelist = hook('refusal_whitelist', {
  event: 'pre_tool_use',
  matcher: ['refuse_request'],
  checks: [{ type: 'forbid', phrases: [], regex: ['size'], target: 'user' }],
  action: 'reject',
  channel: 'tool',
  feedback: '[refusal_whitelist] {{tool}} was blocked.',
});
export const schemaValid = hook('schema_valid', {
  event: 'pre_tool_use',
  checks: [{ type: 'schema_valid' }],
  action: 'reject',
  channel: 'tool',
  feedback: '[schema_valid] Bad arguments for {{tool}} ({{reason}}).',
});
export const allHooks = () => harness([stopGate, stopLoop, whitelist, schemaValid]);

export const run = applyTransform;

export const problems = stateErrors;
