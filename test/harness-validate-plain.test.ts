import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadHarness } from '../src/harness/load.js';
import { Ajv } from 'ajv';
import { AJV_OPTIONS, compileSchema } from '../src/util/json-schema.js';
import { plainSchemaCompiles } from '../src/util/plain-schema.js';
import { REPO } from './helpers/hsa.js';
import { errorsOf, useHarnessDirs } from './helpers/harness-dirs.js';

/**
 * The harness check's "this schema compiles" without ajv (plain-schema.ts) against ajv itself, as
 * compileSchema configures it: wherever the hand check says "compiles", ajv must compile the schema;
 * inside the subset (keywords it handles, plain JSON values) the two must agree both ways.
 */
// (A schema with `$schema` goes to compileSchema, which picks the draft; any other to one draft-07
// instance with compileSchema's options, not through its cache: that keys schemas by canonical JSON,
// where NaN and null are alike.)
const draft7 = new Ajv(AJV_OPTIONS);
function ajvError(s: unknown): string | null {
  if (s !== null && typeof s === 'object' && '$schema' in s) {
    const c = compileSchema(s);
    return 'error' in c ? c.error : null;
  }
  try {
    draft7.compile(s as object);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}
const ajvCompiles = (s: unknown): boolean => ajvError(s) === null;

/** Every tool schema the fixtures hold: objects under `parameters`, `input_schema` or `inputSchema`. */
function fixtureSchemas(): unknown[] {
  const out: unknown[] = [];
  const collect = (v: unknown, depth: number): void => {
    if (depth > 12 || v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) return v.forEach((x) => collect(x, depth + 1));
    for (const [k, x] of Object.entries(v)) {
      if ((k === 'parameters' || k === 'input_schema' || k === 'inputSchema') && x !== null && typeof x === 'object' && !Array.isArray(x)) out.push(x);
      else collect(x, depth + 1);
    }
  };
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.(json|ya?ml)$/.test(name)) {
        try {
          collect(name.endsWith('.json') ? JSON.parse(readFileSync(p, 'utf8')) : parseYaml(readFileSync(p, 'utf8')), 0);
        } catch {
          // a fixture that is bad on purpose
        }
      } else if (name.endsWith('.jsonl')) {
        for (const line of readFileSync(p, 'utf8').split('\n').slice(0, 50)) {
          try {
            collect(JSON.parse(line), 0);
          } catch {
            // not a record
          }
        }
      }
    }
  };
  walk(path.join(REPO, 'fixtures'));
  return out;
}

type Expect = 'exact' | 'safe';
/** Values per keyword, valid and not; `safe`: outside the subset on purpose (only "compiles ⇒ ajv compiles" holds). */
const VALUES: Record<string, [unknown, Expect?][]> = {
  type: [['string'], [['string', 'null']], ['integer'], ['strng'], [['string', 'string']], [[]], [5], [null], ['Integer'], [['x']], [[1]]],
  properties: [
    [{}],
    [{ a: { type: 'string' } }],
    [{ a: true, b: false }],
    [{ a: 5 }],
    [[]],
    ['x'],
    [null],
    [JSON.parse('{"__proto__":{"type":"string"}}'), 'safe'],
  ],
  required: [[[]], [['a']], [['a', 'b']], ['a'], [['a', 'a']], [[1]], [{}], [null]],
  enum: [[['a']], [['a', 1, true, null]], [[]], [['a', 'a']], [[1, '1']], ['a'], [[{}], 'safe'], [[[1]], 'safe'], [[NaN], 'safe'], [[1, 1.0]]],
  const: [['a'], [null], [{ a: [1] }], [NaN, 'safe'], [Infinity, 'safe']],
  items: [[{}], [true], [false], [{ type: 'string' }], [[{}], 'safe'], [[]], ['x'], [5], [{ type: 'strng' }], [{ minLength: -1 }]],
  description: [['x'], [''], [5], [null], [[]]],
  title: [['x'], [5], [{}]],
  $comment: [['x'], [1]],
  format: [['email'], ['not-a-format'], [5], [null]],
  default: [[1], ['x'], [{ a: [null] }], [null], [NaN, 'safe']],
  examples: [[[]], [['a', { b: 1 }]], ['a'], [{}], [[NaN], 'safe']],
  minimum: [[0], [-1.5], [1e308], ['1'], [NaN, 'safe'], [Infinity, 'safe'], [null], [true]],
  exclusiveMaximum: [[3], [true], ['3']],
  minLength: [[0], [3], [-1], [1.5], ['3'], [NaN, 'safe'], [Infinity, 'safe'], [1e21], [true]],
  maxItems: [[2], [-2], [2.5]],
  minProperties: [[1], ['1']],
  pattern: [['^a+$'], ['\\p{L}+'], ['(?<n>x)\\k<n>'], ['['], ['\\d{'], ['\\-'], ['[\\w-z]'], ['(?i)x'], ['a{2,1}'], [5], [null], ['']],
  additionalProperties: [[true], [false], [{}], [{ type: 'string' }], [{ type: 'strng' }], ['x'], [5], [null], [[]]],
  anyOf: [[[{}]], [[{ type: 'string' }, { type: 'integer' }]], [[]], [[{ type: 'x' }]], [{}], [[5]], [[true]]],
  oneOf: [[[{ const: 1 }]], [[]], ['x']],
  allOf: [[[{ minimum: 1 }, { maximum: 2 }]], [[{ required: 'a' }]], [null]],
  not: [[{}], [{ type: 'string' }], [5], [{ type: 'strng' }]],
  multipleOf: [[1], [0.5], [0], [-1], ['1'], [NaN, 'safe']],
  uniqueItems: [[true], [false], ['yes'], [1]],
  readOnly: [[true], [1]],
  $ref: [['#/$defs/D'], ['#/$defs/missing'], ['#/definitions/D'], [5], ['http://example.com/x'], ['#', 'safe'], ['#/$defs/D/properties', 'safe']],
  $defs: [[{ D: {}, X: { type: 'integer' } }], [{ D: 5 }, 'safe'], [5, 'safe'], [[], 'safe']],
  definitions: [[{ D: {}, X: { type: 'integer' } }], [{ D: 5 }], [5], [[]]],
  // Outside the subset: the hand check never answers, whatever ajv says.
  nullable: [
    [true, 'safe'],
    [false, 'safe'],
    ['x', 'safe'],
  ],
  $schema: [
    ['http://json-schema.org/draft-07/schema#', 'safe'],
    ['https://json-schema.org/draft/2020-12/schema', 'safe'],
    ['nope', 'safe'],
  ],
  $id: [
    ['http://example.com/s', 'safe'],
    [5, 'safe'],
  ],
  patternProperties: [
    [{ '^a': {} }, 'safe'],
    [{ '[': {} }, 'safe'],
  ],
  dependencies: [
    [{ a: ['b'] }, 'safe'],
    [{ a: 5 }, 'safe'],
  ],
  if: [
    [{}, 'safe'],
    [5, 'safe'],
  ],
  'x-order': [[1, 'safe']],
  discriminator: [[{ propertyName: 'kind' }, 'safe']],
};
const DEFINITIONS = { D: { type: 'string', minLength: 1 } };

/** The schema with `extra` placed at one position: the root, a property, array items, an anyOf branch, a referenced definition. */
function placed(where: string, extra: Record<string, unknown>): Record<string, unknown> {
  const defs = { $defs: DEFINITIONS, definitions: DEFINITIONS };
  switch (where) {
    case 'root':
      return { type: 'object', properties: { q: { type: 'string' } }, ...defs, ...extra };
    case 'property':
      return { type: 'object', properties: { p: { description: 'p', ...extra } }, required: ['p'], ...defs };
    case 'items':
      return { type: 'object', properties: { list: { type: 'array', items: { ...extra } } }, ...defs };
    case 'branch':
      return { type: 'object', properties: { u: { anyOf: [{ type: 'null' }, { ...extra }] } }, ...defs };
    case 'definition':
      return { type: 'object', properties: { r: { $ref: '#/definitions/E' } }, $defs: DEFINITIONS, definitions: { ...DEFINITIONS, E: { ...extra } } };
    default:
      return { type: 'object', properties: { r: { $ref: '#/$defs/E' } }, $defs: { ...DEFINITIONS, E: { ...extra } }, definitions: DEFINITIONS };
  }
}
const PLACES = ['root', 'property', 'items', 'branch', 'definition', '$defs entry'];

/**
 * Definitions are read at the root only (elsewhere ajv leaves them uncompiled; the hand check gives
 * up). A `$defs` entry is no draft-07 keyword: ajv does not hold it to the meta-schema, and compiles
 * some a meta-schema check would refuse (`maxItems: -2`); the hand check holds it to the meta-schema.
 */
function expectationOf(key: string, how: Expect | undefined, where: string): Expect {
  if (how === 'safe' || where === '$defs entry') return 'safe';
  if ((key === '$defs' || key === 'definitions') && where !== 'root') return 'safe';
  return 'exact';
}

function agree(schema: unknown, how: Expect): string | null {
  const plain = plainSchemaCompiles(schema);
  const ajv = ajvCompiles(schema);
  if (plain && !ajv) return `hand check says it compiles, ajv says: ${ajvError(schema)}`;
  if (how === 'exact' && plain !== ajv) return `hand check ${plain}, ajv ${ajv}`;
  return null;
}

describe('plain schema check (compiles without ajv) against ajv', () => {
  it('every tool schema in fixtures/: never "compiles" where ajv does not, and answers for most', () => {
    const schemas = fixtureSchemas();
    expect(schemas.length).toBeGreaterThan(100);
    const wrong = schemas.filter((s) => plainSchemaCompiles(s) && !ajvCompiles(s)).map((s) => JSON.stringify(s));
    expect(wrong).toEqual([]);
    const answered = schemas.filter((s) => plainSchemaCompiles(s)).length;
    const compiles = schemas.filter(ajvCompiles).length;
    // Most fixture schemas are plain draft-07: the hand check must answer for them (or ajv is loaded anyway).
    expect(answered).toBeGreaterThan(0.8 * compiles);
  });

  it('each keyword with valid and invalid values, at every position, agrees with ajv', () => {
    const failures: string[] = [];
    let exact = 0;
    for (const [key, values] of Object.entries(VALUES)) {
      for (const [value, how] of values) {
        for (const where of PLACES) {
          const schema = placed(where, { [key]: value });
          const e = expectationOf(key, how, where);
          if (e === 'exact') exact++;
          const bad = agree(schema, e);
          if (bad) failures.push(`${key}=${JSON.stringify(value)} at ${where}: ${bad}`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(exact).toBeGreaterThan(600);
  });

  it('random combinations of keywords agree with ajv (seeded)', () => {
    const rng = seedrandom('plain-schema');
    const keys = Object.keys(VALUES);
    const failures: string[] = [];
    let yes = 0;
    let no = 0;
    for (let i = 0; i < 3000; i++) {
      const extra: Record<string, unknown> = {};
      let how: Expect = 'exact';
      const where = PLACES[Math.floor(rng() * PLACES.length)]!;
      const n = 1 + Math.floor(rng() * 4);
      for (let j = 0; j < n; j++) {
        const key = keys[Math.floor(rng() * keys.length)]!;
        const options = VALUES[key]!;
        const [value, h] = options[Math.floor(rng() * options.length)]!;
        extra[key] = value;
        if (expectationOf(key, h, where) === 'safe') how = 'safe';
      }
      const schema = placed(where, extra);
      const bad = agree(schema, how);
      if (bad) failures.push(`${JSON.stringify(schema)}: ${bad}`);
      if (plainSchemaCompiles(schema)) yes++;
      else no++;
    }
    expect(failures.slice(0, 10)).toEqual([]);
    expect(yes).toBeGreaterThan(300);
    expect(no).toBeGreaterThan(300);
  });

  it('gives up on what is not plain JSON: null-prototype objects, non-object roots', () => {
    const bare = Object.assign(Object.create(null) as object, { type: 'object' });
    expect(plainSchemaCompiles(bare)).toBe(false);
    expect(plainSchemaCompiles(true)).toBe(false);
    expect(plainSchemaCompiles([])).toBe(false);
    expect(plainSchemaCompiles({ type: 'object', properties: { a: { type: 'string', default: new Date(0) } } })).toBe(false);
    expect(plainSchemaCompiles({ type: 'object', properties: { a: { type: 'string', default: 'x' } } })).toBe(true);
  });
});

describe('harness load reports what ajv says about a schema that does not compile', () => {
  const { harnessDir } = useHarnessDirs('hsa-plain-');
  const bad: Record<string, unknown> = {
    req_string: { type: 'object', properties: { a: { type: 'string' } }, required: 'a' },
    bad_regex: { type: 'object', properties: { a: { type: 'string', pattern: '[' } } },
    identity_escape: { type: 'object', properties: { a: { type: 'string', pattern: '\\-' } } },
    negative_length: { type: 'object', properties: { a: { type: 'string', minLength: -1 } } },
    empty_enum: { type: 'object', properties: { a: { enum: [] } } },
    missing_ref: { type: 'object', properties: { a: { $ref: '#/$defs/Nope' } } },
    dup_required: { type: 'object', properties: { a: {} }, required: ['a', 'a'] },
    good: { type: 'object', properties: { a: { type: 'string', pattern: '^[a-z]+$' } }, required: ['a'] },
  };
  it('one problem per bad tool, with ajv`s own message; none for the good one', async () => {
    const tools = Object.entries(bad).map(([name, parameters]) => ({ type: 'function', function: { name, description: `The ${name} tool.`, parameters } }));
    const dir = await harnessDir({
      'harness.yaml': 'name: plain-check\nversion: "1.0"\n',
      'tools/tools.json': JSON.stringify(tools, null, 2),
    });
    const r = await loadHarness(dir);
    const got = errorsOf(r).map((p) => `${p.path}: ${p.message}`);
    const want = Object.entries(bad)
      .filter(([name]) => name !== 'good')
      .map(([name, s]) => `${name}.parameters: JSON Schema does not compile: ${(compileSchema(s) as { error: string }).error}`);
    expect(want.every((w) => !w.endsWith('undefined'))).toBe(true);
    expect(got.sort()).toEqual(want.sort());
  });
});
