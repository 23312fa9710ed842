import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../config/augment-config.js';
import { UnreadableInputError } from '../errors.js';
import { describeIssue } from '../harness/schema.js';
import { isParseFailure, parseLocated, type LocatedDoc } from '../util/located.js';
import { endpoint, judgeConfigSchema } from './judge-schema.js';

export type { JudgeConfigFile } from './judge-schema.js';

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
