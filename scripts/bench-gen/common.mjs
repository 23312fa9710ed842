// The benchmark generator's constants, the hash that names its version, and the seeded random source.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import seedrandom from 'seedrandom';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(HERE, '../..');
// The generator's version: a hash of scripts/bench-gen.mjs and every part in this folder, so an
// edit to any of them regenerates the data.
const PARTS = [
  path.join(HERE, '../bench-gen.mjs'),
  ...readdirSync(HERE)
    .filter((f) => f.endsWith('.mjs'))
    .sort()
    .map((f) => path.join(HERE, f)),
];
const selfHash = createHash('sha256');
for (const f of PARTS) selfHash.update(readFileSync(f));
export const SELF_HASH = selfHash.digest('hex').slice(0, 16);

export const DEFAULT_SEED = 'hsa-bench-v1';
export const HARNESS_REF = { name: 'bench-live-room', version: '2026.09.1' };
export const MIN_RECORD = 25 * 1024;
export const MAX_RECORD = 40 * 1024;
export const MIN_TOOL = 200;
export const MAX_TOOL = 2000;
export const MAX_CHARS = 90; // stop_gate limit

// ---------------------------------------------------------------------------------------------
// randomness helpers (bound to one seedrandom generator)

export function makeRng(seed) {
  const rng = seedrandom(seed);
  const r = {
    next: rng,
    int: (lo, hi) => lo + Math.floor(rng() * (hi - lo + 1)),
    pick: (arr) => arr[Math.floor(rng() * arr.length)],
    chance: (p) => rng() < p,
    digits: (n) => {
      let s = '';
      for (let i = 0; i < n; i++) s += String(Math.floor(rng() * 10));
      return s;
    },
    shuffle: (arr) => {
      const a = arr.slice();
      for (let i = a.length - 1; i > 0; i--) {
        const j = Math.floor(rng() * (i + 1));
        [a[i], a[j]] = [a[j], a[i]];
      }
      return a;
    },
    sample: (arr, n) => r.shuffle(arr).slice(0, n),
  };
  return r;
}
export const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const bytes = (s) => Buffer.byteLength(s, 'utf8');
export const chars = (s) => [...s].length;
