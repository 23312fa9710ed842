import { z } from 'zod';
import { defineTransform } from '../../src/transform/define.js';
import { NAME_STYLES, namingContext, renameSome, TOOL_NAME_RULES } from '../../src/transform/naming.js';
import { renameInState } from '../../src/transform/state.js';

/** Rename tools: word synonyms, case changes, affixes, opaque ids or MCP-style `server__tool` names. */
export default defineTransform({
  id: 'tools.rename',
  family: 'tools',
  class: 'exact',
  version: 3,
  description: 'Rename tools (synonyms, case, prefix/suffix, opaque ids, MCP server__tool); calls, schemas, skill bodies and prompt mentions follow.',
  options: z.strictObject({
    p: z.number().min(0).max(1).default(0.8).describe('probability that a variant renames tools'),
    intensity: z.number().min(0).max(1).default(0.6).describe('share of tools renamed (at least one)'),
    styles: z
      .array(z.enum(NAME_STYLES))
      .min(1)
      .default([...NAME_STYLES])
      .describe('naming styles to draw from'),
  }),
  apply(state, ctx) {
    // Synonym senses are read from each tool's own description.
    const byName = new Map(state.tools.map((t) => [t.name, t]));
    const map = renameSome(
      state.tools.map((t) => t.name),
      ctx.options,
      TOOL_NAME_RULES,
      ctx,
      undefined,
      (n) => namingContext(n, byName.get(n)?.description),
    );
    if (Object.keys(map).length === 0) return null;
    return { state: renameInState(state, { tools: map }), plan: { tools: map }, params: { renamed: map } };
  },
});
