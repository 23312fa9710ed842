import { z } from 'zod';
import type { Tool } from '../../src/harness/types.js';
import { defineTransform } from '../../src/transform/define.js';
import { schemaPropertyNames, shallowState } from '../../src/transform/state.js';

/** Add plausible tools that the trajectory never calls, at random positions. */
export default defineTransform({
  id: 'tools.distractors',
  family: 'tools',
  class: 'exact',
  version: 2,
  description: 'Add plausible distractor tools (from the word lists) that are listed but never called.',
  options: z.strictObject({
    p: z.number().min(0).max(1).default(0.5).describe('probability that a variant adds distractor tools'),
    max: z.number().int().min(1).max(20).default(3).describe('most distractors added to one variant'),
  }),
  apply(state, ctx) {
    // A distractor's parameter may share a name with a real parameter (that is realistic), but not
    // with any other identifier in use.
    const params = new Set(state.tools.flatMap((x) => schemaPropertyNames(x.parameters)));
    const names = new Set(state.tools.map((x) => x.name));
    const free = ctx.words.distractorTools.filter(
      // In a split run a parameter the harness does not have is a new name: it must be the split's.
      (t) => !ctx.isTaken(t.name) && !names.has(t.name) && schemaPropertyNames(t.parameters).every((p) => params.has(p) || (!ctx.isTaken(p) && (ctx.words.accept?.(p) ?? true))),
    );
    if (free.length === 0) return null;
    const picked = ctx.rng.sample(free, 1 + ctx.rng.int(Math.min(ctx.options.max, free.length)));
    // Tools are shared with the state before (never edited in place); the list is new.
    const out = shallowState(state);
    out.tools = [...state.tools];
    // The pack's schema object is shared, not copied: schemas are replaced, never changed in place.
    for (const d of picked) {
      const tool: Tool = { name: d.name, description: d.description, parameters: d.parameters, sourceName: d.name, sourceFormat: 'openai', distractor: true };
      out.tools.splice(ctx.rng.int(out.tools.length + 1), 0, tool);
    }
    return { state: out, params: { added: picked.map((d) => d.name) } };
  },
});
