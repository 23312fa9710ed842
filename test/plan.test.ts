import { describe, expect, it } from 'vitest';
import { joinWords } from '../src/transform/identifiers.js';
import { TextRewriter } from '../src/transform/text-rewriter.js';
import { isDistinctive, splitWords } from '../src/words/identifier-words.js';
import { applyArgOps, composePlans, emptyPlan, invertPlan, netParamRenames, type RewritePlan } from '../src/transform/plan.js';
import { createRng } from '../src/transform/rng.js';

const plan = (p: Partial<RewritePlan>): RewritePlan => ({ ...emptyPlan(), ...p });

describe('TextRewriter', () => {
  it('respects token boundaries: item_qa never touches item_qa_v2', () => {
    const t = new TextRewriter({ item_qa: 'product_answer' });
    expect(t.rewrite('use item_qa, not item_qa_v2 or my_item_qa')).toBe('use product_answer, not item_qa_v2 or my_item_qa');
  });
  it('finds keys wherever they stand, whatever characters the keys hold', () => {
    const t = new TextRewriter({ 'a.b': 'x', 'c+d': 'y', e_f: 'g_h', 'i-j': 'k-l' });
    // Keys that cannot be whole identifier tokens (a tool name written `c+d`) are found as a whole
    // and do not confuse the others; the quick test that a text may mention a key must not miss
    // any. A namespaced name (`a.b`, parts joined by . : /) is a token of its own.
    expect(t.rewrite('a.b c+d e_f i-j aXb ccd c+dd')).toBe('x y g_h k-l aXb ccd c+dd');
    expect(t.mentions('see `e_f` and i-j')).toEqual(['e_f', 'i-j']);
    expect(t.rewrite('nothing here')).toBe('nothing here');
  });

  it('rewrites a namespaced name as a whole, and its parts for other keys', () => {
    const t = new TextRewriter({ 'plants.find': 'garden_search', order_id: 'ticket_id', 'geo:lookup': 'where_is' });
    // The whole name, also at the end of a longer chain and before a sentence's full stop; never
    // the start of a longer name (plants.find.v2); its parts alone are not keys.
    expect(t.rewrite('Use plants.find. Then lib.plants.find(x), not plants.find.v2; plants alone, find alone.')).toBe(
      'Use garden_search. Then lib.garden_search(x), not plants.find.v2; plants alone, find alone.',
    );
    // A part that is a key of its own is still found beside a joiner.
    expect(t.rewrite('read order_id.value and geo:lookup, then /geo:lookup')).toBe('read ticket_id.value and where_is, then /where_is');
    expect(t.mentions('see plants.find')).toEqual(['plants.find']);
  });

  it('replaces longest first and swaps simultaneously', () => {
    const t = new TextRewriter({ get_item: 'x_item', get_item_detail: 'read_detail', a_b: 'c_d', c_d: 'a_b' });
    expect(t.rewrite('get_item_detail then get_item; a_b <-> c_d')).toBe('read_detail then x_item; c_d <-> a_b');
  });
  it('rewrites plain words only in code spans and JSON keys, never template slots', () => {
    const t = new TextRewriter({ query: 'terms', room_id: 'channel_id' });
    expect(t.rewrite('Ask a query. Pass `query` as {"query": "x"}; {{room_id}} stays; room_id moves')).toBe(
      'Ask a query. Pass `terms` as {"terms": "x"}; {{room_id}} stays; channel_id moves',
    );
    expect(t.mentions('a query and `query` and room_id')).toEqual(['query', 'room_id']);
    expect(t.mentions('just a query')).toEqual([]);
  });
  it('classifies identifiers', () => {
    expect(isDistinctive('item_qa')).toBe(true);
    expect(isDistinctive('itemQa')).toBe(true);
    expect(isDistinctive('greet')).toBe(false);
    expect(splitWords('calculateOptimal_promo-v2')).toEqual(['calculate', 'optimal', 'promo', 'v2']);
    expect(joinWords(['get', 'item'], 'camel')).toBe('getItem');
    expect(joinWords(['get', 'item'], 'kebab')).toBe('get-item');
  });
});

describe('rewrite plans', () => {
  const a = plan({ tools: { f: 'g', h: 'k' }, args: { f: [{ op: 'rename', paths: { item_id: 'sku', 'filter.max': 'upper' } }] } });
  const b = plan({ tools: { g: 'm' }, args: { g: [{ op: 'wrap', key: 'params' }], k: [{ op: 'rename', paths: { q: 'query' } }] } });

  it('compose: applying A then B equals applying the composed plan', () => {
    const ab = composePlans(a, b);
    expect(ab.tools).toEqual({ f: 'm', h: 'k' });
    const args = { item_id: 'i-1', filter: { max: 3, min: 1 }, other: [1] };
    const stepwise = applyArgOps(applyArgOps(args, a.args.f!), b.args.g!);
    expect(applyArgOps(args, ab.args.f!)).toEqual(stepwise);
    expect(stepwise).toEqual({ params: { sku: 'i-1', filter: { upper: 3, min: 1 }, other: [1] } });
    expect(ab.args.h).toEqual([{ op: 'rename', paths: { q: 'query' } }]);
  });

  it('invert: the inverse plan gives the arguments and names back', () => {
    const ab = composePlans(a, b);
    const inv = invertPlan(ab);
    expect(inv.tools).toEqual({ m: 'f', k: 'h' });
    const args = { item_id: 'i-1', filter: { max: 3 }, list: [{ item_id: 2 }] };
    const forward = applyArgOps(args, ab.args.f!);
    expect(applyArgOps(forward, inv.args.m!)).toEqual(args);
  });

  it('renames nested keys inside arrays and keeps key order', () => {
    const out = applyArgOps({ b: 1, items: [{ sku: 'x', qty: 2 }], a: 2 }, [{ op: 'rename', paths: { 'items.qty': 'count', b: 'z' } }]);
    expect(JSON.stringify(out)).toBe('{"z":1,"items":[{"sku":"x","count":2}],"a":2}');
  });

  it('renames deep paths through arrays, leaves the input as it was and keeps untouched values', () => {
    const input = { q: { deep: { x: 1 }, list: [1, 2] }, filter: { max: 3, tags: ['a'] }, rows: [[{ id: 1, v: 2 }]], n: null };
    const before = JSON.stringify(input);
    const out = applyArgOps(input, [{ op: 'rename', paths: { 'filter.max': 'upper', 'rows.id': 'key', n: 'none' } }]) as Record<
      string,
      Record<string, unknown>
    >;
    expect(JSON.stringify(out)).toBe('{"q":{"deep":{"x":1},"list":[1,2]},"filter":{"upper":3,"tags":["a"]},"rows":[[{"key":1,"v":2}]],"none":null}');
    expect(JSON.stringify(input)).toBe(before);
    expect(out.q).toBe(input.q); // nothing renamed below it: the same value
    expect(out.filter!.tags).toBe(input.filter.tags);
  });

  it('net parameter renames follow successive renames', () => {
    const p = composePlans(plan({ args: { f: [{ op: 'rename', paths: { a: 'b' } }] } }), plan({ args: { f: [{ op: 'rename', paths: { b: 'c' } }] } }));
    expect(netParamRenames(p).params).toEqual({ f: { a: 'c' } });
  });
});

describe('seeded randomness', () => {
  it('is a pure function of its seed parts', () => {
    const x = createRng(1, 'lc-1', 0, 'tools.rename@1');
    const y = createRng(1, 'lc-1', 0, 'tools.rename@1');
    const z = createRng(1, 'lc-1', 1, 'tools.rename@1');
    const xs = [x.next(), x.next(), x.next()];
    expect([y.next(), y.next(), y.next()]).toEqual(xs);
    expect(z.next()).not.toBe(xs[0]);
    expect(x.shuffle([1, 2, 3, 4, 5]).sort()).toEqual([1, 2, 3, 4, 5]);
  });
});
