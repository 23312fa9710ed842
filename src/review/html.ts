/**
 * Self-contained HTML pages for the review commands: one file, inline CSS and SVG, nothing
 * fetched (no fonts, scripts or images from anywhere), so a report opens from disk or a CI artifact.
 */

/** Text for HTML content and attribute values. */
export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const CSS = `
:root{--fg:#1d2330;--muted:#5b6475;--line:#d8dde6;--bg:#fff;--soft:#f4f6f9;--acc:#2f6fdb;--del:#fde2e1;--delfg:#a1221a;--ins:#dcf5e3;--insfg:#1b6b34}
*{box-sizing:border-box}body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg);margin:0;padding:24px 32px;max-width:1400px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}h3{font-size:15px;margin:18px 0 6px}
.sub{color:var(--muted);margin-bottom:16px}table{border-collapse:collapse;margin:6px 0 12px}td,th{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
th{background:var(--soft);font-weight:600}td.n{text-align:right;font-variant-numeric:tabular-nums}code,pre,.mono{font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{white-space:pre-wrap;word-break:break-word;margin:0}del{background:var(--del);color:var(--delfg);text-decoration:line-through}ins{background:var(--ins);color:var(--insfg);text-decoration:none}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(560px,1fr));gap:18px}.card{border:1px solid var(--line);border-radius:6px;padding:12px 14px;background:#fff}
.card h3{margin-top:0}.side{display:grid;grid-template-columns:1fr 1fr;gap:0;border:1px solid var(--line);margin:6px 0}.side>div{padding:6px 8px;min-width:0}.side>div+div{border-left:1px solid var(--line)}
.tag{display:inline-block;padding:0 6px;border-radius:3px;background:var(--soft);color:var(--muted);font-size:12px}.ok{color:var(--insfg)}.bad{color:var(--delfg)}
svg.chart{max-width:100%;height:auto;display:block;margin-bottom:8px}svg text{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
`;

/** A whole page: title, optional subtitle, body HTML. */
export function page(title: string, subtitle: string, body: string): string {
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)}</title><style>${CSS}</style></head>\n<body><h1>${esc(title)}</h1><div class="sub">${esc(subtitle)}</div>\n${body}\n</body></html>\n`;
}

/** A table from a header row and rows of cells (strings are escaped; numbers right-aligned). */
export function table(head: string[], rows: (string | number)[][]): string {
  const cell = (c: string | number, tag: string) =>
    typeof c === 'number' ? `<${tag} class="n">${c.toLocaleString('en-US')}</${tag}>` : `<${tag}>${esc(c)}</${tag}>`;
  return `<table><thead><tr>${head.map((h) => cell(h, 'th')).join('')}</tr></thead><tbody>${rows.map((r) => `<tr>${r.map((c) => cell(c, 'td')).join('')}</tr>`).join('\n')}</tbody></table>`;
}

/** `…before[-old-]{+new+}after…` (a wdiff-marked span) as HTML with <del>/<ins>. */
export function markedHtml(marked: string): string {
  let out = '';
  const re = /\[-([\s\S]*?)-\]|\{\+([\s\S]*?)\+\}/g;
  let last = 0;
  for (const m of marked.matchAll(re)) {
    out += esc(marked.slice(last, m.index));
    out += m[1] !== undefined ? `<del>${esc(m[1])}</del>` : `<ins>${esc(m[2]!)}</ins>`;
    last = m.index + m[0].length;
  }
  return out + esc(marked.slice(last));
}

const PALETTE = ['#2f6fdb', '#e07b39', '#3a9d5d', '#b04fc4', '#c9a227', '#d0455b', '#3fa7b5', '#7a6a58'];

/**
 * A horizontal bar chart as inline SVG: one labelled bar per item, values at the bar ends.
 * Sized from its data so long labels stay readable.
 */
export function barChart(
  title: string,
  items: readonly { label: string; value: number }[],
  opts: { width?: number; color?: string; unit?: string; max?: number } = {},
): string {
  const width = opts.width ?? 520;
  const rowH = 22;
  const labelW = Math.min(230, Math.max(60, Math.max(0, ...items.map((i) => i.label.length)) * 7 + 10));
  const top = 26;
  const height = top + Math.max(1, items.length) * rowH + 8;
  const max = opts.max ?? Math.max(1, ...items.map((i) => i.value));
  const barMax = width - labelW - 70;
  const color = opts.color ?? PALETTE[0]!;
  const bars = items
    .map((it, k) => {
      const y = top + k * rowH;
      const w = Math.max(it.value > 0 ? 2 : 0, Math.round((it.value / max) * barMax));
      const label = it.label.length > 32 ? `${it.label.slice(0, 31)}…` : it.label;
      return `<g><title>${esc(`${it.label}: ${it.value.toLocaleString('en-US')}${opts.unit ?? ''}`)}</title><text x="${labelW - 6}" y="${y + 15}" text-anchor="end" font-size="12" fill="#1d2330">${esc(label)}</text><rect class="bar" x="${labelW}" y="${y + 3}" width="${w}" height="${rowH - 7}" rx="2" fill="${color}"></rect><text x="${labelW + w + 5}" y="${y + 15}" font-size="12" fill="#5b6475">${esc(it.value.toLocaleString('en-US'))}${esc(opts.unit ?? '')}</text></g>`;
    })
    .join('');
  const empty = items.length === 0 ? `<text x="${labelW}" y="${top + 15}" font-size="12" fill="#5b6475">(none)</text>` : '';
  return `<svg class="chart" role="img" aria-label="${esc(title)}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" xmlns="http://www.w3.org/2000/svg"><text x="0" y="16" font-size="13" font-weight="600" fill="#1d2330">${esc(title)}</text>${bars}${empty}</svg>`;
}

/**
 * A histogram as inline SVG: vertical bars over value buckets, with the bucket bounds under the
 * axis and the count above each bar.
 */
export function histogram(
  title: string,
  buckets: readonly { from: number; to: number; count: number }[],
  opts: { width?: number; color?: string; unit?: string } = {},
): string {
  const width = opts.width ?? 520;
  const height = 232;
  const left = 44;
  const top = 40;
  const bottom = 44;
  const plotH = height - top - bottom;
  const n = Math.max(1, buckets.length);
  const bw = (width - left - 10) / n;
  const max = Math.max(1, ...buckets.map((b) => b.count));
  const color = opts.color ?? PALETTE[2]!;
  const short = (x: number) =>
    x >= 1_000_000
      ? `${(x / 1_000_000).toFixed(1)}M`
      : x >= 10_000
        ? `${Math.round(x / 1000)}k`
        : x >= 1000
          ? `${(x / 1000).toFixed(1)}k`
          : String(Math.round(x));
  const bars = buckets
    .map((b, k) => {
      const h = b.count > 0 ? Math.max(2, Math.round((b.count / max) * plotH)) : 0;
      const x = left + k * bw;
      const y = top + plotH - h;
      const label = k % Math.ceil(n / 8) === 0 ? `<text x="${x + 2}" y="${top + plotH + 16}" font-size="11" fill="#5b6475">${esc(short(b.from))}</text>` : '';
      return `<g><title>${esc(`${short(b.from)}–${short(b.to)}${opts.unit ?? ''}: ${b.count}`)}</title><rect class="bar" x="${(x + 1).toFixed(1)}" y="${y}" width="${Math.max(1, bw - 2).toFixed(1)}" height="${h}" fill="${color}"></rect>${b.count > 0 && n <= 24 ? `<text x="${(x + bw / 2).toFixed(1)}" y="${y - 3}" font-size="10" text-anchor="middle" fill="#5b6475">${b.count}</text>` : ''}${label}</g>`;
    })
    .join('');
  const axis = `<line x1="${left}" y1="${top + plotH}" x2="${width - 10}" y2="${top + plotH}" stroke="#9aa3b2"></line><line x1="${left}" y1="${top}" x2="${left}" y2="${top + plotH}" stroke="#9aa3b2"></line><text x="${left - 6}" y="${top + 8}" font-size="11" text-anchor="end" fill="#5b6475">${max}</text><text x="${left - 6}" y="${top + plotH}" font-size="11" text-anchor="end" fill="#5b6475">0</text>`;
  const unit = opts.unit ? `<text x="${width - 10}" y="${height - 8}" font-size="11" text-anchor="end" fill="#5b6475">${esc(opts.unit)}</text>` : '';
  return `<svg class="chart" role="img" aria-label="${esc(title)}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" xmlns="http://www.w3.org/2000/svg"><text x="0" y="16" font-size="13" font-weight="600" fill="#1d2330">${esc(title)}</text>${axis}${bars}${unit}</svg>`;
}

/** Stacked share bars (0–100 %) as inline SVG: one row per item with the renamed share filled. */
export function shareChart(title: string, items: readonly { label: string; share: number; note?: string }[], opts: { width?: number } = {}): string {
  return barChart(
    title,
    items.map((i) => ({ label: i.label, value: Math.round(i.share * 1000) / 10 })),
    { ...opts, color: PALETTE[1]!, unit: ' %', max: 100 },
  );
}
