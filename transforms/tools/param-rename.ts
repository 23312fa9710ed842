import { z } from 'zod';
import { defineTransform } from '../../src/transform/define.js';
import { drawParamRenames, renameParamsInTools } from '../../src/transform/param-renames.js';
import { renameInState, schemaPropertyNames } from '../../src/transform/state.js';
import type { IdMap } from '../../src/transform/plan.js';
import { dict } from '../../src/util/dict.js';

/**
 * Rename tool parameters, nested ones included. A name is renamed the same way in every tool that
 * has it, so prose that mentions it (skill bodies, descriptions) stays unambiguous — and in every
 * model of `$defs`/`definitions` that declares it, the calls that fill those models following by
 * path through each `$ref`. Names of recursive models are not drawn (their arguments nest deeper
 * than any path). The draws and schema edits live in src/transform/param-renames.ts, shared with
 * the direct state builder of small inline harnesses (src/transform/direct.ts).
 */
export default defineTransform({
  id: 'tools.param-rename',
  family: 'tools',
  class: 'exact',
  version: 5,
  description: 'Rename tool parameters (nested included) consistently across tools; call arguments, required lists and mentions follow.',
  options: z.strictObject({
    p: z.number().min(0).max(1).default(0.7).describe('probability that a variant renames parameters'),
    intensity: z.number().min(0).max(1).default(0.5).describe('share of distinct parameter names renamed (at least one)'),
    styles: z
      .array(z.enum(['synonym', 'case', 'affix', 'opaque']))
      .min(1)
      .default(['synonym', 'case', 'affix'])
      .describe('naming styles to draw from'),
  }),
  apply(state, ctx) {
    const draw = drawParamRenames(state, ctx);
    if (draw === null) return null;
    const { map } = draw;
    // A skill body refers to a parameter beside its tool's name, in the body's spelling of it:
    // the current name or, when a rename already changed it, the source name.
    const owners = dict<string[]>();
    for (const [source, current] of Object.entries(ctx.plan.tools)) {
      const tool = state.tools.find((t) => t.name === current);
      if (tool) for (const p of schemaPropertyNames(tool.parameters)) if (map[p] !== undefined) (owners[p] ??= []).push(source);
    }
    // renameInState returns a fresh copy: its tools may be edited here.
    const out = renameInState(state, { text: map, owners });
    const args = dict<{ op: 'rename'; paths: IdMap }[]>();
    for (const [k, paths] of renameParamsInTools(out.tools, draw)) args[out.tools[k]!.name] = [{ op: 'rename', paths }];
    if (out.skillLoader) {
      const loader = out.skillLoader;
      const segs = loader.argument.split('.');
      loader.argument = segs.map((seg) => map[seg] ?? seg).join('.');
    }
    return { state: out, plan: { args }, params: { renamed: map } };
  },
});
