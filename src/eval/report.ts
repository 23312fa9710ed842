import { cmp } from '../problems.js';
import type { RewardResult } from '../episode/reward.js';
import { barChart, esc, page, table } from '../review/html.js';
import type { EpisodeOutcome } from './model.js';
import { bootstrap, r4, type Estimate } from './stats.js';

export const COMPONENTS = ['skill_selection', 'tool_rationality', 'hook_compliance', 'reply_quality', 'reasoning_penalty'] as const;
type Component = (typeof COMPONENTS)[number];

/** Scores of one harness condition: the reward and every component, with intervals. */
export interface ConditionScores {
  n: number;
  reward: Estimate;
  components: Record<Component, Estimate>;
}

/** The robustness gap of a group: source score − variant score, paired by source record. */
export interface GapRow {
  key: string;
  n: number;
  source: number | null;
  variants: number | null;
  gap: Estimate;
  components: Record<Component, number | null>;
}

export interface EvalReport {
  model: { base_url: string; model: string };
  set: { files: string[]; rows: number; sources: number; variants: number; scored: number; errors: number };
  bootstrap: { samples: number; seed: string; level: 0.95 };
  reply: string;
  source: ConditionScores;
  variants: ConditionScores;
  gap: { overall: GapRow; families: GapRow[]; family_only: GapRow[]; transforms: GapRow[]; skills: GapRow[]; intents: GapRow[] };
  failures: { id: string; source_id: string; reward: number | null; why: string }[];
}

export interface ReportOptions {
  files: string[];
  model: { baseUrl: string; model: string };
  samples: number;
  seed: string;
  /** A scored row below this reward is listed as a failure. */
  failBelow: number;
}

const avg = (xs: number[]) => (xs.length ? r4(xs.reduce((a, b) => a + b, 0) / xs.length) : null);

function scores(list: RewardResult[], o: ReportOptions, label: string): ConditionScores {
  const components = {} as Record<Component, Estimate>;
  for (const c of COMPONENTS)
    components[c] = bootstrap(
      list.map((r) => r.components[c]),
      o.samples,
      o.seed,
      `${label}/${c}`,
    );
  return {
    n: list.length,
    reward: bootstrap(
      list.map((r) => r.reward),
      o.samples,
      o.seed,
      `${label}/reward`,
    ),
    components,
  };
}

interface Pair {
  src: RewardResult;
  v: RewardResult;
  outcome: EpisodeOutcome;
}

function gapRow(key: string, pairs: Pair[], o: ReportOptions, label: string): GapRow {
  const components = {} as Record<Component, number | null>;
  for (const c of COMPONENTS) components[c] = avg(pairs.map((p) => p.src.components[c] - p.v.components[c]));
  return {
    key,
    n: pairs.length,
    source: avg(pairs.map((p) => p.src.reward)),
    variants: avg(pairs.map((p) => p.v.reward)),
    gap: bootstrap(
      pairs.map((p) => p.src.reward - p.v.reward),
      o.samples,
      o.seed,
      label,
    ),
    components,
  };
}

function grouped(pairs: Pair[], keysOf: (p: Pair) => string[], o: ReportOptions, label: string): GapRow[] {
  const groups = new Map<string, Pair[]>();
  for (const p of pairs) for (const k of new Set(keysOf(p))) groups.set(k, [...(groups.get(k) ?? []), p]);
  return [...groups.keys()].sort(cmp).map((k) => gapRow(k, groups.get(k)!, o, `${label}/${k}`));
}

/**
 * The evaluation report: scores under the source harness (the `~src` rows) and under its
 * variants, and the robustness gap — for each variant, its source's reward minus its own, so the
 * gap of a group is a paired difference with a bootstrap interval — overall, per transform family
 * and transform (a variant counts in every one it applied), per expected skill and per intent.
 * Every number comes from the outcomes in set order, so the report's bytes are a function of the
 * answers alone.
 */
export function buildReport(outcomes: readonly EpisodeOutcome[], o: ReportOptions, reply: string): EvalReport {
  const bySource = new Map<string, RewardResult>();
  for (const x of outcomes) if (x.row.variant === 'src' && x.result) bySource.set(x.row.sourceId, x.result);
  const srcRows = outcomes.filter((x) => x.row.variant === 'src');
  const varRows = outcomes.filter((x) => x.row.variant !== 'src');
  const pairs: Pair[] = [];
  for (const x of varRows) {
    const src = bySource.get(x.row.sourceId);
    if (src && x.result) pairs.push({ src, v: x.result, outcome: x });
  }
  const sourceOf = new Map(srcRows.map((x) => [x.row.sourceId, x]));
  const skillKeys = (p: Pair) => {
    const s = sourceOf.get(p.outcome.row.sourceId)!.row.row.truth.expectedSkills;
    return s.length ? s : ['(no skill)'];
  };
  const failures = outcomes
    .filter((x) => x.error || (x.result && x.result.reward < o.failBelow))
    .map((x) => ({ id: x.row.row.id, source_id: x.row.sourceId, reward: x.result ? x.result.reward : null, why: x.error ?? failureWhy(x.result!) }));
  return {
    model: { base_url: o.model.baseUrl, model: o.model.model },
    set: {
      files: o.files,
      rows: outcomes.length,
      sources: srcRows.length,
      variants: varRows.length,
      scored: outcomes.filter((x) => x.result).length,
      errors: outcomes.filter((x) => x.error).length,
    },
    bootstrap: { samples: o.samples, seed: o.seed, level: 0.95 },
    reply,
    source: scores(
      srcRows.flatMap((x) => (x.result ? [x.result] : [])),
      o,
      'source',
    ),
    variants: scores(
      varRows.flatMap((x) => (x.result ? [x.result] : [])),
      o,
      'variants',
    ),
    gap: {
      overall: gapRow('all variants', pairs, o, 'gap'),
      families: grouped(pairs, (p) => p.outcome.row.transforms.map((t) => t.family), o, 'family'),
      // Variants changed by one family alone: the gap that family causes by itself (a set built
      // with one family's transforms, `--transforms tools.*`, has only these).
      family_only: grouped(
        pairs,
        (p) => {
          const fams = [...new Set(p.outcome.row.transforms.map((t) => t.family))];
          return fams.length === 1 ? fams : [];
        },
        o,
        'family-only',
      ),
      transforms: grouped(pairs, (p) => p.outcome.row.transforms.map((t) => t.id), o, 'transform'),
      skills: grouped(pairs, skillKeys, o, 'skill'),
      intents: grouped(pairs, (p) => [sourceOf.get(p.outcome.row.sourceId)!.row.row.intent ?? '(no intent)'], o, 'intent'),
    },
    failures,
  };
}

/** The weakest components of a low-scoring row, in words (the detail is in `hsa show` and --json). */
export function failureWhy(r: RewardResult): string {
  const parts: string[] = [];
  const t = r.detail.tools;
  if (r.components.tool_rationality < 1)
    parts.push(
      `tools ${r.components.tool_rationality} (${t.matched}/${t.expected} expected calls matched, ${t.invalid} invalid${t.stale_names.length ? `, old names ${t.stale_names.join(', ')}` : ''})`,
    );
  if (r.components.skill_selection < 1)
    parts.push(
      `skills ${r.components.skill_selection} (selected ${r.detail.skills.selected.join(', ') || 'none'}, expected ${r.detail.skills.expected.join(', ') || 'none'})`,
    );
  if (r.components.hook_compliance < 1) parts.push(`hooks ${r.components.hook_compliance}`);
  if (r.components.reply_quality < 1) parts.push(`reply ${r.components.reply_quality}`);
  if (r.detail.truncated) parts.push(`cut off (${r.detail.truncated})`);
  return parts.join('; ') || 'low reward';
}

const fmt = (e: Estimate) => (e.mean === null ? '-' : `${e.mean.toFixed(4)} [${e.lo!.toFixed(4)}, ${e.hi!.toFixed(4)}]`);
const num = (x: number | null) => (x === null ? '-' : x.toFixed(4));

function gapLines(title: string, rows: GapRow[]): string[] {
  if (rows.length === 0) return [];
  const w = Math.max(10, ...rows.map((r) => r.key.length));
  return [
    `${title}:`,
    `  ${'group'.padEnd(w)}  ${'n'.padStart(5)}  ${'source'.padStart(7)}  ${'variant'.padStart(7)}  gap [95% CI]`,
    ...rows.map((r) => `  ${r.key.padEnd(w)}  ${String(r.n).padStart(5)}  ${num(r.source).padStart(7)}  ${num(r.variants).padStart(7)}  ${fmt(r.gap)}`),
    '',
  ];
}

/** The report as text (what `hsa eval` prints without --json). */
export function reportText(r: EvalReport): string {
  const lines = [
    `hsa eval: ${r.model.model} at ${r.model.base_url}`,
    `set: ${r.set.rows} rows (${r.set.sources} source, ${r.set.variants} variants), ${r.set.scored} scored, ${r.set.errors} errors; reply quality: ${r.reply}`,
    `bootstrap: ${r.bootstrap.samples} resamples, seed ${r.bootstrap.seed}, 95% intervals`,
    '',
    `${'score'.padEnd(18)}  ${'source harness'.padEnd(26)}  variants`,
    `${'reward'.padEnd(18)}  ${fmt(r.source.reward).padEnd(26)}  ${fmt(r.variants.reward)}`,
    ...COMPONENTS.map((c) => `${c.padEnd(18)}  ${fmt(r.source.components[c]).padEnd(26)}  ${fmt(r.variants.components[c])}`),
    '',
    `robustness gap (source − variant, paired): ${fmt(r.gap.overall.gap)} over ${r.gap.overall.n} variants`,
    '',
    ...gapLines('per transform family', r.gap.families),
    ...gapLines('per transform family, variants changed by that family only', r.gap.family_only),
    ...gapLines('per transform', r.gap.transforms),
    ...gapLines('per skill', r.gap.skills),
    ...gapLines('per intent', r.gap.intents),
    `failures (${r.failures.length}; open one with: hsa show OUT --id ID):`,
    ...r.failures.map((f) => `  ${f.id}  ${f.reward === null ? 'error' : f.reward.toFixed(4)}  ${f.why}`),
  ];
  return `${lines.join('\n')}\n`;
}

function gapTable(rows: GapRow[]): string {
  return table(
    ['group', 'n', 'source', 'variants', 'gap', '95% CI', ...COMPONENTS.map((c) => `Δ ${c}`)],
    rows.map((g) => [
      g.key,
      g.n,
      num(g.source),
      num(g.variants),
      num(g.gap.mean),
      g.gap.lo === null ? '-' : `[${g.gap.lo.toFixed(4)}, ${g.gap.hi!.toFixed(4)}]`,
      ...COMPONENTS.map((c) => num(g.components[c])),
    ]),
  );
}

/** The report as one self-contained HTML page (inline CSS and SVG charts). */
export function reportHtml(r: EvalReport): string {
  const gapChart = (title: string, rows: GapRow[]) =>
    barChart(
      title,
      rows.map((g) => ({ label: `${g.key} (n=${g.n})`, value: Math.max(0, g.gap.mean ?? 0) })),
      { max: 1, color: '#d0455b' },
    );
  const body = [
    '<h2>Scores</h2>',
    table(
      ['score', 'source harness', 'variants'],
      [['reward', fmt(r.source.reward), fmt(r.variants.reward)], ...COMPONENTS.map((c) => [c, fmt(r.source.components[c]), fmt(r.variants.components[c])])],
    ),
    barChart(
      'mean reward',
      [
        { label: 'source harness', value: r.source.reward.mean ?? 0 },
        { label: 'variants', value: r.variants.reward.mean ?? 0 },
      ],
      { max: 1 },
    ),
    `<h2>Robustness gap</h2><p>Source reward minus variant reward, paired by source record: ${esc(fmt(r.gap.overall.gap))} over ${r.gap.overall.n} variants. Bars show gaps above zero; the tables hold every value.</p>`,
    '<div class="grid">',
    `<div class="card"><h3>Per transform family</h3>${gapChart('gap per family', r.gap.families)}${gapTable(r.gap.families)}</div>`,
    `<div class="card"><h3>Per family, variants changed by that family only</h3>${gapTable(r.gap.family_only)}</div>`,
    `<div class="card"><h3>Per transform</h3>${gapChart('gap per transform', r.gap.transforms)}${gapTable(r.gap.transforms)}</div>`,
    `<div class="card"><h3>Per skill</h3>${gapTable(r.gap.skills)}</div>`,
    `<div class="card"><h3>Per intent</h3>${gapTable(r.gap.intents)}</div>`,
    '</div>',
    `<h2>Failures (${r.failures.length})</h2><p>Open one with <code>hsa show OUT --id ID</code>.</p>`,
    table(
      ['id', 'source', 'reward', 'why'],
      r.failures.map((f) => [f.id, f.source_id, f.reward === null ? 'error' : f.reward.toFixed(4), f.why]),
    ),
  ].join('\n');
  return page(
    `hsa eval: ${r.model.model}`,
    `${r.set.rows} rows (${r.set.sources} source, ${r.set.variants} variants) from ${r.set.files.join(', ')}; reply quality: ${r.reply}; ${r.bootstrap.samples} bootstrap resamples, seed ${r.bootstrap.seed}`,
    body,
  );
}
