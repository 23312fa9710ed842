import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadHarness } from '../src/harness/load.js';
import type { Harness } from '../src/harness/types.js';
import { splitWords } from '../src/transform/identifiers.js';
import { namingContext } from '../src/transform/naming.js';
import { composePlans, emptyPlan } from '../src/transform/plan.js';
import { synonymsFor, type WordLists } from '../src/transform/words.js';
import { builtinTransforms } from '../transforms/index.js';
import { builtinWords } from '../transforms/words/index.js';
import { REPO } from './helpers/hsa.js';
import { applyTransform } from './helpers/state.js';

// Shortcuts the sampler takes for small (per-record) harnesses must give what the long way gives.

describe('appliesTo (transforms the sampler skips)', () => {
  it('is false only where apply gives null for every draw', async () => {
    const { harness } = await loadHarness(path.join(REPO, 'fixtures/live-commerce/harness'));
    const h = harness!;
    const oneSkill = h.skills.slice(0, 1);
    const states: Harness[] = [
      { ...h, skills: [] },
      { ...h, skills: oneSkill },
      { ...h, skills: oneSkill.map((s) => ({ ...s, distractor: true })) },
      { ...h, hooks: [] },
      { ...h, hooks: h.hooks.slice(0, 1) },
      { ...h, skills: [], hooks: [] },
    ];
    let skipped = 0;
    for (const def of Object.values(builtinTransforms)) {
      if (!def.appliesTo) continue;
      // The full harness has what every transform acts on: none is skipped there.
      expect(def.appliesTo(h), def.id).toBe(true);
      for (const s of states) {
        if (def.appliesTo(s)) continue;
        skipped++;
        for (let seed = 0; seed < 25; seed++) expect(applyTransform(def, s, { p: 1 }, seed), `${def.id} seed ${seed}`).toBeNull();
      }
    }
    expect(skipped).toBeGreaterThan(10);
  });
});

describe('content-keyed memos of naming', () => {
  it('splitWords gives the same words on every call, in an array no caller can change', () => {
    const a = splitWords('calculateOptimal_promo-v2');
    expect(a).toEqual(['calculate', 'optimal', 'promo', 'v2']);
    expect(splitWords('calculateOptimal_promo-v2')).toEqual(a);
    expect(Object.isFrozen(a)).toBe(true);
    expect(splitWords('get_order')).toEqual(['get', 'order']);
  });

  it('a naming context depends on every text given, not just the name', () => {
    const flight = namingContext('book', 'Book a flight seat.');
    const table = namingContext('book', 'Book a table at a restaurant.');
    expect(flight.stems.has('flight')).toBe(true);
    expect(table.stems.has('flight')).toBe(false);
    expect(table.stems.has('restaurant')).toBe(true);
    // The same name and texts give the same context; texts split differently do not collide.
    expect(namingContext('book', 'Book a flight seat.')).toBe(flight);
    expect(namingContext('book', 'a', 'b').text).toBe('a\nb');
    expect(namingContext('book', 'a\u00001:b').text).toBe('a\u00001:b');
    expect(namingContext('book', 'ab').stems.has('ab')).toBe(true);
    expect(namingContext('book', 'a', 'b').stems.has('ab')).toBe(false);
  });

  it('synonym choices are kept per word list: another pack gets its own answer', () => {
    const ctx = namingContext('get_order', 'Get an order.');
    const base = synonymsFor(builtinWords, 'get', ctx);
    const other: WordLists = { ...builtinWords, synonyms: new Map([['get', { neutral: ['obtain'], senses: [] }]]) };
    expect(synonymsFor(other, 'get', ctx)).toEqual(['obtain']);
    expect(synonymsFor(builtinWords, 'get', ctx)).toEqual(base);
    expect(base.length).toBeGreaterThan(0);
  });
});

describe('composePlans', () => {
  it('a step with an empty plan keeps the plan so far (the same plan, equal to composing)', () => {
    const a = composePlans(emptyPlan(), { ...emptyPlan(), tools: { a: 'b', c: 'c' }, args: { a: [{ op: 'wrap', key: 'w' }] } });
    expect(a.tools).toEqual({ a: 'b' });
    const b = composePlans(a, emptyPlan());
    expect(b).toBe(a);
    // A plan with identity entries (made by hand) is still composed the long way.
    const odd = { ...emptyPlan(), tools: { x: 'x', y: 'z' } };
    expect(composePlans(odd, emptyPlan()).tools).toEqual({ y: 'z' });
  });
});
