import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { HsaError, UnreadableInputError } from '../errors.js';
import { isParseFailure, parseLocated } from '../util/located.js';
import { describeIssue } from '../harness/schema.js';

export class ConfigError extends HsaError {
  constructor(message: string) {
    super('HSA_BAD_CONFIG', message, 2);
    this.name = 'ConfigError';
  }
}

export const STAGES = ['sft', 'opd', 'rl'] as const;
export type Stage = (typeof STAGES)[number];

/** hsa.yaml, the augment config. Paths inside it are relative to the file. */
export const augmentConfigSchema = z.strictObject({
  harness: z.string().min(1).optional(),
  trajectories: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
  general: z.string().min(1).nullable().optional(),
  out: z.string().min(1).optional(),
  seed: z.union([z.string(), z.number()]).optional(),
  variants: z.number().int().min(0).max(10_000).optional(),
  keep_source: z.boolean().optional(),
  stages: z.array(z.enum(STAGES)).min(1).optional(),
  part_size: z.number().int().min(1).optional(),
  gzip: z.boolean().optional(),
  on_error: z.enum(['fail', 'skip']).optional(),
  concurrency: z.number().int().min(1).max(1024).optional(),
  state_pool: z.number().int().min(0).max(65536).optional(),
  teacher: z.enum(['rewrite']).optional(),
  arguments: z.enum(['object', 'string']).optional(),
  tools_format: z.enum(['list', 'json-string']).optional(),
  opd: z
    .strictObject({
      turns: z.enum(['all', 'first']).optional(),
      general_ratio: z.number().min(0).max(0.95).optional(),
    })
    .optional(),
  rl: z.strictObject({ data_source: z.string().min(1).optional(), ability: z.string().min(1).optional() }).optional(),
  transforms: z.record(z.string(), z.union([z.boolean(), z.record(z.string(), z.unknown()), z.null()])).optional(),
  words: z
    .strictObject({
      synonyms: z.record(z.string(), z.array(z.string())).optional(),
      prefixes: z.array(z.string()).optional(),
      suffixes: z.array(z.string()).optional(),
      servers: z.array(z.string()).optional(),
      descriptionFrames: z.array(z.string()).optional(),
      feedbackFrames: z.array(z.string()).optional(),
    })
    .optional(),
});
export type AugmentConfigFile = z.infer<typeof augmentConfigSchema>;

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
  teacher?: string;
  arguments?: string;
  toolsFormat?: string;
  plugin?: string[];
  force?: boolean;
  json?: boolean;
  quiet?: boolean;
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
  /** Harness states shared across records (0: a state sampled per record and variant). */
  statePool: number;
  teacher: 'rewrite';
  arguments: 'object' | 'string';
  toolsFormat: 'list' | 'json-string';
  opd: { turns: 'all' | 'first'; generalRatio: number };
  rl: { dataSource: string; ability: string };
  /** Transform selection (id → options); undefined = every exact and semantic transform with defaults. */
  transforms: Record<string, unknown> | undefined;
  words: AugmentConfigFile['words'];
  plugins: string[];
}

export const DEFAULTS = {
  seed: '0',
  variants: 4,
  keepSource: false,
  stages: [...STAGES],
  partSize: 1000,
  gzip: false,
  onError: 'fail' as const,
  concurrency: 4,
  statePool: 0,
  teacher: 'rewrite' as const,
  arguments: 'object' as const,
  toolsFormat: 'list' as const,
  opd: { turns: 'all' as const, generalRatio: 0.25 },
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
  return r.data;
}

/** Merge config file and flags (flags win) into a RunConfig. */
export async function resolveRunConfig(flags: AugmentFlags): Promise<RunConfig> {
  const file = flags.config ? await readConfigFile(flags.config) : {};
  const base = flags.config ? path.dirname(flags.config) : '.';
  const rel = (p: string) => normalise(path.join(base, p));
  const problems: string[] = [];
  const harness = flags.harness ?? (file.harness !== undefined ? rel(file.harness) : undefined);
  if (!harness) problems.push('harness: required (--harness or `harness:` in the config)');
  const trajectories = flags.trajectories ?? (file.trajectories === undefined ? undefined : (Array.isArray(file.trajectories) ? file.trajectories : [file.trajectories]).map(rel));
  if (!trajectories?.length) problems.push('trajectories: required (--trajectories or `trajectories:` in the config)');
  const out = flags.out ?? (file.out !== undefined ? rel(file.out) : undefined);
  if (!out) problems.push('out: required (--out or `out:` in the config)');
  const stages = flags.stages !== undefined ? parseStages(flags.stages, problems) : (file.stages ?? DEFAULTS.stages);
  const onError = flags.onError ?? file.on_error ?? DEFAULTS.onError;
  if (onError !== 'fail' && onError !== 'skip') problems.push(`--on-error: must be fail or skip, not "${onError}"`);
  const teacher = flags.teacher ?? file.teacher ?? DEFAULTS.teacher;
  if (teacher !== 'rewrite') problems.push(`--teacher: "${teacher}" is not available; this version supports rewrite (the teacher re-run is not built yet)`);
  const args = flags.arguments ?? file.arguments ?? DEFAULTS.arguments;
  if (args !== 'object' && args !== 'string') problems.push(`--arguments: must be object or string, not "${args}"`);
  const toolsFormat = flags.toolsFormat ?? file.tools_format ?? DEFAULTS.toolsFormat;
  if (toolsFormat !== 'list' && toolsFormat !== 'json-string') problems.push(`--tools-format: must be list or json-string, not "${toolsFormat}"`);
  if (problems.length) throw new ConfigError(problems.join('\n'));

  let transforms: Record<string, unknown> | undefined = file.transforms ?? undefined;
  if (flags.transforms?.length) {
    const ids = flags.transforms.flatMap((t) => t.split(',')).map((t) => t.trim()).filter(Boolean);
    transforms = Object.fromEntries(ids.map((id) => [id, file.transforms?.[id] ?? true]));
  }
  const general = flags.general ?? (file.general ? rel(file.general) : null);
  return {
    harness: normalise(harness!),
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
    statePool: flags.statePool ?? file.state_pool ?? DEFAULTS.statePool,
    teacher: 'rewrite',
    arguments: args as 'object' | 'string',
    toolsFormat: toolsFormat as 'list' | 'json-string',
    opd: { turns: file.opd?.turns ?? DEFAULTS.opd.turns, generalRatio: file.opd?.general_ratio ?? DEFAULTS.opd.generalRatio },
    rl: { dataSource: file.rl?.data_source ?? '', ability: file.rl?.ability ?? 'agent' },
    transforms,
    words: file.words,
    plugins: flags.plugin ?? [],
  };
}

function parseStages(v: string, problems: string[]): Stage[] {
  const out: Stage[] = [];
  for (const s of v.split(',').map((x) => x.trim()).filter(Boolean)) {
    if ((STAGES as readonly string[]).includes(s)) out.push(s as Stage);
    else problems.push(`--stages: unknown stage "${s}" (sft, opd, rl)`);
  }
  if (out.length === 0 && problems.length === 0) problems.push('--stages: at least one stage');
  return out;
}

function normalise(p: string): string {
  return path.normalize(p).split(path.sep).join('/');
}
