import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { IdIndex } from '../src/util/id-index.js';

describe('IdIndex (duplicate ids over inputs of any size)', () => {
  it('answers like a Map of first places, across growth, files and any id text', () => {
    const rng = seedrandom('id-index');
    const index = new IdIndex();
    const reference = new Map<string, string>();
    const files = ['a.jsonl', 'b/c.jsonl', '零食.jsonl'];
    const pool = ['', 'x', 'lc-000001', '零食-1', '🍪', 'a\u0000b', '\ud800', 'x'.repeat(5_000)];
    for (let i = 0; i < 30_000; i++) {
      // Mostly new ids, a few repeats of earlier ones and of awkward texts.
      const r = rng();
      const id = r < 0.05 ? pool[Math.floor(rng() * pool.length)]! : r < 0.15 ? `id-${Math.floor(rng() * i)}` : `id-${i}-${Math.floor(rng() * 1e9)}`;
      const file = files[Math.floor(rng() * files.length)]!;
      const line = i + 1;
      const expected = reference.get(id);
      if (expected === undefined) reference.set(id, `${file}:${line}`);
      expect(index.note(id, file, line), id).toBe(expected);
    }
    expect(index.size).toBe(reference.size);
    // Ids that differ only past a shared prefix, or in case, are different ids.
    expect(index.note('ID-1', 'a.jsonl', 1)).toBeUndefined();
    expect(index.note('id-1-', 'a.jsonl', 2)).toBeUndefined();
    // A lone surrogate is not U+FFFD (UTF-8 would make them the same bytes).
    const fresh = new IdIndex();
    expect(fresh.note('\ud800', 'a.jsonl', 1)).toBeUndefined();
    expect(fresh.note('\ufffd', 'a.jsonl', 2)).toBeUndefined();
    expect(fresh.note('\udfff', 'a.jsonl', 3)).toBeUndefined();
    expect(fresh.note('\ud800', 'a.jsonl', 4)).toBe('a.jsonl:1');
  });
});
