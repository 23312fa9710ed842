import { describe, expect, it } from 'vitest';
import { cohenKappa } from '../src/eval/calibrate.js';
import { readEvalConfig } from '../src/eval/config.js';
import { readRubric } from '../src/config/judge-settings.js';
import { bootstrap } from '../src/eval/stats.js';
import { splitOf, splitWordLists } from '../src/transform/split.js';
import { emptyWordLists } from '../src/transform/words.js';

describe('bootstrap', () => {
  it('is seeded: the same values, seed and label give the same interval; the interval holds the mean', () => {
    const xs = Array.from({ length: 40 }, (_, i) => ((i * 37) % 11) / 10);
    const a = bootstrap(xs, 500, '7', 'gap/tools');
    expect(bootstrap(xs, 500, '7', 'gap/tools')).toEqual(a);
    expect(bootstrap(xs, 500, '8', 'gap/tools')).not.toEqual(a);
    expect(a.lo!).toBeLessThanOrEqual(a.mean!);
    expect(a.hi!).toBeGreaterThanOrEqual(a.mean!);
    expect(a.hi! - a.lo!).toBeGreaterThan(0.05);
    expect(bootstrap([], 500, '7', 'x')).toEqual({ n: 0, mean: null, lo: null, hi: null });
    expect(bootstrap([0.25, 0.25, 0.25], 500, '7', 'x')).toEqual({ n: 3, mean: 0.25, lo: 0.25, hi: 0.25 });
  });
});

describe("Cohen's kappa", () => {
  it('1 for perfect agreement, 0 for chance, null with one level only', () => {
    expect(cohenKappa([1, 2, 3, 1], [1, 2, 3, 1], [1, 2, 3])).toBe(1);
    // Rater b always says 1: agreement is exactly what chance predicts.
    expect(cohenKappa([1, 2, 1, 2], [1, 1, 1, 1], [1, 2])).toBe(0);
    expect(cohenKappa([1, 1], [1, 1], [1])).toBeNull();
    // 3 of 4 agree, chance 0.5: (0.75 - 0.5) / 0.5.
    expect(cohenKappa([1, 2, 1, 2], [1, 2, 1, 1], [1, 2])).toBeCloseTo(0.5, 10);
  });
});

describe('split buckets', () => {
  it('a name and its case and separator forms share one bucket; both buckets are used', () => {
    expect(splitOf('get_item_detail')).toBe(splitOf('getItemDetail'));
    expect(splitOf('GET-ITEM-DETAIL')).toBe(splitOf('get_item_detail'));
    const words = ['gown', 'frock', 'lookup', 'fetch', 'query', 'search', 'detail', 'info', 'promo', 'deal', 'coupon', 'offer'];
    expect(new Set(words.map(splitOf)).size).toBe(2);
  });

  it('the word lists of a split hold only its names, and it accepts only its names', () => {
    const w = emptyWordLists();
    w.synonyms.set('dress', { neutral: ['gown', 'frock', 'robe', 'lianyiqun'], senses: [] });
    w.prefixes = ['my', 'app', 'svc', 'x', 'ai', 'core'];
    const train = splitWordLists(w, 'train');
    const evalSplit = splitWordLists(w, 'eval');
    const t = [...train.synonyms.get('dress')!.neutral, ...train.prefixes];
    const e = [...evalSplit.synonyms.get('dress')!.neutral, ...evalSplit.prefixes];
    expect(t.filter((x) => e.includes(x))).toEqual([]);
    expect([...t, ...e].sort()).toEqual([...w.synonyms.get('dress')!.neutral, ...w.prefixes].sort());
    for (const x of t) expect(train.accept!(x) && !evalSplit.accept!(x)).toBe(true);
  });
});

describe('fixtures/eval', () => {
  it('the eval config and the rubric are valid; paths in the config are taken from its folder', async () => {
    const c = await readEvalConfig('fixtures/eval/eval.yaml');
    expect(c.judge?.rubric).toBe('fixtures/eval/rubric.yaml');
    expect(c.set).toEqual(['out/eval-set']);
    const r = await readRubric(c.judge!.rubric);
    expect(r.criteria.map((x) => x.id)).toEqual(['grounded', 'helpful']);
  });
});
