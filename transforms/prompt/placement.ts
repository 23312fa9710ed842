import { z } from 'zod';
import { defineTransform } from '../../src/transform/define.js';
import { cloneState } from '../../src/transform/state.js';

/**
 * Move one prompt section out of the system message into the preamble: a user-role message
 * (name `harness:preamble`) the rewriter inserts before the first user turn. Pinned sections and
 * the skill catalog stay in the system message, and the system message always keeps at least one
 * other section.
 */
export default defineTransform({
  id: 'prompt.placement',
  family: 'prompt',
  class: 'semantic',
  version: 1,
  description: 'Move one prompt section from the system message to a preamble before the first user turn.',
  options: z.strictObject({
    p: z.number().min(0).max(1).default(0.3).describe('probability that a variant moves a prompt section to the preamble'),
  }),
  // The system message keeps at least one other section: one section alone never moves.
  appliesTo: (state) => state.sections.length >= 2,
  apply(state, ctx) {
    const pinned = new Set(state.pinned);
    const inSystem = state.sections.filter((s) => s.placement === 'system' && (s.kind === 'catalog' ? state.skills.length > 0 : s.text.trim() !== ''));
    const candidates = inSystem.filter((s) => s.kind === 'text' && !pinned.has(s.id));
    if (candidates.length === 0 || inSystem.length < 2) return null;
    const chosen = ctx.rng.pick(candidates).id;
    const out = cloneState(state);
    for (const s of out.sections) if (s.id === chosen) s.placement = 'preamble';
    return { state: out, params: { section: chosen } };
  },
});
