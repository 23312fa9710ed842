// createRng's own ARC4 must give exactly seedrandom's `quick()` sequence: every sampled state (and
// so every output byte) depends on it.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { createRng } from '../src/transform/rng.js';

const SEEDS: (string | number)[][] = [
  [''],
  [0],
  ['hsa-bench-v1', 'r12', 3, 'tools.rename@2'],
  ['pool:7'],
  ['é中文\u241f😀', 'x'],
  ['a'.repeat(255)],
  ['b'.repeat(256)],
  ['seed', 'c'.repeat(300) + 'd'.repeat(450)],
  [Array.from({ length: 600 }, (_, i) => String.fromCharCode(32 + ((i * 37) % 500))).join('')],
];

describe('createRng', () => {
  it.each(SEEDS.map((s) => [s]))('draws seedrandom(%j).quick() number for number', (parts) => {
    const ref = seedrandom(parts.map(String).join('\u241f'));
    const rng = createRng(...parts);
    for (let i = 0; i < 2000; i++) expect(rng.next()).toBe(ref.quick());
  });

  it('derives int, chance, pick and shuffle from the same draws', () => {
    const ref = seedrandom('k\u241f1');
    const rng = createRng('k', 1);
    expect(rng.int(10)).toBe(Math.floor(ref.quick() * 10));
    expect(rng.chance(0.5)).toBe(ref.quick() < 0.5);
    expect(rng.pick(['a', 'b', 'c'])).toBe(['a', 'b', 'c'][Math.floor(ref.quick() * 3)]);
    expect(rng.chance(1)).toBe(true);
    expect(rng.chance(0)).toBe(false);
    // chance(1) and chance(0) draw nothing: the next draw is still the reference's next one.
    expect(rng.next()).toBe(ref.quick());
  });
});
