import { writeFile } from 'node:fs/promises';
import { runStats } from '../review/stats.js';
import { formatStats, statsHtml } from '../review/stats-report.js';
import type { Io } from './io.js';
import { reviewProgress } from './review-progress.js';

export interface StatsCommandOptions {
  out: string;
  json?: boolean;
  html?: string;
  quiet?: boolean;
}

/** `hsa stats OUT`: the report on stdout (text or one JSON document), optionally an HTML page. */
export async function statsCommand(opts: StatsCommandOptions, io: Io): Promise<number> {
  const progress = reviewProgress(io, opts.quiet === true || opts.json === true, 'stats');
  let report;
  try {
    report = await runStats({ out: opts.out, onProgress: (p) => progress.update(p) });
  } finally {
    progress.done();
  }
  if (opts.html) await writeFile(opts.html, statsHtml(report));
  io.out(opts.json ? `${JSON.stringify(report, null, 2)}\n` : formatStats(report));
  return 0;
}
