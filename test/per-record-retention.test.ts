import { describe, expect, it } from 'vitest';
import { InlineHarnesses } from '../src/ingest/inline-harness.js';
import type { Trajectory } from '../src/trajectory/types.js';
import { schemaMemo } from '../src/util/derived.js';

/**
 * What per-record harnesses keep alive between records (issue #26: their runs promoted every
 * record's states and schemas into the old generation). Output bytes never depend on either cache
 * (test/e2e/inline-identity.e2e.test.ts runs the binary on twins, alone and after the original, one
 * and two threads); these tests hold what each keeps, and that a value worked out again is the same.
 */

const rec = (id: string, tool: string): Trajectory =>
  ({
    id,
    tools: [
      {
        type: 'function',
        function: { name: tool, description: `The ${tool} tool.`, parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } },
      },
    ],
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
    ],
  }) as unknown as Trajectory;
const at = { file: 'in.jsonl', line: 1 };

describe('inline harnesses are kept from their second sighting', () => {
  it('keeps none when every record has tools of its own, and makes each harness once', () => {
    const made: string[] = [];
    const inline = new InlineHarnesses((h, hash) => made.push(hash));
    for (let i = 0; i < 50; i++) expect(inline.for(rec(`r${i}`, `tool_${i}`), at).inline.harness).toBeDefined();
    expect(inline.size).toBe(0);
    expect(made).toHaveLength(50);
  });

  it('keeps a tool set met again, and makes it no more after that', () => {
    let made = 0;
    const inline = new InlineHarnesses(() => ++made);
    const first = inline.for(rec('a1', 'lookup'), at);
    inline.for(rec('b1', 'other'), at);
    const second = inline.for(rec('a2', 'lookup'), at);
    const third = inline.for(rec('a3', 'lookup'), at);
    expect(inline.size).toBe(1);
    // Made at the first and second sightings (the first was not kept), then taken from the cache.
    expect(made).toBe(3);
    expect(third.extra).toBe(second.extra);
    // A harness made again is equal to the one made before (same version, tools and sections).
    expect(second.inline.harness).toEqual(first.inline.harness);
  });

  it('forgets a sighting after 256 other harnesses, and still gives an equal harness', () => {
    let made = 0;
    const inline = new InlineHarnesses(() => ++made);
    const early = inline.for(rec('x1', 'early'), at);
    for (let i = 0; i < 256; i++) inline.for(rec(`f${i}`, `filler_${i}`), at);
    const late = inline.for(rec('x2', 'early'), at);
    expect(inline.size).toBe(0);
    expect(late.inline.harness).toEqual(early.inline.harness);
  });
});

describe('values derived from schemas', () => {
  const KEY = Symbol('test.derived');

  it("are worked out once for a schema that outlives its nursery (a harness schema, a pooled state's)", () => {
    const kept = { type: 'object', properties: { id: { type: 'string' } } };
    let computed = 0;
    const derive = () => schemaMemo(KEY, kept, () => ({ n: ++computed }));
    const v = derive();
    for (let round = 0; round < 5; round++) {
      // Hundreds of schemas of one record each between two uses (more than two nurseries hold).
      for (let i = 0; i < 700; i++) schemaMemo(KEY, { type: 'object', i }, () => i);
      expect(derive()).toBe(v);
    }
    expect(computed).toBe(1);
  });

  it('are kept for a schema met again after a long gap, and long-lived from then on', () => {
    const far = { type: 'string', description: 'met again far apart' };
    const first = schemaMemo(KEY, far, () => ['derived', 1]);
    // Met inside its own nursery: the same value.
    expect(schemaMemo(KEY, far, () => ['other'])).toBe(first);
    for (let i = 0; i < 2000; i++) schemaMemo(KEY, { i }, () => i);
    let again = 0;
    expect(schemaMemo(KEY, far, () => (again++, ['derived', 1]))).toBe(first);
    // From then on it is long-lived: another long gap costs nothing either.
    for (let i = 0; i < 2000; i++) schemaMemo(KEY, { i }, () => i);
    expect(schemaMemo(KEY, far, () => (again++, []))).toBe(first);
    expect(again).toBe(0);
  });
});
