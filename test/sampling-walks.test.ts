// Schema walks the sampler and the checks run on every state (issue #11) were rewritten without
// closures and with one cache by schema object: they must list what the plain recursive walks
// listed, in the same order, for schemas of every nesting a tool list has.
import { describe, expect, it } from 'vitest';
import { createRng, type Rng } from '../src/transform/rng.js';
import { schemaPropertyNames, schemaTexts, stateIdentifiers } from '../src/transform/state.js';
import { propertyNames } from '../src/trajectory/rewrite.js';
import type { Harness } from '../src/harness/types.js';
import { baseHarness } from './helpers/state.js';

/**
 * Property names as the first version listed them: entries of `properties`, then the nested
 * keywords in this order — except that `$defs` and `definitions` are maps of models, whose schemas
 * are read (issue #23: the first version read the map itself as a schema and missed every model).
 */
function referenceNames(schema: unknown): string[] {
  const out: string[] = [];
  const walk = (s: unknown) => {
    if (Array.isArray(s)) return s.forEach(walk);
    if (s === null || typeof s !== 'object') return;
    const o = s as Record<string, unknown>;
    if (o.properties && typeof o.properties === 'object') {
      for (const [k, v] of Object.entries(o.properties as Record<string, unknown>)) {
        out.push(k);
        walk(v);
      }
    }
    for (const key of ['items', 'anyOf', 'oneOf', 'allOf', 'additionalProperties', '$defs', 'definitions']) {
      if (!(key in o)) continue;
      const v = o[key];
      if ((key === '$defs' || key === 'definitions') && v !== null && typeof v === 'object' && !Array.isArray(v)) Object.values(v).forEach(walk);
      else walk(v);
    }
  };
  walk(schema);
  return out;
}

/** Descriptions and titles as the first version listed them (not inside enum, const, default, examples). */
function referenceTexts(schema: unknown): string[] {
  const found: string[] = [];
  const walk = (s: unknown) => {
    if (Array.isArray(s)) return s.forEach(walk);
    if (s === null || typeof s !== 'object') return;
    for (const [k, v] of Object.entries(s)) {
      if ((k === 'description' || k === 'title') && typeof v === 'string') found.push(v);
      else if (k !== 'enum' && k !== 'const' && k !== 'default' && k !== 'examples') walk(v);
    }
  };
  walk(schema);
  return found;
}

const NAMES = ['city', 'query', 'items', 'properties', 'description', 'title', '__proto__', 'constructor', 'a.b', 'user_id', 'anyOf'];
const KEYWORDS = [
  'properties',
  'items',
  'anyOf',
  'oneOf',
  'allOf',
  'additionalProperties',
  '$defs',
  'definitions',
  'description',
  'title',
  'enum',
  'const',
  'default',
  'examples',
  'type',
  'not',
];

/** A random schema-like value: nested keywords, arrays of branches, odd names, texts in places that are and are not read. */
function randomSchema(rng: Rng, depth: number): unknown {
  if (depth > 3 || rng.chance(0.15)) return rng.pick([true, false, null, 'string', 3, { type: 'string' }, { description: `d${rng.int(9)}` }]);
  if (rng.chance(0.1)) return Array.from({ length: rng.int(3) }, () => randomSchema(rng, depth + 1));
  const o: Record<string, unknown> = {};
  for (const key of rng.sample(KEYWORDS, 1 + rng.int(5))) {
    if (key === 'properties') {
      const props: Record<string, unknown> = {};
      for (const n of rng.sample(NAMES, rng.int(4)))
        Object.defineProperty(props, n, { value: randomSchema(rng, depth + 1), enumerable: true, writable: true, configurable: true });
      o[key] = props;
    } else if (key === 'description' || key === 'title') o[key] = rng.chance(0.8) ? `${key} ${rng.int(100)}` : { description: 'inner' };
    else if (key === 'anyOf' || key === 'oneOf' || key === 'allOf') o[key] = Array.from({ length: 1 + rng.int(3) }, () => randomSchema(rng, depth + 1));
    else if (key === 'enum' || key === 'examples') o[key] = [{ description: 'not read' }, 'x'];
    else if (key === 'type') o[key] = rng.pick(['object', 'array', ['string', 'null']]);
    else o[key] = randomSchema(rng, depth + 1);
  }
  return o;
}

describe('schema walks of the sampler and the checks', () => {
  it('list the property names and texts the plain recursive walks list, in order, on 3,000 random schemas', () => {
    const rng = createRng('walks', 'schemas');
    let names = 0;
    let texts = 0;
    for (let i = 0; i < 3000; i++) {
      const schema = randomSchema(rng, 0);
      expect(schemaPropertyNames(schema), `schema ${i}: ${JSON.stringify(schema)}`).toEqual(referenceNames(schema));
      // Asked again (kept by schema object) and through the checks' name: the same list.
      expect(schemaPropertyNames(schema)).toEqual(referenceNames(schema));
      expect(propertyNames(schema)).toEqual(referenceNames(schema));
      if (schema !== null && typeof schema === 'object') expect(schemaTexts(schema), `schema ${i}`).toEqual(referenceTexts(schema));
      names += referenceNames(schema).length;
      texts += referenceTexts(schema).length;
    }
    // The generator reaches deep names and texts (the comparison is not of empty lists).
    expect(names).toBeGreaterThan(3000);
    expect(texts).toBeGreaterThan(3000);
  });

  it('a state declares its tools, their nested parameters, skills, hooks and sections, kept per state', () => {
    const h = baseHarness({
      sections: [{ id: 'rules', kind: 'text', text: 'Be brief.', placement: 'system' }],
      tools: [
        {
          name: 'find_city',
          description: 'Find a city.',
          parameters: {
            type: 'object',
            properties: { query: { type: 'string' }, filters: { type: 'object', properties: { country_code: { type: 'string' } } } },
          },
          sourceName: 'find_city',
          sourceFormat: 'openai',
        },
        {
          name: 'list_items',
          description: 'List.',
          parameters: { type: 'object', properties: { rows: { type: 'array', items: { type: 'object', properties: { row_id: { type: 'string' } } } } } },
          sourceName: 'list_items',
          sourceFormat: 'openai',
        },
      ],
      skills: [
        { id: 'refund-policy', description: 'Refunds.', kind: 'instruction', tools: [], body: 'Refunds.', extra: {} } as unknown as Harness['skills'][number],
      ],
      hooks: [
        { id: 'stop_gate', event: 'stop', checks: [{ type: 'max_chars', value: 500 }], action: 'retry', channel: 'user', feedback: 'Too long.', maxRounds: 2 },
      ],
    });
    expect([...stateIdentifiers(h)].sort()).toEqual([
      'country_code',
      'filters',
      'find_city',
      'list_items',
      'query',
      'refund-policy',
      'row_id',
      'rows',
      'rules',
      'stop_gate',
    ]);
    const ids = stateIdentifiers(h);
    expect(stateIdentifiers(h)).toBe(ids);
    for (const t of h.tools) {
      expect(ids.has(t.name)).toBe(true);
      for (const p of referenceNames(t.parameters)) expect(ids.has(p), p).toBe(true);
    }
    for (const s of [...h.skills.map((k) => k.id), ...h.hooks.map((k) => k.id), ...h.sections.map((k) => k.id)]) expect(ids.has(s), s).toBe(true);
    // A copy with a tool renamed is another state: its own identifiers.
    const renamed = { ...h, tools: h.tools.map((t, i) => (i === 0 ? { ...t, name: 'renamed_tool' } : t)) };
    expect(stateIdentifiers(renamed).has('renamed_tool')).toBe(true);
    expect(ids.has('renamed_tool')).toBe(false);
  });
});
