import path from 'node:path';
import { z } from 'zod';
import { readLocated } from '../config/located-file.js';
import { endpointSchema } from '../llm/endpoint-schema.js';
import { judgeConfigSchema } from '../llm/judge-schema.js';

export { readLocated };
export type { JudgeConfigFile } from '../llm/judge-schema.js';

/** `hsa eval --config FILE`: every key optional; flags override the key of the same meaning. */
export const evalConfigSchema = z.strictObject({
  set: z.array(z.string().min(1)).optional(),
  model: endpointSchema.optional(),
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
