import { z } from 'zod';
import { endpointSchema } from '../llm/endpoint-schema.js';
import { teacherJudgeSchema } from '../llm/judge-schema.js';
import { SPLITS } from '../transform/split.js';
import { wordsConfigSchema } from '../words/packs.js';
import type { WordsSelection } from '../words/selection.js';
import { STAGES, SYSTEM_PROMPT_MODES } from './names.js';

export { INLINE_HARNESS, STAGES, SYSTEM_PROMPT_MODES, type Stage, type SystemPromptMode } from './names.js';

// hsa.yaml, the augment config: every key with what it does and its default, in one place. The
// descriptions are the reference docs/config.md is generated from (scripts/docs-config.mjs).

const TEACHER_MODES = ['rewrite', 'replay', 'openai'] as const;
const teacherMode = z.enum(TEACHER_MODES);

/** `teacher:` as a section: the mode, the endpoint (shared with judge: and eval's model:) and the episode's rules. */
const teacherSection = z.strictObject({
  mode: teacherMode
    .optional()
    .describe(
      'rewrite (the rewritten reference is the result), replay (the offline teacher through the agent runtime) or openai (a teacher model re-runs every variant). Default: rewrite.',
    ),
  ...endpointSchema.shape,
  consistency: z.enum(['exact', 'superset', 'any']).optional().describe("The teacher's calls against the reference's: exact, superset or any. Default: exact."),
  max_rounds: z
    .union([z.number().int().min(1).max(1000), z.literal('auto')])
    .optional()
    .describe("Model calls per user turn: N, or auto (the source turn's calls and a margin). Default: auto."),
  fallback: z
    .enum(['none', 'rewrite'])
    .optional()
    .describe('When a teacher run is rejected: none (to rejects) or rewrite (keep the rewritten reference, marked). Default: none.'),
  recovery: z
    .strictObject({
      max_call_retries: z
        .number()
        .int()
        .min(0)
        .max(100)
        .optional()
        .describe('Per episode attempt: an invalid, unknown or old-name call gets a tool error and is asked again this many times. Default: 3.'),
      max_attempts: z
        .number()
        .int()
        .min(1)
        .max(100)
        .optional()
        .describe('A failed episode is re-run with the next sample index, up to this many attempts, then rejected. Default: 3.'),
    })
    .optional()
    .describe('Per-call fallback and trajectory-level recovery of teacher episodes.'),
  judge: teacherJudgeSchema.optional(),
});

/** hsa.yaml, the augment config. Paths inside it are relative to the file. */
export const augmentConfigSchema = z.strictObject({
  harness: z
    .string()
    .min(1)
    .optional()
    .describe(
      "Harness folder or single harness YAML file. Default: inline (each record's own tools and system message are its harness; also the value `inline`).",
    ),
  trajectories: z
    .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
    .optional()
    .describe('Trajectory JSONL files or globs, read in sorted path order. No default: required (here or --trajectories).'),
  general: z.string().min(1).nullable().optional().describe('General prompts (JSONL) mixed into OPD. Default: none.'),
  out: z.string().min(1).optional().describe('Output folder (one run per folder; a rerun resumes). No default: required (here or --out).'),
  seed: z.union([z.string(), z.number()]).optional().describe('Run seed: the same inputs, config and seed give the same bytes. Default: 0.'),
  variants: z.number().int().min(0).max(10_000).optional().describe('Augmented variants per source record. Default: 4.'),
  keep_source: z.boolean().optional().describe('Also write each source record unchanged (id SOURCE~src). Default: false.'),
  stages: z.array(z.enum(STAGES)).min(1).optional().describe('Stage folders to write: sft, opd, rl. Default: all three.'),
  part_size: z.number().int().min(1).optional().describe('Input records per part: the unit of work and of resume. Default: 1000.'),
  gzip: z.boolean().optional().describe('Write .jsonl.gz parts (deterministic gzip) instead of plain .jsonl. Default: true.'),
  on_error: z.enum(['fail', 'skip']).optional().describe('A bad input record: fail the run, or skip it to rejects with its reason. Default: fail.'),
  concurrency: z.number().int().min(1).max(1024).optional().describe('Parts or requests in flight; output never depends on it. Default: 4.'),
  shards: z
    .number()
    .int()
    .min(1)
    .max(100000)
    .optional()
    .describe('Shards of a sharded run (hsa emit writes it); the index comes from the batch engine. Default: none (a whole run).'),
  state_pool: z
    .number()
    .int()
    .min(0)
    .max(65536)
    .optional()
    .describe('Harness states shared across records (the variants of a record pick distinct ones); 0: a state per record and variant. Default: 64.'),
  system_prompt: z
    .enum(SYSTEM_PROMPT_MODES)
    .optional()
    .describe(
      'A logged system message: match (the rendered harness), locate (harness sections inside it, the rest kept verbatim) or replace (by the rendered harness). Default: match.',
    ),
  validation: z
    .strictObject({
      formats: z
        .enum(['annotate', 'assert'])
        .optional()
        .describe('What JSON Schema `format` means when calls are validated: annotate or assert. Default: annotate.'),
    })
    .optional()
    .describe('How tool calls are validated.'),
  teacher: z
    .union([teacherMode, teacherSection])
    .optional()
    .describe('How variants get their final trajectory: a mode name, or a section with the mode, the endpoint and the episode rules. Default: rewrite.'),
  cache: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Teacher answer cache folder (not part of the output identity). Default: $HSA_CACHE_DIR, else $XDG_CACHE_HOME/hsa/teacher, else ~/.cache/hsa/teacher.',
    ),
  require_cache: z.boolean().optional().describe('Fail on any teacher request missing from the cache (for CI). Default: false.'),
  allow_command_hooks: z.boolean().optional().describe("Run the harness's command hooks (never run otherwise). Default: false."),
  arguments: z
    .enum(['object', 'string'])
    .optional()
    .describe('Tool-call arguments in SFT/OPD: object (HF chat templates) or string (OpenAI). Default: object.'),
  tools_format: z.enum(['list', 'json-string']).optional().describe('Tools in SFT/OPD: list, or json-string (for Arrow/Parquet readers). Default: list.'),
  tokenizer: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Count SFT/OPD tokens with qwen3 (built in) or a folder with tokenizer.json and tokenizer_config.json. Default: not counted (qwen3 when max_tokens is set).',
    ),
  max_tokens: z.number().int().positive().optional().describe('SFT/OPD records over this many tokens go to rejects as too_long. Default: no budget.'),
  opd: z
    .strictObject({
      turns: z.enum(['all', 'first']).optional().describe('Assistant turns that may become OPD prompts: all, or only the first. Default: all.'),
      prompts: z
        .union([z.number().int().min(1).max(10_000), z.literal('all')])
        .optional()
        .describe('OPD prompts per output record: N of its assistant turns (seeded, spread over its variants), or all. Default: 1.'),
      general_ratio: z.number().min(0).max(0.95).optional().describe('Share of OPD records that are general prompts. Default: 0.25.'),
    })
    .optional()
    .describe('The OPD stage.'),
  sft: z
    .strictObject({
      skip_without_assistant: z
        .boolean()
        .optional()
        .describe('SFT records without an assistant turn go to rejects (sft_no_assistant) instead of sft/. Default: false.'),
    })
    .optional()
    .describe('The SFT stage.'),
  rl: z
    .strictObject({
      data_source: z.string().min(1).optional().describe('verl data_source of RL rows. Default: hsa/<harness name>.'),
      ability: z.string().min(1).optional().describe('verl ability of RL rows. Default: agent.'),
    })
    .optional()
    .describe('The RL stage.'),
  transforms: z
    .record(z.string(), z.union([z.boolean(), z.record(z.string(), z.unknown()), z.null()]))
    .optional()
    .describe(
      'Transform id → options (true: defaults, false: off), applied in registry order; `hsa transforms` lists them. Default: every exact and semantic transform with its defaults.',
    ),
  words: wordsConfigSchema
    .optional()
    .describe('Word packs and lists (docs/words.md), resolved to a selection when the file is read. Default: the default pack.'),
  split: z.enum(SPLITS).optional().describe('train or eval: draw new names from disjoint pools (docs/eval.md). Default: none.'),
  split_holdout: z
    .array(z.string().min(1))
    .optional()
    .describe('Transform ids held out of training: off in `split: train`, on in `split: eval`. Default: none.'),
});

/** hsa.yaml as read: `words:` resolved to the packs it selects (paths relative to the file, sha256 of each). */
export type AugmentConfigFile = Omit<z.infer<typeof augmentConfigSchema>, 'words'> & { words?: WordsSelection };

/** The `teacher:` section as written (a bare mode is read as `{mode}`). */
export type TeacherSection = z.infer<typeof teacherSection>;
