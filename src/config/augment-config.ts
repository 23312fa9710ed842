import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, UnreadableInputError } from '../errors.js';
import { isParseFailure, parseLocated } from '../util/located.js';
import { describeIssue } from '../harness/schema.js';
import { defaultCacheDir } from '../llm/cache.js';
import type { EndpointSettings } from '../llm/client.js';
import { ENDPOINT_DEFAULTS } from '../llm/endpoint-schema.js';
import type { JudgeSettings } from '../llm/judge.js';
import { SPLITS, type Split } from '../transform/split.js';
import { WordPackError } from '../words/packs.js';
import { defaultSelection, resolveWordsConfig, type WordsSelection } from '../words/selection.js';
import type { AugmentFlags } from './flags.js';
import { judgeSettings } from './judge-settings.js';
import { augmentConfigSchema, INLINE_HARNESS, STAGES, SYSTEM_PROMPT_MODES, type AugmentConfigFile, type Stage, type SystemPromptMode } from './schema.js';

export { augmentConfigSchema, INLINE_HARNESS, STAGES, SYSTEM_PROMPT_MODES, type AugmentConfigFile, type Stage, type SystemPromptMode } from './schema.js';
export type { AugmentFlags } from './flags.js';

/** Tokenizer names `tokenizer:` resolves without a path (see src/tokenize/tokenizer.ts). */
const BUILTIN_TOKENIZERS = ['qwen3'];

export type TeacherMode = 'rewrite' | 'replay' | 'openai';

/** How variants get their final trajectory: rewritten, or re-run by a teacher. */
export interface TeacherSettings extends EndpointSettings {
  mode: TeacherMode;
  consistency: 'exact' | 'superset' | 'any';
  /** Model calls per user turn: a number, or `auto` (from the source turn; see turnRoundLimit). */
  maxRounds: number | 'auto';
  fallback: 'none' | 'rewrite';
  /** Per-call fallback (retries per episode attempt) and trajectory-level recovery (attempts per episode). */
  recovery: { maxCallRetries: number; maxAttempts: number };
  /** A judge every accepted teacher trajectory must satisfy (mean reply score at least minScore). */
  judge?: { settings: JudgeSettings; minScore: number };
}

/** Everything a run needs, resolved: paths relative to the working folder, defaults applied. */
export interface RunConfig {
  harness: string;
  trajectories: string[];
  general: string | null;
  out: string;
  seed: string;
  variants: number;
  keepSource: boolean;
  stages: Stage[];
  partSize: number;
  gzip: boolean;
  onError: 'fail' | 'skip';
  concurrency: number;
  /** The config's `shards:` (the count when only an index comes from the environment). */
  shards?: number;
  /** Harness states shared across records (0: a state sampled per record and variant). */
  statePool: number;
  /** match | locate | replace: how a record's logged system message is taken. */
  systemPrompt: SystemPromptMode;
  /** What JSON Schema `format` means when calls are validated (annotation unless asked). */
  formats: 'annotation' | 'assertion';
  teacher: TeacherSettings;
  /** Teacher answer cache (not part of the output identity). */
  cache: string;
  requireCache: boolean;
  allowCommandHooks: boolean;
  arguments: 'object' | 'string';
  toolsFormat: 'list' | 'json-string';
  /** Token counts of SFT/OPD records with this tokenizer (`qwen3` or a folder); null: not counted. */
  tokenizer: string | null;
  /** SFT/OPD records over this many tokens go to rejects (`too_long`); null: no budget. */
  maxTokens: number | null;
  /** `prompts`: how many of an output's assistant turns become OPD prompts (see opdTurns in src/output/stages.ts). */
  opd: { turns: 'all' | 'first'; prompts: number | 'all'; generalRatio: number };
  /** SFT records without an assistant turn go to rejects (`sft_no_assistant`) instead of sft/. */
  sft: { skipWithoutAssistant: boolean };
  rl: { dataSource: string; ability: string };
  /** Transform selection (id → options); undefined = every exact and semantic transform with defaults. */
  transforms: Record<string, unknown> | undefined;
  /** The word packs and lists, each pack with its sha256 (recorded in the manifest). */
  words: WordsSelection;
  plugins: string[];
  /** Disjoint name pools for train and eval sets (null: no split, the pools of every run). */
  split: Split | null;
  splitHoldout: string[];
}

export const DEFAULTS = {
  seed: '0',
  variants: 4,
  keepSource: false,
  stages: [...STAGES],
  partSize: 1000,
  gzip: true,
  onError: 'fail' as const,
  concurrency: 4,
  statePool: 64,
  teacher: 'rewrite' as const,
  arguments: 'object' as const,
  toolsFormat: 'list' as const,
  // One prompt per output record: see docs/output.md, "OPD prompts".
  opd: { turns: 'all' as const, prompts: 1 as number | 'all', generalRatio: 0.25 },
  recovery: { maxCallRetries: 3, maxAttempts: 3 },
};

/** Read and validate hsa.yaml; every problem at once, each with its key path and line. */
export async function readConfigFile(file: string): Promise<AugmentConfigFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new UnreadableInputError(`${file}: cannot read config`);
  }
  const doc = parseLocated(file, text);
  if (isParseFailure(doc)) throw new ConfigError(`${file}:${doc.line ?? 1}: YAML syntax: ${doc.message}`);
  const r = augmentConfigSchema.safeParse(doc.value ?? {});
  if (!r.success) {
    const lines = r.error.issues.map((issue) => {
      const d = describeIssue(issue);
      const at = issue.code === 'unrecognized_keys' && issue.keys[0] !== undefined ? [...d.path, issue.keys[0]] : d.path;
      const line = doc.lineOf(at);
      return `${file}${line ? `:${line}` : ''}: ${d.path.join('.') || '(root)'}: ${d.message}`;
    });
    throw new ConfigError(lines.join('\n'));
  }
  const { words, ...rest } = r.data;
  if (words === undefined) return rest;
  try {
    const where = (key: (string | number)[]) => `${file}${doc.lineOf(key) ? `:${doc.lineOf(key)}` : ''}: ${key.join('.')}`;
    return { ...rest, words: resolveWordsConfig(words, path.dirname(file), where) };
  } catch (e) {
    if (e instanceof WordPackError) throw new ConfigError(e.message);
    throw e;
  }
}

/** Merge config file and flags (flags win) into a RunConfig. */
export async function resolveRunConfig(flags: AugmentFlags): Promise<RunConfig> {
  const file = flags.config ? await readConfigFile(flags.config) : {};
  const base = flags.config ? path.dirname(flags.config) : '.';
  const rel = (p: string) => normalise(path.isAbsolute(p) ? p : path.join(base, p));
  const problems: string[] = [];
  // No harness (or `inline`): every record's own tools and system message are its harness.
  const given = flags.harness ?? (file.harness !== undefined ? (file.harness === INLINE_HARNESS ? INLINE_HARNESS : rel(file.harness)) : undefined);
  const harness = given === undefined || given === INLINE_HARNESS ? INLINE_HARNESS : given;
  const systemPrompt = flags.systemPrompt ?? file.system_prompt ?? 'match';
  if (!(SYSTEM_PROMPT_MODES as readonly string[]).includes(systemPrompt))
    problems.push(`--system-prompt: must be match, locate or replace, not "${systemPrompt}"`);
  const formats = flags.formats ?? file.validation?.formats ?? 'annotate';
  if (formats !== 'annotate' && formats !== 'assert') problems.push(`--formats: must be annotate or assert, not "${formats}"`);
  const trajectories =
    flags.trajectories ?? (file.trajectories === undefined ? undefined : (Array.isArray(file.trajectories) ? file.trajectories : [file.trajectories]).map(rel));
  if (!trajectories?.length) problems.push('trajectories: required (--trajectories or `trajectories:` in the config)');
  const out = flags.out ?? (file.out !== undefined ? rel(file.out) : undefined);
  if (!out) problems.push('out: required (--out or `out:` in the config)');
  const stages = flags.stages !== undefined ? parseStages(flags.stages, problems) : (file.stages ?? DEFAULTS.stages);
  const onError = flags.onError ?? file.on_error ?? DEFAULTS.onError;
  if (onError !== 'fail' && onError !== 'skip') problems.push(`--on-error: must be fail or skip, not "${onError}"`);
  const t = typeof file.teacher === 'string' ? { mode: file.teacher } : (file.teacher ?? {});
  const mode = flags.teacher ?? t.mode ?? DEFAULTS.teacher;
  if (mode !== 'rewrite' && mode !== 'replay' && mode !== 'openai') problems.push(`--teacher: must be rewrite, replay or openai, not "${mode}"`);
  const fallback = flags.fallback ?? t.fallback ?? 'none';
  if (fallback !== 'none' && fallback !== 'rewrite') problems.push(`--fallback: must be none or rewrite, not "${fallback}"`);
  const consistency = flags.consistency ?? t.consistency ?? 'exact';
  if (consistency !== 'exact' && consistency !== 'superset' && consistency !== 'any')
    problems.push(`--consistency: must be exact, superset or any, not "${consistency}"`);
  const baseUrl = flags.teacherUrl ?? t.base_url ?? '';
  const model = flags.teacherModel ?? t.model ?? '';
  if (mode === 'openai' && !baseUrl) problems.push('teacher.base_url: required with --teacher openai (or --teacher-url)');
  if (mode === 'openai' && !model) problems.push('teacher.model: required with --teacher openai (or --teacher-model)');
  const keyEnv = flags.teacherKeyEnv ?? t.api_key_env ?? ENDPOINT_DEFAULTS.apiKeyEnv;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(keyEnv)) problems.push(`--teacher-key-env: "${keyEnv}" is not an environment variable name`);
  const args = flags.arguments ?? file.arguments ?? DEFAULTS.arguments;
  if (args !== 'object' && args !== 'string') problems.push(`--arguments: must be object or string, not "${args}"`);
  const toolsFormat = flags.toolsFormat ?? file.tools_format ?? DEFAULTS.toolsFormat;
  if (toolsFormat !== 'list' && toolsFormat !== 'json-string') problems.push(`--tools-format: must be list or json-string, not "${toolsFormat}"`);
  const split = splitOption(flags.split ?? file.split, problems);
  const opdPrompts = opdPromptsOption(flags.opdPrompts, file.opd?.prompts, problems);
  const tj = 'judge' in t ? t.judge : undefined;
  if (tj && mode === 'rewrite') problems.push('teacher.judge: needs a teacher (mode replay or openai); rewrite mode runs no episode to judge');
  if (problems.length) throw new ConfigError(problems.join('\n'));
  const judge = tj ? { settings: await judgeSettings({ ...tj, rubric: rel(tj.rubric) }), minScore: tj.min_score } : undefined;

  let transforms: Record<string, unknown> | undefined = file.transforms ?? undefined;
  if (flags.transforms?.length) {
    const ids = flags.transforms
      .flatMap((t) => t.split(','))
      .map((t) => t.trim())
      .filter(Boolean);
    transforms = Object.fromEntries(ids.map((id) => [id, file.transforms?.[id] ?? true]));
  }
  const general = flags.general ?? (file.general ? rel(file.general) : null);
  return {
    harness: harness === INLINE_HARNESS ? INLINE_HARNESS : normalise(harness),
    trajectories: trajectories!.map(normalise),
    general: general ? normalise(general) : null,
    out: normalise(out!),
    seed: String(flags.seed ?? file.seed ?? DEFAULTS.seed),
    variants: flags.variants ?? file.variants ?? DEFAULTS.variants,
    keepSource: flags.keepSource ?? file.keep_source ?? DEFAULTS.keepSource,
    stages: [...STAGES].filter((s) => stages.includes(s)),
    partSize: flags.partSize ?? file.part_size ?? DEFAULTS.partSize,
    gzip: flags.gzip ?? file.gzip ?? DEFAULTS.gzip,
    onError: onError as 'fail' | 'skip',
    concurrency: flags.concurrency ?? file.concurrency ?? DEFAULTS.concurrency,
    ...(file.shards !== undefined ? { shards: file.shards } : {}),
    statePool: flags.statePool ?? file.state_pool ?? DEFAULTS.statePool,
    systemPrompt: systemPrompt as SystemPromptMode,
    formats: formats === 'assert' ? 'assertion' : 'annotation',
    teacher: {
      mode: mode as TeacherMode,
      baseUrl,
      model,
      apiKeyEnv: keyEnv,
      ...(t.temperature !== undefined ? { temperature: t.temperature } : {}),
      ...(t.top_p !== undefined ? { topP: t.top_p } : {}),
      ...(t.max_tokens !== undefined ? { maxTokens: t.max_tokens } : {}),
      ...(t.seed !== undefined ? { seed: t.seed } : {}),
      ...(t.extra_body !== undefined ? { extraBody: t.extra_body } : {}),
      timeoutMs: (t.timeout_s ?? ENDPOINT_DEFAULTS.timeoutS) * 1000,
      maxRetries: t.max_retries ?? ENDPOINT_DEFAULTS.maxRetries,
      ...(t.rpm !== undefined ? { rpm: t.rpm } : {}),
      ...(t.tpm !== undefined ? { tpm: t.tpm } : {}),
      consistency: consistency as TeacherSettings['consistency'],
      maxRounds: t.max_rounds ?? 'auto',
      fallback: fallback as TeacherSettings['fallback'],
      recovery: {
        maxCallRetries: t.recovery?.max_call_retries ?? DEFAULTS.recovery.maxCallRetries,
        maxAttempts: t.recovery?.max_attempts ?? DEFAULTS.recovery.maxAttempts,
      },
      ...(judge ? { judge } : {}),
    },
    cache: normalise(flags.cache ?? (file.cache !== undefined ? rel(file.cache) : defaultCacheDir())),
    requireCache: flags.requireCache ?? file.require_cache ?? false,
    allowCommandHooks: flags.allowCommandHooks ?? file.allow_command_hooks ?? false,
    arguments: args as 'object' | 'string',
    toolsFormat: toolsFormat as 'list' | 'json-string',
    // A budget needs a tokenizer: the built-in Qwen3 one unless another is named. A folder named in
    // the config is relative to the config file.
    tokenizer:
      flags.tokenizer ??
      (file.tokenizer !== undefined
        ? BUILTIN_TOKENIZERS.includes(file.tokenizer)
          ? file.tokenizer
          : rel(file.tokenizer)
        : (flags.maxTokens ?? file.max_tokens) !== undefined
          ? 'qwen3'
          : null),
    maxTokens: flags.maxTokens ?? file.max_tokens ?? null,
    opd: { turns: file.opd?.turns ?? DEFAULTS.opd.turns, prompts: opdPrompts, generalRatio: file.opd?.general_ratio ?? DEFAULTS.opd.generalRatio },
    sft: { skipWithoutAssistant: flags.skipEmptySft ?? file.sft?.skip_without_assistant ?? false },
    rl: { dataSource: file.rl?.data_source ?? '', ability: file.rl?.ability ?? 'agent' },
    transforms,
    words: wordsFor(flags.words, file.words),
    plugins: (flags.plugin ?? []).map(normalise),
    split,
    splitHoldout: file.split_holdout ?? [],
  };
}

/** `--words` replaces the config's packs and files; the config's own lists still apply after them. */
function wordsFor(refs: string[] | undefined, selection: WordsSelection | undefined): WordsSelection {
  const list = refs
    ?.flatMap((r) => r.split(','))
    .map((r) => r.trim())
    .filter(Boolean);
  try {
    if (!list?.length) return selection ?? defaultSelection();
    const picked = resolveWordsConfig(undefined, '.', () => '--words', list);
    return { sources: [...picked.sources, ...(selection?.sources.filter((s) => 'inline' in s) ?? [])] };
  } catch (e) {
    if (e instanceof WordPackError) throw new ConfigError(e.message);
    throw e;
  }
}

function parseStages(v: string, problems: string[]): Stage[] {
  const out: Stage[] = [];
  for (const s of v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)) {
    if ((STAGES as readonly string[]).includes(s)) out.push(s as Stage);
    else problems.push(`--stages: unknown stage "${s}" (sft, opd, rl)`);
  }
  if (out.length === 0 && problems.length === 0) problems.push('--stages: at least one stage');
  return out;
}

/**
 * The one spelling of a path that reaches output bytes (`meta.source_file`, the manifest's inputs,
 * rejects): relative to the working folder when the path is inside it, else absolute; `/`
 * separators, no `.` or `..` steps. So `./x.jsonl`, `x.jsonl`, `$PWD/x.jsonl` and `a/../x.jsonl`
 * give the same bytes (symbolic links are not resolved). Globs keep their pattern characters.
 */
export function canonicalPath(p: string, cwd = process.cwd()): string {
  const abs = path.resolve(cwd, p);
  const rel = path.relative(cwd, abs);
  const inside = rel !== '' && rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
  return (inside ? rel : rel === '' ? '.' : abs).split(path.sep).join('/');
}

function normalise(p: string): string {
  return canonicalPath(p);
}

/** `--opd-prompts` (a positive integer or `all`) over the config's `opd.prompts`, else the default. */
function opdPromptsOption(flag: string | undefined, file: number | 'all' | undefined, problems: string[]): number | 'all' {
  if (flag === undefined) return file ?? DEFAULTS.opd.prompts;
  if (flag === 'all') return 'all';
  const n = Number(flag);
  if (Number.isInteger(n) && n >= 1 && n <= 10_000) return n;
  problems.push(`--opd-prompts: must be a positive integer or all, not "${flag}"`);
  return DEFAULTS.opd.prompts;
}

function splitOption(v: string | undefined, problems: string[]): Split | null {
  if (v === undefined) return null;
  if (!(SPLITS as readonly string[]).includes(v)) {
    problems.push(`--split: must be train or eval, not "${v}"`);
    return null;
  }
  return v as Split;
}
