// The state hash and the per-record harness's schema pass are on every output's path (issue #11)
// and were made cheaper: cached schema texts are flattened and built from fewer pieces, and type
// aliases are looked for per key a schema has. Their bytes must be the long way's: `state_hash` is
// sha256 over the state as JSON with each tool schema in canonical JSON, here recomputed by a
// reference spelled out another way, on states sampled from records with their own tools (unicode,
// escapes, 1e21 and -0, nested arrays, integer-like property names, frozen and shared schemas).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openAiToolSchema } from '../src/harness/schema.js';
import { normaliseTool, quickOpenAiFunction } from '../src/harness/tools.js';
import { jsonSchemaTypes } from '../src/harness/schema-spellings.js';
import type { Harness, JsonSchema } from '../src/harness/types.js';
import { deriveInlineHarness } from '../src/ingest/inline-harness.js';
import { augmentOne, StatePool } from '../src/trajectory/augment.js';
import type { Trajectory } from '../src/trajectory/types.js';
import { createRng, type Rng } from '../src/transform/rng.js';
import { resolveTransforms } from '../src/transform/variant.js';
import { canonicalJson, canonicalSchemaJson } from '../src/util/canonical-json.js';
import { hashState } from '../src/util/hash.js';
import { builtinTransforms } from '../transforms/index.js';
import { builtinWords } from '../src/words/selection.js';
import { referenceCanonical } from './helpers/canonical.js';

/** What `state_hash` is defined as: sha256 of the state without tools as JSON, then each tool without parameters as JSON and its parameters in canonical JSON. */
function referenceHash(state: Harness): string {
  const { tools, ...rest } = state;
  const h = createHash('sha256').update(JSON.stringify(rest));
  for (const t of tools) {
    const { parameters, ...tool } = t;
    h.update(JSON.stringify(tool)).update(referenceCanonical(parameters)!);
  }
  return h.digest('hex');
}

const WORDS = ['city', 'email', 'note', 'count', 'amount', 'café', '中文', 'emoji😀', 'q"uote', 'back\\slash', 'line\nbreak', 'tab\tx', '10', '9', '0'];
const NUMBERS = [0, -0, 1.5, -3, 1e21, 1e-7, 123456789012];

/** A parameter schema of generated shape: scalars, enums of odd values, nested arrays and objects. */
function schema(rng: Rng, depth: number): Record<string, unknown> {
  const kind = rng.int(depth > 1 ? 3 : 6);
  const described = (s: Record<string, unknown>) => (rng.chance(0.6) ? { ...s, description: `The ${rng.pick(WORDS)} (${rng.pick(WORDS)}).` } : s);
  switch (kind) {
    case 0:
      return described({ type: 'string' });
    case 1:
      return described({ type: 'integer', minimum: rng.pick(NUMBERS), maximum: rng.pick(NUMBERS) });
    case 2:
      return described({ type: 'string', enum: rng.sample(WORDS, 1 + rng.int(3)) });
    case 3:
      return described({ type: 'array', items: schema(rng, depth + 1), minItems: 1 });
    case 4:
      return { type: 'array', prefixItems: [schema(rng, depth + 1), { type: 'number', enum: [rng.pick(NUMBERS), [1, [2, [3]]]] }] };
    default:
      return described(objectSchema(rng, depth + 1));
  }
}

function objectSchema(rng: Rng, depth: number): Record<string, unknown> {
  const names = rng.sample(['city', 'email', 'note', 'count', 'amount', 'date', 'b', 'a', '10', '9', 'ключ', 'naïve'], 1 + rng.int(4));
  const properties: Record<string, unknown> = {};
  for (const n of names) properties[n] = schema(rng, depth);
  return { type: 'object', properties, required: names.slice(0, 1) };
}

const deepFreeze = <T>(v: T): T => {
  if (v !== null && typeof v === 'object') {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
};

/** A record with its own tools: some schemas frozen, one schema object shared by two tools. */
function record(rng: Rng, id: string): Trajectory {
  const n = 2 + rng.int(5);
  const shared = objectSchema(rng, 0);
  const tools = Array.from({ length: n }, (_, i) => {
    const parameters = i === 1 ? shared : i === 2 ? deepFreeze(objectSchema(rng, 0)) : objectSchema(rng, 0);
    return { type: 'function' as const, function: { name: `tool_${id}_${i}`, description: `Does ${rng.pick(WORDS)}; see tool_${id}_0 «first».`, parameters } };
  });
  tools.push({ type: 'function', function: { name: `other_${id}`, description: 'Shares a schema.', parameters: shared } });
  return {
    id,
    tools,
    messages: [
      { role: 'system', content: `You help with ${rng.pick(WORDS)}. Call tool_${id}_0 first — «ok» \u2028 "quoted".\n\n- Be brief.\n- Confirm.` },
      { role: 'user', content: 'Please help.' },
      { role: 'assistant', content: 'Done.' },
    ],
  };
}

const selection = Object.fromEntries(
  [
    'tools.rename',
    'tools.param-rename',
    'tools.describe',
    'tools.distractors',
    'tools.order',
    'tools.param-order',
    'tools.schema-style',
    'prompt.list-style',
  ].map((id) => [id, { p: 0.7 }]),
);
const transforms = resolveTransforms(builtinTransforms, selection, 'rewrite');

describe('hashState', () => {
  it('gives the reference bytes on sampled states of records with their own tools', () => {
    const rng = createRng('state-hash');
    let states = 0;
    let changedSchemas = 0;
    for (let r = 0; r < 60; r++) {
      const source = record(rng, `r${r}`);
      const harness = deriveInlineHarness(source, { file: 'test', line: r + 1 }).harness!;
      expect(hashState(harness)).toBe(referenceHash(harness));
      const pool = new StatePool(harness, transforms, `seed-${r}`, builtinWords, 4);
      for (let k = 0; k < 6; k++) {
        const { variant } = augmentOne(source, harness, transforms, `seed-${r}`, k, builtinWords, pool);
        states++;
        // The hash made while sampling, and again (every schema text now cached): the same bytes.
        expect(variant.stateHash).toBe(referenceHash(variant.state));
        expect(hashState(variant.state)).toBe(variant.stateHash);
        changedSchemas += variant.state.tools.filter((t) => !harness.tools.some((s) => s.parameters === t.parameters)).length;
      }
    }
    expect(states).toBe(360);
    // The transforms did make new schemas (renamed, reordered, restyled), not only shared ones.
    expect(changedSchemas).toBeGreaterThan(300);
  });

  it('depends on every byte: a state that differs in one schema character hashes differently', () => {
    const rng = createRng('state-hash-diff');
    const harness = deriveInlineHarness(record(rng, 'x'), { file: 'test', line: 1 }).harness!;
    const tools = harness.tools.map((t, i) => (i === 0 ? { ...t, parameters: { ...t.parameters, description: 'é' } } : t));
    const other = { ...harness, tools };
    expect(hashState(other)).not.toBe(hashState(harness));
    expect(hashState(other)).toBe(referenceHash(other));
  });
});

describe('canonicalSchemaJson', () => {
  it('gives canonical JSON for frozen, shared and nested schemas, the first time and from its cache', () => {
    const rng = createRng('schema-json');
    for (let i = 0; i < 300; i++) {
      const s = objectSchema(rng, 0);
      const frozen = i % 3 === 0 ? deepFreeze(s) : s;
      const want = referenceCanonical(frozen);
      expect(canonicalSchemaJson(frozen)).toBe(want);
      expect(canonicalSchemaJson(frozen)).toBe(want);
      expect(canonicalJson(frozen)).toBe(want);
      // A schema holding the first (a shared subschema) is its own text.
      const outer = { type: 'object', properties: { inner: frozen } };
      expect(canonicalSchemaJson(outer)).toBe(referenceCanonical(outer));
    }
  });
});

/** Type aliases resolved the long way (every keyword of each table probed on every node): the reference. */
function referenceTypes(s: unknown): unknown {
  const ALIASES: Record<string, string | null> = {
    dict: 'object',
    float: 'number',
    int: 'integer',
    bool: 'boolean',
    str: 'string',
    list: 'array',
    tuple: 'array',
    any: null,
  };
  const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (!isObj(s)) return s;
  const out: Record<string, unknown> = { ...s };
  const t = s.type;
  if (typeof t === 'string' && t in ALIASES) {
    if (ALIASES[t] === null) delete out.type;
    else out.type = ALIASES[t];
  } else if (Array.isArray(t) && t.some((x) => typeof x === 'string' && x in ALIASES)) {
    const mapped = t.map((x) => (typeof x === 'string' && x in ALIASES ? ALIASES[x] : x));
    if (mapped.includes(null)) delete out.type;
    else out.type = [...new Set(mapped)];
  }
  for (const k of [
    'items',
    'additionalProperties',
    'not',
    'if',
    'then',
    'else',
    'contains',
    'propertyNames',
    'unevaluatedItems',
    'unevaluatedProperties',
    'additionalItems',
  ])
    if (isObj(s[k])) out[k] = referenceTypes(s[k]);
  for (const k of ['anyOf', 'oneOf', 'allOf', 'prefixItems', 'items']) if (Array.isArray(s[k])) out[k] = (s[k] as unknown[]).map(referenceTypes);
  for (const k of ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']) {
    const v = s[k];
    if (isObj(v)) out[k] = Object.fromEntries(Object.entries(v).map(([n, x]) => [n, referenceTypes(x)]));
  }
  return out;
}

describe('jsonSchemaTypes', () => {
  const TYPES = ['string', 'integer', 'object', 'array', 'number', 'boolean', 'null', 'dict', 'float', 'int', 'bool', 'str', 'list', 'tuple', 'any'];
  const KEYS = [
    'items',
    'additionalProperties',
    'not',
    'if',
    'then',
    'else',
    'anyOf',
    'oneOf',
    'allOf',
    'prefixItems',
    'properties',
    '$defs',
    'description',
    'enum',
    'minimum',
  ];
  function generate(rng: Rng, depth: number): Record<string, unknown> {
    const s: Record<string, unknown> = {};
    if (rng.chance(0.8)) s.type = rng.chance(0.8) ? rng.pick(TYPES) : rng.sample(TYPES, 2);
    if (depth > 3) return s;
    for (const k of rng.sample(KEYS, rng.int(3))) {
      if (k === 'description') s[k] = 'a list';
      else if (k === 'enum') s[k] = ['dict', 1];
      else if (k === 'minimum') s[k] = 0;
      else if (k === 'properties' || k === '$defs')
        s[k] = Object.fromEntries(rng.sample(['a', 'b', '10', '2', 'type', 'items'], 1 + rng.int(3)).map((n) => [n, generate(rng, depth + 1)]));
      else if (['anyOf', 'oneOf', 'allOf', 'prefixItems'].includes(k) || (k === 'items' && rng.chance(0.3)))
        s[k] = Array.from({ length: 1 + rng.int(3) }, () => generate(rng, depth + 1));
      else s[k] = generate(rng, depth + 1);
    }
    return s;
  }

  it('maps every alias at every schema position as the long way does, and keeps untouched schemas as the same objects', () => {
    const rng = createRng('schema-types');
    let same = 0;
    let mapped = 0;
    for (let i = 0; i < 3000; i++) {
      const s = generate(rng, 0);
      const before = JSON.stringify(s);
      const got = jsonSchemaTypes(s);
      // Same bytes, key order included, and the input left as it was.
      expect(JSON.stringify(got)).toBe(JSON.stringify(referenceTypes(s)));
      expect(JSON.stringify(s)).toBe(before);
      if (got === s) {
        same++;
        expect(JSON.stringify(referenceTypes(s))).toBe(before);
      } else mapped++;
    }
    expect(same).toBeGreaterThan(200);
    expect(mapped).toBeGreaterThan(1000);
  });
});

describe('quickOpenAiFunction', () => {
  const ODD: unknown[] = [null, '', 'x', 0, 1.5, true, false, [], {}, [{}], { type: 'string' }, undefined];
  /** A tool as JSON gives it, with one field added, dropped or replaced (or none). */
  function tool(rng: Rng): Record<string, unknown> {
    const f: Record<string, unknown> = { name: rng.pick(['get_x', 'a', 'Get Weather', 'math.factorial']) };
    if (rng.chance(0.8)) f.description = rng.pick(['Does x.', '', 'é 😀']);
    if (rng.chance(0.8)) f.parameters = objectSchema(rng, 1);
    if (rng.chance(0.2)) f.strict = rng.pick([true, false, null]);
    const t: Record<string, unknown> = { type: 'function', function: f };
    const r = rng.int(10);
    const target = rng.chance(0.5) ? t : f;
    const key = rng.pick(['type', 'function', 'name', 'description', 'parameters', 'strict', 'extra']);
    if (r === 0) target[key] = rng.pick(ODD);
    else if (r === 1) delete target[key];
    else if (r === 2 && f.parameters) (f.parameters as Record<string, unknown>)[rng.pick(['constructor', 'toString', '10'])] = rng.pick(ODD);
    // Through JSON, as records arrive (a `__proto__` key then is an own key).
    const text = JSON.stringify(t);
    return JSON.parse(r === 3 && f.parameters ? text.replace('"parameters":{', '"parameters":{"__proto__":{"x":1},') : text) as Record<string, unknown>;
  }

  it('answers only for tools zod accepts, with what zod parses them to; the tool made is the same either way', () => {
    const rng = createRng('quick-openai');
    let quick = 0;
    let refused = 0;
    for (let i = 0; i < 4000; i++) {
      const t = tool(rng);
      const z = openAiToolSchema().safeParse(t);
      if (!z.success) refused++;
      const q = quickOpenAiFunction(t);
      if (q === undefined) continue;
      quick++;
      expect(z.success, JSON.stringify(t)).toBe(true);
      const zf = z.data!.function;
      expect(JSON.stringify(q)).toBe(JSON.stringify({ name: zf.name, description: zf.description, parameters: zf.parameters }));
      expect(q.parameters === undefined || q.parameters !== (t.function as { parameters?: unknown }).parameters).toBe(true);
    }
    expect(quick).toBeGreaterThan(2000);
    expect(refused).toBeGreaterThan(300);
    // And normaliseTool gives the same tool or the same issues as through zod alone.
    const rng2 = createRng('quick-openai');
    for (let i = 0; i < 500; i++) {
      const t = tool(rng2);
      const got = normaliseTool(t);
      const z = openAiToolSchema().safeParse(t);
      if (!z.success) expect('issues' in got).toBe(true);
      else if ('tool' in got)
        expect(JSON.stringify(got.tool.parameters)).toBe(
          JSON.stringify(jsonSchemaTypes((z.data.function.parameters ?? { type: 'object', properties: {} }) as JsonSchema)),
        );
    }
  });
});
