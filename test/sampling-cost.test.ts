// The cheaper ways of sampling a state (issue #11) must give what the long ways gave: prompt
// transforms skipped only where they would change nothing, the same canonical JSON bytes, the same
// generator numbers however many generators live at once, name-keyed objects that read as plain ones.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import type { Harness, Section } from '../src/harness/types.js';
import { createRng } from '../src/transform/rng.js';
import { canonicalJson, canonicalSchemaJson } from '../src/util/canonical-json.js';
import { dict, keyedObject } from '../src/util/dict.js';
import { builtinTransforms } from '../transforms/index.js';
import { referenceCanonical } from './helpers/canonical.js';
import { applyTransform, baseHarness } from './helpers/state.js';

const text = (id: string, body: string, placement: Section['placement'] = 'system'): Section => ({ id, kind: 'text', text: body, placement });

/** Prompt shapes per-record harnesses have (one logged system message) and their near neighbours. */
const PROMPTS: Harness[] = [
  baseHarness({ sections: [text('system', 'You are a helper.\n\n- Be brief.\n- Confirm changes.')] }),
  baseHarness({ sections: [text('system', '# Rules\n\n- Be brief.\n\n## Tone\n\n- Calm.')] }),
  baseHarness({ sections: [text('a', 'Plain text.'), text('b', '- one\n- two')] }),
  baseHarness({ sections: [text('a', 'Plain text.'), text('b', 'More text.')], pinned: ['a'] }),
  baseHarness({ sections: [text('a', 'Plain text.'), text('b', 'Later text.', 'preamble')] }),
  baseHarness({ sections: [text('a', '# A\n\n- x\n- y'), text('b', '# B\n\n- z')], pinned: ['a', 'b'] }),
  baseHarness({ sections: [text('a', '- x\n- y\n- z')], unordered: ['a'] }),
  baseHarness({ sections: [text('a', '- x\n- y\n- z')], unordered: ['other'] }),
  baseHarness({ sections: [text('a', '')] }),
];

describe('prompt transforms skipped by the sampler (appliesTo)', () => {
  it('are skipped only where apply gives null for every draw, and are not skipped where it can apply', () => {
    let skipped = 0;
    let kept = 0;
    for (const def of Object.values(builtinTransforms)) {
      if (def.family !== 'prompt' || !def.appliesTo) continue;
      for (const [i, s] of PROMPTS.entries()) {
        if (def.appliesTo(s)) {
          kept++;
          continue;
        }
        skipped++;
        for (let seed = 0; seed < 30; seed++) expect(applyTransform(def, s, { p: 1 }, seed), `${def.id} prompt ${i} seed ${seed}`).toBeNull();
      }
    }
    expect(skipped).toBeGreaterThan(15);
    expect(kept).toBeGreaterThan(5);
  });

  it('a one-section untitled prompt skips every prompt transform but list-style', () => {
    const applies = Object.values(builtinTransforms)
      .filter((d) => d.family === 'prompt' && (!d.appliesTo || d.appliesTo(PROMPTS[0]!)))
      .map((d) => d.id);
    expect(applies).toEqual(['prompt.list-style']);
  });
});

describe('canonicalJson', () => {
  const KEYS = ['type', 'properties', 'required', '10', '9', '0', 'a', 'B', 'é', '中文', '😀', '\ud800', 'k"q', 'x\ny', '', 'k'.repeat(80), '__proto__'];
  function generate(rng: ReturnType<typeof createRng>, depth: number): unknown {
    const kind = rng.int(depth > 3 ? 5 : 8);
    switch (kind) {
      case 0:
        return rng.pick(['', 'text', 'é\u2028', '\ud83d', 'q"\\']);
      case 1:
        return rng.pick([0, -0, 1.5, -3, 1e21, Number.NaN, Number.POSITIVE_INFINITY]);
      case 2:
        return rng.chance(0.5);
      case 3:
        return null;
      case 4:
        return undefined;
      case 5:
        return Array.from({ length: rng.int(4) }, () => generate(rng, depth + 1));
      case 6:
        return { toJSON: () => ({ b: 1, a: [2] }) };
      default: {
        const o: Record<string, unknown> = rng.chance(0.3) ? Object.create(null) : {};
        for (const k of rng.sample(KEYS, rng.int(6)))
          Object.defineProperty(o, k, { value: generate(rng, depth + 1), enumerable: true, writable: true, configurable: true });
        if (rng.chance(0.2)) Object.defineProperty(o, 'hidden', { value: 1, enumerable: false });
        return o;
      }
    }
  }

  it('gives the bytes of the reference serializer on generated values', () => {
    const rng = createRng('canonical');
    for (let i = 0; i < 3000; i++) {
      const v = generate(rng, 0);
      expect(canonicalJson(v), JSON.stringify(v)).toBe(referenceCanonical(v) ?? 'null');
    }
  });

  it('caches a schema by object and gives the same bytes', () => {
    const schema = { type: 'object', properties: { b: { type: 'string' }, a: { type: 'integer' } }, required: ['b'] };
    expect(canonicalSchemaJson(schema)).toBe(referenceCanonical(schema));
    expect(canonicalSchemaJson(schema)).toBe(canonicalJson(schema));
  });
});

describe('createRng', () => {
  it('keeps each generator on its own numbers while more than a slab of them are alive', () => {
    const seeds = Array.from({ length: 700 }, (_, i) => `s${i}`);
    const rngs = seeds.map((s) => createRng(s, 'x'));
    const refs = seeds.map((s) => seedrandom(`${s}\u241fx`));
    for (let round = 0; round < 3; round++) {
      for (let i = seeds.length - 1; i >= 0; i--) expect(rngs[i]!.next()).toBe(refs[i]!.quick());
      // Generators made later (new slabs) do not disturb the old ones.
      createRng('later', round).next();
    }
  });
});

describe('name-keyed objects', () => {
  it('dict: no inherited names, the keys and JSON of a plain object', () => {
    const d = dict();
    for (const k of ['toString', 'b', '2', 'a', '1', '__proto__']) d[k] = k.toUpperCase();
    const plain: Record<string, string> = {};
    for (const k of ['toString', 'b', '2', 'a', '1']) plain[k] = k.toUpperCase();
    Object.defineProperty(plain, '__proto__', { value: '__PROTO__', enumerable: true });
    expect(Object.keys(d)).toEqual(Object.keys(plain));
    expect(JSON.stringify(d)).toBe(JSON.stringify(plain));
    expect(dict()['constructor']).toBeUndefined();
  });

  it('keyedObject: an ordinary object whose keys keep insertion order', () => {
    const o = keyedObject<number>();
    o.zeta = 1;
    o.alpha = 2;
    o['7'] = 3;
    expect(Object.getPrototypeOf(o)).toBe(Object.prototype);
    expect(JSON.stringify(o)).toBe('{"7":3,"zeta":1,"alpha":2}');
    expect(Object.hasOwn(o, 'a')).toBe(false);
  });

  it('param-order keeps a property named __proto__ as a property', () => {
    const def = builtinTransforms['tools.param-order'];
    const parameters = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"},"b":{"type":"string"},"c":{"type":"integer"}}}') as Record<
      string,
      unknown
    >;
    const state = baseHarness({ tools: [{ name: 't', description: '', parameters, sourceName: 't', sourceFormat: 'openai' }] });
    for (let seed = 0; seed < 10; seed++) {
      const out = applyTransform(def, state, { p: 1, intensity: 1 }, seed);
      expect(Object.keys(out!.state.tools[0]!.parameters.properties as object).sort(), `seed ${seed}`).toEqual(['__proto__', 'b', 'c']);
    }
  });
});

describe('parameters named like Object members', () => {
  it('param-rename renames constructor and toString like any other name (a plain-object map read them as inherited members)', () => {
    const def = builtinTransforms['tools.param-rename'];
    const parameters = {
      type: 'object',
      properties: { constructor: { type: 'string' }, toString: { type: 'string' }, note: { type: 'string' } },
      required: ['constructor'],
    };
    const state = baseHarness({ tools: [{ name: 'save_item', description: 'Save an item.', parameters, sourceName: 'save_item', sourceFormat: 'openai' }] });
    let renamedMember = 0;
    for (let seed = 0; seed < 20; seed++) {
      const out = applyTransform(def, state, { p: 1, intensity: 1 }, seed);
      if (!out) continue;
      const keys = Object.keys(out.state.tools[0]!.parameters.properties as object);
      const renamed = out.params.renamed as Record<string, string>;
      expect(keys, `seed ${seed}`).toHaveLength(3);
      for (const k of keys) expect(k, `seed ${seed}`).toMatch(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/);
      for (const [from, to] of Object.entries(renamed)) {
        expect(keys).toContain(to);
        expect(keys).not.toContain(from);
      }
      if ('constructor' in renamed || 'toString' in renamed) renamedMember++;
    }
    expect(renamedMember).toBeGreaterThan(0);
  });
});
