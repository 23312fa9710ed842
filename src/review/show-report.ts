import { esc, page } from './html.js';
import type { MessageRow, ShowView } from './show.js';
import type { Segment, SectionChange } from './text-diff.js';

/** How text output is styled: ANSI colour only on a terminal and without NO_COLOR. */
export interface TextStyle {
  color: boolean;
  /** Total width for side-by-side columns. */
  width: number;
}

const C = { del: '\x1b[31;1m', ins: '\x1b[32;1m', dim: '\x1b[2m', bold: '\x1b[1m', reset: '\x1b[0m' };

/** Display width of a character: East Asian wide and full-width forms take two columns. */
function charWidth(ch: string): number {
  const c = ch.codePointAt(0)!;
  return (c >= 0x1100 && c <= 0x115f) ||
    (c >= 0x2e80 && c <= 0xa4cf) ||
    (c >= 0xac00 && c <= 0xd7a3) ||
    (c >= 0xf900 && c <= 0xfaff) ||
    (c >= 0xfe30 && c <= 0xfe4f) ||
    (c >= 0xff00 && c <= 0xff60) ||
    (c >= 0xffe0 && c <= 0xffe6) ||
    (c >= 0x1f300 && c <= 0x1faff)
    ? 2
    : 1;
}

type Piece = { text: string; changed: boolean };

/** Segments wrapped into lines of at most `width` columns; without colour the changed spans carry wdiff marks. */
function wrap(segs: Segment[], width: number, color: boolean, side: 'left' | 'right'): { pieces: Piece[]; w: number }[] {
  const marked: Piece[] = color
    ? segs
    : segs.map((s) => ({ text: s.changed ? (side === 'left' ? `[-${s.text}-]` : `{+${s.text}+}`) : s.text, changed: false }));
  const lines: { pieces: Piece[]; w: number }[] = [{ pieces: [], w: 0 }];
  const put = (ch: string, changed: boolean) => {
    let line = lines[lines.length - 1]!;
    const cw = charWidth(ch);
    if (line.w + cw > width) {
      line = { pieces: [], w: 0 };
      lines.push(line);
    }
    const last = line.pieces[line.pieces.length - 1];
    if (last && last.changed === changed) last.text += ch;
    else line.pieces.push({ text: ch, changed });
    line.w += cw;
  };
  for (const s of marked) {
    for (const ch of s.text) {
      if (ch === '\n') lines.push({ pieces: [], w: 0 });
      else if (ch !== '\r') put(ch === '\t' ? ' ' : ch, s.changed);
    }
  }
  return lines;
}

function paint(pieces: Piece[], color: boolean, side: 'left' | 'right'): string {
  return pieces.map((p) => (color && p.changed ? `${side === 'left' ? C.del : C.ins}${p.text}${C.reset}` : p.text)).join('');
}

/** Segments cut into rows at newlines. */
function rows(segs: Segment[]): Segment[][] {
  const out: Segment[][] = [[]];
  for (const s of segs) {
    const parts = s.text.split('\n');
    parts.forEach((p, k) => {
      if (k > 0) out.push([]);
      if (p !== '') out[out.length - 1]!.push({ text: p, changed: s.changed });
    });
  }
  return out;
}

/**
 * Two columns side by side (source | variant), padded by display width. Row k of one side stands
 * beside row k of the other, each wrapped on its own, so paired lines stay level however they wrap.
 */
export function sideBySide(left: Segment[], right: Segment[], style: TextStyle, indent = '  '): string[] {
  const col = Math.max(20, Math.floor((style.width - indent.length - 3) / 2));
  const lr = rows(left);
  const rr = rows(right);
  const out: string[] = [];
  for (let k = 0; k < Math.max(lr.length, rr.length); k++) {
    const l = wrap(lr[k] ?? [], col, style.color, 'left');
    const r = wrap(rr[k] ?? [], col, style.color, 'right');
    for (let n = 0; n < Math.max(l.length, r.length); n++) {
      const a = l[n] ?? { pieces: [], w: 0 };
      const b = r[n] ?? { pieces: [], w: 0 };
      out.push(`${indent}${paint(a.pieces, style.color, 'left')}${' '.repeat(Math.max(0, col - a.w))} │ ${paint(b.pieces, style.color, 'right')}`.trimEnd());
    }
  }
  return out;
}

const SECTION_MARK: Record<SectionChange['status'], string> = { same: '=', restyled: '~', changed: '≠', added: '+', removed: '-' };

/** The text view of `hsa show`. */
export function formatShow(v: ShowView, style: TextStyle): string {
  const b = (s: string) => (style.color ? `${C.bold}${s}${C.reset}` : s);
  const dim = (s: string) => (style.color ? `${C.dim}${s}${C.reset}` : s);
  const L: string[] = [];
  L.push(`${b(`record ${v.id}`)}  (${v.stage}, ${v.file}:${v.line})`);
  const slot = v.state?.slot !== undefined ? `state slot ${String(v.state.slot)}, ` : '';
  L.push(
    `source ${v.sourceId ?? '?'} · variant ${String(v.variant)} · ${slot}state ${String(v.state?.hash ?? '?').slice(0, 12)}… · source shown: ${v.source.from}${v.source.file ? ` (${v.source.file}:${v.source.line})` : ''}`,
  );
  L.push('', b(`transforms (${v.transforms.length})`));
  if (!v.transforms.length) L.push('  none: the record is its source unchanged');
  for (const t of v.transforms) {
    const params = Object.entries(t.params)
      .map(([k, x]) => `${k}: ${x.length > 120 ? `${x.slice(0, 119)}…` : x}`)
      .join('; ');
    L.push(`  ${t.id}@${String(t.version)} ${dim(String(t.class))}${params ? `  ${params}` : ''}`);
    for (const r of t.renames) {
      const w = Math.max(...r.pairs.map(([a]) => a.length));
      r.pairs.forEach(([a, n], k) => L.push(`      ${k === 0 ? `${r.kind}:`.padEnd(8) : ' '.repeat(8)}${a.padEnd(w)} → ${n}`));
    }
  }
  if (v.prompt.length) {
    L.push('', b('system prompt, by section (source → variant)'));
    for (const s of v.prompt) {
      const moved = s.from !== undefined && s.to !== undefined && s.from !== s.to ? `, moved ${s.from + 1} → ${s.to + 1}` : '';
      const where = s.where === 'preamble' ? ', now in the preamble message' : '';
      const title = s.sourceTitle && s.sourceTitle !== s.title ? `${s.sourceTitle} → ${s.title}` : s.title || '(before the first heading)';
      L.push(`  ${SECTION_MARK[s.status]} ${title}  ${dim(`${s.status}${moved}${where}`)}`);
      if (s.status === 'changed') L.push(...sideBySide(s.left ?? [], s.right ?? [], style, '      '));
    }
  }
  L.push('', b(v.source.from === 'none' ? 'conversation (no source given: --sources, or a run with keep_source)' : 'conversation (source │ variant)'));
  for (const m of v.messages) L.push(...messageRow(m, style, dim));
  if (v.reference) {
    L.push('', b('reference (reward ground truth)'));
    for (const line of JSON.stringify(v.reference, null, 1).split('\n').slice(0, 60)) L.push(`  ${line}`);
  }
  L.push('', b('checks'));
  for (const c of v.checks) {
    L.push(`  ${c.ok ? (style.color ? `${C.ins}✓${C.reset}` : '✓') : style.color ? `${C.del}✗${C.reset}` : '✗'} ${c.name}`);
    for (const d of c.detail.slice(0, 20)) L.push(`      ${d}`);
  }
  return `${L.join('\n')}\n`;
}

function messageRow(m: MessageRow, style: TextStyle, dim: (s: string) => string): string[] {
  const idx =
    m.index.source !== undefined && m.index.variant !== undefined && m.index.source !== m.index.variant
      ? `#${m.index.source}→#${m.index.variant}`
      : `#${m.index.variant ?? m.index.source}`;
  return [`  ${idx} ${m.role}${m.name ? ` (${m.name})` : ''}  ${dim(m.status)}`, ...sideBySide(m.left, m.right, style, '    ')];
}

function segHtml(segs: Segment[] | undefined, side: 'left' | 'right'): string {
  return (segs ?? [])
    .map((s) => (s.changed ? `<${side === 'left' ? 'del' : 'ins'}>${esc(s.text)}</${side === 'left' ? 'del' : 'ins'}>` : esc(s.text)))
    .join('');
}

/** The same view as one self-contained HTML page. */
export function showHtml(v: ShowView): string {
  const parts: string[] = [];
  parts.push('<h2>Transforms</h2>');
  parts.push(
    v.transforms.length
      ? v.transforms
          .map(
            (t) =>
              `<h3>${esc(t.id)}@${esc(String(t.version))} <span class="tag">${esc(String(t.class))}</span></h3>${t.renames.map((r) => `<table><thead><tr><th>${esc(r.kind)}: old</th><th>new</th></tr></thead><tbody>${r.pairs.map(([a, n]) => `<tr><td class="mono">${esc(a)}</td><td class="mono">${esc(n)}</td></tr>`).join('')}</tbody></table>`).join('')}${
                Object.keys(t.params).length
                  ? `<pre>${esc(
                      Object.entries(t.params)
                        .map(([k, x]) => `${k}: ${x}`)
                        .join('\n'),
                    )}</pre>`
                  : ''
              }`,
          )
          .join('\n')
      : '<p>none: the record is its source unchanged</p>',
  );
  if (v.prompt.length) {
    parts.push('<h2>System prompt by section</h2>');
    for (const s of v.prompt) {
      parts.push(
        `<h3>${esc(SECTION_MARK[s.status])} ${esc(s.sourceTitle && s.sourceTitle !== s.title ? `${s.sourceTitle} → ${s.title}` : s.title || '(before the first heading)')} <span class="tag">${esc(s.status)}${s.where === 'preamble' ? ', in the preamble' : ''}</span></h3>`,
      );
      if (s.status === 'changed' || s.status === 'added' || s.status === 'removed')
        parts.push(`<div class="side"><div><pre>${segHtml(s.left, 'left')}</pre></div><div><pre>${segHtml(s.right, 'right')}</pre></div></div>`);
    }
  }
  parts.push(`<h2>Conversation</h2><div class="side"><div><b>source</b></div><div><b>variant</b></div></div>`);
  for (const m of v.messages) {
    parts.push(
      `<h3>#${m.index.variant ?? m.index.source} ${esc(m.role)}${m.name ? ` (${esc(m.name)})` : ''} <span class="tag">${m.status}</span></h3><div class="side"><div><pre>${segHtml(m.left, 'left')}</pre></div><div><pre>${segHtml(m.right, 'right')}</pre></div></div>`,
    );
  }
  if (v.reference) parts.push(`<h2>Reference</h2><pre>${esc(JSON.stringify(v.reference, null, 2))}</pre>`);
  parts.push(
    `<h2>Checks</h2><ul>${v.checks.map((c) => `<li class="${c.ok ? 'ok' : 'bad'}">${c.ok ? '✓' : '✗'} ${esc(c.name)}${c.detail.length ? `<pre>${esc(c.detail.join('\n'))}</pre>` : ''}</li>`).join('')}</ul>`,
  );
  return page(`hsa show ${v.id}`, `${v.stage} · ${v.file}:${v.line} · source ${v.sourceId ?? '?'} (${v.source.from})`, parts.join('\n'));
}
