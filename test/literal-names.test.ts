import { describe, expect, it } from 'vitest';
import { TextRewriter } from '../src/transform/identifiers.js';

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

  it('a rewriter without such names leaves texts as before', () => {
    const plain = new TextRewriter({ get_sky: 'fetch_sky' });
    expect(plain.rewrite('Get Weather and get_sky')).toBe('Get Weather and fetch_sky');
    expect(plain.mentions('Get Weather')).toEqual([]);
  });
});
