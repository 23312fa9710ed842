import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../config/augment-config.js';
import { UnreadableInputError } from '../errors.js';
import { describeIssue } from '../harness/schema.js';
import { isParseFailure, parseLocated, type LocatedDoc } from '../util/located.js';

/** Read a YAML/JSON file against a strict schema; every problem at once as `file:line: key.path: message`. */
export async function readLocated<S extends z.ZodType>(file: string, schema: S, what: string): Promise<{ data: z.infer<S>; doc: LocatedDoc }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new UnreadableInputError(`${file}: cannot read ${what}`);
  }
  const doc = parseLocated(file, text);
  if (isParseFailure(doc)) throw new ConfigError(`${file}:${doc.line ?? 1}: syntax: ${doc.message}`);
  const r = schema.safeParse(doc.value ?? {});
  if (!r.success) {
    throw new ConfigError(
      r.error.issues
        .map((issue) => {
          const d = describeIssue(issue);
          const at = issue.code === 'unrecognized_keys' && issue.keys[0] !== undefined ? [...d.path, issue.keys[0]] : d.path;
          const line = doc.lineOf(at);
          return `${file}${line ? `:${line}` : ''}: ${d.path.join('.') || '(root)'}: ${d.message}`;
        })
        .join('\n'),
    );
  }
  return { data: r.data, doc };
}

/** The endpoint keys shared by `model:` and `judge:` (the teacher's names). */
const endpoint = {
  base_url: z.string().url(),
  model: z.string().min(1),
  api_key_env: z.string().min(1).optional(),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().gt(0).max(1).optional(),
  max_tokens: z.number().int().positive().optional(),
  seed: z.number().int().optional(),
  extra_body: z.record(z.string(), z.unknown()).optional(),
  timeout_s: z.number().positive().optional(),
  max_retries: z.number().int().min(0).optional(),
  rpm: z.number().int().positive().optional(),
  tpm: z.number().int().positive().optional(),
};

export const judgeConfigSchema = z.strictObject({
  ...endpoint,
  rubric: z.string().min(1),
  votes: z.number().int().min(1).max(15).optional(),
  aggregate: z.enum(['majority', 'mean']).optional(),
  evidence: z.enum(['tool_results', 'none']).optional(),
});

/** `hsa eval --config FILE`: every key optional; flags override the key of the same meaning. */
export const evalConfigSchema = z.strictObject({
  set: z.array(z.string().min(1)).optional(),
  model: z.strictObject({ ...endpoint, base_url: endpoint.base_url.optional(), model: endpoint.model.optional() }).optional(),
  concurrency: z.number().int().min(1).optional(),
  cache: z.string().min(1).optional(),
  require_cache: z.boolean().optional(),
  reward_config: z.string().min(1).optional(),
  tokenizer: z.enum(['qwen3', 'estimate']).optional(),
  bootstrap: z.strictObject({ samples: z.number().int().min(0).max(100000).optional(), seed: z.union([z.string(), z.number()]).optional() }).optional(),
  fail_below: z.number().min(-1).max(1).optional(),
  judge: judgeConfigSchema.optional(),
});

export type EvalConfigFile = z.infer<typeof evalConfigSchema>;
export type JudgeConfigFile = z.infer<typeof judgeConfigSchema>;

/** Read an eval config; paths in it are made relative to the working folder. */
export async function readEvalConfig(file: string): Promise<EvalConfigFile> {
  const { data } = await readLocated(file, evalConfigSchema, 'eval config');
  const dir = path.dirname(file);
  const rel = (p: string) => (path.isAbsolute(p) ? p : path.join(dir, p));
  return {
    ...data,
    ...(data.set ? { set: data.set.map(rel) } : {}),
    ...(data.cache ? { cache: rel(data.cache) } : {}),
    ...(data.reward_config ? { reward_config: rel(data.reward_config) } : {}),
    ...(data.judge ? { judge: { ...data.judge, rubric: rel(data.judge.rubric) } } : {}),
  };
}
