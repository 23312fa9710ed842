import type { Harness } from '../harness/types.js';
import { dict } from '../util/dict.js';
import { schemaMemo } from '../util/derived.js';
import type { WordLists } from '../words/types.js';
import { nameWords, namingContext, proposeName, renameable, type NameStyle, type NamingRules } from './naming.js';
import type { IdMap } from './plan.js';
import type { Rng } from './rng.js';
import {
  recursivePropertyNames,
  renameSchemaProperties,
  renameSchemaValueKeys,
  sharedPropertyNames,
  unwalkedPropertyNames,
  walkProperties,
} from './schema-walk.js';
import { schemaPropertyNames } from './state.js';

/**
 * The draws and the schema edits of `tools.param-rename`, shared by the transform
 * (transforms/tools/param-rename.ts) and the direct state builder (direct.ts).
 */

export interface Property {
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
 * True when a schema has no `$ref`, no tuple `items` and no `additionalProperties` schema anywhere
 * (values included): then no name is shared by a reference, recursive or off every argument path,
 * and the three walks that find those would find none (most per-record tool lists are like this).
 */
function plainSchema(v: unknown): boolean {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!plainSchema(v[i])) return false;
    return true;
  }
  if (v === null || typeof v !== 'object') return true;
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    const x = o[k];
    if (k === '$ref') return false;
    if (x === null || typeof x !== 'object') continue;
    if ((k === 'items' && Array.isArray(x)) || k === 'additionalProperties' || !plainSchema(x)) return false;
  }
  return true;
}

export interface ParamDraw {
  /** old → new parameter name. */
  map: IdMap;
  /** Every property path per tool of the state drawn from (in its tool order), with its leaf name. */
  perTool: (readonly Property[])[];
}

export interface ParamDrawContext {
  options: { intensity: number; styles: readonly NameStyle[] };
  rng: Rng;
  words: WordLists;
  isTaken(name: string): boolean;
  keep?(name: string): boolean;
}

/**
 * Choose which parameter names of `state` to rename and draw their new names, or null when none.
 * `toolName` gives the name a tool's synonyms are read beside (its current name by default).
 */
export function drawParamRenames(state: Harness, ctx: ParamDrawContext, toolName: (name: string) => string = (n) => n): ParamDraw | null {
  const perTool: (readonly Property[])[] = [];
  const names = new Set<string>();
  // Names a `$ref` reuses under another path (see sharedPropertyNames), the names of recursive
  // models (recursivePropertyNames) and names no argument path reaches (unwalkedPropertyNames)
  // keep their names.
  const shared = new Set<string>();
  for (const t of state.tools) {
    if (!plainSchema(t.parameters)) {
      for (const n of sharedPropertyNames(t.parameters)) shared.add(n);
      for (const n of recursivePropertyNames(t.parameters)) shared.add(n);
      for (const n of unwalkedPropertyNames(t.parameters)) shared.add(n);
    }
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
      if (texts) texts.push((toolWords ??= nameWords(toolName(t.name)).join(' ')), t.description, own);
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
  return { map, perTool };
}

/**
 * Rename the drawn parameters in the schemas of `tools` (fresh tool objects, in the order of the
 * state drawn from): returns, per tool index, the argument paths a call's arguments follow (old
 * path → new leaf), for the tools that have any.
 */
export function renameParamsInTools(tools: Harness['tools'], draw: ParamDraw): Map<number, IdMap> {
  const { map, perTool } = draw;
  const out = new Map<number, IdMap>();
  tools.forEach((tool, k) => {
    let paths: IdMap | undefined;
    for (const { path, leaf } of perTool[k]!) if (map[leaf] !== undefined) (paths ??= dict())[path] = map[leaf]!;
    // A definition no reference reaches still declares the name: renamed with the others (no call fills it).
    if (paths === undefined && !schemaPropertyNames(tool.parameters).some((n) => map[n] !== undefined)) return;
    // Paths reach through `$ref` into shared models; the models themselves are renamed by name.
    // A union's discriminator names its property anew with it; the objects of `default`,
    // `examples`, `const` and `enum` values have their keys renamed as a call's arguments are.
    tool.parameters = renameSchemaValueKeys(renameSchemaProperties(tool.parameters, paths ?? dict(), map), map);
    if (paths !== undefined) out.set(k, paths);
  });
  return out;
}
