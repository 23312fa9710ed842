import { describe, expect, it } from 'vitest';
import { normaliseTool } from '../src/harness/tools.js';
import { jsonSchemaTypes } from '../src/harness/schema-spellings.js';
import type { JsonSchema } from '../src/harness/types.js';
import { loadHarness } from '../src/harness/load.js';
import { formatProblem } from '../src/problems.js';
import { makeTmp, writeTree } from './helpers/tmp.js';

describe('tool names and type names as published tool sets write them', () => {
  it('maps Python type names at every schema position, and leaves JSON Schema untouched', () => {
    const plain: JsonSchema = { type: 'object', properties: { a: { type: 'array', items: { type: 'number' } } } };
    expect(jsonSchemaTypes(plain)).toBe(plain);
    const aliased: JsonSchema = {
      type: 'dict',
      properties: {
        point: { type: 'tuple', items: { type: 'float' } },
        pick: { anyOf: [{ type: 'str' }, { type: ['int', 'null'] }] },
        extra: { type: 'any', description: 'anything' },
        ref: { $ref: '#/$defs/box' },
      },
      $defs: { box: { type: 'dict', additionalProperties: { type: 'bool' } } },
    };
    expect(jsonSchemaTypes(aliased)).toEqual({
      type: 'object',
      properties: {
        point: { type: 'array', items: { type: 'number' } },
        pick: { anyOf: [{ type: 'string' }, { type: ['integer', 'null'] }] },
        extra: { description: 'anything' },
        ref: { $ref: '#/$defs/box' },
      },
      $defs: { box: { type: 'object', additionalProperties: { type: 'boolean' } } },
    });
    // The input is not changed in place; an unknown type name is left for the schema check.
    expect((aliased.properties as Record<string, JsonSchema>).point!.type).toBe('tuple');
    expect(jsonSchemaTypes({ type: 'widget' })).toEqual({ type: 'widget' });
    // A property *named* like a type keyword is a name, not a type.
    expect(jsonSchemaTypes({ type: 'object', properties: { type: { type: 'string' } } })).toEqual({ type: 'object', properties: { type: { type: 'string' } } });
  });

  it('maps a namespaced or spaced OpenAI tool name to an OpenAI-safe one and keeps the source name; refuses other names', () => {
    const ok = normaliseTool({ type: 'function', function: { name: 'math.factorial', parameters: { type: 'dict', properties: { n: { type: 'int' } } } } });
    expect(ok).toMatchObject({
      tool: {
        name: 'math_factorial',
        sourceName: 'math.factorial',
        sourceFormat: 'openai',
        parameters: { type: 'object', properties: { n: { type: 'integer' } } },
      },
    });
    expect(normaliseTool({ type: 'function', function: { name: 'Get Prices (v2)', parameters: { type: 'object' } } })).toMatchObject({
      tool: { name: 'Get_Prices__v2_', sourceName: 'Get Prices (v2)' },
    });
    const bad = normaliseTool({ type: 'function', function: { name: 'math factorial!', parameters: { type: 'object' } } });
    expect(bad).toMatchObject({ issues: [{ path: ['function', 'name'], message: expect.stringMatching(/^"math factorial!" is not a usable tool name/) }] });
    for (const name of [' lead space', 'trail space ', 'say "hi"', '天气 查询', '( )'])
      expect('issues' in normaliseTool({ type: 'function', function: { name, parameters: { type: 'object' } } }), name).toBe(true);
  });
});

// Type names as RapidAPI listings (ToolBench, OpenBMB/ToolBench@d56fdd89faf8c91fa135090b212bb9057ee5cfc2,
// toolbench/inference/Downstream_tasks/rapidapi.py:199-202 maps STRING/NUMBER/BOOLEAN and reads
// every other name, ENUM and `DATE (YYYY-MM-DD)` among them, as string), JavaScript (`Number`,
// `Object`) and Java/fixed-width names write them.
describe('RapidAPI, JavaScript and Java type spellings', () => {
  const typeOf = (t: string, more: JsonSchema = {}) =>
    jsonSchemaTypes({ type: 'object', properties: { x: { type: t, ...more } } }).properties as Record<string, JsonSchema>;
  it.each([
    ['Number', 'number'],
    ['NUMBER', 'number'],
    ['Object', 'object'],
    ['OBJECT', 'object'],
    ['STRING', 'string'],
    ['BOOLEAN', 'boolean'],
    ['Integer', 'integer'],
    ['INTEGER', 'integer'],
    ['Boolean', 'boolean'],
    ['String', 'string'],
    ['Array', 'array'],
    ['ARRAY', 'array'],
    ['float', 'number'],
    ['double', 'number'],
    ['long', 'integer'],
    ['int32', 'integer'],
    ['int64', 'integer'],
    ['float64', 'number'],
    ['dict', 'object'],
    ['Dict', 'object'],
    ['list', 'array'],
    ['List', 'array'],
    ['tuple', 'array'],
    ['HashMap', 'object'],
    ['ArrayList', 'array'],
    ['DATE (YYYY-MM-DD)', 'string'],
    ['TIME (24-hour HH:MM)', 'string'],
    ['GEOPOINT (latitude, longitude)', 'string'],
  ])('%s reads as %s', (name, want) => {
    expect(typeOf(name).x).toEqual({ type: want });
  });

  it('reads Enum with the values the set gives (under enum, values, options or choices) and types it by them', () => {
    expect(typeOf('Enum', { values: ['price', 'rating'] }).x).toEqual({ type: 'string', enum: ['price', 'rating'] });
    expect(typeOf('ENUM', { enum: [1, 2, 3] }).x).toEqual({ type: 'integer', enum: [1, 2, 3] });
    expect(typeOf('enum', { options: [0.5, 1] }).x).toEqual({ type: 'number', enum: [0.5, 1] });
    expect(typeOf('Enum', { choices: ['a', 1] }).x).toEqual({ enum: ['a', 1] });
    // RapidAPI's ENUM without its values (they are in the description): text, as ToolBench reads it.
    expect(typeOf('ENUM', { description: 'asc or desc' }).x).toEqual({ type: 'string', description: 'asc or desc' });
    // `values` that are not a list of scalars stay what they are (a vendor keyword).
    expect(typeOf('Enum', { values: { a: 1 } }).x).toEqual({ type: 'string', values: { a: 1 } });
  });

  it('an unknown type name is named with the tool and the file, not as an ajv path list', async () => {
    const tmp = await makeTmp('hsa-types-');
    try {
      await writeTree(tmp.dir, {
        'harness.yaml': 'name: units\nversion: "1"\ntools:\n  sources: [tools.json]\n',
        'tools.json': JSON.stringify(
          [0, 1, 2, 3].map((i) => ({
            type: 'function',
            function: { name: `t${i}`, parameters: { type: 'Object', properties: i === 3 ? { units: { type: 'Decimal' } } : { n: { type: 'Number' } } } },
          })),
        ),
      });
      const r = await loadHarness(tmp.dir);
      const errors = r.problems.filter((p) => p.severity === 'error').map(formatProblem);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/tools\.json(:\d+)?: t3\.parameters\.properties\.units\.type: "Decimal" is not a type hsa knows/);
      expect(errors[0]).not.toMatch(/must be equal to one of the allowed values|data\//);
    } finally {
      await tmp.cleanup();
    }
  });
});
