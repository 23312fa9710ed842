import { z } from 'zod';
import type { JsonSchema } from '../../src/harness/types.js';
import { defineTransform } from '../../src/transform/define.js';
import type { Rng } from '../../src/transform/rng.js';
import { shallowState } from '../../src/transform/state.js';
import { put } from '../../src/util/copy.js';
import { keyedObject } from '../../src/util/dict.js';

/** Shuffle the order of parameters (`properties`) and of `required` in tool schemas. */
export default defineTransform({
  id: 'tools.param-order',
  family: 'tools',
  class: 'exact',
  version: 1,
  description: 'Shuffle the order of parameters and of the required list in tool schemas (nested objects too).',
  options: z.strictObject({
    p: z.number().min(0).max(1).default(0.6).describe('probability that a variant reorders parameters'),
    intensity: z.number().min(0).max(1).default(0.6).describe('share of tools whose parameters are reordered'),
  }),
  apply(state, ctx) {
    const eligible = state.tools.filter((t) => Object.keys((t.parameters.properties as object | undefined) ?? {}).length > 1).map((t) => t.name);
    if (eligible.length === 0) return null;
    const chosen = new Set(ctx.rng.sample(eligible, Math.max(1, Math.round(eligible.length * ctx.options.intensity))));
    const out = shallowState(state);
    const changed: string[] = [];
    // A reordered tool is a new object; the others are shared with the state before.
    out.tools = state.tools.map((t) => {
      if (!chosen.has(t.name)) return t;
      changed.push(t.name);
      return { ...t, parameters: shuffleSchema(t.parameters, ctx.rng) as JsonSchema };
    });
    return { state: out, params: { tools: changed.sort() } };
  },
});

function shuffleSchema(schema: unknown, rng: Rng): unknown {
  if (Array.isArray(schema)) return schema.map((s) => shuffleSchema(s, rng));
  if (schema === null || typeof schema !== 'object') return schema;
  // Nothing below to reorder (no draws either): kept as it is, shared — schemas are never changed in place.
  if (isLeaf(schema as Record<string, unknown>)) return schema;
  const out: Record<string, unknown> = {};
  for (const k in schema) {
    if (!Object.prototype.hasOwnProperty.call(schema, k)) continue;
    const v = (schema as Record<string, unknown>)[k];
    if (k === 'properties' && v && typeof v === 'object') {
      const entries = rng.shuffle(Object.entries(v as Record<string, unknown>));
      // Each order of the names would be a hidden class of its own (see src/util/dict.ts).
      const props = keyedObject();
      // As Object.fromEntries would make them: a property named __proto__ stays a property (put).
      for (const [name, sub] of entries) put(props, name, shuffleSchema(sub, rng));
      out[k] = props;
    } else if (k === 'required' && Array.isArray(v)) out[k] = rng.shuffle(v);
    else if (k === 'enum' || k === 'const' || k === 'default' || k === 'examples') out[k] = v;
    else out[k] = shuffleSchema(v, rng);
  }
  return out;
}

/** A schema without properties or a required list, and without nested schemas. */
function isLeaf(o: Record<string, unknown>): boolean {
  for (const k in o) {
    if (k === 'properties' || k === 'required') return false;
    const v = o[k];
    if (v !== null && typeof v === 'object' && k !== 'enum' && k !== 'const' && k !== 'default' && k !== 'examples') return false;
  }
  return true;
}
