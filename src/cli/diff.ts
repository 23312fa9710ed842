import { writeFile } from 'node:fs/promises';
import { UsageError } from '../errors.js';
import { runDiff } from '../review/diff.js';
import { diffHtml, formatDiff } from '../review/diff-report.js';
import { BUCKETS, type ReviewBucket } from '../review/folder.js';
import type { Io } from './io.js';
import { reviewProgress } from './review-progress.js';

export interface DiffCommandOptions {
  a: string;
  b: string;
  limit?: number;
  ignore?: string[];
  stage?: string[];
  json?: boolean;
  html?: string;
  quiet?: boolean;
}

/** `hsa diff A B`: exit 0 identical, 1 different, 2 when either side cannot be read or compared. */
export async function diffCommand(opts: DiffCommandOptions, io: Io): Promise<number> {
  const stages = (opts.stage ?? []).flatMap((s) => s.split(',')).filter((s) => s !== '');
  for (const s of stages) if (!(BUCKETS as readonly string[]).includes(s)) throw new UsageError(`--stage: unknown stage "${s}" (sft, opd, rl, rejects)`);
  const progress = reviewProgress(io, opts.quiet === true || opts.json === true, 'diff');
  let report;
  try {
    report = await runDiff({
      a: opts.a,
      b: opts.b,
      ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
      ignore: (opts.ignore ?? []).flatMap((s) => s.split(',')).filter((s) => s !== ''),
      stages: stages as ReviewBucket[],
      onProgress: (p) => progress.update(p),
    });
  } finally {
    progress.done();
  }
  if (opts.html) await writeFile(opts.html, diffHtml(report));
  if (opts.json) io.out(`${JSON.stringify(report, null, 2)}\n`);
  else io.out(formatDiff(report));
  return report.identical ? 0 : 1;
}
