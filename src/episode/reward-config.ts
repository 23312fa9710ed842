import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { readLocated } from '../config/located-file.js';
import { DEFAULT_REWARD_CONFIG, type RewardConfig } from './reward.js';

const weight = z.number().min(0);
const penalty = z.number().min(0).max(10);

/** The reward file (YAML or JSON): every key optional, defaults from DEFAULT_REWARD_CONFIG. */
export const rewardConfigSchema = z.strictObject({
  weights: z
    .strictObject({
      skill_selection: weight.optional(),
      tool_rationality: weight.optional(),
      hook_compliance: weight.optional(),
      reply_quality: weight.optional(),
    })
    .optional(),
  tool: z
    .strictObject({ name_only_credit: z.number().min(0).max(1).optional(), invalid_penalty: penalty.optional(), repeat_penalty: penalty.optional() })
    .optional(),
  hook: z.strictObject({ feedback_penalty: penalty.optional(), forced_penalty: penalty.optional(), blocked_penalty: penalty.optional() }).optional(),
  reasoning: z
    .strictObject({
      weight: weight.optional(),
      free_tokens: z.number().int().min(0).optional(),
      saturate_tokens: z.number().int().min(1).optional(),
      aggregate: z.enum(['mean', 'sum']).optional(),
    })
    .optional(),
  tokenizer: z.enum(['qwen3', 'estimate']).optional(),
});

/** Read a reward config file; every problem at once as `file:line: key.path: message`. */
export async function readRewardConfig(file: string | undefined): Promise<RewardConfig> {
  if (file === undefined) return DEFAULT_REWARD_CONFIG;
  const { data: c, doc } = await readLocated(file, rewardConfigSchema, 'reward config');
  const d = DEFAULT_REWARD_CONFIG;
  const out: RewardConfig = {
    weights: {
      skill: c.weights?.skill_selection ?? d.weights.skill,
      tool: c.weights?.tool_rationality ?? d.weights.tool,
      hook: c.weights?.hook_compliance ?? d.weights.hook,
      reply: c.weights?.reply_quality ?? d.weights.reply,
    },
    tool: {
      nameOnlyCredit: c.tool?.name_only_credit ?? d.tool.nameOnlyCredit,
      invalidPenalty: c.tool?.invalid_penalty ?? d.tool.invalidPenalty,
      repeatPenalty: c.tool?.repeat_penalty ?? d.tool.repeatPenalty,
    },
    hook: {
      feedbackPenalty: c.hook?.feedback_penalty ?? d.hook.feedbackPenalty,
      forcedPenalty: c.hook?.forced_penalty ?? d.hook.forcedPenalty,
      blockedPenalty: c.hook?.blocked_penalty ?? d.hook.blockedPenalty,
    },
    reasoning: {
      weight: c.reasoning?.weight ?? d.reasoning.weight,
      free: c.reasoning?.free_tokens ?? d.reasoning.free,
      saturate: c.reasoning?.saturate_tokens ?? d.reasoning.saturate,
      aggregate: c.reasoning?.aggregate ?? d.reasoning.aggregate,
    },
    tokenizer: c.tokenizer ?? d.tokenizer,
  };
  if (out.reasoning.saturate <= out.reasoning.free) {
    const line = doc.lineOf(['reasoning', 'saturate_tokens']);
    throw new ConfigError(`${file}${line ? `:${line}` : ''}: reasoning.saturate_tokens: must be greater than free_tokens (${out.reasoning.free})`);
  }
  return out;
}
