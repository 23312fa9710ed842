// Paths, the seed and the seeded random helpers every part of the live-commerce generator shares.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import seedrandom from 'seedrandom';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const FIX = path.join(ROOT, 'fixtures/live-commerce');
export const HARNESS_DIR = path.join(FIX, 'harness');
export const HARNESS_REF = { name: 'live-commerce', version: '2026.08.2' };
export const SEED = 'hsa-fixtures-v1';
export const MAX_CHARS = 80;

export const rng = seedrandom(SEED);
export const pick = (arr) => arr[Math.floor(rng() * arr.length)];
export const chance = (p) => rng() < p;
export function shuffle(arr) {
  const a = [...arr];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}
export const chars = (s) => [...s].length;
// Cycle through a list per key, so small case lists are covered evenly instead of repeated.
export const cursors = new Map();
export function nextOf(key, arr) {
  const i = cursors.get(key) ?? 0;
  cursors.set(key, i + 1);
  return arr[i % arr.length];
}
export const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);
