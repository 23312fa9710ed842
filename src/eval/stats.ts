import { createRng } from '../transform/rng.js';

/** A mean with a percentile-bootstrap confidence interval, over `n` values. */
export interface Estimate {
  n: number;
  mean: number | null;
  lo: number | null;
  hi: number | null;
}

/** Four decimals: what a report shows, identical wherever it is computed. */
export function r4(x: number): number {
  return Math.round(x * 1e4) / 1e4 + 0;
}

export function mean(xs: readonly number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;
}

/**
 * The mean of `xs` with a 95% percentile-bootstrap interval from `samples` resamples. The
 * generator is seeded by (seed, label), so every group's interval is reproducible on its own,
 * whatever else the report holds.
 */
export function bootstrap(xs: readonly number[], samples: number, seed: string, label: string): Estimate {
  if (xs.length === 0) return { n: 0, mean: null, lo: null, hi: null };
  const m = mean(xs);
  if (xs.length === 1 || samples <= 0) return { n: xs.length, mean: r4(m), lo: r4(m), hi: r4(m) };
  const rng = createRng('eval-bootstrap', seed, label);
  const means: number[] = [];
  for (let s = 0; s < samples; s++) {
    let sum = 0;
    for (let i = 0; i < xs.length; i++) sum += xs[rng.int(xs.length)]!;
    means.push(sum / xs.length);
  }
  means.sort((a, b) => a - b);
  const at = (q: number) => means[Math.min(means.length - 1, Math.max(0, Math.floor(q * means.length)))]!;
  return { n: xs.length, mean: r4(m), lo: r4(at(0.025)), hi: r4(at(0.975)) };
}
