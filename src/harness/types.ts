/**
 * The in-memory harness: one concrete harness state. Plain JSON data (no classes, no Maps) so a
 * state can be hashed, cloned, diffed and written into a manifest.
 */
export type JsonSchema = Record<string, unknown>;

export type SkillNaming = 'agent-skills' | 'snake' | 'kebab' | 'identifier';
export type SkillKind = 'reply' | 'strategy';
export type HookEvent = 'pre_inference' | 'pre_tool_use' | 'post_tool_use' | 'stop';
export type HookAction = 'retry' | 'reject' | 'force_reply';
export type HookChannel = 'user' | 'system' | 'tool';

export interface Section {
  id: string;
  /** `text`: a prompt file; `catalog`: the generated skill catalog. */
  kind: 'text' | 'catalog';
  /** Markdown with `{{slots}}`, trimmed. Empty for the catalog. */
  text: string;
  /** Where in the system prompt it goes: the system message, or a preamble before the first user turn. */
  placement: 'system' | 'preamble';
}

export interface Catalog {
  id: string;
  title: string;
  intro?: string;
}

export interface Skill {
  id: string;
  description: string;
  kind: SkillKind;
  tools: string[];
  body: string;
  /** Front-matter keys we do not interpret, kept as written. */
  extra: Record<string, unknown>;
  /** A distractor added by a transform: listed, never loaded. */
  distractor?: boolean;
  /**
   * The harness declares this skill's bullet lists free to reorder (`skills.unordered_lists` in
   * harness.yaml). Without it only lists marked `<!-- hsa:unordered -->` are; procedures never are.
   */
  unorderedLists?: boolean;
}

export interface Tool {
  /** The name the model sees (OpenAI-safe). */
  name: string;
  description: string;
  parameters: JsonSchema;
  title?: string;
  annotations?: Record<string, unknown>;
  /** The tool's name in its source (differs from `name` for MCP names OpenAI does not allow). */
  sourceName: string;
  sourceFormat: 'openai' | 'mcp';
  /** A distractor added by a transform: listed, never called. */
  distractor?: boolean;
}

export type HookCheck =
  | { type: 'max_chars'; value: number }
  | { type: 'forbid'; phrases: string[]; regex: string[]; target: 'reply' | 'arguments' | 'user' }
  | { type: 'require_tool'; tools: string[]; intents?: string[]; whenReplyMatches?: string }
  | { type: 'schema_valid' }
  | { type: 'max_tool_rounds'; value: number };

export interface Hook {
  id: string;
  event: HookEvent;
  description?: string;
  /** Tool hooks only: the tools this hook applies to; absent = every tool. */
  matcher?: string[];
  checks: HookCheck[];
  action: HookAction;
  channel: HookChannel;
  feedback: string;
  maxRounds: number;
  /** Claude Code convention command hook; run only with --allow-command-hooks. */
  command?: string;
  timeout?: number;
}

/** How the prompt is laid out when a transform restyles it; `null` renders sections as written. */
export interface PromptStyle {
  heading: 'markdown' | 'xml' | 'bracket' | 'caps' | 'colon';
  headingLevel: number;
  titleCase: 'as-is' | 'upper' | 'lower' | 'title';
  listMarker: '-' | '*' | '+' | '1.' | '•';
  separator: string;
  /**
   * Under the `xml` heading style: titles whose derived tag would spell a harness identifier (a
   * tool, parameter, skill or hook name of the source state or this one). They render as
   * `<section title="…">`, so generated markup never carries a name a rename took away.
   */
  neutralTitles?: readonly string[];
}

export interface Harness {
  name: string;
  version: string;
  description?: string;
  /** Sections in prompt order, the skill catalog among them. */
  sections: Section[];
  /**
   * Harness text a log carries inside its first user turn (`prompt.user_sections`: a coding agent's
   * tool instructions in the task message), in order; not part of the system prompt. Renames follow
   * it there; the rest of that turn stays the user's words. Absent: user turns are data only.
   */
  userTexts?: { id: string; text: string }[];
  pinned: string[];
  unordered: string[];
  separator: string;
  catalog: Catalog;
  variables: Record<string, { description?: string; default?: unknown }>;
  skillNaming: SkillNaming;
  skillLoader: { tool: string; argument: string } | null;
  /** Skills in catalog order. */
  skills: Skill[];
  /** Tools in the order the model sees them. */
  tools: Tool[];
  hooks: Hook[];
  hookMessages: { namePrefix: string };
  promptStyle: PromptStyle | null;
  /** Prompt text is literal, never a template (an inline harness: a record's system message as logged). */
  literalPrompt?: boolean;
}

/** The tool list the model sees, in OpenAI Chat Completions shape. */
export interface OpenAiTool {
  type: 'function';
  function: { name: string; description: string; parameters: JsonSchema };
}

export const SKILL_NAME_PATTERNS: Record<SkillNaming, RegExp> = {
  'agent-skills': /^[a-z0-9]+(-[a-z0-9]+)*$/,
  snake: /^[a-z][a-z0-9_]*$/,
  kebab: /^[a-z][a-z0-9-]*$/,
  identifier: /^[A-Za-z][A-Za-z0-9_-]*$/,
};
export const SKILL_NAME_MAX = 64;
export const OPENAI_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
