import { loadHarness } from '../harness/load.js';
import { formatProblem, formatProblemSummary, hasErrors, ProblemSummary, sortProblems, type Problem } from '../problems.js';
import { checkTrajectory } from '../trajectory/check.js';
import { readTrajectories } from '../trajectory/read.js';
import { expandInputs } from '../util/inputs.js';
import { IdIndex } from '../util/id-index.js';
import type { Io } from './io.js';

export interface ValidateOptions {
  harness: string;
  trajectories?: string[];
  json?: boolean;
  /** Print a table of problem kinds (count, one example each) after the problems; always in --json. */
  summary?: boolean;
}

/** Most problems kept for the --json report; the text report streams them all. */
const JSON_PROBLEM_CAP = 10_000;

/**
 * `hsa validate`: check a harness snapshot and, optionally, trajectories against it.
 * Exit 0 when valid, 1 when problems were found (2 for unreadable input, thrown).
 */
export async function validateCommand(opts: ValidateOptions, io: Io): Promise<number> {
  const files = opts.trajectories?.length ? await expandInputs(opts.trajectories, '--trajectories') : [];
  const loaded = await loadHarness(opts.harness);
  let errors = 0;
  let warnings = 0;
  const kept: Problem[] = [];
  const kinds = new ProblemSummary();
  const report = (p: Problem) => {
    if (p.severity === 'error') errors++;
    else warnings++;
    kinds.add(p);
    if (opts.json) {
      if (kept.length < JSON_PROBLEM_CAP) kept.push(p);
    } else io.out(`${formatProblem(p)}\n`);
  };
  sortProblems(loaded.problems).forEach(report);
  const h = loaded.harness;
  const fileStats: { file: string; records: number; invalid: number }[] = [];
  if (h && !hasErrors(loaded.problems)) {
    const ids = new IdIndex();
    for (const file of files) {
      const stat = { file, records: 0, invalid: 0 };
      fileStats.push(stat);
      for await (const item of readTrajectories(file)) {
        stat.records++;
        const problems = item.ok ? checkTrajectory(item.record, h, { file, line: item.line }) : item.problems;
        if (item.ok) {
          const prior = ids.note(item.record.id, file, item.line);
          if (prior) problems.push({ file, line: item.line, id: item.record.id, path: 'id', message: `duplicate id (first at ${prior})`, severity: 'error' });
        }
        if (hasErrors(problems)) stat.invalid++;
        problems.forEach(report);
      }
    }
  } else if (files.length > 0) {
    io.err('trajectories not checked: the harness has errors\n');
  }
  const records = fileStats.reduce((n, f) => n + f.records, 0);
  if (opts.json) {
    io.out(
      `${JSON.stringify(
        {
          ok: errors === 0,
          harness: h ? { name: h.name, version: h.version } : null,
          errors,
          warnings,
          files: fileStats,
          problems: kept,
          truncated: errors + warnings - kept.length,
          summary: kinds.rows().map((r) => ({ kind: r.kind, severity: r.severity, count: r.count, example: formatProblem(r.example) })),
        },
        null,
        2,
      )}\n`,
    );
  } else {
    if (opts.summary) io.out(formatProblemSummary(kinds.rows()));
    const what = h ? `harness ${h.name} ${h.version}` : `harness ${opts.harness}`;
    const checked = fileStats.length > 0;
    const recs = !files.length ? '' : checked ? `, ${records} record${records === 1 ? '' : 's'} in ${files.length} file${files.length === 1 ? '' : 's'}` : `, ${files.length} trajectory file${files.length === 1 ? '' : 's'} not checked`;
    io.err(`${errors === 0 ? 'valid' : 'invalid'}: ${what}${recs}: ${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}\n`);
  }
  return errors === 0 ? 0 : 1;
}
