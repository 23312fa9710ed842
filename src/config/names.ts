// Names the augment config defines and other commands read too (validate, verify, review): kept
// apart from the config's zod schema so that reading them does not load zod.

export const STAGES = ['sft', 'opd', 'rl'] as const;
export type Stage = (typeof STAGES)[number];

/** How a logged system message is taken (see docs/harness-format.md, "Logged system prompts"). */
export const SYSTEM_PROMPT_MODES = ['match', 'locate', 'replace'] as const;
export type SystemPromptMode = (typeof SYSTEM_PROMPT_MODES)[number];

/** The `harness` value (or an omitted harness) that makes every record's own tools and system message its harness. */
export const INLINE_HARNESS = 'inline';
