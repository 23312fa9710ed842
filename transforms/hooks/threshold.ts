import { z } from 'zod';
import { defineTransform } from '../../src/transform/define.js';
import { cloneState } from '../../src/transform/state.js';

const NUMERIC_CHECKS = ['max_chars', 'max_tool_rounds'] as const;
type NumericCheck = (typeof NUMERIC_CHECKS)[number];

/**
 * Change one numeric hook threshold by a random factor: a stricter or looser reply-length gate, a
 * tighter or wider tool-round budget. The prompt's own wording is left as it is, so the teacher
 * learns to follow the hook's feedback; behavioural, it needs a teacher re-run.
 */
export default defineTransform({
  id: 'hooks.threshold',
  family: 'hooks',
  class: 'behavioural',
  version: 1,
  description: 'Scale one numeric hook threshold (max_chars, max_tool_rounds) by a factor drawn from a range, e.g. a stricter reply-length gate.',
  options: z
    .strictObject({
      p: z.number().min(0).max(1).default(0.5).describe('probability that a variant changes a hook threshold'),
      minFactor: z.number().positive().max(10).default(0.6).describe('smallest factor applied to the threshold (below 1 = stricter)'),
      maxFactor: z.number().positive().max(10).default(1.5).describe('largest factor applied to the threshold (above 1 = looser)'),
      checks: z
        .array(z.enum(NUMERIC_CHECKS))
        .min(1)
        .default([...NUMERIC_CHECKS])
        .describe('which kinds of threshold may change'),
    })
    .refine((o) => o.minFactor <= o.maxFactor, { message: 'minFactor must not be larger than maxFactor', path: ['minFactor'] }),
  appliesTo: (state) => state.hooks.length > 0,
  apply(state, ctx) {
    const targets: { hook: number; check: number; type: NumericCheck }[] = [];
    state.hooks.forEach((h, hi) =>
      h.checks.forEach((c, ci) => {
        if ((c.type === 'max_chars' || c.type === 'max_tool_rounds') && ctx.options.checks.includes(c.type))
          targets.push({ hook: hi, check: ci, type: c.type });
      }),
    );
    if (targets.length === 0) return null;
    const t = ctx.rng.pick(targets);
    const { minFactor, maxFactor } = ctx.options;
    const factor = Math.round((minFactor + ctx.rng.next() * (maxFactor - minFactor)) * 100) / 100;
    const out = cloneState(state);
    const hook = out.hooks[t.hook]!;
    const check = hook.checks[t.check] as { type: NumericCheck; value: number };
    const from = check.value;
    let to = Math.max(1, Math.round(from * factor));
    // Always change something: one step in the factor's direction (or up, from 1).
    if (to === from) to = factor < 1 && from > 1 ? from - 1 : from + 1;
    check.value = to;
    return { state: out, params: { hook: hook.id, check: t.type, factor, from, to } };
  },
});
