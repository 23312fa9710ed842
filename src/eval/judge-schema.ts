import { z } from 'zod';

// The judge's config keys, in a module of their own (zod only): the augment config embeds them as
// `teacher.judge`, and its schema is built when that module loads.

/** The endpoint keys shared by `model:` and `judge:` (the teacher's names). */
export const endpoint = {
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

/** `teacher.judge` of hsa.yaml: a judge section plus the score an accepted teacher trajectory needs. */
export const teacherJudgeSchema = judgeConfigSchema.extend({ min_score: z.number().min(0).max(1) });

export type JudgeConfigFile = z.infer<typeof judgeConfigSchema>;
