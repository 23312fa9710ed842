import { describe, expect, it } from 'vitest';
import { jsonSchemaTypes, normaliseTool } from '../src/harness/tools.js';
import type { JsonSchema } from '../src/harness/types.js';

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
    expect(ok).toMatchObject({ tool: { name: 'math_factorial', sourceName: 'math.factorial', sourceFormat: 'openai', parameters: { type: 'object', properties: { n: { type: 'integer' } } } } });
    expect(normaliseTool({ type: 'function', function: { name: 'Get Prices (v2)', parameters: { type: 'object' } } })).toMatchObject({ tool: { name: 'Get_Prices__v2_', sourceName: 'Get Prices (v2)' } });
    const bad = normaliseTool({ type: 'function', function: { name: 'math factorial!', parameters: { type: 'object' } } });
    expect(bad).toMatchObject({ issues: [{ path: ['function', 'name'], message: expect.stringMatching(/^"math factorial!" is not a usable tool name/) }] });
    for (const name of [' lead space', 'trail space ', 'say "hi"', '天气 查询', '( )']) expect('issues' in normaliseTool({ type: 'function', function: { name, parameters: { type: 'object' } } }), name).toBe(true);
  });
});
