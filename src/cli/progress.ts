import type { RunProgress } from '../output/executor.js';
import type { Io } from './io.js';
import type { TeacherCounters } from '../llm/errors.js';

/**
 * Progress on stderr: a live line when stderr is a terminal (redrawn at most 10 times a second),
 * otherwise a plain line every few seconds. Timing lives here only, never in output files.
 */
export function progressReporter(io: Io, quiet: boolean, teacher?: TeacherCounters): { update(p: RunProgress): void; done(): void } {
  if (quiet) return { update: () => undefined, done: () => undefined };
  const start = Date.now();
  let last = 0;
  let lastLine = '';
  const interval = io.errIsTty ? 100 : 5000;
  const line = (p: RunProgress) => {
    const secs = (Date.now() - start) / 1000;
    const rate = secs > 0 ? p.records / secs : 0;
    const frac = p.bytesTotal > 0 ? Math.min(1, p.bytesRead / p.bytesTotal) : 0;
    // No estimate from the first moments (harness load and the first states dominate them).
    const eta = frac >= 0.02 && frac < 1 && secs >= 1 ? Math.round((secs / frac) * (1 - frac)) : 0;
    const bar = io.errIsTty ? `[${'#'.repeat(Math.round(frac * 20)).padEnd(20, '.')}] ` : '';
    return `${bar}${(frac * 100).toFixed(0)}%  ${p.records} records (${rate.toFixed(0)}/s), ${p.outputs} outputs, parts ${p.partsDone} written${p.partsSkipped ? ` + ${p.partsSkipped} resumed` : ''}${eta ? `, ETA ${eta}s` : ''}${teacher ? `; teacher ${teacher.inFlight} in flight, ${teacher.done} done, ${teacher.cacheHits} cached, ${teacher.retries} retries` : ''}`;
  };
  return {
    update(p) {
      const now = Date.now();
      if (now - last < interval) return;
      last = now;
      lastLine = line(p);
      io.err(io.errIsTty ? `\r${lastLine}\x1b[K` : `${lastLine}\n`);
    },
    done() {
      if (io.errIsTty && lastLine) io.err('\n');
    },
  };
}
