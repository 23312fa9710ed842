import { UsageError } from '../errors.js';
import { importTrajectories } from '../ingest/import.js';
import { formatProblem, formatProblemSummary, ProblemSummary, type Problem } from '../problems.js';
import type { Io } from './io.js';

export interface ImportCommandOptions {
  from: string;
  files: string[];
  out: string;
  rejects?: string;
  onError?: string;
  keepPrefixes?: boolean;
  json?: boolean;
}

/** Most problems kept for the --json report (the counts and kinds cover them all). */
const JSON_PROBLEM_CAP = 10_000;

/**
 * `hsa import --from FORMAT FILES... --out traj.jsonl`: convert logs of another format into hsa
 * trajectories. Exit 0 when written (skip mode: bad lines in the rejects file), 1 when a line
 * could not be converted in fail mode (nothing written), 2 for usage or unreadable input.
 */
export async function importCommand(opts: ImportCommandOptions, io: Io): Promise<number> {
  const onError = opts.onError ?? 'fail';
  if (onError !== 'fail' && onError !== 'skip') throw new UsageError(`--on-error: must be fail or skip, not "${onError}"`);
  if (opts.rejects !== undefined && onError !== 'skip') throw new UsageError('--rejects needs --on-error skip');
  const kinds = new ProblemSummary();
  const kept: Problem[] = [];
  const report = (p: Problem) => {
    kinds.add(p);
    if (!opts.json) io.err(`${formatProblem(p)}\n`);
    else if (kept.length < JSON_PROBLEM_CAP) kept.push(p);
  };
  const r = await importTrajectories(
    {
      from: opts.from,
      files: opts.files,
      out: opts.out,
      onError,
      keepPrefixes: opts.keepPrefixes === true,
      ...(opts.rejects !== undefined ? { rejects: opts.rejects } : {}),
    },
    report,
  );
  const failed = onError === 'fail' && r.rejected > 0;
  if (opts.json) {
    const summary = kinds.rows().map((k) => ({ kind: k.kind, count: k.count, example: formatProblem(k.example) }));
    io.out(
      `${JSON.stringify({ ok: !failed, ...r, summary, problems: kept, truncated: r.rejected > 0 ? Math.max(0, kinds.rows().reduce((n, k) => n + k.count, 0) - kept.length) : 0 }, null, 2)}\n`,
    );
  } else {
    if (r.rejected > 1) io.err(formatProblemSummary(kinds.rows()));
    const files = `${r.files.length} file${r.files.length === 1 ? '' : 's'}`;
    if (failed)
      io.err(
        `not imported: ${r.rejected} of ${r.records} records in ${files} cannot be converted (nothing written; --on-error skip writes the others and sends these to a rejects file)\n`,
      );
    else {
      const sup = r.superseded
        ? `; ${r.superseded} superseded by a record that continues their conversation (e.g. ${r.supersededExamples[0]}; --keep-prefixes keeps them)`
        : '';
      io.err(
        `imported ${r.converted} of ${r.records} records from ${files} (${r.from}) to ${r.out}${r.rejects ? `; ${r.rejected} rejected to ${r.rejects}` : ''}${sup}\n`,
      );
    }
  }
  return failed ? 1 : 0;
}
