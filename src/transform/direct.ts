import type { z } from 'zod';
import type { Harness } from '../harness/types.js';
import { hashState } from '../util/hash.js';
import { dict } from '../util/dict.js';
import type { WordLists } from '../words/types.js';
import { namingContext, renameSome, TOOL_NAME_RULES, type NameStyle } from './naming.js';
import { drawParamRenames, renameParamsInTools, type ParamDraw } from './param-renames.js';
import { emptyPlan, type ArgOp, type IdMap, type RewritePlan } from './plan.js';
import { createRng } from './rng.js';
import { renameInState, shallowState } from './state.js';
import type { AppliedTransform, ResolvedTransform, Variant } from './variant-types.js';

/**
 * The direct state builder of small harnesses (issue #26). A record's own short tool list (xLAM,
 * BFCL, glaive, ToolACE shapes) is a harness whose states are used once each, so the generic
 * sampler — every transform's `apply` making a state of its own, each rename a copy of the whole
 * state and a text rewriter, the plans composed afterwards — paid for reuse it never got. Here a
 * variant's state and plan are made in one pass: the tool order, the tool names and the parameter
 * names are drawn first (each transform with its own seeded generator and probability, the same
 * word lists and naming rules as the transforms'), then one copy of the state takes every rename
 * at once, and the plan is written as the names are drawn.
 *
 * It applies (directApplies) only where it is exact:
 * - the harness is derived from a record (`literalPrompt`, as src/ingest/inline-harness.ts makes
 *   it), with no skills, no skill loader, no hooks, no prompt style and at most one section, of
 *   plain text: then a state is its tool list and that text;
 * - every transform of the run is one the builder knows at its current version: `tools.order@1`,
 *   `tools.rename@3`, `tools.param-rename@5`, in registry order (order, then rename, then
 *   param-rename).
 * Anything else (harness folders, pooled or not; any other transform, a plugin) takes the generic
 * path, so harness-folder output is what it was. Its draws differ from the generic path's in one
 * way: parameter synonyms are read beside the source tools' names and descriptions (the generic path
 * reads the renamed ones); that changed inline output once (ENGINE_VERSION 3).
 */

const STEPS: Readonly<Record<string, number>> = { 'tools.order': 1, 'tools.rename': 3, 'tools.param-rename': 5 };

/** Whether a variant of `h` under `transforms` is built here (see the conditions above). */
export function directApplies(h: Harness, transforms: readonly ResolvedTransform[]): boolean {
  if (h.literalPrompt !== true || h.skills.length > 0 || h.hooks.length > 0 || h.skillLoader !== null || h.promptStyle !== null) return false;
  if (h.sections.length > 1 || (h.sections.length === 1 && h.sections[0]!.kind !== 'text')) return false;
  let last = -1;
  for (const t of transforms) {
    if (STEPS[t.def.id] !== t.def.version) return false;
    const at = t.def.id === 'tools.order' ? 0 : t.def.id === 'tools.rename' ? 1 : 2;
    if (at <= last) return false;
    last = at;
  }
  return true;
}

export interface DirectInputs {
  /** Names the new names must avoid: the source state's identifiers and the record's words. */
  isTaken(name: string): boolean;
  keep?: (name: string) => boolean;
}

/**
 * Build the variant (state, plan, what was applied, state hash) of `source` for variant
 * `variantIndex`; only where directApplies holds. Returns undefined when a drawn parameter name is
 * also a renamed tool's name (one text pass could not tell them apart): the caller then takes the
 * generic path.
 */
export function directVariant(
  source: Harness,
  transforms: readonly ResolvedTransform[],
  seed: string | number,
  variantIndex: number,
  words: WordLists,
  sourceId: string,
  inputs: DirectInputs,
): Variant | undefined {
  let ordered = source;
  let toolMap: IdMap | undefined;
  let draw: ParamDraw | undefined;
  const applied: AppliedTransform[] = [];
  const record = (t: ResolvedTransform, params: Record<string, unknown>) => applied.push({ id: t.def.id, version: t.def.version, class: t.def.class, params });
  for (const t of transforms) {
    if (t.def.appliesTo && !t.def.appliesTo(ordered)) continue;
    const rng = createRng(seed, sourceId, variantIndex, `${t.def.id}@${t.def.version}`);
    if (!rng.chance(t.options.p)) continue;
    const options = t.options as z.output<typeof t.def.options> as { intensity: number; styles: NameStyle[] };
    const ctx = { options, rng, words, isTaken: inputs.isTaken, ...(inputs.keep ? { keep: inputs.keep } : {}) };
    if (t.def.id === 'tools.order') {
      if (ordered.tools.length < 2) continue;
      ordered = shallowState(source);
      ordered.tools = rng.shuffle(source.tools);
      record(t, { order: ordered.tools.map((x) => x.name) });
    } else if (t.def.id === 'tools.rename') {
      // Synonym senses are read from each tool's own description.
      const byName = new Map(ordered.tools.map((x) => [x.name, x]));
      const map = renameSome(
        ordered.tools.map((x) => x.name),
        options,
        TOOL_NAME_RULES,
        ctx,
        undefined,
        (n) => namingContext(n, byName.get(n)?.description),
      );
      if (Object.keys(map).length === 0) continue;
      toolMap = map;
      record(t, { renamed: map });
    } else {
      // New tool names are taken too (the generic path finds them in the renamed state).
      const renamed = toolMap === undefined ? undefined : new Set(Object.values(toolMap));
      const tools = toolMap;
      const isTaken = renamed === undefined ? inputs.isTaken : (n: string) => inputs.isTaken(n) || renamed.has(n);
      const found = drawParamRenames(ordered, { ...ctx, isTaken }, tools === undefined ? undefined : (n) => tools[n] ?? n);
      if (found === null) continue;
      if (tools !== undefined) for (const k of Object.keys(found.map)) if (tools[k] !== undefined) return undefined;
      draw = found;
      record(t, { renamed: found.map });
    }
  }
  if (applied.length === 0) return { state: source, plan: emptyPlan(), applied, stateHash: hashState(source) };
  const plan: RewritePlan = emptyPlan();
  let state = ordered;
  if (toolMap !== undefined || draw !== undefined) {
    // One copy of the state takes the tool and parameter renames at once (names, descriptions,
    // schema texts), then the drawn parameters are renamed in its (fresh) schemas.
    state = renameInState(ordered, { tools: toolMap ?? {}, text: draw?.map ?? {} });
    if (toolMap !== undefined) plan.tools = toolMap;
    if (draw !== undefined) {
      // A plan's argument edits are keyed by the source tool's name.
      const args = dict<ArgOp[]>();
      for (const [k, paths] of renameParamsInTools(state.tools, draw)) args[ordered.tools[k]!.name] = [{ op: 'rename', paths }];
      plan.args = args;
    }
  }
  return { state, plan, applied, stateHash: hashState(state) };
}
