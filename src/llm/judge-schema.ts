import { z } from 'zod';
import { endpointFields } from './endpoint-schema.js';

// The judge's config keys and the rubric file, in a module of their own (zod only): the augment
// config embeds them as `teacher.judge`, and its schema is built when that module loads.

export const judgeConfigSchema = z.strictObject({
  ...endpointFields,
  rubric: z.string().min(1).describe('Rubric file (YAML or JSON; docs/eval.md), relative to the config file. No default: required.'),
  votes: z.number().int().min(1).max(15).optional().describe('Votes per reply (each a sample: seed + vote index). Default: 1.'),
  aggregate: z
    .enum(['majority', 'mean'])
    .optional()
    .describe('How votes combine per criterion: majority (ties to the lower median) or mean. Default: majority.'),
  evidence: z
    .enum(['tool_results', 'none'])
    .optional()
    .describe("What the judge is shown beside the reply: the turn's tool results, or none. Default: tool_results."),
});

/** `teacher.judge` of hsa.yaml: a judge section plus the score an accepted teacher trajectory needs. */
export const teacherJudgeSchema = judgeConfigSchema
  .extend({ min_score: z.number().min(0).max(1).describe('Mean reply score (0 to 1) an accepted teacher trajectory needs. No default: required.') })
  .describe('A rubric judge as an acceptance check of every teacher trajectory (docs/eval.md). Default: none.');

export type JudgeConfigFile = z.infer<typeof judgeConfigSchema>;

const scaleSchema = z
  .strictObject({
    min: z.number().int(),
    max: z.number().int(),
    /** What each level means (a few levels are enough; the judge reads them). */
    levels: z.record(z.string().regex(/^-?\d+$/, 'level keys are integers'), z.string().min(1)),
  })
  .refine((s) => s.max > s.min, { message: 'max must be greater than min', path: ['max'] });

export const rubricSchema = z.strictObject({
  name: z.string().min(1),
  instructions: z.string().optional(),
  criteria: z
    .array(
      z.strictObject({
        id: z.string().regex(/^[a-z][a-z0-9_]*$/, 'ids are lower-case identifiers'),
        description: z.string().min(1),
        weight: z.number().positive().optional(),
        scale: scaleSchema,
      }),
    )
    .min(1),
});

export type Rubric = z.infer<typeof rubricSchema>;
