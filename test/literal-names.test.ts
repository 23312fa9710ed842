import { describe, expect, it } from 'vitest';
import { TextRewriter } from '../src/transform/text-rewriter.js';

/**
 * Names no identifier token can be (`Get Weather`, `Get Prices (v2)`, `get moon phase`), as
 * public function-calling sets write tool names: the rewriter and the mention scan (the leak
 * check) find them under the rules of the other names.
 */
describe('TextRewriter with names written with spaces', () => {
  const r = new TextRewriter({ 'Get Weather': 'FetchSky', 'Get Prices (v2)': 'prices_v2', 'get moon phase': 'moon_phase', city: 'town' });

  it('a name with a capital, digit or punctuation counts in prose, as a whole only', () => {
    expect(r.rewrite('Ask Get Weather first; then Get Prices (v2).')).toBe('Ask FetchSky first; then prices_v2.');
    expect(r.rewrite('xGet Weather and Get Weather_2 are other names')).toBe('xGet Weather and Get Weather_2 are other names');
    expect(r.mentions('Ask Get Weather first')).toEqual(['Get Weather']);
    expect(r.mentions('nothing here')).toEqual([]);
  });

  it('plain lower-case words count in code only: JSON keys, "name" values, "required" items, code spans', () => {
    const json = '[{"name": "get moon phase", "parameters": {"required": ["city"]}}] or `get moon phase(date)`; get moon phase in prose stays';
    expect(r.rewrite(json)).toBe('[{"name": "moon_phase", "parameters": {"required": ["town"]}}] or `moon_phase(date)`; get moon phase in prose stays');
    expect(r.mentions(json)).toEqual(['city', 'get moon phase']);
    expect(r.mentions('get moon phase in prose')).toEqual([]);
    expect(r.rewrite('{"get moon phase": 1, "x": "get moon phase"}')).toBe('{"moon_phase": 1, "x": "get moon phase"}');
  });

  it('in a text about other things (a skill body) plain words count in code spans only', () => {
    const body = 'Call `get moon phase` first. Example: {"name": "get moon phase"}. Get Weather anywhere.';
    expect(r.rewriteReferences(body)).toBe('Call `moon_phase` first. Example: {"name": "get moon phase"}. FetchSky anywhere.');
    expect(r.referenceMentions(body)).toEqual(['Get Weather', 'get moon phase']);
  });

  it('replaces simultaneously, so a swap between a written name and an identifier needs no placeholder', () => {
    const swap = new TextRewriter({ 'Get Weather': 'get_sky', get_sky: 'Get_Weather' });
    expect(swap.rewrite('Get Weather then get_sky, `Get Weather`')).toBe('get_sky then Get_Weather, `get_sky`');
  });

  it('a name of several words is a whole phrase: never the start of a longer capitalised name', () => {
    const text = 'Use Get Weather for today; the Get Weather Forecast service and Get Weather API were retired. Get Weather.';
    expect(r.rewrite(text)).toBe('Use FetchSky for today; the Get Weather Forecast service and Get Weather API were retired. FetchSky.');
    // The leak check reads with the same rule: the longer phrase left as written is no mention.
    expect(r.mentions('the Get Weather Forecast service')).toEqual([]);
    expect(r.mentions('the Get Weather forecast')).toEqual(['Get Weather']);
  });

  it('a longer name the harness spells and does not rename stays whole, whatever follows it', () => {
    const names = () => ['Get Prices', 'Get Prices (v2)', 'Quick Get Weather', 'Get Weather'];
    const w = new TextRewriter({ 'Get Prices': 'price_list', 'Get Weather': 'FetchSky' }, undefined, names);
    const text = 'Get Prices (v2) replaces Get Prices; Quick Get Weather is cached, Get Weather is live.';
    expect(w.rewrite(text)).toBe('Get Prices (v2) replaces price_list; Quick Get Weather is cached, FetchSky is live.');
    expect(w.mentions('Get Prices (v2) and Quick Get Weather')).toEqual([]);
    // Renamed too, the longer name is a key of its own (longest first).
    const both = new TextRewriter({ 'Get Prices': 'price_list', 'Get Prices (v2)': 'price_list_v2' }, undefined, names);
    expect(both.rewrite(text)).toBe('price_list_v2 replaces price_list; Quick Get Weather is cached, Get Weather is live.');
  });

  it('a rewriter without such names leaves texts as before', () => {
    const plain = new TextRewriter({ get_sky: 'fetch_sky' });
    expect(plain.rewrite('Get Weather and get_sky')).toBe('Get Weather and fetch_sky');
    expect(plain.mentions('Get Weather')).toEqual([]);
  });
});
