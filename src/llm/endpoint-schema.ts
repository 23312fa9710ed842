import { z } from 'zod';

/** Defaults of an endpoint section (what an omitted key means). */
export const ENDPOINT_DEFAULTS = { apiKeyEnv: 'OPENAI_API_KEY', timeoutS: 60, maxRetries: 5 } as const;

/**
 * The keys of one OpenAI-compatible endpoint, shared by `teacher:` and `teacher.judge:` of
 * hsa.yaml, and `model:` and `judge:` of an eval config. Where the sections once bounded a key
 * differently, the wider bound holds (see CHANGELOG.md).
 */
export const endpointFields = {
  base_url: z.string().min(1).describe('OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1. No default: required wherever the endpoint is called.'),
  model: z.string().min(1).describe('Model name sent with every request. No default: required wherever the endpoint is called.'),
  api_key_env: z
    .string()
    .min(1)
    .optional()
    .describe(`Environment variable holding the API key (never written anywhere). Default: ${ENDPOINT_DEFAULTS.apiKeyEnv}; loopback endpoints need no key.`),
  temperature: z.number().min(0).max(2).optional().describe('Sampling temperature, 0 to 2. Default: not sent (the endpoint decides).'),
  top_p: z.number().min(0).max(1).optional().describe('Nucleus sampling, 0 to 1. Default: not sent (the endpoint decides).'),
  max_tokens: z.number().int().positive().optional().describe('Most tokens per answer. Default: not sent (the endpoint decides).'),
  seed: z.number().int().optional().describe('Sampling seed; sample k of a request sends seed + k. Default: not sent (a judge sends 0).'),
  extra_body: z.record(z.string(), z.unknown()).optional().describe('Extra request-body fields, merged last (they win). Default: none.'),
  timeout_s: z.number().positive().optional().describe(`Seconds before a request times out (and is retried). Default: ${ENDPOINT_DEFAULTS.timeoutS}.`),
  max_retries: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe(`Retries of a request on 429, 5xx, timeouts and connection errors. Default: ${ENDPOINT_DEFAULTS.maxRetries}.`),
  rpm: z.number().int().positive().optional().describe('Requests per minute at most. Default: no limit.'),
  tpm: z.number().int().positive().optional().describe('Estimated tokens per minute at most. Default: no limit.'),
};

/** An endpoint section where every key may be left to a flag or a default (`teacher:`, eval `model:`). */
export const endpointSchema = z.strictObject({
  ...endpointFields,
  base_url: endpointFields.base_url.optional(),
  model: endpointFields.model.optional(),
});

export type EndpointConfigFile = z.infer<typeof endpointSchema>;
