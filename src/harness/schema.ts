import type { z } from 'zod';
import { zod } from '../util/zod.js';

/** Shapes of the snapshot files, checked by zod. Cross-references are checked in validate.ts. */

export const HOOK_EVENT_ALIASES: Record<string, 'pre_inference' | 'pre_tool_use' | 'post_tool_use' | 'stop'> = {
  pre_inference: 'pre_inference',
  pre_tool_use: 'pre_tool_use',
  post_tool_use: 'post_tool_use',
  stop: 'stop',
  UserPromptSubmit: 'pre_inference',
  PreToolUse: 'pre_tool_use',
  PostToolUse: 'post_tool_use',
  Stop: 'stop',
};

// Built for the first hook the hand reading (parts-quick.ts) does not take.
function buildHookSchema() {
  const { z } = zod();
  const hookCheckSchema = z.union([
    z.strictObject({ max_chars: z.number().int().positive() }),
    z.strictObject({
      forbid: z.strictObject({
        phrases: z.array(z.string().min(1)).optional(),
        regex: z.array(z.string().min(1)).optional(),
        target: z.enum(['reply', 'arguments', 'user']).optional(),
      }),
    }),
    z.strictObject({
      require_tool: z.strictObject({
        tools: z.array(z.string().min(1)).min(1),
        intents: z.array(z.string()).optional(),
        when_reply_matches: z.string().optional(),
      }),
    }),
    z.strictObject({ schema_valid: z.literal(true) }),
    z.strictObject({ max_tool_rounds: z.number().int().positive() }),
  ]);

  return z.strictObject({
    id: z.string().regex(/^[A-Za-z][A-Za-z0-9_.-]*$/, 'must start with a letter and use letters, digits, _ . -'),
    event: z.string().refine((e) => Object.hasOwn(HOOK_EVENT_ALIASES, e), {
      message: `must be one of ${Object.keys(HOOK_EVENT_ALIASES).join(', ')}`,
    }),
    description: z.string().optional(),
    matcher: z.union([z.string(), z.array(z.string())]).optional(),
    checks: z.array(hookCheckSchema).optional(),
    action: z.enum(['retry', 'reject', 'force_reply']).optional(),
    channel: z.enum(['user', 'system', 'tool']).optional(),
    feedback: z.string().optional(),
    max_rounds: z.number().int().positive().optional(),
    command: z.string().min(1).optional(),
    timeout: z.number().positive().optional(),
  });
}
let hook: ReturnType<typeof buildHookSchema> | undefined;
/** One hsa hook's schema (built on first use). */
export const hookSchema = () => (hook ??= buildHookSchema());

// Built for the first harness file the hand reading (harness-file-quick.ts) does not take.
function buildHarnessFileSchema() {
  const { z } = zod();
  const versionString = z.union([z.string().min(1), z.number()]).transform((v) => String(v));

  const inlineSection = z.strictObject({ id: z.string().min(1), text: z.string() });

  const inlineSkill = z.strictObject({
    name: z.string().min(1),
    description: z.string(),
    kind: z.enum(['reply', 'strategy']).optional(),
    tools: z.array(z.string()).optional(),
    body: z.string().default(''),
  });

  return z.strictObject({
    name: z.string().min(1),
    version: versionString,
    description: z.string().optional(),
    prompt: z
      .strictObject({
        dir: z.string().optional(),
        order: z.array(z.string().min(1)).optional(),
        pinned: z.array(z.string().min(1)).optional(),
        unordered: z.array(z.string().min(1)).optional(),
        user_sections: z.array(z.string().min(1)).optional(),
        separator: z.string().optional(),
        sections: z.array(inlineSection).optional(),
        catalog: z
          .strictObject({
            id: z.string().min(1).optional(),
            title: z.string().min(1).optional(),
            intro: z.string().optional(),
          })
          .optional(),
      })
      .optional(),
    variables: z.record(z.string(), z.strictObject({ description: z.string().optional(), default: z.unknown().optional() }).nullable()).optional(),
    skills: z
      .strictObject({
        dir: z.string().optional(),
        naming: z.enum(['agent-skills', 'snake', 'kebab', 'identifier']).optional(),
        loader: z
          .strictObject({ tool: z.string().min(1), argument: z.string().min(1) })
          .nullable()
          .optional(),
        items: z.array(inlineSkill).optional(),
        unordered_lists: z.array(z.string().min(1)).optional(),
      })
      .optional(),
    tools: z
      .strictObject({
        sources: z.array(z.string().min(1)).optional(),
        items: z.array(z.unknown()).optional(),
      })
      .optional(),
    // A file name, hsa's list, or a Claude Code events mapping (read in load.ts / claude-hooks.ts).
    hooks: z
      .custom<string | unknown[] | Record<string, unknown>>(
        (v) => (typeof v === 'string' && v.length > 0) || Array.isArray(v) || (v !== null && typeof v === 'object'),
        {
          message:
            'expected a hooks file name, a list of hsa hooks (- id: …, event: stop, checks: […]) or a Claude Code hooks mapping (PreToolUse: [{matcher: Write|Edit, hooks: [{type: command, command: …}]}])',
        },
      )
      .optional(),
    hook_messages: z.strictObject({ name_prefix: z.string().min(1) }).optional(),
  });
}
let harnessFile: ReturnType<typeof buildHarnessFileSchema> | undefined;
/** harness.yaml's schema (built on first use). */
export const harnessFileSchema = () => (harnessFile ??= buildHarnessFileSchema());

export type HarnessFile = z.infer<ReturnType<typeof buildHarnessFileSchema>>;
export type HookInput = z.infer<ReturnType<typeof buildHookSchema>>;

export const skillFrontMatterKnown = ['name', 'description', 'kind', 'tools'] as const;

// Built for the first front matter the hand reading (parts-quick.ts) does not take.
function buildSkillFrontMatterSchema() {
  const { z } = zod();
  return z.looseObject({
    name: z.string().min(1),
    // The Agent Skills limit of 1024 characters is a warning (load.ts): published skills exceed it.
    description: z.string().min(1, 'must not be empty'),
    kind: z.enum(['reply', 'strategy']).optional(),
    tools: z.array(z.string().min(1)).optional(),
  });
}
let skillFrontMatter: ReturnType<typeof buildSkillFrontMatterSchema> | undefined;
/** SKILL.md front matter's schema (built on first use). */
export const skillFrontMatterSchema = () => (skillFrontMatter ??= buildSkillFrontMatterSchema());

function buildToolSchemas() {
  const { z } = zod();
  return {
    openAi: z.strictObject({
      type: z.literal('function'),
      function: z.strictObject({
        name: z.string().min(1),
        description: z.string().optional(),
        parameters: z.record(z.string(), z.unknown()).optional(),
        strict: z.boolean().nullable().optional(),
      }),
    }),
    mcp: z.looseObject({
      name: z.string().min(1),
      title: z.string().optional(),
      description: z.string().optional(),
      inputSchema: z.record(z.string(), z.unknown()),
      outputSchema: z.record(z.string(), z.unknown()).optional(),
      annotations: z.record(z.string(), z.unknown()).optional(),
    }),
  };
}
let toolSchemas: ReturnType<typeof buildToolSchemas> | undefined;
/** An OpenAI function tool's schema (built on first use: tools.ts reads the common shape by hand). */
export const openAiToolSchema = () => (toolSchemas ??= buildToolSchemas()).openAi;
/** An MCP tool's schema (built on first use). */
export const mcpToolSchema = () => (toolSchemas ??= buildToolSchemas()).mcp;

/** zod issue → (path, message) in our words. */
export function describeIssue(issue: z.core.$ZodIssue): { path: (string | number)[]; message: string } {
  const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
  if (issue.code === 'unrecognized_keys') {
    return { path, message: `unknown key${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}` };
  }
  if (issue.code === 'invalid_type' && issue.input === undefined) {
    return { path, message: `required (expected ${issue.expected})` };
  }
  if (issue.code === 'invalid_union' && issue.input === undefined) {
    return { path, message: 'required' };
  }
  if (issue.code === 'invalid_union') {
    return { path, message: unionMessage(issue) };
  }
  return { path, message: issue.message };
}

function unionMessage(issue: z.core.$ZodIssueInvalidUnion): string {
  const input = issue.input;
  if (input !== null && typeof input === 'object' && !Array.isArray(input)) {
    const keys = Object.keys(input);
    if (keys.length === 1) {
      // One-key check objects: report against the branch with that key.
      for (const branch of issue.errors) {
        const first = branch[0];
        if (first && first.path[0] === keys[0]) return `${keys[0]}: ${describeIssue(first).message}`;
      }
      if (issue.errors.every((b) => b.some((i) => i.code === 'unrecognized_keys'))) {
        return `unknown check "${keys[0]}" (expected one of max_chars, forbid, require_tool, schema_valid, max_tool_rounds)`;
      }
    }
  }
  return 'does not match any accepted form';
}
