import seedrandom from 'seedrandom';

/**
 * A seeded random source. Every random choice in hsa comes from one of these, seeded from
 * (run seed, source id, variant index, transform id and version), so output never depends on
 * processing order, concurrency or the clock.
 */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [0, n). */
  int(n: number): number;
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** A shuffled copy (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[];
  /** `k` distinct items in random order. */
  sample<T>(items: readonly T[], k: number): T[];
}

export function createRng(...parts: (string | number)[]): Rng {
  const prng = seedrandom(parts.map(String).join('\u241f'));
  const next = () => prng.quick();
  const int = (n: number) => Math.floor(next() * n);
  const shuffle = <T>(items: readonly T[]): T[] => {
    const a = [...items];
    for (let i = a.length - 1; i > 0; i--) {
      const j = int(i + 1);
      [a[i], a[j]] = [a[j]!, a[i]!];
    }
    return a;
  };
  return {
    next,
    int,
    chance: (p) => p >= 1 || (p > 0 && next() < p),
    pick: (items) => {
      if (items.length === 0) throw new Error('rng.pick on an empty list');
      return items[int(items.length)]!;
    },
    shuffle,
    sample: (items, k) => shuffle(items).slice(0, Math.max(0, Math.min(k, items.length))),
  };
}
