import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadHarness } from '../src/harness/load.js';
import type { Harness } from '../src/harness/types.js';
import { namingContext } from '../src/transform/naming.js';
import { TextRewriter } from '../src/transform/text-rewriter.js';
import { composePlans, emptyPlan } from '../src/transform/plan.js';
import { synonymsFor, wordContext } from '../src/words/senses.js';
import { builtinTransforms } from '../transforms/index.js';
import { builtinWords } from '../src/words/selection.js';
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

describe('naming contexts worked out on first use', () => {
  it("hold the stems and text of every text given, and the name's words", () => {
    const flight = namingContext('book_seat', 'Book a flight seat.', undefined, 'Flights only.');
    expect([...flight.stems].sort()).toEqual([...wordContext(['Book a flight seat.', 'Flights only.'], ['book', 'seat']).stems].sort());
    expect(flight.text).toBe('book a flight seat.\nflights only.');
    const table = namingContext('book', 'Book a table at a restaurant.');
    expect(table.stems.has('flight')).toBe(false);
    expect(table.stems.has('restaurant')).toBe(true);
  });

  it('choose the same synonym senses as an eager context', () => {
    for (const [name, text] of [
      ['book_flight', 'Book a flight seat for the passenger.'],
      ['check_order', 'Check the status of an order.'],
      ['get_x', ''],
    ] as const) {
      const lazy = namingContext(name, text);
      const eager = wordContext([text], name.split('_'));
      for (const w of name.split('_')) expect(synonymsFor(builtinWords, w, lazy), `${name}/${w}`).toEqual(synonymsFor(builtinWords, w, eager));
    }
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

describe('TextRewriter quick test on texts without code', () => {
  it('rewrites what it rewrote before: distinctive names in prose, plain ones only in code and JSON keys', () => {
    const r = new TextRewriter({ email: 'mail', order_id: 'orderRef' });
    expect(r.rewrite('The email.')).toBe('The email.');
    expect(r.rewrite('The email for order_id.')).toBe('The email for orderRef.');
    expect(r.rewrite('Pass `email` and order_id.')).toBe('Pass `mail` and orderRef.');
    expect(r.rewrite('{"email": "a", "note": "email"}')).toBe('{"mail": "a", "note": "email"}');
    expect(r.mentions('Only the email here.')).toEqual([]);
    expect(r.mentions('Send `email`.')).toEqual(['email']);
    // Only plain keys: nothing outside code is touched, code still is.
    const plain = new TextRewriter({ email: 'mail' });
    expect(plain.rewrite('email email')).toBe('email email');
    expect(plain.rewrite('`email`')).toBe('`mail`');
  });
});
