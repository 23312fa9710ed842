import { catalogText } from '../harness/render.js';
import type { Harness, Section } from '../harness/types.js';
import { esc, page } from '../review/html.js';
import { sideBySide, type TextStyle } from '../review/show-report.js';
import { wordDiff, type Segment } from '../review/text-diff.js';
import type { CallMapping, MigrationPlan } from './types.js';

/** One change as a reviewer reads it: what kind, the names, short notes, and texts beside each other. */
export interface DiffRow {
  kind: 'same' | 'renamed' | 'changed' | 'split' | 'merged' | 'removed' | 'added' | 'edited' | 'moved';
  from: string | null;
  to: string | null;
  score?: number;
  notes: string[];
  /** A's text beside B's (descriptions, skill bodies, prompt sections), when they differ. */
  text?: { left: Segment[]; right: Segment[] };
}

export interface DiffView {
  from: { harness: string; version: string };
  to: { harness: string; version: string };
  tools: DiffRow[];
  skills: DiffRow[];
  hooks: DiffRow[];
  sections: DiffRow[];
}

/** The change between two harness versions, read off their inferred plan. */
export function buildDiff(plan: MigrationPlan, a: Harness, b: Harness): DiffView {
  const aTool = new Map(a.tools.map((t) => [t.name, t]));
  const bTool = new Map(b.tools.map((t) => [t.name, t]));
  const tools: DiffRow[] = plan.tools.map((e) => {
    if (e.split) {
      const notes = Object.entries(e.split.cases).map(([v, c]) =>
        c
          ? `${e.split!.by} = "${v}" → ${c.to}${mappingNotes(c)
              .map((n) => `; ${n}`)
              .join('')}`
          : `${e.split!.by} = "${v}": no tool in B`,
      );
      return {
        kind: 'split',
        from: e.from,
        to: Object.values(e.split.cases)
          .filter((c) => c !== null)
          .map((c) => c.to)
          .join(', '),
        score: e.score,
        notes,
      };
    }
    if (!e.map) return { kind: 'removed', from: e.from, to: null, notes: [] };
    const notes = mappingNotes(e.map);
    const da = aTool.get(e.from)?.description ?? '';
    const db = bTool.get(e.map.to)?.description ?? '';
    if (da !== db) notes.push('description reworded');
    const merged = plan.tools.filter((x) => x.map?.to === e.map!.to).length > 1;
    const kind = merged ? 'merged' : e.map.to !== e.from ? 'renamed' : notes.length ? 'changed' : 'same';
    return { kind, from: e.from, to: e.map.to, score: e.score, notes, ...(da !== db ? { text: wordDiff(da, db) } : {}) };
  });
  for (const t of plan.added.tools) tools.push({ kind: 'added', from: null, to: t, notes: [bTool.get(t)?.description ?? ''] });

  const aSkill = new Map(a.skills.map((s) => [s.id, s]));
  const bSkill = new Map(b.skills.map((s) => [s.id, s]));
  const skills: DiffRow[] = plan.skills.map((e) => {
    if (e.to === null) return { kind: 'removed', from: e.from, to: null, notes: [] };
    const sa = aSkill.get(e.from);
    const sb = bSkill.get(e.to);
    const edited = sa && sb && sa.body !== sb.body;
    const notes = [...(edited ? ['body edited'] : []), ...(sa && sb && sa.description !== sb.description ? ['description reworded'] : [])];
    return {
      kind: e.to !== e.from ? 'renamed' : edited ? 'edited' : notes.length ? 'changed' : 'same',
      from: e.from,
      to: e.to,
      score: e.score,
      notes,
      ...(edited ? { text: wordDiff(sa.body, sb.body) } : {}),
    };
  });
  for (const s of plan.added.skills) skills.push({ kind: 'added', from: null, to: s, notes: [bSkill.get(s)?.description ?? ''] });

  const aHook = new Map(a.hooks.map((k) => [k.id, k]));
  const bHook = new Map(b.hooks.map((k) => [k.id, k]));
  const hooks: DiffRow[] = plan.hooks.map((e) => {
    if (e.to === null) return { kind: 'removed', from: e.from, to: null, notes: [] };
    const ha = aHook.get(e.from);
    const hb = bHook.get(e.to);
    const reworded = ha && hb && ha.feedback !== hb.feedback;
    const notes = [
      ...(reworded ? ['feedback reworded'] : []),
      ...(ha && hb && JSON.stringify(ha.checks) !== JSON.stringify(hb.checks) ? ['checks changed'] : []),
      ...(ha && hb && ha.channel !== hb.channel ? [`channel ${ha.channel} → ${hb.channel}`] : []),
    ];
    return {
      kind: e.to !== e.from ? 'renamed' : notes.length ? 'changed' : 'same',
      from: e.from,
      to: e.to,
      score: e.score,
      notes,
      ...(reworded ? { text: wordDiff(ha.feedback, hb.feedback) } : {}),
    };
  });
  for (const k of plan.added.hooks) hooks.push({ kind: 'added', from: null, to: k, notes: [] });

  const text = (h: Harness, s: Section | undefined) => (s === undefined ? '' : s.kind === 'catalog' ? catalogText(h) : s.text);
  const aSec = new Map(a.sections.map((s) => [s.id, s]));
  const bSec = new Map(b.sections.map((s) => [s.id, s]));
  const sections: DiffRow[] = plan.sections.map((e) => {
    if (e.to.length === 0) return { kind: 'removed', from: e.from, to: null, notes: e.evidence, text: wordDiff(text(a, aSec.get(e.from)), '') };
    const left = text(a, aSec.get(e.from));
    const right = e.to.map((id) => text(b, bSec.get(id))).join(`\n\n`);
    const kind = e.to.length > 1 ? 'moved' : left === right ? (e.to[0] === e.from ? 'same' : 'renamed') : e.to[0] === e.from ? 'edited' : 'moved';
    return { kind, from: e.from, to: e.to.join(', '), score: e.score, notes: e.evidence, ...(left !== right ? { text: wordDiff(left, right) } : {}) };
  });
  for (const s of plan.added.sections) sections.push({ kind: 'added', from: null, to: s, notes: [], text: wordDiff('', text(b, bSec.get(s))) });
  return { from: plan.from, to: plan.to, tools, skills, hooks, sections };
}

function mappingNotes(m: CallMapping): string[] {
  const notes: string[] = [];
  if (m.shape) notes.push('wrap' in m.shape ? `parameters wrapped in "${m.shape.wrap}"` : `parameters unwrapped from "${m.shape.unwrap}"`);
  for (const [pa, pb] of Object.entries(m.params)) {
    if (pb === null) notes.push(`parameter ${pa} removed`);
    else if (pa !== pb) notes.push(`parameter ${pa} → ${pb}`);
  }
  for (const [p, vm] of Object.entries(m.values))
    for (const [x, y] of Object.entries(vm)) notes.push(y === null ? `value ${p} = "${x}" removed` : `value ${p} "${x}" → "${y}"`);
  for (const n of m.needs) notes.push(`new required parameter ${n}`);
  for (const [p, v] of Object.entries(m.fill)) notes.push(`parameter ${p} filled with ${JSON.stringify(v)}`);
  return notes;
}

const GROUPS = [
  ['Tools', 'tools'],
  ['Skills', 'skills'],
  ['Hooks', 'hooks'],
  ['Prompt sections', 'sections'],
] as const;

/** The text view: one line per change, its notes below, changed texts side by side (A | B). */
export function formatDiff(v: DiffView, style: TextStyle): string {
  const lines = [`${v.from.harness} ${v.from.version} → ${v.to.harness} ${v.to.version}`];
  for (const [title, key] of GROUPS) {
    const rows = v[key].filter((r) => r.kind !== 'same');
    const same = v[key].length - rows.length;
    lines.push('', `${title}${same ? ` (${same} unchanged)` : ''}`);
    if (rows.length === 0) lines.push('  no changes');
    for (const r of rows) {
      const names = r.from !== null && r.to !== null && r.from !== r.to ? `${r.from} → ${r.to}` : (r.from ?? r.to ?? '');
      lines.push(`  ${r.kind.padEnd(8)} ${names}${r.score !== undefined && r.kind !== 'removed' && r.kind !== 'added' ? ` (score ${r.score})` : ''}`);
      for (const n of r.notes) if (n !== '') lines.push(`             ${n}`);
      if (r.text) lines.push(...sideBySide(r.text.left, r.text.right, style, '             '));
    }
  }
  return `${lines.join('\n')}\n`;
}

function segHtml(segs: Segment[], side: 'left' | 'right'): string {
  return segs.map((s) => (s.changed ? (side === 'left' ? `<del>${esc(s.text)}</del>` : `<ins>${esc(s.text)}</ins>`) : esc(s.text))).join('');
}

/** The HTML view, in the style of `hsa show`: a table per group, changed texts side by side. */
export function diffHtml(v: DiffView): string {
  const parts: string[] = [];
  for (const [title, key] of GROUPS) {
    parts.push(`<h2>${esc(title)}</h2>`);
    const rows = v[key];
    if (rows.length === 0) {
      parts.push('<p>none</p>');
      continue;
    }
    parts.push(
      `<table><thead><tr><th>change</th><th>A</th><th>B</th><th>score</th><th>notes</th></tr></thead><tbody>${rows
        .map(
          (r) =>
            `<tr><td><span class="tag">${esc(r.kind)}</span></td><td class="mono">${esc(r.from ?? '')}</td><td class="mono">${esc(r.to ?? '')}</td><td class="n">${r.score ?? ''}</td><td>${r.notes.map(esc).join('<br>')}</td></tr>`,
        )
        .join('\n')}</tbody></table>`,
    );
    for (const r of rows) {
      if (!r.text) continue;
      parts.push(
        `<h3>${esc(r.from ?? '')}${r.from && r.to && r.from !== r.to ? ' → ' : ''}${esc(r.to && r.to !== r.from ? r.to : '')}</h3><div class="side"><div><pre>${segHtml(r.text.left, 'left')}</pre></div><div><pre>${segHtml(r.text.right, 'right')}</pre></div></div>`,
      );
    }
  }
  return page(
    `hsa migrate diff ${v.from.harness} ${v.from.version} → ${v.to.version}`,
    `${v.from.harness} ${v.from.version} (A) against ${v.to.harness} ${v.to.version} (B)`,
    parts.join('\n'),
  );
}
