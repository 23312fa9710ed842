import { z } from 'zod';
import type { JsonSchema, Tool } from '../../src/harness/types.js';
import { defineTransform } from '../../src/transform/define.js';
import { applyArgOps, mapId, type ArgOp, type IdMap } from '../../src/transform/plan.js';
import type { Rng } from '../../src/transform/rng.js';
import { shallowState } from '../../src/transform/state.js';
import { dict } from '../../src/util/dict.js';

const RESTYLES = ['enum-oneof', 'nullable', 'closed', 'wrap'] as const;
type Restyle = (typeof RESTYLES)[number];
const WRAP_KEYS = ['params', 'args', 'input', 'payload', 'request', 'options'];
/**
 * What a restyling did to one tool, for provenance (`meta.transforms[].params.restyled`): a style
 * works both ways (the `wrap` style flattens a wrapper it finds), so the record names the direction.
 */
type Done =
  | 'enum-to-oneof'
  | 'oneof-to-enum'
  | 'enum-oneof-both-ways'
  | 'type-list-to-anyof'
  | 'anyof-to-type-list'
  | 'nullable-both-ways'
  | 'closed'
  | `wrap:${string}`
  | `flatten:${string}`;

/**
 * Restructure tool schemas in ways with an exact inverse: enum ↔ oneOf of const, the two nullable
 * forms, `additionalProperties: false` where every call already complies, and wrapping all
 * parameters in one object (or flattening such a wrapper) with the matching argument edit.
 */
export default defineTransform({
  id: 'tools.schema-style',
  family: 'tools',
  class: 'exact',
  version: 3,
  description: 'Restyle tool schemas with an exact inverse: enum <-> oneOf const, nullable forms, additionalProperties:false, wrap/flatten all parameters.',
  options: z.strictObject({
    p: z.number().min(0).max(1).default(0.5).describe('probability that a variant restyles schemas'),
    intensity: z.number().min(0).max(1).default(0.4).describe('share of tools restyled'),
    styles: z
      .array(z.enum(RESTYLES))
      .min(1)
      .default([...RESTYLES])
      .describe('restylings to draw from'),
  }),
  apply(state, ctx) {
    if (state.tools.length === 0) return null;
    const chosen = new Set(
      ctx.rng.sample(
        state.tools.map((t) => t.name),
        Math.max(1, Math.round(state.tools.length * ctx.options.intensity)),
      ),
    );
    // Restyled tools are new objects (and the loader, when its argument moves); the rest is shared.
    const out = shallowState(state);
    out.tools = [...state.tools];
    const args = dict<ArgOp[]>();
    const applied = dict<Done>();
    // Current tool name → source name (only the tool map of the plan's inverse is read here).
    const back = sourceNames(ctx.plan.tools);
    out.tools.forEach((tool, i) => {
      if (!chosen.has(tool.name)) return;
      for (const style of ctx.rng.shuffle(ctx.options.styles)) {
        // A split run (augment --split) draws wrapper keys from its own pool, like every other new name.
        const edit = restyle(
          tool,
          style,
          ctx.rng,
          (name) => ctx.isTaken(name) || !(ctx.words.accept?.(name) ?? true),
          callsOf(ctx.record, mapId(back, tool.name), ctx.plan.args[mapId(back, tool.name)] ?? []),
        );
        if (!edit) continue;
        out.tools[i] = { ...tool, parameters: edit.schema };
        const op = edit.op;
        if (op && op.op !== 'rename') {
          args[tool.name] = [op];
          // The skill loader's argument moves with the wrapper.
          if (out.skillLoader && out.skillLoader.tool === tool.name) {
            const arg = out.skillLoader.argument;
            out.skillLoader = {
              ...out.skillLoader,
              argument: op.op === 'wrap' ? `${op.key}.${arg}` : arg.startsWith(`${op.key}.`) ? arg.slice(op.key.length + 1) : arg,
            };
          }
        }
        applied[tool.name] = edit.done;
        break;
      }
    });
    if (Object.keys(applied).length === 0) return null;
    return { state: out, plan: { args }, params: { restyled: applied } };
  },
});

/** A tool map inverted (invertPlan(plan).tools, without inverting the rest of the plan). */
function sourceNames(tools: IdMap): IdMap {
  const out: IdMap = dict();
  for (const [k, v] of Object.entries(tools)) out[v] = k;
  return out;
}

/** Arguments of every call of a source tool in the record, carried to the current state's shape. */
function callsOf(
  record: { messages: { role: string; tool_calls?: { function: { name: string; arguments: string } }[] }[] } | undefined,
  sourceName: string,
  ops: ArgOp[],
): unknown[] {
  const out: unknown[] = [];
  for (const m of record?.messages ?? []) {
    for (const c of m.tool_calls ?? []) {
      if (c.function.name !== sourceName) continue;
      try {
        out.push(applyArgOps(JSON.parse(c.function.arguments), ops));
      } catch {
        out.push(undefined);
      }
    }
  }
  return out;
}

function restyle(tool: Tool, style: Restyle, rng: Rng, taken: (n: string) => boolean, calls: unknown[]): { schema: JsonSchema; op?: ArgOp; done: Done } | null {
  const schema = tool.parameters;
  const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  switch (style) {
    case 'enum-oneof': {
      // Copied only when something will change (most schemas have neither form).
      if (!someProp(schema, (p) => Array.isArray(p.enum) || Array.isArray(p.oneOf))) return null;
      const s = structuredClone(schema);
      let toOneOf = false;
      let toEnum = false;
      visitProps(s, (p) => {
        if (Array.isArray(p.enum) && p.enum.every((v) => typeof v === 'string') && !('oneOf' in p)) {
          const values = p.enum;
          delete p.enum;
          p.oneOf = values.map((v) => ({ const: v }));
          toOneOf = true;
        } else if (Array.isArray(p.oneOf) && p.oneOf.every((b) => b && typeof b === 'object' && Object.keys(b).length === 1 && 'const' in b)) {
          p.enum = (p.oneOf as { const: unknown }[]).map((b) => b.const);
          delete p.oneOf;
          toEnum = true;
        }
      });
      if (!toOneOf && !toEnum) return null;
      return { schema: s, done: toOneOf && toEnum ? 'enum-oneof-both-ways' : toOneOf ? 'enum-to-oneof' : 'oneof-to-enum' };
    }
    case 'nullable': {
      if (!someProp(schema, (p) => Array.isArray(p.type) || Array.isArray(p.anyOf))) return null;
      const s = structuredClone(schema);
      let toAnyOf = false;
      let toList = false;
      visitProps(s, (p) => {
        if (Array.isArray(p.type) && p.type.length === 2 && p.type.includes('null')) {
          const other = p.type.find((t) => t !== 'null');
          delete p.type;
          p.anyOf = [{ type: other }, { type: 'null' }];
          toAnyOf = true;
        } else if (Array.isArray(p.anyOf) && p.anyOf.length === 2 && p.anyOf.some((b) => isOnly(b, 'type', 'null'))) {
          const other = (p.anyOf as Record<string, unknown>[]).find((b) => !isOnly(b, 'type', 'null'));
          if (other && Object.keys(other).length === 1 && typeof other.type === 'string') {
            delete p.anyOf;
            p.type = [other.type, 'null'];
            toList = true;
          }
        }
      });
      if (!toAnyOf && !toList) return null;
      return { schema: s, done: toAnyOf && toList ? 'nullable-both-ways' : toAnyOf ? 'type-list-to-anyof' : 'anyof-to-type-list' };
    }
    case 'closed': {
      if ('additionalProperties' in schema || Object.keys(props).length === 0) return null;
      const known = new Set(Object.keys(props));
      const ok = calls.every((a) => a !== null && typeof a === 'object' && !Array.isArray(a) && Object.keys(a).every((k) => known.has(k)));
      return ok ? { schema: { ...schema, additionalProperties: false }, done: 'closed' } : null;
    }
    case 'wrap': {
      const keys = Object.keys(props);
      // A reference into the parameters (`#/properties/…`) would point elsewhere once they move.
      if (!refsMoveFreely(schema)) return null;
      // Flatten a single object wrapper whose inner keys do not need a wrapper.
      if (keys.length === 1) {
        const inner = props[keys[0]!]!;
        const rootOnly = Object.keys(schema).filter((k) => ROOT_KEEP.has(k));
        if (
          inner.type === 'object' &&
          inner.properties &&
          (schema.required as string[] | undefined)?.includes(keys[0]!) &&
          Object.keys(schema).every((k) => FLATTEN_ROOT.has(k)) &&
          // Nothing of the wrapper's own is lost: its description moves in only where the inner has none.
          !(typeof schema.description === 'string' && 'description' in inner) &&
          !rootOnly.some((k) => k in inner)
        ) {
          const flat: JsonSchema = { ...(inner as JsonSchema) };
          for (const k of rootOnly) flat[k] = schema[k];
          if (schema.description !== undefined) flat.description = schema.description;
          return { schema: flat, op: { op: 'unwrap', key: keys[0]! }, done: `flatten:${keys[0]!}` };
        }
      }
      if (keys.length === 0) return null;
      const key = rng.shuffle(WRAP_KEYS).find((k) => !keys.includes(k) && !taken(k));
      if (!key) return null;
      // Every keyword about the parameters (required, additionalProperties, a top-level anyOf of
      // required lists, minProperties, the description…) moves into the wrapper with them;
      // definitions stay at the root, where `#/$defs/…` references resolve.
      const inner: Record<string, unknown> = { type: 'object' };
      const wrapped: JsonSchema = { type: 'object', properties: { [key]: inner }, required: [key] };
      for (const [k, v] of Object.entries(schema)) {
        if (k === 'type') continue;
        if (ROOT_KEEP.has(k)) wrapped[k] = v;
        else inner[k] = v;
      }
      return { schema: wrapped, op: { op: 'wrap', key }, done: `wrap:${key}` };
    }
  }
}

/** Root keywords that belong to the document, not to the parameters: they stay at the root when wrapping. */
const ROOT_KEEP = new Set(['$schema', '$id', '$defs', 'definitions']);
/** Root keywords a wrapper may have and still be flattened without losing anything. */
const FLATTEN_ROOT = new Set(['type', 'properties', 'required', 'additionalProperties', 'description', ...ROOT_KEEP]);

/** True when every `$ref` of a schema points into its definitions (or outside it), so its parameters may move. */
function refsMoveFreely(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.every(refsMoveFreely);
  if (schema === null || typeof schema !== 'object') return true;
  for (const [k, v] of Object.entries(schema)) {
    if ((k === '$ref' || k === '$dynamicRef') && typeof v === 'string' && v.startsWith('#') && !/^#\/(\$defs|definitions)\//.test(v)) return false;
    if (k === '$anchor' || k === '$dynamicAnchor') continue;
    if (!refsMoveFreely(v)) return false;
  }
  return true;
}

function visitProps(schema: Record<string, unknown>, f: (p: Record<string, unknown>) => void): void {
  // The models of `$defs`/`definitions` (pydantic's shared models) are restyled like inline ones;
  // every `$ref` to a model sees the one restyled definition.
  for (const key of ['$defs', 'definitions']) {
    const defs = schema[key];
    if (defs && typeof defs === 'object' && !Array.isArray(defs))
      for (const def of Object.values(defs as Record<string, unknown>)) if (def && typeof def === 'object') visitProps(def as Record<string, unknown>, f);
  }
  const props = schema.properties;
  if (!props || typeof props !== 'object') return;
  for (const p of Object.values(props as Record<string, Record<string, unknown>>)) {
    if (!p || typeof p !== 'object') continue;
    f(p);
    visitProps(p, f);
    if (p.items && typeof p.items === 'object') visitProps(p.items as Record<string, unknown>, f);
  }
}

/** True when `test` holds for some property schema that visitProps would visit. */
function someProp(schema: Record<string, unknown>, test: (p: Record<string, unknown>) => boolean): boolean {
  let found = false;
  visitProps(schema, (p) => {
    if (!found && test(p)) found = true;
  });
  return found;
}

function isOnly(b: unknown, key: string, value: unknown): boolean {
  return !!b && typeof b === 'object' && Object.keys(b).length === 1 && (b as Record<string, unknown>)[key] === value;
}
