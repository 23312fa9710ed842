import { INLINE_HARNESS } from '../config/names.js';
import { UsageError } from '../errors.js';
import { loadHarness, type LoadResult } from '../harness/load.js';
import { deriveInlineHarness, InlineHarnesses } from '../ingest/inline-harness.js';
import { setFormatMode, type FormatMode } from '../util/json-schema.js';
import { formatProblem, formatProblemSummary, hasErrors, ProblemSummary, sortProblems, type Problem } from '../problems.js';
import { checkTrajectory, type CheckContext, type SystemPromptMode } from '../trajectory/check.js';
import { readTrajectories } from '../trajectory/read.js';
import { expandInputs } from '../util/inputs.js';
import { IdIndex } from '../util/id-index.js';
import type { Io } from './io.js';

export interface ValidateOptions {
  /** Harness folder or file; omitted (or `inline`): each record's own tools and system message. */
  harness?: string;
  trajectories?: string[];
  json?: boolean;
  /** Print a table of problem kinds (count, one example each) after the problems; always in --json. */
  summary?: boolean;
  /** How a logged system message is taken (default match). */
  systemPrompt?: SystemPromptMode;
  /** JSON Schema `format`: annotation (default) or assertion. */
  formats?: FormatMode;
}

/** Most problems kept for the --json report; the text report streams them all. */
const JSON_PROBLEM_CAP = 10_000;

/**
 * `hsa validate`: check a harness snapshot and, optionally, trajectories against it.
 * Exit 0 when valid, 1 when problems were found (2 for unreadable input, thrown).
 */
export async function validateCommand(opts: ValidateOptions, io: Io): Promise<number> {
  const files = opts.trajectories?.length ? await expandInputs(opts.trajectories, '--trajectories') : [];
  setFormatMode(opts.formats ?? 'annotation');
  const inline = opts.harness === undefined || opts.harness === INLINE_HARNESS ? new InlineHarnesses(() => undefined) : undefined;
  if (inline && files.length === 0)
    throw new UsageError('validate: give a harness, or trajectories (-t) whose records carry their own tools and system message');
  const loaded: LoadResult = inline
    ? { harness: deriveInlineHarness({ id: '', messages: [] }, { file: '', line: 0 }).harness!, problems: [], files: [] }
    : await loadHarness(opts.harness!);
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
  const prompts = { matched: 0, located: 0, replaced: 0, chars_discarded: 0 };
  let reusedIds = 0;
  if (h && !hasErrors(loaded.problems)) {
    const ids = new IdIndex();
    for (const file of files) {
      const stat = { file, records: 0, invalid: 0 };
      fileStats.push(stat);
      for await (const item of readTrajectories(file)) {
        stat.records++;
        const at: CheckContext = { file, line: item.line, systemPrompt: opts.systemPrompt ?? 'match', outcome: {} };
        let problems: Problem[];
        if (!item.ok) problems = item.problems;
        else {
          const own = inline?.for(item.record, { file, line: item.line }).inline;
          problems = own && !own.harness ? own.problems : [...item.warnings, ...checkTrajectory(item.record, own?.harness ?? h, at)];
          reusedIds += item.warnings.length;
        }
        if (item.ok && !hasErrors(problems) && at.outcome?.prompt) {
          prompts[at.outcome.prompt]++;
          prompts.chars_discarded += at.outcome.discardedChars ?? 0;
        }
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
          harness: inline ? { name: 'inline', version: null } : h ? { name: h.name, version: h.version } : null,
          system_prompt: { mode: opts.systemPrompt ?? 'match', ...prompts },
          reused_call_ids: reusedIds,
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
    const what = inline ? 'inline harnesses' : h ? `harness ${h.name} ${h.version}` : `harness ${opts.harness}`;
    const checked = fileStats.length > 0;
    const recs = !files.length
      ? ''
      : checked
        ? `, ${records} record${records === 1 ? '' : 's'} in ${files.length} file${files.length === 1 ? '' : 's'}`
        : `, ${files.length} trajectory file${files.length === 1 ? '' : 's'} not checked`;
    io.err(
      `${errors === 0 ? 'valid' : 'invalid'}: ${what}${recs}: ${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}\n`,
    );
    // Only when something was not taken as written: the usual report stays one line.
    if (prompts.located + prompts.replaced + reusedIds > 0) {
      io.err(
        `  system prompts (${opts.systemPrompt ?? 'match'}): ${prompts.matched} matched, ${prompts.located} located, ${prompts.replaced} replaced${prompts.replaced ? ` (${prompts.chars_discarded} characters dropped)` : ''}; reused tool-call ids made unique: ${reusedIds}\n`,
      );
    }
  }
  return errors === 0 ? 0 : 1;
}
