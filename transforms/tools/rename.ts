import { z } from 'zod';
import { OPENAI_TOOL_NAME } from '../../src/harness/types.js';
import { defineTransform } from '../../src/transform/define.js';
import { NAME_STYLES, proposeName } from '../../src/transform/naming.js';
import { renameInState } from '../../src/transform/state.js';

/** Rename tools: word synonyms, case changes, affixes, opaque ids or MCP-style `server__tool` names. */
export default defineTransform({
  id: 'tools.rename',
  family: 'tools',
  class: 'exact',
  version: 1,
  description: 'Rename tools (synonyms, case, prefix/suffix, opaque ids, MCP server__tool); calls, schemas, skill bodies and prompt mentions follow.',
  options: z.strictObject({
    p: z.number().min(0).max(1).default(0.8).describe('probability that a variant renames tools'),
    intensity: z.number().min(0).max(1).default(0.6).describe('share of tools renamed (at least one)'),
    styles: z.array(z.enum(NAME_STYLES)).min(1).default([...NAME_STYLES]).describe('naming styles to draw from'),
  }),
  apply(state, ctx) {
    const candidates = state.tools.map((t) => t.name);
    if (candidates.length === 0) return null;
    const k = Math.max(1, Math.round(candidates.length * ctx.options.intensity));
    const chosen = ctx.rng.sample(candidates, k).sort();
    const map: Record<string, string> = {};
    const used = new Set<string>();
    for (const old of chosen) {
      const next = proposeName(
        old,
        ctx.options.styles,
        { valid: (n) => OPENAI_TOOL_NAME.test(n), cases: ['snake', 'camel', 'kebab', 'pascal'], opaquePrefix: 'tool' },
        ctx.rng,
        ctx.words,
        (n) => ctx.isTaken(n) || used.has(n),
      );
      if (!next) continue;
      map[old] = next.name;
      used.add(next.name);
    }
    if (Object.keys(map).length === 0) return null;
    return { state: renameInState(state, { tools: map }), plan: { tools: map }, params: { renamed: map } };
  },
});
