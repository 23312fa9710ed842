import { formatProblem } from '../problems.js';
import { runVerify } from '../review/verify.js';
import type { Io } from './io.js';
import { reviewProgress } from './review-progress.js';

export interface VerifyCommandOptions {
  out: string;
  sources?: string[];
  harness?: string;
  json?: boolean;
  quiet?: boolean;
}

/** `hsa verify OUT`: exit 0 when the folder is sound, 1 with every problem listed, 2 when it cannot be read. */
export async function verifyCommand(opts: VerifyCommandOptions, io: Io): Promise<number> {
  const progress = reviewProgress(io, opts.quiet === true || opts.json === true, 'verify');
  let report;
  try {
    report = await runVerify({
      out: opts.out,
      ...(opts.sources ? { sources: opts.sources } : {}),
      ...(opts.harness ? { harness: opts.harness } : {}),
      onProgress: (p) => progress.update(p),
    });
  } finally {
    progress.done();
  }
  if (opts.json) {
    io.out(`${JSON.stringify({ ...report, problems: report.problems.map((p) => ({ ...p, text: formatProblem(p) })) }, null, 2)}\n`);
    return report.ok ? 0 : 1;
  }
  for (const w of report.warnings) io.err(`warning: ${w}\n`);
  for (const p of report.problems) io.out(`${formatProblem(p)}\n`);
  if (report.more_problems) io.out(`… and ${report.more_problems} more problems\n`);
  if (!opts.quiet) {
    const bad = report.parts.filter((p) => p.status !== 'ok');
    const counts = Object.entries(report.records)
      .map(([s, n]) => `${s} ${n}`)
      .join(', ');
    const what = [
      'sha256, bytes and records of every part',
      'record shapes',
      'unique ids',
      'the balance',
      'calls',
      report.checked.leaks === 'engine' ? 'leaks (engine check on the rebuilt states, state hashes)' : 'leaks (rename tables in meta)',
      ...(report.checked.round_trip ? ['round trip to the sources'] : []),
    ].join(', ');
    io.err(
      report.ok
        ? `sound: ${report.parts.length} parts (${counts}); checked ${what}\n`
        : `${report.problems.length + report.more_problems} problems in ${opts.out}${bad.length ? `; parts: ${bad.map((p) => `${p.file} (${p.status})`).join(', ')}` : ''}\n`,
    );
  }
  return report.ok ? 0 : 1;
}
