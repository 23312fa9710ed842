// Paths, the harness inputs, the seeded random helpers and the calendar every part of the support-desk generator shares.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import seedrandom from 'seedrandom';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
export const FIX = join(ROOT, 'fixtures', 'support-desk');
export const SEED = 'support-desk/v1';
export const COUNT = 40;
export const HARNESS = { name: 'support-desk', version: '3.1.0' };

export const policy = readFileSync(join(FIX, 'harness', 'prompt', 'policy.md'), 'utf8').trim();
export const tools = JSON.parse(readFileSync(join(FIX, 'harness', 'tools', 'tools.json'), 'utf8'));

// ---------------------------------------------------------------------------------------------
// randomness

export const rng = seedrandom(SEED);
export const int = (lo, hi) => lo + Math.floor(rng() * (hi - lo + 1));
export const pick = (arr) => arr[Math.floor(rng() * arr.length)];
export const chance = (p) => rng() < p;
export const digits = (n) => {
  let s = '';
  for (let i = 0; i < n; i++) s += String(Math.floor(rng() * 10));
  return s;
};
export const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const callId = () => {
  let s = 'call_';
  for (let i = 0; i < 24; i++) s += ALNUM[Math.floor(rng() * ALNUM.length)];
  return s;
};
export function shuffle(arr) {
  const a = arr.slice();
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

// ---------------------------------------------------------------------------------------------
// dates (calendar arithmetic on day-of-year in 2026, no Date object)

export const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
export const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
export const pad = (n) => String(n).padStart(2, '0');
export function monthDay(doy) {
  let m = 0;
  let d = doy;
  while (d > MONTH_DAYS[m]) {
    d -= MONTH_DAYS[m];
    m++;
  }
  return [m, d];
}
export const ymd = (doy) => {
  const [m, d] = monthDay(doy);
  return `2026-${pad(m + 1)}-${pad(d)}`;
};
export const nice = (doy) => {
  const [m, d] = monthDay(doy);
  return `${MONTH_NAMES[m]} ${d}`;
};
export const stamp = (doy, hh, mm) => `${ymd(doy)}T${pad(hh)}:${pad(mm)}:00Z`;

export const money = (x) => `$${x.toFixed(2)}`;
export const round2 = (x) => Math.round(x * 100) / 100;
