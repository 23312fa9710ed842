import pLimit from 'p-limit';
import type { EpisodeRow } from '../episode/row.js';
import { readJsonlLines } from '../util/jsonl.js';
import { evidenceOf, LabelsError, type JudgeCase, type Rubric, type RubricJudge } from '../llm/judge.js';
import { r4 } from './stats.js';

/** One human label: a reply to one turn of a row of the set, with a level per criterion. */
export interface Label {
  where: string;
  id: string;
  turn: number;
  case: JudgeCase;
  levels: Record<string, number>;
}

/**
 * Read a labels file (JSONL): `{"id", "turn"?, "reply", "labels": {criterion: level}, "note"?}`.
 * `id` names a row of the set, or a source record whose `~src` row is in it; the viewer's message,
 * reference and evidence come from that row. Every problem at once, each as `file:line: field`.
 */
export async function readLabels(file: string, rubric: Rubric, rowOf: (id: string) => EpisodeRow | undefined): Promise<Label[]> {
  const out: Label[] = [];
  const problems: string[] = [];
  for await (const { line, text } of readJsonlLines(file)) {
    const where = `${file}:${line}`;
    let v: Record<string, unknown>;
    try {
      v = JSON.parse(text) as Record<string, unknown>;
      if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error('expected an object');
    } catch (e) {
      problems.push(`${where}: not a JSON object (${(e as Error).message})`);
      continue;
    }
    if (typeof v.id !== 'string') {
      problems.push(`${where}: id: expected a string`);
      continue;
    }
    const row = rowOf(v.id) ?? rowOf(`${v.id}~src`);
    if (!row) {
      problems.push(`${where}: id: "${v.id}" is not in the set (neither a row id nor a source with a ~src row)`);
      continue;
    }
    const turn = v.turn ?? 0;
    if (typeof turn !== 'number' || !Number.isInteger(turn) || turn < 0 || turn >= row.userTurns.length) {
      problems.push(`${where}: turn: expected an integer 0..${row.userTurns.length - 1} (the row has ${row.userTurns.length} user turns)`);
      continue;
    }
    if (typeof v.reply !== 'string') {
      problems.push(`${where}: reply: expected a string`);
      continue;
    }
    const given = v.labels;
    if (given === null || typeof given !== 'object' || Array.isArray(given)) {
      problems.push(`${where}: labels: expected an object {criterion: level}`);
      continue;
    }
    const levels: Record<string, number> = {};
    let ok = true;
    for (const [k, x] of Object.entries(given as Record<string, unknown>)) {
      const c = rubric.criteria.find((cr) => cr.id === k);
      if (!c) {
        problems.push(`${where}: labels.${k}: not a criterion of rubric "${rubric.name}" (${rubric.criteria.map((cr) => cr.id).join(', ')})`);
        ok = false;
      } else if (typeof x !== 'number' || !Number.isInteger(x) || x < c.scale.min || x > c.scale.max) {
        problems.push(`${where}: labels.${k}: expected an integer ${c.scale.min}..${c.scale.max}`);
        ok = false;
      } else levels[k] = x;
    }
    if (!ok) continue;
    const reference = row.truth.turns[turn]?.reply ?? row.truth.referenceReply;
    out.push({ where, id: v.id, turn, levels, case: { user: row.userTurns[turn]!, reply: v.reply, reference, evidence: evidenceOf(row, turn) } });
  }
  if (problems.length) throw new LabelsError(problems.join('\n'));
  if (out.length === 0) throw new LabelsError(`${file}: no labels`);
  return out;
}

export interface CriterionAgreement {
  criterion: string;
  n: number;
  accuracy: number;
  /** |judge − human| ≤ 1 level. */
  within_one: number;
  kappa: number | null;
  /** confusion[human][judge] over the scale's levels, min..max. */
  levels: number[];
  confusion: number[][];
}

/** Cohen's kappa of two label lists over `levels`; null when chance agreement is 1 (one level only). */
export function cohenKappa(a: readonly number[], b: readonly number[], levels: readonly number[]): number | null {
  const n = a.length;
  if (n === 0) return null;
  let agree = 0;
  for (let i = 0; i < n; i++) if (a[i] === b[i]) agree++;
  const po = agree / n;
  let pe = 0;
  for (const l of levels) pe += (a.filter((x) => x === l).length / n) * (b.filter((x) => x === l).length / n);
  return pe === 1 ? null : (po - pe) / (1 - pe);
}

/**
 * Judge every labelled reply and compare with the human levels, criterion by criterion: accuracy
 * (exact level), within one level, Cohen's kappa and the confusion table. A judge level from `mean`
 * aggregation is rounded to the nearest level first.
 */
export async function calibrate(
  labels: readonly Label[],
  judge: RubricJudge,
  rubric: Rubric,
  concurrency: number,
): Promise<{
  labels: number;
  criteria: CriterionAgreement[];
  verdicts: { where: string; id: string; judge: Record<string, number>; human: Record<string, number> }[];
}> {
  const limit = pLimit(Math.max(1, concurrency));
  const verdicts = await Promise.all(
    labels.map((l) => limit(async () => ({ where: l.where, id: l.id, judge: (await judge.judge(l.case)).criteria, human: l.levels }))),
  );
  await judge.settle();
  const criteria: CriterionAgreement[] = [];
  for (const c of rubric.criteria) {
    const both = verdicts.filter((v) => v.human[c.id] !== undefined);
    if (both.length === 0) continue;
    const h = both.map((v) => v.human[c.id]!);
    const j = both.map((v) => Math.min(c.scale.max, Math.max(c.scale.min, Math.round(v.judge[c.id]!))));
    const levels = Array.from({ length: c.scale.max - c.scale.min + 1 }, (_, i) => c.scale.min + i);
    const confusion = levels.map((hl) => levels.map((jl) => both.filter((_, i) => h[i] === hl && j[i] === jl).length));
    const k = cohenKappa(h, j, levels);
    criteria.push({
      criterion: c.id,
      n: both.length,
      accuracy: r4(h.filter((x, i) => x === j[i]).length / both.length),
      within_one: r4(h.filter((x, i) => Math.abs(x - j[i]!) <= 1).length / both.length),
      kappa: k === null ? null : r4(k),
      levels,
      confusion,
    });
  }
  return { labels: labels.length, criteria, verdicts };
}
