import { z } from 'zod';
import type { Harness, Hook, HookCheck } from '../../src/harness/types.js';
import { defineTransform } from '../../src/transform/define.js';
import { cloneState } from '../../src/transform/state.js';
import { HOOK_ID } from './rename.js';

const CHECK_TYPES = ['max_chars', 'forbid', 'require_tool', 'schema_valid', 'max_tool_rounds'] as const;
const ADDABLE = ['forbid_phrases', 'reply_length', 'tool_round_limit', 'args_schema_check'] as const;
type Addable = (typeof ADDABLE)[number];

interface Options {
  phrases: string[];
  maxChars: number;
  maxToolRounds: number;
}

/** The built-in hooks this transform can add; each is added only when no hook already does its job. */
function builtinHook(kind: Addable, id: string, o: Options): Hook {
  switch (kind) {
    case 'forbid_phrases':
      return {
        id,
        event: 'stop',
        description: 'Blocks replies that use phrases the shop must not say.',
        checks: [{ type: 'forbid', phrases: [...o.phrases], regex: [], target: 'reply' }],
        action: 'retry',
        channel: 'user',
        feedback: `[${id}] Your reply uses a phrase that is not allowed here. Say it again without it.`,
        maxRounds: 2,
      };
    case 'reply_length':
      return {
        id,
        event: 'stop',
        description: 'Keeps replies short.',
        checks: [{ type: 'max_chars', value: o.maxChars }],
        action: 'retry',
        channel: 'user',
        feedback: `[${id}] Your reply has {{chars}} characters; the limit is {{max_chars}}. Say it again shorter.`,
        maxRounds: 3,
      };
    case 'tool_round_limit':
      return {
        id,
        event: 'pre_inference',
        description: 'Forces a reply after too many tool rounds.',
        checks: [{ type: 'max_tool_rounds', value: o.maxToolRounds }],
        action: 'force_reply',
        channel: 'system',
        feedback: `[${id}] {{rounds}} tool rounds used (limit {{max_tool_rounds}}). Reply now without calling more tools.`,
        maxRounds: 1,
      };
    case 'args_schema_check':
      return {
        id,
        event: 'pre_tool_use',
        description: 'Rejects tool calls whose arguments do not match the tool schema.',
        checks: [{ type: 'schema_valid' }],
        action: 'reject',
        channel: 'tool',
        feedback: `[${id}] The arguments for {{tool}} do not match its schema ({{reason}}). Fix them and call again.`,
        maxRounds: 3,
      };
  }
}

/** True when some hook of `event` already has a check of `type` (then adding another is redundant). */
function covered(h: Harness, event: Hook['event'], type: HookCheck['type']): boolean {
  return h.hooks.some((k) => k.event === event && k.checks.some((c) => c.type === type));
}

const COVERS: Record<Addable, [Hook['event'], HookCheck['type']]> = {
  forbid_phrases: ['stop', 'forbid'],
  reply_length: ['stop', 'max_chars'],
  tool_round_limit: ['pre_inference', 'max_tool_rounds'],
  args_schema_check: ['pre_tool_use', 'schema_valid'],
};

/** Remove a non-essential hook, or add one from a small built-in set; behavioural, it needs a teacher re-run. */
export default defineTransform({
  id: 'hooks.toggle',
  family: 'hooks',
  class: 'behavioural',
  version: 1,
  description: 'Remove a non-essential hook, or add one from a built-in set (forbidden phrases, reply length, tool-round limit, schema check).',
  options: z.strictObject({
    p: z.number().min(0).max(1).default(0.3).describe('probability that a variant adds or removes a hook'),
    mode: z.enum(['add', 'remove', 'either']).default('either').describe('add a hook, remove one, or either'),
    keep: z.array(z.string()).default([]).describe('hook ids that are never removed'),
    essentialChecks: z.array(z.enum(CHECK_TYPES)).default(['schema_valid']).describe('a hook with any of these checks is essential and never removed'),
    add: z
      .array(z.enum(ADDABLE))
      .default([...ADDABLE])
      .describe('which built-in hooks may be added'),
    phrases: z
      .array(z.string().min(1))
      .min(1)
      .default(['guaranteed lowest', 'lowest price anywhere', '100% effective', 'best in the world', '全网最低', '绝对有效'])
      .describe('phrases the added forbid-phrases hook blocks in replies (case-insensitive)'),
    maxChars: z.number().int().min(1).default(120).describe('reply limit of the added reply-length hook, in characters'),
    maxToolRounds: z.number().int().min(1).default(4).describe('tool-round limit of the added tool-round hook'),
  }),
  apply(state, ctx) {
    const o = ctx.options;
    const ops: ({ op: 'remove'; id: string } | { op: 'add'; kind: Addable })[] = [];
    if (o.mode !== 'add') {
      for (const h of state.hooks) {
        if (o.keep.includes(h.id) || h.checks.some((c) => o.essentialChecks.includes(c.type))) continue;
        ops.push({ op: 'remove', id: h.id });
      }
    }
    if (o.mode !== 'remove') {
      for (const kind of ADDABLE) {
        if (!o.add.includes(kind)) continue;
        const [event, type] = COVERS[kind];
        if (kind === 'args_schema_check' && state.tools.length === 0) continue;
        if (!covered(state, event, type)) ops.push({ op: 'add', kind });
      }
    }
    if (ops.length === 0) return null;
    const op = ctx.rng.pick(ops);
    const out = cloneState(state);
    if (op.op === 'remove') {
      out.hooks = out.hooks.filter((h) => h.id !== op.id);
      return { state: out, params: { removed: op.id } };
    }
    const ids = new Set(state.hooks.map((h) => h.id));
    let id: string = op.kind;
    for (let n = 2; ids.has(id) || ctx.isTaken(id) || !HOOK_ID.test(id); n++) id = `${op.kind}_${n}`;
    const hook = builtinHook(op.kind, id, o);
    out.hooks.splice(ctx.rng.int(out.hooks.length + 1), 0, hook);
    return { state: out, params: { added: hook } };
  },
});
