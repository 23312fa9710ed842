import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the heap grow past what the last full collection kept, in percent: 50 lets it
 * reach 1.5 times the live heap before the next one. Left to itself V8 picks a factor of up to 4
 * from how fast the program allocates; hsa allocates fast and keeps little (tens of MB live while a
 * run holds per-record states and caches that die within a record or two), so the heap grew to 4x
 * and peak RSS with it: 290–500 MB on 20,000 records with their own tools, where the live heap
 * after each full collection stays under 90 MB. With 50, peak RSS on those runs is 160–210 MB at
 * the same CPU time (100 left 180–280 MB; docs/scale.md, "Memory").
 */
export const HEAP_GROWING_PERCENT = 50;

let done = false;

/**
 * Sets V8's heap growing factor for this process (worker threads included: V8's flags are per
 * process), once, unless the command line already gave one (`node --heap-growing-percent=N`).
 * Returns whether it set it.
 */
export function boundHeapGrowth(execArgv: readonly string[] = process.execArgv, set: (flags: string) => void = setFlagsFromString): boolean {
  if (done) return false;
  done = true;
  if (execArgv.some((a) => a.startsWith('--heap-growing-percent') || a.startsWith('--heap_growing_percent'))) return false;
  set(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}

/** For tests: forget that the factor was set. */
export function resetHeapGrowthForTests(): void {
  done = false;
}
