import { barChart, esc, histogram, page, shareChart, table } from './html.js';
import type { Distribution, StatsReport } from './stats.js';

const KINDS = ['tools', 'skills', 'params', 'hooks'] as const;

/** The text report of `hsa stats`. */
export function formatStats(r: StatsReport): string {
  const L: string[] = [];
  L.push(`${r.out}: ${r.variants} variants`);
  L.push('', 'records per stage:');
  for (const [s, v] of Object.entries(r.stages))
    L.push(`  ${s.padEnd(8)} ${String(v.records).padStart(8)}  in ${v.parts.length} parts (${v.parts.map((p) => p.records).join(', ')})`);
  const reasons = Object.entries(r.rejects.by_reason);
  L.push('', `rejects: ${reasons.length ? '' : 'none'}`);
  for (const [k, n] of reasons.sort((a, b) => b[1] - a[1])) L.push(`  ${String(n).padStart(6)}  ${k}`);
  L.push('', 'transforms (share of variants; parameters):');
  for (const [id, t] of Object.entries(r.transforms)) {
    const params = Object.entries(t.params)
      .map(
        ([k, vals]) =>
          `${k}: ${Object.entries(vals)
            .sort((a, b) => b[1] - a[1])
            .slice(0, 4)
            .map(([v, n]) => `${v} ×${n}`)
            .join(', ')}`,
      )
      .join('; ');
    L.push(`  ${id.padEnd(24)} ${String(t.applied).padStart(6)}  ${pct(t.share).padStart(6)}  ${params}`);
  }
  L.push('', 'name diversity (variants renaming it, distinct new names, most frequent):');
  for (const kind of KINDS) {
    const entries = Object.entries(r.names[kind]);
    if (!entries.length) continue;
    L.push(`  ${kind}:`);
    for (const [orig, d] of entries)
      L.push(
        `    ${orig.padEnd(28)} ${pct(d.share).padStart(6)}  ${String(d.distinct_new_names).padStart(3)} names  ${d.top
          .slice(0, 3)
          .map(([n, c]) => `${n} ×${c}`)
          .join(', ')}`,
      );
  }
  L.push('', 'sizes (min / p50 / mean / p90 / max):');
  for (const [s, z] of Object.entries(r.sizes)) {
    L.push(`  ${s}: chars ${dist(z.chars)}; messages ${dist(z.messages)}; tool calls ${dist(z.tool_calls)}`);
  }
  L.push('', 'coverage (sources / variants):');
  L.push(
    `  intents: ${
      Object.entries(r.coverage.intents)
        .map(([k, c]) => `${k} ${c.sources}/${c.variants}`)
        .join(', ') || '(none recorded)'
    }`,
  );
  L.push(
    `  skills: ${
      Object.entries(r.coverage.skills)
        .map(([k, c]) => `${k} ${c.sources}/${c.variants}`)
        .join(', ') || '(no RL stage)'
    }`,
  );
  for (const w of r.warnings) L.push(`warning: ${w}`);
  return `${L.join('\n')}\n`;
}

function pct(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}

function dist(d: Distribution): string {
  return `${d.min} / ${d.p50} / ${d.mean} / ${d.p90} / ${d.max}`;
}

/** The stats report as one self-contained HTML page with inline SVG charts. */
export function statsHtml(r: StatsReport): string {
  const cards: string[] = [];
  const card = (title: string, body: string) => cards.push(`<div class="card"><h3>${esc(title)}</h3>${body}</div>`);
  card(
    'Records per stage',
    barChart(
      'records',
      Object.entries(r.stages).map(([s, v]) => ({ label: s, value: v.records })),
    ),
  );
  card(
    'Rejects by reason',
    barChart(
      'rejected records',
      Object.entries(r.rejects.by_reason)
        .sort((a, b) => b[1] - a[1])
        .map(([k, n]) => ({ label: k, value: n })),
      { color: '#d0455b' },
    ),
  );
  card(
    `Transforms applied (of ${r.variants} variants)`,
    shareChart(
      'share of variants',
      Object.entries(r.transforms).map(([id, t]) => ({ label: id, share: t.share })),
    ),
  );
  for (const kind of KINDS) {
    const entries = Object.entries(r.names[kind]);
    if (!entries.length) continue;
    card(
      `Name diversity: ${kind}`,
      barChart(
        'distinct new names per original',
        entries.map(([o, d]) => ({ label: o, value: d.distinct_new_names })),
        { color: '#b04fc4' },
      ) +
        shareChart(
          'share of variants that renamed it',
          entries.map(([o, d]) => ({ label: o, share: d.share })),
        ),
    );
  }
  for (const [s, z] of Object.entries(r.sizes)) {
    if (!z.chars.count) continue;
    card(
      `Sizes: ${s}`,
      histogram('characters per record', z.chars.histogram, { unit: 'chars' }) +
        histogram('messages per record', z.messages.histogram, { color: '#3fa7b5', unit: 'messages' }) +
        histogram('tool calls per record', z.tool_calls.histogram, { color: '#c9a227', unit: 'tool calls' }),
    );
  }
  const intents = Object.entries(r.coverage.intents);
  if (intents.length)
    card(
      'Coverage: intents',
      barChart(
        'variants per intent',
        intents.map(([k, c]) => ({ label: k, value: c.variants })),
      ) +
        table(
          ['intent', 'sources', 'variants'],
          intents.map(([k, c]) => [k, c.sources, c.variants]),
        ),
    );
  const skills = Object.entries(r.coverage.skills);
  if (skills.length)
    card(
      'Coverage: skills loaded',
      barChart(
        'variants loading the skill',
        skills.map(([k, c]) => ({ label: k, value: c.variants })),
        { color: '#3a9d5d' },
      ) +
        table(
          ['skill', 'sources', 'variants'],
          skills.map(([k, c]) => [k, c.sources, c.variants]),
        ),
    );
  const params = Object.entries(r.transforms).map(
    ([id, t]) =>
      [
        id,
        t.applied,
        Object.entries(t.params)
          .map(
            ([k, vals]) =>
              `${k}: ${Object.entries(vals)
                .sort((a, b) => b[1] - a[1])
                .slice(0, 5)
                .map(([v, n]) => `${v} ×${n}`)
                .join(', ')}`,
          )
          .join('; '),
      ] as (string | number)[],
  );
  const body = `<div class="grid">${cards.join('\n')}</div>
<h2>Transform parameters</h2>${table(['transform', 'applied', 'parameters (most frequent values)'], params)}
<h2>Parts</h2>${table(
    ['stage', 'part', 'records'],
    Object.entries(r.stages).flatMap(([s, v]) => v.parts.map((p) => [s, p.file, p.records])),
  )}
${r.warnings.length ? `<h2 class="bad">Warnings</h2><ul>${r.warnings.map((w) => `<li>${esc(w)}</li>`).join('')}</ul>` : ''}`;
  return page('hsa stats', `${r.out} · ${r.variants} variants · counts ${r.counts_match_manifest ? 'match' : 'DO NOT match'} the manifest`, body);
}
