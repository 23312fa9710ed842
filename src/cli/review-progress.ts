import type { ReviewProgress } from '../review/verify.js';
import type { Io } from './io.js';

/**
 * Progress of `verify`, `diff` and `stats` on stderr, in augment's style: a live line on a
 * terminal (at most 10 redraws a second), a plain line every few seconds otherwise, nothing with
 * --quiet or --json. Timing lives here only, never in a report.
 */
export function reviewProgress(io: Io, quiet: boolean, what: string): { update(p: ReviewProgress): void; done(): void } {
  if (quiet) return { update: () => undefined, done: () => undefined };
  const start = Date.now();
  let last = start;
  let shown = false;
  const interval = io.errIsTty ? 100 : 5000;
  return {
    update(p) {
      const now = Date.now();
      if (now - last < interval) return;
      last = now;
      const secs = (now - start) / 1000;
      const frac = p.bytesTotal > 0 ? Math.min(1, p.bytesRead / p.bytesTotal) : 0;
      const bar = io.errIsTty ? `[${'#'.repeat(Math.round(frac * 20)).padEnd(20, '.')}] ` : '';
      const line = `${what}: ${bar}${(frac * 100).toFixed(0)}%  ${p.records} records (${(p.records / secs).toFixed(0)}/s)`;
      shown = true;
      io.err(io.errIsTty ? `\r${line}\x1b[K` : `${line}\n`);
    },
    done() {
      if (io.errIsTty && shown) io.err('\n');
    },
  };
}
