import type { DiffReport } from './diff.js';
import { formatChange } from './field-diff.js';
import { esc, markedHtml, page, table } from './html.js';

/** The text report of a diff: manifest changes first, then per stage counts and the records shown. */
export function formatDiff(r: DiffReport): string {
  const lines: string[] = [];
  lines.push(`A: ${r.a}`, `B: ${r.b}`);
  if (r.ignore.length) lines.push(`ignoring: ${r.ignore.join(', ')}`);
  if (r.manifest.length) {
    lines.push('', `manifest: ${r.manifest.length} difference${r.manifest.length === 1 ? '' : 's'}`);
    for (const c of r.manifest) lines.push(`  ${c.path}: ${c.old} → ${c.new}`);
  } else lines.push('', 'manifest: no differences');
  for (const s of r.stages) {
    lines.push(
      '',
      `${s.stage}: ${s.records_a} in A, ${s.records_b} in B — ${s.identical} identical, ${s.changed} changed, ${s.only_a} only in A, ${s.only_b} only in B${s.duplicate_ids ? ` (${s.duplicate_ids} repeated ids, paired in order)` : ''}`,
    );
    for (const rc of s.changed_records) {
      lines.push(`  changed ${rc.id}  (${rc.a.file}:${rc.a.line} → ${rc.b.file}:${rc.b.line})`);
      const shown = rc.changes.slice(0, 40);
      for (const c of shown) lines.push(`    ${formatChange(c)}`);
      if (rc.changes.length > shown.length) lines.push(`    … and ${rc.changes.length - shown.length} more fields`);
    }
    if (s.changed > s.changed_records.length) lines.push(`  … and ${s.changed - s.changed_records.length} more changed records (--limit to show more)`);
    if (s.only_a) lines.push(`  only in A: ${s.only_a_ids.join(', ')}${s.only_a > s.only_a_ids.length ? `, … (${s.only_a - s.only_a_ids.length} more)` : ''}`);
    if (s.only_b) lines.push(`  only in B: ${s.only_b_ids.join(', ')}${s.only_b > s.only_b_ids.length ? `, … (${s.only_b - s.only_b_ids.length} more)` : ''}`);
  }
  lines.push('', r.identical ? 'identical' : 'different');
  return `${lines.join('\n')}\n`;
}

/** The same report as one self-contained HTML page. */
export function diffHtml(r: DiffReport): string {
  const parts: string[] = [];
  parts.push(
    `<h2>Manifest</h2>${
      r.manifest.length
        ? table(
            ['key', 'A', 'B'],
            r.manifest.map((c) => [c.path, c.old, c.new]),
          )
        : '<p class="ok">no differences</p>'
    }`,
  );
  parts.push(
    `<h2>Records by stage</h2>${table(
      ['stage', 'in A', 'in B', 'identical', 'changed', 'only in A', 'only in B'],
      r.stages.map((s) => [s.stage, s.records_a, s.records_b, s.identical, s.changed, s.only_a, s.only_b]),
    )}`,
  );
  for (const s of r.stages) {
    if (!s.changed_records.length && !s.only_a && !s.only_b) continue;
    parts.push(`<h2>${esc(s.stage)}</h2>`);
    for (const rc of s.changed_records) {
      const rows = rc.changes
        .slice(0, 200)
        .map(
          (c) =>
            `<tr><td class="mono">${esc(c.path)}</td><td><pre>${c.kind === 'changed' && c.marked ? markedHtml(c.marked) : esc(formatChange(c).slice(c.path.length + 2))}</pre></td></tr>`,
        )
        .join('');
      parts.push(
        `<h3>${esc(rc.id)} <span class="tag">${rc.changes.length} fields</span></h3><table><thead><tr><th>path</th><th>A → B</th></tr></thead><tbody>${rows}</tbody></table>`,
      );
    }
    if (s.changed > s.changed_records.length) parts.push(`<p>… and ${s.changed - s.changed_records.length} more changed records</p>`);
    if (s.only_a)
      parts.push(
        `<p>only in A: <code>${esc(s.only_a_ids.join(', '))}</code>${s.only_a > s.only_a_ids.length ? ` … (${s.only_a - s.only_a_ids.length} more)` : ''}</p>`,
      );
    if (s.only_b)
      parts.push(
        `<p>only in B: <code>${esc(s.only_b_ids.join(', '))}</code>${s.only_b > s.only_b_ids.length ? ` … (${s.only_b - s.only_b_ids.length} more)` : ''}</p>`,
      );
  }
  return page(
    `hsa diff: ${r.identical ? 'identical' : 'different'}`,
    `A: ${r.a} · B: ${r.b}${r.ignore.length ? ` · ignoring ${r.ignore.join(', ')}` : ''}`,
    parts.join('\n'),
  );
}
