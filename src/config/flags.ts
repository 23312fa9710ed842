import type { z } from 'zod';
import type { augmentConfigSchema, TeacherSection } from './schema.js';

/** Flags of `hsa augment`; each overrides the config key of the same meaning. */
export interface AugmentFlags {
  config?: string;
  harness?: string;
  trajectories?: string[];
  general?: string;
  out?: string;
  seed?: string;
  variants?: number;
  keepSource?: boolean;
  transforms?: string[];
  stages?: string;
  partSize?: number;
  gzip?: boolean;
  onError?: string;
  concurrency?: number;
  statePool?: number;
  systemPrompt?: string;
  formats?: string;
  teacher?: string;
  teacherUrl?: string;
  teacherModel?: string;
  teacherKeyEnv?: string;
  cache?: string;
  requireCache?: boolean;
  fallback?: string;
  consistency?: string;
  allowCommandHooks?: boolean;
  arguments?: string;
  toolsFormat?: string;
  skipEmptySft?: boolean;
  /** `N` or `all`: OPD prompts per output record (config `opd.prompts`). */
  opdPrompts?: string;
  tokenizer?: string;
  maxTokens?: number;
  plugin?: string[];
  split?: string;
  /** Word packs (built-in names or files) instead of the config's `words.packs` / `words.file`. */
  words?: string[];
  force?: boolean;
  json?: boolean;
  quiet?: boolean;
}

type File = z.infer<typeof augmentConfigSchema>;
type Keys<T> = Exclude<keyof NonNullable<T>, symbol | number>;

/** Every leaf key of hsa.yaml as a dotted path (sections spelled out; records such as `transforms` are one key). */
export type ConfigKey =
  | Exclude<Keys<File>, 'teacher' | 'validation' | 'opd' | 'sft' | 'rl'>
  | `validation.${Keys<File['validation']>}`
  | `teacher.${Exclude<Keys<TeacherSection>, 'recovery'>}`
  | `teacher.recovery.${Keys<TeacherSection['recovery']>}`
  | `opd.${Keys<File['opd']>}`
  | `sft.${Keys<File['sft']>}`
  | `rl.${Keys<File['rl']>}`;

/**
 * The `hsa augment` flag of every config key (the AugmentFlags member it sets; src/cli/main.ts
 * spells it in kebab case), or null where the key has no flag on purpose. A key added to the
 * schema without an entry here does not compile.
 */
export const CONFIG_FLAGS = {
  harness: 'harness',
  trajectories: 'trajectories',
  general: 'general',
  out: 'out',
  seed: 'seed',
  variants: 'variants',
  keep_source: 'keepSource',
  stages: 'stages',
  part_size: 'partSize',
  gzip: 'gzip',
  on_error: 'onError',
  concurrency: 'concurrency',
  // --num-shards / --shard-index (src/scale/shard.ts) say the same for one shard.
  shards: null,
  state_pool: 'statePool',
  system_prompt: 'systemPrompt',
  'validation.formats': 'formats',
  'teacher.mode': 'teacher',
  'teacher.base_url': 'teacherUrl',
  'teacher.model': 'teacherModel',
  'teacher.api_key_env': 'teacherKeyEnv',
  'teacher.temperature': null,
  'teacher.top_p': null,
  'teacher.max_tokens': null,
  'teacher.seed': null,
  'teacher.extra_body': null,
  'teacher.timeout_s': null,
  'teacher.max_retries': null,
  'teacher.rpm': null,
  'teacher.tpm': null,
  'teacher.consistency': 'consistency',
  'teacher.max_rounds': null,
  'teacher.fallback': 'fallback',
  'teacher.recovery.max_call_retries': null,
  'teacher.recovery.max_attempts': null,
  'teacher.judge': null,
  cache: 'cache',
  require_cache: 'requireCache',
  allow_command_hooks: 'allowCommandHooks',
  arguments: 'arguments',
  tools_format: 'toolsFormat',
  tokenizer: 'tokenizer',
  max_tokens: 'maxTokens',
  'opd.turns': null,
  'opd.prompts': 'opdPrompts',
  'opd.general_ratio': null,
  'sft.skip_without_assistant': 'skipEmptySft',
  'rl.data_source': null,
  'rl.ability': null,
  transforms: 'transforms',
  words: 'words',
  split: 'split',
  split_holdout: null,
} as const satisfies { readonly [K in ConfigKey]: keyof AugmentFlags | null };

/** Flags of a run that set no config key. */
export const RUN_ONLY_FLAGS = ['config', 'plugin', 'force', 'json', 'quiet'] as const satisfies readonly (keyof AugmentFlags)[];

type MappedFlag = NonNullable<(typeof CONFIG_FLAGS)[ConfigKey]> | (typeof RUN_ONLY_FLAGS)[number];
/** Compiles only while every member of AugmentFlags is a config key's flag or a run-only flag. */
const everyFlagMapped: [Exclude<keyof AugmentFlags, MappedFlag>] extends [never] ? true : never = true;
void everyFlagMapped;
