import path from 'node:path';
import { UsageError } from '../errors.js';
import { type Problem } from '../problems.js';
import { isTrajectoryShape, trajectorySchema } from '../trajectory/schema.js';
import { IdIndex } from '../util/id-index.js';
import { expandInputs } from '../util/inputs.js';
import { ConvertError, type Importer } from './importer.js';
import { IMPORTER_IDS, importers, type ImporterId } from './importers/index.js';
import { JsonlFileWriter } from './jsonl-writer.js';
import { readSourceRecords } from './read-source.js';

export interface ImportOptions {
  from: string;
  /** Files or globs; read in sorted path order, then line order. */
  files: string[];
  out: string;
  /** Skip mode: where bad lines go (default `<out without .jsonl>.rejects.jsonl`). */
  rejects?: string;
  onError: 'fail' | 'skip';
}

export interface ImportFileStat {
  file: string;
  records: number;
  converted: number;
  rejected: number;
}

export interface ImportResult {
  from: ImporterId;
  files: ImportFileStat[];
  records: number;
  converted: number;
  rejected: number;
  /** The files written (none in fail mode when a line was bad). */
  out: string | null;
  rejects: string | null;
}

/**
 * `hsa import`: convert source records of one format into hsa trajectory JSONL. Every line that
 * cannot be converted is reported through `report` as `file:line: field: reason`. In fail mode
 * every line is still read (so one run lists every problem) but nothing is written when one was
 * bad; in skip mode bad lines go to the rejects file with their problems and source text.
 * Output bytes depend only on the inputs' contents, names and order.
 */
export async function importTrajectories(opts: ImportOptions, report: (p: Problem) => void): Promise<ImportResult> {
  if (!(IMPORTER_IDS as string[]).includes(opts.from)) throw new UsageError(`--from: unknown format "${opts.from}" (one of ${IMPORTER_IDS.join(', ')})`);
  const from = opts.from as ImporterId;
  const importer: Importer = importers[from];
  const files = await expandInputs(opts.files, 'import');
  const rejectsFile = opts.onError === 'skip' ? (opts.rejects ?? `${opts.out.replace(/\.jsonl$/, '')}.rejects.jsonl`) : null;
  const inputs = new Set(files.map((f) => path.resolve(f)));
  for (const o of [opts.out, rejectsFile]) if (o && inputs.has(path.resolve(o))) throw new UsageError(`${o}: is also an input`);
  const out = await JsonlFileWriter.open(opts.out);
  const rejects = rejectsFile ? await JsonlFileWriter.open(rejectsFile) : null;
  const ids = new IdIndex();
  const stats: ImportFileStat[] = [];
  try {
    for (const file of files) {
      const shown = displayPath(file);
      const stat: ImportFileStat = { file: shown, records: 0, converted: 0, rejected: 0 };
      stats.push(stat);
      const base = path.basename(file);
      for await (const { line, text } of readSourceRecords(file)) {
        stat.records++;
        const problems = await convertOne(importer, text, { file: shown, line, defaultId: `${base}:${line}` }, ids, out);
        if (problems.length === 0) {
          stat.converted++;
          continue;
        }
        stat.rejected++;
        problems.forEach(report);
        await rejects?.write({ file: shown, line, problems: problems.map((p) => ({ path: p.path, message: p.message })), source: text });
      }
    }
  } catch (e) {
    await out.abort();
    await rejects?.abort();
    throw e;
  }
  const rejected = stats.reduce((n, s) => n + s.rejected, 0);
  const keep = opts.onError === 'skip' || rejected === 0;
  if (keep) {
    await out.commit();
    await rejects?.commit();
  } else {
    await out.abort();
    await rejects?.abort();
  }
  return {
    from,
    files: stats,
    records: stats.reduce((n, s) => n + s.records, 0),
    converted: stats.reduce((n, s) => n + s.converted, 0),
    rejected,
    out: keep ? opts.out : null,
    rejects: keep ? rejectsFile : null,
  };
}

async function convertOne(importer: Importer, text: string, at: { file: string; line: number; defaultId: string }, ids: IdIndex, out: JsonlFileWriter): Promise<Problem[]> {
  const bad = (p: string, message: string): Problem[] => [{ file: at.file, line: at.line, path: p, message, severity: 'error' }];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return bad('(json)', `not valid JSON: ${(e as Error).message}`);
  }
  let rec;
  try {
    rec = importer.convert(value, at);
  } catch (e) {
    if (e instanceof ConvertError) return bad(e.path, e.message.slice(e.path.length + 2));
    throw e;
  }
  if (!isTrajectoryShape(rec)) {
    // An importer bug rather than bad input; still reported with the line, never written.
    const issue = trajectorySchema.safeParse(rec).error?.issues[0];
    return bad(issue ? issue.path.join('.') : '(record)', `converted record is not an hsa trajectory: ${issue?.message ?? 'unknown'}`);
  }
  const prior = ids.note(rec.id, at.file, at.line);
  if (prior) return bad('id', `duplicate record id "${rec.id}" (first at ${prior})`);
  await out.write(rec);
  return [];
}

/** A path as the user would write it from the current folder (`./a.jsonl` and `a.jsonl` alike). */
function displayPath(file: string): string {
  const rel = path.relative(process.cwd(), path.resolve(file));
  return rel === '' || rel.startsWith('..') ? path.resolve(file) : rel;
}
