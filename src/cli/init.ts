import { initHarness } from '../ingest/init.js';
import { formatProblem, formatProblemSummary } from '../problems.js';
import type { Io } from './io.js';

export interface InitCommandOptions {
  trajectories: string[];
  out: string;
  name?: string;
  harnessVersion?: string;
  force?: boolean;
  json?: boolean;
}

/**
 * `hsa init --trajectories <glob> --out DIR`: infer a harness folder from logs. Exit 0 when the
 * folder was written and every record whose system message it renders validates against it,
 * 1 when it was written but has errors or such records fail, 2 for usage (a non-empty DIR
 * without --force, no records).
 */
export async function initCommand(opts: InitCommandOptions, io: Io): Promise<number> {
  const r = await initHarness({
    trajectories: opts.trajectories,
    out: opts.out,
    ...(opts.name !== undefined ? { name: opts.name } : {}),
    ...(opts.harnessVersion !== undefined ? { version: opts.harnessVersion } : {}),
    ...(opts.force ? { force: true } : {}),
  });
  const errors = r.problems.filter((p) => p.severity === 'error').length;
  const ok = errors === 0 && r.check.invalid === 0;
  if (opts.json) {
    io.out(
      `${JSON.stringify({ ok, ...r, problems: r.problems.map(formatProblem), check: { ...r.check, kinds: r.check.kinds.map((k) => ({ kind: k.kind, count: k.count, example: formatProblem(k.example) })) } }, null, 2)}\n`,
    );
    return ok ? 0 : 1;
  }
  for (const p of r.problems) io.err(`${formatProblem(p)}\n`);
  const lines = [
    `wrote ${r.out}: ${r.files.length} files`,
    `  prompt   ${r.prompt.sections.length} section${r.prompt.sections.length === 1 ? '' : 's'} (${r.prompt.sections.join(', ') || 'none'}) from the most common system message (${r.prompt.matching} of ${r.records} records)`,
    `  tools    ${r.tools.written.length}${r.tools.conflicts.length ? `, ${r.tools.conflicts.length} with conflicting definitions (${r.tools.conflicts.join(', ')})` : ''}${r.tools.inferredFromCalls.length ? `, ${r.tools.inferredFromCalls.length} inferred from calls` : ''}`,
    `  skills   ${r.skills.written.length}${r.skills.loader ? ` loaded by ${r.skills.loader.tool}(${r.skills.loader.argument})` : ''}`,
    `  hooks    none`,
    `check: ${r.check.valid} record${r.check.valid === 1 ? '' : 's'} validate, ${r.check.invalid} do not${r.check.toolsDiffer ? `, ${r.check.toolsDiffer} list tools of their own (augment those without --harness)` : ''}${r.prompt.other ? `, ${r.prompt.other} with another system message not checked (they need --system-prompt locate)` : ''}${r.unreadable ? `, ${r.unreadable} unreadable lines` : ''}`,
  ];
  io.err(`${lines.join('\n')}\n`);
  if (r.check.kinds.length > 0) io.err(formatProblemSummary(r.check.kinds));
  return ok ? 0 : 1;
}
