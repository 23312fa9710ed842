import { stat } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import { UnreadableInputError, UsageError } from '../errors.js';
import { BadRowError, parseRow, type EpisodeRow } from '../episode/row.js';
import { partLines } from '../episode/rows.js';
import { cmp } from '../problems.js';

/** One evaluation row: the episode row and where it stands among its source's variants. */
export interface EvalRow {
  row: EpisodeRow;
  /** `file:line`, for messages. */
  where: string;
  /** The source record the row was made from (`extra_info.source_id`, else the id before `~`). */
  sourceId: string;
  /** `src` for a source row (`SOURCE~src`, written with `--keep-source`), else the variant index. */
  variant: 'src' | number;
  /** The transforms applied to the row's harness state (empty for a source row). */
  transforms: { id: string; family: string }[];
}

/**
 * The files of `--set`: RL parts as `hsa augment` writes them. A folder stands for its RL parts
 * (`rl/*.jsonl[.gz]` of an output folder, else the folder's own `*.jsonl[.gz]`); globs and files
 * are taken as they are. Sorted, so the order never depends on how the set was spelled.
 */
export async function setFiles(patterns: readonly string[], flag = '--set'): Promise<string[]> {
  const out = new Set<string>();
  for (const p of patterns) {
    let isDir = false;
    try {
      isDir = (await stat(p)).isDirectory();
    } catch {
      isDir = false;
    }
    let found: string[];
    if (isDir) {
      const rl = await fg(['rl/*.jsonl', 'rl/*.jsonl.gz'], { cwd: p, onlyFiles: true });
      found = (rl.length ? rl : await fg(['*.jsonl', '*.jsonl.gz'], { cwd: p, onlyFiles: true })).map((f) => path.join(p, f));
      if (found.length === 0) throw new UsageError(`${flag}: ${p} holds no RL parts (rl/*.jsonl) and no *.jsonl files`);
    } else if (fg.isDynamicPattern(p)) {
      found = await fg(p, { onlyFiles: true });
      if (found.length === 0) throw new UsageError(`${flag}: no file matches ${p}`);
    } else {
      try {
        if (!(await stat(p)).isFile()) throw new Error('not a file');
      } catch {
        throw new UnreadableInputError(`${p}: no such file`);
      }
      found = [p];
    }
    for (const f of found) out.add(f);
  }
  return [...out].sort(cmp);
}

type Obj = Record<string, unknown>;

function transformsOf(v: unknown, where: string): { id: string; family: string }[] {
  let list = v;
  if (typeof list === 'string') {
    try {
      list = JSON.parse(list);
    } catch {
      throw new BadRowError(`${where}: extra_info.transforms`, 'not valid JSON');
    }
  }
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw new BadRowError(`${where}: extra_info.transforms`, 'expected an array');
  return list.map((t, i) => {
    const id = t && typeof t === 'object' ? (t as Obj).id : undefined;
    if (typeof id !== 'string') throw new BadRowError(`${where}: extra_info.transforms[${i}].id`, 'expected a string');
    return { id, family: id.includes('.') ? id.slice(0, id.indexOf('.')) : id };
  });
}

/** Load every row of the set, in file then line order; a bad row names file, line and field. */
export async function loadEvalSet(files: readonly string[]): Promise<EvalRow[]> {
  const rows: EvalRow[] = [];
  const seen = new Map<string, string>();
  for (const file of files) {
    for (const { line: lineNo, text: raw } of await partLines(file)) {
      const where = `${file}:${lineNo}`;
      let value: unknown;
      try {
        value = JSON.parse(raw);
      } catch (e) {
        throw new BadRowError(where, `not valid JSON (${(e as Error).message})`);
      }
      let row: EpisodeRow;
      try {
        row = parseRow(value, rows.length);
      } catch (e) {
        if (e instanceof BadRowError) throw new BadRowError(`${where}: ${e.field}`, e.message.slice(e.field.length + 2));
        throw e;
      }
      const extra = (value as Obj).extra_info as Obj;
      const first = seen.get(row.id);
      if (first) throw new BadRowError(`${where}: extra_info.id`, `${JSON.stringify(row.id)} is used by ${first} too`);
      seen.set(row.id, where);
      const tilde = row.id.lastIndexOf('~');
      const sourceId = typeof extra.source_id === 'string' ? extra.source_id : tilde > 0 ? row.id.slice(0, tilde) : row.id;
      const isSource = row.id.endsWith('~src') || extra.variant === 'src' || (extra.variant === undefined && tilde < 0);
      const variant: 'src' | number = isSource ? 'src' : typeof extra.variant === 'number' ? extra.variant : Number(row.id.slice(tilde + 2)) || 0;
      rows.push({ row, where, sourceId, variant, transforms: isSource ? [] : transformsOf(extra.transforms, where) });
    }
  }
  return rows;
}
