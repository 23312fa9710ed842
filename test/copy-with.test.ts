import { describe, expect, it } from 'vitest';
import seedrandom from 'seedrandom';
import { copyWith } from '../src/util/copy.js';

const KEYS = ['role', 'content', 'name', 'tool_calls', '2', '10', '__proto__', 'constructor', 'toString', 'a b', ''];

describe('copyWith', () => {
  it('is the spread of JSON data: the same keys in the same order, changed keys in place, new ones last', () => {
    const rng = seedrandom('copy-with');
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;
    for (let n = 0; n < 2000; n++) {
      const text = `{${Array.from({ length: Math.floor(rng() * 6) }, () => `${JSON.stringify(pick(KEYS))}:${Math.floor(rng() * 9)}`).join(',')}}`;
      const value = JSON.parse(text) as Record<string, unknown>; // JSON.parse makes "__proto__" an own key
      const changes = JSON.parse(
        `{${Array.from({ length: Math.floor(rng() * 3) }, () => `${JSON.stringify(pick(KEYS))}:${JSON.stringify(String(rng()))}`).join(',')}}`,
      ) as Record<string, unknown>;
      const want = { ...value, ...changes };
      const got = copyWith(value, changes);
      expect(Object.keys(got)).toEqual(Object.keys(want));
      expect(JSON.stringify(got)).toBe(JSON.stringify(want));
      expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
      expect(got).not.toBe(value);
    }
  });

  it('copies no symbol and leaves the source as it was', () => {
    const mark = Symbol('mark');
    const value = { role: 'system', content: 'a' } as Record<string | symbol, unknown>;
    Object.defineProperty(value, mark, { value: 1 });
    const got = copyWith(value, { content: 'b' });
    expect(got[mark]).toBeUndefined();
    expect(value).toEqual({ role: 'system', content: 'a' });
    expect(got).toEqual({ role: 'system', content: 'b' });
  });
});
