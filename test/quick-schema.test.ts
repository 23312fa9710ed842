import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { distinctJson, canonicalJson } from '../src/util/canonical-json.js';
import { compileSchema, interpretedErrors, schemaErrors } from '../src/util/json-schema.js';
import { quickCheck } from '../src/util/quick-schema.js';

/** ajv's verdict (full compile, draft-07 or 2020-12 as the schema says). */
function ajvValid(schema: unknown, value: unknown): boolean {
  const v = compileSchema(schema);
  if (typeof v !== 'function') throw new Error(v.error);
  return v(value);
}

describe('quick schema test (certainly valid, or ask the validators)', () => {
  const cases: [string, unknown, unknown[]][] = [
    ['types', { type: ['integer', 'null'] }, [1, 1.0, 1.5, null, '1', true, [], {}]],
    ['integer bounds', { type: 'integer', minimum: 1, exclusiveMaximum: 10 }, [0, 1, 9, 10, 9.5, -3]],
    ['number bounds', { type: 'number', exclusiveMinimum: 0, maximum: 2.5 }, [0, 0.1, 2.5, 2.6, '1']],
    [
      'code point lengths',
      { type: 'string', minLength: 2, maxLength: 3 },
      ['a', 'ab', 'abc', 'abcd', '🍪', '🍪🍪', '🍪🍪🍪', '🍪🍪🍪🍪', '零食', '\ud800', 'a\ud800b', 5],
    ],
    ['unicode pattern', { type: 'string', pattern: '^.{2}$' }, ['ab', '🍪x', '🍪🍪', 'abc', '']],
    ['id pattern', { pattern: '^i-[0-9]{2,4}$' }, ['i-17', 'i-1', 'x', 3, null]],
    ['enum of primitives', { enum: ['a', 1, true, null] }, ['a', 1, 1.0, true, null, 'b', 0, false, {}, []]],
    ['const', { const: 'zh-CN' }, ['zh-CN', 'en-US', null]],
    ['oneOf of consts', { type: 'string', oneOf: [{ const: 'zh-CN' }, { const: 'en-US' }] }, ['zh-CN', 'en-US', 'fr', 1]],
    ['oneOf overlapping', { oneOf: [{ type: 'integer' }, { type: 'number' }] }, [1, 1.5, 'x']],
    ['anyOf', { anyOf: [{ type: 'string', maxLength: 1 }, { type: 'integer' }] }, ['a', 'ab', 2, 2.5]],
    ['allOf', { allOf: [{ minimum: 2 }, { maximum: 4 }] }, [1, 3, 5, 'x']],
    ['unique primitives', { type: 'array', uniqueItems: true, items: { type: ['string', 'integer'] } }, [[], ['a', 'b'], ['a', 'a'], [1, 1.0], [1, '1']]],
    [
      'unique objects (not shown valid, never wrong)',
      { type: 'array', uniqueItems: true },
      [
        [{}, {}],
        [{ a: 1 }, { a: 2 }],
        [[1], [1]],
      ],
    ],
    [
      'array counts and items',
      { type: 'array', minItems: 1, maxItems: 2, items: { type: 'object', required: ['q'] } },
      [[], [{ q: 1 }], [{ q: 1 }, { p: 2 }], [{ q: 1 }, { q: 2 }, { q: 3 }], {}],
    ],
    [
      'object',
      {
        type: 'object',
        properties: { a: { type: 'string' }, b: { type: 'object', properties: { c: { type: 'integer' } }, additionalProperties: false } },
        required: ['a'],
        additionalProperties: false,
      },
      [
        { a: 'x' },
        { a: 'x', b: { c: 1 } },
        { a: 'x', b: { c: 1, d: 2 } },
        { a: 'x', z: 1 },
        { b: {} },
        { a: 1 },
        [],
        'x',
        JSON.parse('{"a":"x","__proto__":1}'),
      ],
    ],
    ['additionalProperties schema', { properties: { a: {} }, additionalProperties: { type: 'integer' } }, [{ a: 'x', b: 1 }, { a: 'x', b: 'y' }, {}]],
    ['boolean subschemas', { properties: { no: false, any: true } }, [{}, { any: [1] }, { no: 1 }]],
    [
      '2020-12',
      { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } } } },
      [{ tags: ['a'] }, { tags: [1] }],
    ],
  ];

  for (const [name, schema, values] of cases) {
    it(`${name}: "valid" only when the validators agree, and exact where it can be`, () => {
      const quick = quickCheck(schema);
      expect(quick, 'inside the subset').not.toBeNull();
      for (const v of values) {
        const truth = interpretedErrors(schema, v).length === 0;
        expect(ajvValid(schema, v), `ajv and the interpreter agree on ${JSON.stringify(v)}`).toBe(truth);
        if (name.startsWith('unique objects')) {
          if (quick!(v)) expect(truth).toBe(true);
        } else expect(quick!(v), JSON.stringify(v)).toBe(truth);
      }
    });
  }

  it('takes no schema outside the subset', () => {
    const outside: unknown[] = [
      { $ref: '#/definitions/x', definitions: { x: {} } },
      { type: 'string', format: 'date' },
      { patternProperties: { '^x': {} } },
      { type: 'number', multipleOf: 0.1 },
      { type: 'array', items: [{ type: 'string' }] },
      { type: 'number', minimum: 0, exclusiveMinimum: true },
      { required: ['constructor'] },
      { properties: { toString: { type: 'string' } } },
      { oneOf: [{ type: 'array', uniqueItems: true }, { type: 'string' }] },
      { type: 'widget' },
      { enum: [{ a: 1 }] },
      { if: { type: 'string' }, then: { minLength: 1 } },
      { nullable: true },
      'not a schema',
    ];
    for (const s of outside) expect(quickCheck(s), JSON.stringify(s)).toBeNull();
  });

  it('agrees with ajv and the interpreter on 3,000 random schemas and values', () => {
    const rng = seedrandom('quick-schema');
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;
    const values: unknown[] = [
      null,
      true,
      false,
      0,
      -1,
      1,
      2.5,
      7,
      100,
      '',
      'a',
      'ab',
      'abc',
      '🍪🍪',
      'i-17',
      'zh-CN',
      [],
      [1],
      [1, 1],
      ['a', 'b'],
      {},
      { a: 1 },
      { a: 'x', b: 2 },
      { b: [1, 2] },
    ];
    const schema = (depth: number): Record<string, unknown> => {
      const s: Record<string, unknown> = {};
      const n = 1 + Math.floor(rng() * 3);
      for (let i = 0; i < n; i++) {
        const k = pick(['type', 'enum', 'min', 'len', 'pattern', 'items', 'obj', 'branch', 'count', 'unique']);
        if (k === 'type')
          s.type =
            rng() < 0.3
              ? [pick(['string', 'integer', 'null']), pick(['number', 'array', 'object'])]
              : pick(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);
        else if (k === 'enum') s.enum = [...new Set([pick(values.slice(0, 16)), pick(values.slice(0, 16))])];
        else if (k === 'min') s[pick(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'])] = pick([0, 1, 2.5, 7]);
        else if (k === 'len') s[pick(['minLength', 'maxLength'])] = pick([0, 1, 2, 3]);
        else if (k === 'pattern') s.pattern = pick(['^a', 'b$', '^.{2}$', '^i-[0-9]+$']);
        else if (k === 'count') s[pick(['minItems', 'maxItems'])] = pick([0, 1, 2]);
        else if (k === 'unique') s.uniqueItems = true;
        else if (depth > 0 && k === 'items') s.items = schema(depth - 1);
        else if (depth > 0 && k === 'obj') {
          s.properties = { a: schema(depth - 1), b: schema(depth - 1) };
          if (rng() < 0.5) s.required = [pick(['a', 'b'])];
          if (rng() < 0.5) s.additionalProperties = rng() < 0.5 ? false : schema(depth - 1);
        } else if (depth > 0 && k === 'branch') s[pick(['anyOf', 'oneOf', 'allOf'])] = [schema(depth - 1), schema(depth - 1)];
      }
      return s;
    };
    let shownValid = 0;
    let checked = 0;
    for (let i = 0; i < 3_000; i++) {
      const s = schema(2);
      const quick = quickCheck(s);
      if (quick === null) continue; // (uniqueItems inside oneOf)
      for (let j = 0; j < 4; j++) {
        const v = pick(values);
        const truth = interpretedErrors(s, v).length === 0;
        expect(ajvValid(s, v), `${JSON.stringify(s)} on ${JSON.stringify(v)}`).toBe(truth);
        const q = quick(v);
        if (q) expect(truth, `quick says valid: ${JSON.stringify(s)} on ${JSON.stringify(v)}`).toBe(true);
        if (q) shownValid++;
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(10_000);
    expect(shownValid).toBeGreaterThan(1_000);
  });
});

describe('schemas that differ only in NaN or ±Infinity (a YAML harness can write .nan and .inf)', () => {
  it('are told apart by the validator caches, whatever was compiled first', () => {
    const pairs: [unknown, unknown][] = [
      [{ const: null }, { const: Number.NaN }],
      [{ enum: [null, 1] }, { enum: [Number.POSITIVE_INFINITY, 1] }],
      [
        { type: 'number', maximum: 5 },
        { type: 'number', maximum: Number.POSITIVE_INFINITY, minimum: Number.NEGATIVE_INFINITY },
      ],
    ];
    for (const [a, b] of pairs) {
      for (const order of [
        [a, b],
        [b, a],
      ]) {
        const verdicts = order.map((s) => [null, 1, 7].map((v) => schemaErrors(structuredClone(s), v).length === 0));
        const direct = order.map((s) => [null, 1, 7].map((v) => interpretedErrors(s, v).length === 0));
        expect(verdicts, JSON.stringify(order)).toEqual(direct);
      }
      expect(compileSchema(structuredClone(a))).not.toBe(compileSchema(structuredClone(b)));
    }
  });

  it('distinctJson is canonicalJson for JSON data and writes non-finite numbers as bare words', () => {
    const v = { b: [1, 'x', null, { d: true, c: -0 }], a: 'NaN' };
    expect(distinctJson(v)).toBe(canonicalJson(v));
    expect(distinctJson({ z: Number.NaN, a: [Number.NEGATIVE_INFINITY, null] })).toBe('{"a":[-Infinity,null],"z":NaN}');
    expect(canonicalJson({ z: Number.NaN })).toBe('{"z":null}');
  });
});
