import { HsaError } from '../errors.js';
import { ENDPOINT_DEFAULTS } from '../llm/endpoint-schema.js';
import type { JudgeSettings } from '../llm/judge.js';
import { rubricSchema, type JudgeConfigFile, type Rubric } from '../llm/judge-schema.js';
import { readLocated } from './located-file.js';

/** Read a rubric (YAML or JSON): a missing scale, level or description names its file, line and key. */
export async function readRubric(file: string): Promise<Rubric> {
  return (await readLocated(file, rubricSchema, 'rubric')).data;
}

/** Judge settings from a `judge:` section (the rubric read from its file). */
export async function judgeSettings(j: JudgeConfigFile, over: { votes?: number; aggregate?: string } = {}): Promise<JudgeSettings> {
  const aggregate = over.aggregate ?? j.aggregate ?? 'majority';
  if (aggregate !== 'majority' && aggregate !== 'mean') throw new HsaError('HSA_USAGE', `--aggregate: must be majority or mean, not "${aggregate}"`, 2);
  return {
    endpoint: {
      baseUrl: j.base_url,
      model: j.model,
      apiKeyEnv: j.api_key_env ?? ENDPOINT_DEFAULTS.apiKeyEnv,
      ...(j.temperature !== undefined ? { temperature: j.temperature } : {}),
      ...(j.top_p !== undefined ? { topP: j.top_p } : {}),
      ...(j.max_tokens !== undefined ? { maxTokens: j.max_tokens } : {}),
      // Votes differ by seed (seed + vote index), so a seeded endpoint gives k distinct samples.
      seed: j.seed ?? 0,
      ...(j.extra_body ? { extraBody: j.extra_body } : {}),
      timeoutMs: (j.timeout_s ?? ENDPOINT_DEFAULTS.timeoutS) * 1000,
      maxRetries: j.max_retries ?? ENDPOINT_DEFAULTS.maxRetries,
      ...(j.rpm ? { rpm: j.rpm } : {}),
      ...(j.tpm ? { tpm: j.tpm } : {}),
    },
    rubric: await readRubric(j.rubric),
    votes: over.votes ?? j.votes ?? 1,
    aggregate,
    evidence: j.evidence ?? 'tool_results',
  };
}
