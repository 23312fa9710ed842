import { z } from 'zod';
import { defineTransform } from '../../src/transform/define.js';
import { nameWords, namingContext, proposeName, renameable, type NamingRules } from '../../src/transform/naming.js';
import {
  recursivePropertyNames,
  renameSchemaProperties,
  renameSchemaValueKeys,
  sharedPropertyNames,
  unwalkedPropertyNames,
  walkProperties,
} from '../../src/transform/schema-walk.js';
import { renameInState, schemaPropertyNames } from '../../src/transform/state.js';
import type { IdMap } from '../../src/transform/plan.js';
import { dict } from '../../src/util/dict.js';
import { schemaMemo } from '../../src/util/derived.js';

interface Property {
  path: string;
  leaf: string;
  /** The property's own description ('' when it has none). */
  own: string;
}

const PROPERTIES = Symbol('hsa.paramRename.properties');

/** Every property path of a schema with its leaf name, once per schema object (schemas are shared and never changed in place). */
function propertiesOf(schema: object): readonly Property[] {
  return schemaMemo(PROPERTIES, schema, () => {
    const found: Property[] = [];
    walkProperties(schema, (path, prop) => {
      found.push({ path, leaf: path.slice(path.lastIndexOf('.') + 1), own: typeof prop.description === 'string' ? prop.description : '' });
    });
    return found;
  });
}

/** Parameter names as OpenAI's function calling allows them, in snake or camel case. */
const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const PARAM_RULES: NamingRules = { valid: (n) => PARAM_NAME.test(n), cases: ['snake', 'camel'], opaquePrefix: 'arg' };

/**
 * Rename tool parameters, nested ones included. A name is renamed the same way in every tool that
 * has it, so prose that mentions it (skill bodies, descriptions) stays unambiguous — and in every
 * model of `$defs`/`definitions` that declares it, the calls that fill those models following by
 * path through each `$ref`. Names of recursive models are not drawn (their arguments nest deeper
 * than any path).
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
    // Every property path per tool (in tool order), with its leaf name.
    const perTool: (readonly Property[])[] = [];
    const names = new Set<string>();
    // Names a `$ref` reuses under another path (see sharedPropertyNames), the names of recursive
    // models (recursivePropertyNames) and names no argument path reaches (unwalkedPropertyNames)
    // keep their names.
    const shared = new Set<string>();
    for (const t of state.tools) {
      for (const n of sharedPropertyNames(t.parameters)) shared.add(n);
      for (const n of recursivePropertyNames(t.parameters)) shared.add(n);
      for (const n of unwalkedPropertyNames(t.parameters)) shared.add(n);
      const list = propertiesOf(t.parameters);
      for (let i = 0; i < list.length; i++) names.add(list[i]!.leaf);
      perTool.push(list);
    }
    if (names.size === 0) return null;
    const all = renameable([...names].filter((n) => !shared.has(n)).sort(), ctx);
    if (all.length === 0) return null;
    const chosen = ctx.rng.sample(all, Math.max(1, Math.round(all.length * ctx.options.intensity))).sort();
    // Synonym senses of a parameter are read from its descriptions and its tools' names and
    // descriptions (only the chosen names need them).
    const contexts = new Map<string, string[]>();
    for (const old of chosen) contexts.set(old, []);
    state.tools.forEach((t, k) => {
      let toolWords: string | undefined;
      for (const { leaf, own } of perTool[k]!) {
        const texts = contexts.get(leaf);
        if (texts) texts.push((toolWords ??= nameWords(t.name).join(' ')), t.description, own);
      }
    });
    const map: IdMap = dict();
    const used = new Set<string>();
    for (const old of chosen) {
      const next = proposeName(
        old,
        ctx.options.styles,
        PARAM_RULES,
        ctx.rng,
        ctx.words,
        (n) => ctx.isTaken(n) || used.has(n) || names.has(n),
        namingContext(old, ...contexts.get(old)!),
      );
      if (!next) continue;
      map[old] = next.name;
      used.add(next.name);
    }
    if (Object.keys(map).length === 0) return null;
    const args = dict<{ op: 'rename'; paths: IdMap }[]>();
    // A skill body refers to a parameter beside its tool's name, in the body's spelling of it:
    // the current name or, when a rename already changed it, the source name.
    const owners = dict<string[]>();
    for (const [source, current] of Object.entries(ctx.plan.tools)) {
      const tool = state.tools.find((t) => t.name === current);
      if (tool) for (const p of schemaPropertyNames(tool.parameters)) if (map[p] !== undefined) (owners[p] ??= []).push(source);
    }
    // renameInState returns a fresh copy: its tools may be edited here.
    const out = renameInState(state, { text: map, owners });
    out.tools.forEach((tool, k) => {
      let paths: IdMap | undefined;
      for (const { path, leaf } of perTool[k]!) if (map[leaf] !== undefined) (paths ??= dict())[path] = map[leaf]!;
      // A definition no reference reaches still declares the name: renamed with the others (no call fills it).
      if (paths === undefined && !schemaPropertyNames(tool.parameters).some((n) => map[n] !== undefined)) return;
      // Paths reach through `$ref` into shared models; the models themselves are renamed by name.
      // A union's discriminator names its property anew with it; the objects of `default`,
      // `examples`, `const` and `enum` values have their keys renamed as a call's arguments are.
      tool.parameters = renameSchemaValueKeys(renameSchemaProperties(tool.parameters, paths ?? dict(), map), map);
      if (paths !== undefined) args[tool.name] = [{ op: 'rename', paths }];
    });
    if (out.skillLoader) {
      const loader = out.skillLoader;
      const segs = loader.argument.split('.');
      loader.argument = segs.map((seg) => map[seg] ?? seg).join('.');
    }
    return { state: out, plan: { args }, params: { renamed: map } };
  },
});
