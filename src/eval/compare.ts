import { esc, page, table, barChart } from '../review/html.js';
import type { EpisodeOutcome } from './model.js';
import { COMPONENTS, failureWhy } from './report.js';
import type { EvalRow } from './set.js';
import { bootstrap, r4, type Estimate } from './stats.js';

/** The source rows of dev records under one harness, and the records that cannot be run under it. */
export interface HarnessRows {
  harness: string;
  rows: EvalRow[];
  /** Source id → why the record has no row under this harness (the augment reject reason). */
  rejected: Map<string, string>;
}

export interface PairedRecord {
  id: string;
  a: number | null;
  b: number | null;
  diff: number | null;
  outcome: 'win' | 'loss' | 'tie' | 'missing';
  why_b: string;
}

export interface CompareReport {
  model: { base_url: string; model: string };
  harness: { a: string; b: string };
  records: number;
  a: { mean: number | null; components: Record<string, number | null> };
  b: { mean: number | null; components: Record<string, number | null> };
  /** Mean of (B − A) over records scored under both, with a bootstrap interval. */
  diff: Estimate;
  wins: number;
  losses: number;
  ties: number;
  missing: number;
  /** Records worse under B (a loss beyond `tolerance`, or no row under B), worst first. */
  regressed: PairedRecord[];
  per_record: PairedRecord[];
}

/**
 * Pair the dev records' rewards under harness A and B: per record B − A, a win when B is better
 * by more than `tolerance`, a loss when worse, else a tie; a record that cannot be run under B
 * (rejected when its rows were built) counts as a regression with the reason.
 */
export function compareReport(
  a: { rows: HarnessRows; outcomes: EpisodeOutcome[] },
  b: { rows: HarnessRows; outcomes: EpisodeOutcome[] },
  o: { model: { baseUrl: string; model: string }; samples: number; seed: string; tolerance: number },
): CompareReport {
  const byId = (xs: EpisodeOutcome[]) => new Map(xs.map((x) => [x.row.sourceId, x]));
  const ma = byId(a.outcomes);
  const mb = byId(b.outcomes);
  const ids = [...new Set([...ma.keys(), ...mb.keys(), ...a.rows.rejected.keys(), ...b.rows.rejected.keys()])].sort();
  const per: PairedRecord[] = ids.map((id) => {
    const ra = ma.get(id)?.result?.reward ?? null;
    const xb = mb.get(id);
    const rb = xb?.result?.reward ?? null;
    const whyB = xb?.result ? failureWhy(xb.result) : (xb?.error ?? b.rows.rejected.get(id) ?? 'no row under B');
    if (ra === null || rb === null) return { id, a: ra, b: rb, diff: null, outcome: 'missing', why_b: whyB };
    const diff = r4(rb - ra);
    return { id, a: ra, b: rb, diff, outcome: diff > o.tolerance ? 'win' : diff < -o.tolerance ? 'loss' : 'tie', why_b: whyB };
  });
  const paired = per.filter((p) => p.diff !== null);
  const condition = (xs: EpisodeOutcome[]) => {
    const scored = xs.flatMap((x) => (x.result ? [x.result] : []));
    const m = (f: (r: (typeof scored)[number]) => number) => (scored.length ? r4(scored.reduce((s, r) => s + f(r), 0) / scored.length) : null);
    return { mean: m((r) => r.reward), components: Object.fromEntries(COMPONENTS.map((c) => [c, m((r) => r.components[c])])) };
  };
  const regressed = per
    .filter((p) => p.outcome === 'loss' || (p.outcome === 'missing' && p.a !== null))
    .sort((x, y) => (x.diff ?? -Infinity) - (y.diff ?? -Infinity) || (x.id < y.id ? -1 : 1));
  return {
    model: { base_url: o.model.baseUrl, model: o.model.model },
    harness: { a: a.rows.harness, b: b.rows.harness },
    records: ids.length,
    a: condition(a.outcomes),
    b: condition(b.outcomes),
    diff: bootstrap(
      paired.map((p) => p.diff!),
      o.samples,
      o.seed,
      'b-minus-a',
    ),
    wins: per.filter((p) => p.outcome === 'win').length,
    losses: per.filter((p) => p.outcome === 'loss').length,
    ties: per.filter((p) => p.outcome === 'tie').length,
    missing: per.filter((p) => p.outcome === 'missing').length,
    regressed,
    per_record: per,
  };
}

const num = (x: number | null) => (x === null ? '-' : x.toFixed(4));

export function compareText(r: CompareReport): string {
  const lines = [
    `hsa eval: ${r.model.model} at ${r.model.base_url}, harness A ${r.harness.a} vs B ${r.harness.b}, ${r.records} dev records`,
    `mean reward over the rows each harness could run: A ${num(r.a.mean)}, B ${num(r.b.mean)}; B − A ${num(r.diff.mean)} [${num(r.diff.lo)}, ${num(r.diff.hi)}] over ${r.diff.n} paired records`,
    ...COMPONENTS.map((c) => `  ${c.padEnd(18)} A ${num(r.a.components[c] ?? null)}  B ${num(r.b.components[c] ?? null)}`),
    `wins ${r.wins}, losses ${r.losses}, ties ${r.ties}, missing ${r.missing}`,
    `regressed under B (${r.regressed.length}):`,
    ...r.regressed.map((p) => `  ${p.id}  A ${num(p.a)}  B ${num(p.b)}  ${p.diff === null ? 'no row under B' : `Δ ${num(p.diff)}`}  ${p.why_b}`),
  ];
  return `${lines.join('\n')}\n`;
}

export function compareHtml(r: CompareReport): string {
  const body = [
    '<h2>Side by side</h2>',
    table(
      ['score', 'A', 'B'],
      [['reward', num(r.a.mean), num(r.b.mean)], ...COMPONENTS.map((c) => [c, num(r.a.components[c] ?? null), num(r.b.components[c] ?? null)])],
    ),
    barChart('records', [
      { label: 'wins', value: r.wins },
      { label: 'losses', value: r.losses },
      { label: 'ties', value: r.ties },
      { label: 'missing', value: r.missing },
    ]),
    `<p>B − A: ${esc(`${num(r.diff.mean)} [${num(r.diff.lo)}, ${num(r.diff.hi)}]`)} over ${r.diff.n} paired records.</p>`,
    `<h2>Regressed under B (${r.regressed.length})</h2>`,
    table(
      ['id', 'A', 'B', 'B − A', 'why (B)'],
      r.regressed.map((p) => [p.id, num(p.a), num(p.b), num(p.diff), p.why_b]),
    ),
    '<h2>Every record</h2>',
    table(
      ['id', 'A', 'B', 'B − A', 'outcome'],
      r.per_record.map((p) => [p.id, num(p.a), num(p.b), num(p.diff), p.outcome]),
    ),
  ].join('\n');
  return page(`hsa eval: harness ${r.harness.a} vs ${r.harness.b}`, `${r.model.model} at ${r.model.base_url}; ${r.records} dev records`, body);
}
