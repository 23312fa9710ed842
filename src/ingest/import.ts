import { createHash } from 'node:crypto';
import path from 'node:path';
import { UsageError } from '../errors.js';
import { type Problem } from '../problems.js';
import { isTrajectoryShape, trajectorySchema } from '../trajectory/schema.js';
import type { Trajectory } from '../trajectory/types.js';
import { canonicalJson } from '../util/canonical-json.js';
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
  /** Keep records whose conversation another record continues (default: they are superseded). */
  keepPrefixes?: boolean;
}

export interface ImportFileStat {
  file: string;
  records: number;
  converted: number;
  rejected: number;
  /** Records not written because another record continues their conversation (same tools). */
  superseded: number;
}

export interface ImportResult {
  from: ImporterId;
  files: ImportFileStat[];
  records: number;
  converted: number;
  rejected: number;
  superseded: number;
  /** First few superseded records: `file:line (id) → id of the record that continues it`. */
  supersededExamples: string[];
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
  const continued = opts.keepPrefixes ? null : await continuedConversations(importer, files);
  const supersededExamples: string[] = [];
  try {
    for (const file of files) {
      const shown = displayPath(file);
      const stat: ImportFileStat = { file: shown, records: 0, converted: 0, rejected: 0, superseded: 0 };
      stats.push(stat);
      const base = path.basename(file);
      for await (const { line, text } of readSourceRecords(file)) {
        stat.records++;
        const at = { file: shown, line, defaultId: `${base}:${line}` };
        const supersededBefore = stat.superseded;
        const problems = await convertOne(importer, text, at, ids, out, (rec) => {
          const by = continued?.get(conversationKeys(rec).full);
          if (by === undefined) return false;
          stat.superseded++;
          if (supersededExamples.length < 5) supersededExamples.push(`${shown}:${line} (${rec.id}) → ${by}`);
          return true;
        });
        if (problems.length === 0) {
          if (stat.superseded === supersededBefore) stat.converted++;
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
    superseded: stats.reduce((n, s) => n + s.superseded, 0),
    supersededExamples,
    out: keep ? opts.out : null,
    rejects: keep ? rejectsFile : null,
  };
}

async function convertOne(
  importer: Importer,
  text: string,
  at: { file: string; line: number; defaultId: string },
  ids: IdIndex,
  out: JsonlFileWriter,
  superseded: (rec: Trajectory) => boolean,
): Promise<Problem[]> {
  const rec = convertText(importer, text, at);
  if (Array.isArray(rec)) return rec;
  if (superseded(rec)) return [];
  const prior = ids.note(rec.id, at.file, at.line);
  if (prior) return [{ file: at.file, line: at.line, path: 'id', message: `duplicate record id "${rec.id}" (first at ${prior})`, severity: 'error' }];
  await out.write(rec);
  return [];
}

function convertText(importer: Importer, text: string, at: { file: string; line: number; defaultId: string }): Trajectory | Problem[] {
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
    const issue = trajectorySchema().safeParse(rec).error?.issues[0];
    return bad(issue ? issue.path.join('.') : '(record)', `converted record is not an hsa trajectory: ${issue?.message ?? 'unknown'}`);
  }
  return rec;
}

/**
 * API logs hold one line per model call, each with the whole conversation so far: a line whose
 * conversation (with the same tools) is the beginning of another line's is that conversation
 * unfinished, and its last call is answered only in the longer one. A first pass maps the hash of
 * every proper prefix of every converted record to the id of the longest record that continues it.
 */
async function continuedConversations(importer: Importer, files: string[]): Promise<Map<string, string>> {
  const prefixes = new Map<string, { id: string; length: number }>();
  for (const file of files) {
    const base = path.basename(file);
    for await (const { line, text } of readSourceRecords(file)) {
      const rec = convertText(importer, text, { file, line, defaultId: `${base}:${line}` });
      if (Array.isArray(rec)) continue;
      // The longest continuation is named (the first of equal length).
      for (const k of conversationKeys(rec).prefixes)
        if ((prefixes.get(k)?.length ?? -1) < rec.messages.length) prefixes.set(k, { id: rec.id, length: rec.messages.length });
    }
  }
  return new Map([...prefixes].map(([k, v]) => [k, v.id]));
}

/**
 * Hashes of a record's tools plus each proper prefix of its messages, and of all of them. Call ids
 * an importer made up (`<record id>:c<k>`, for formats that log none) are hashed without the record
 * id, so the same conversation logged on two lines has the same prefixes.
 */
function conversationKeys(rec: Trajectory): { full: string; prefixes: string[] } {
  let h = createHash('sha256')
    .update(canonicalJson(rec.tools ?? null))
    .digest('base64');
  const prefixes: string[] = [];
  const made = `${rec.id}:c`;
  const bare = (id: string) => (id.startsWith(made) && /^\d+$/.test(id.slice(made.length)) ? id.slice(rec.id.length) : id);
  rec.messages.forEach((m, i) => {
    if (i > 0) prefixes.push(h);
    // A call-only assistant message is logged with content null by some clients and "" by others.
    let c: unknown = m.role === 'assistant' && m.content === null ? { ...m, content: '' } : m;
    if (m.role === 'tool') c = { ...m, tool_call_id: bare(m.tool_call_id) };
    else if (m.role === 'assistant' && m.tool_calls) c = { ...(c as object), tool_calls: m.tool_calls.map((t) => ({ ...t, id: bare(t.id) })) };
    h = createHash('sha256').update(h).update(canonicalJson(c)).digest('base64');
  });
  return { full: h, prefixes };
}

/** A path as the user would write it from the current folder (`./a.jsonl` and `a.jsonl` alike). */
function displayPath(file: string): string {
  const rel = path.relative(process.cwd(), path.resolve(file));
  return rel === '' || rel.startsWith('..') ? path.resolve(file) : rel;
}
