import path from 'node:path';
import { HsaError } from '../errors.js';
import { TextRewriter } from '../transform/text-rewriter.js';
import { trainerMessages } from '../output/stages.js';
import { BUCKETS, readManifest, type ReviewBucket } from './folder.js';
import { newTally, readPartLines } from './part-reader.js';
import { SourceIndex, StateRebuilder, quickId } from './rebuild.js';
import { appliedTransforms, renameTables, type RecordProblem } from './record-checks.js';
import { sectionDiff, wordDiff, type Segment, type SectionChange } from './text-diff.js';
import { recordChecks } from './verify.js';

export interface ShowOptions {
  out: string;
  /** `SRC~v2` (SFT), `SRC~v2#1` (OPD), an RL index (digits), or any record's id. */
  id: string;
  sources?: string[];
  harness?: string;
}

/** An id that is in none of the folder's stages: exit 1. */
export class RecordNotFoundError extends HsaError {
  constructor(message: string) {
    super('HSA_USAGE', message, 1);
    this.name = 'RecordNotFoundError';
  }
}

export interface TransformView {
  id: string;
  version: unknown;
  class: unknown;
  /** Rename tables (old → new) and the other parameters as JSON. */
  renames: { kind: string; pairs: [string, string][] }[];
  params: Record<string, string>;
}

export interface MessageRow {
  index: { source?: number; variant?: number };
  role: string;
  name?: string;
  status: 'same' | 'changed' | 'added' | 'removed';
  left: Segment[];
  right: Segment[];
}

export interface ShowView {
  id: string;
  stage: ReviewBucket;
  file: string;
  line: number;
  sourceId?: string;
  variant?: unknown;
  state?: { hash?: unknown; slot?: unknown };
  /** Where the source shown beside it came from. */
  source: { from: 'sources' | 'kept source' | 'none'; file?: string; line?: number };
  transforms: TransformView[];
  prompt: SectionChange[];
  messages: MessageRow[];
  /** RL rows: the reference the reward reads (expected calls, skills, final reply). */
  reference?: unknown;
  checks: { name: string; ok: boolean; detail: string[] }[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The stage an id form points at first. */
function stagesFor(id: string): ReviewBucket[] {
  if (/^\d+$/.test(id)) return ['rl'];
  if (/#\d+(\.\d+)?$/.test(id)) return ['opd'];
  return ['sft', 'rl', 'opd', 'rejects'];
}

const RL_INDEX = /"extra_info":\{"index":(-?\d+),"id":"((?:[^"\\]|\\.)*)"/;

/** Find one record by id (or RL index) in an output folder, streaming its parts until it is met. */
export async function findRecord(out: string, id: string): Promise<{ stage: ReviewBucket; file: string; line: number; record: Obj }> {
  const manifest = await readManifest(out);
  for (const stage of stagesFor(id)) {
    for (const part of manifest.stages?.[stage]?.files ?? []) {
      const file = path.join(out, part.file);
      for await (const l of readPartLines(file, newTally())) {
        let hit = false;
        if (stage === 'rl') {
          const m = RL_INDEX.exec(l.text);
          hit = m ? m[1] === id || m[2] === id : l.text.includes(id);
        } else if (stage === 'rejects') hit = l.text.includes(`"id":${JSON.stringify(id)}`);
        else hit = quickId(l.text) === id;
        if (!hit) continue;
        try {
          return { stage, file, line: l.line, record: JSON.parse(l.text) as Obj };
        } catch (e) {
          throw new HsaError('HSA_BAD_RECORD', `${file}:${l.line}: not valid JSON (${(e as Error).message}); run hsa verify`, 2);
        }
      }
    }
  }
  // A bare source id means its kept source, when the run kept sources.
  if (!id.includes('~') && !/^\d+$/.test(id) && manifest.stages?.sft) {
    try {
      return await findRecord(out, `${id}~src`);
    } catch (e) {
      if (!(e instanceof RecordNotFoundError)) throw e;
    }
  }
  const forms = 'SOURCE~vK (SFT), SOURCE~vK#J (OPD), SOURCE~src, or an RL index';
  throw new RecordNotFoundError(`${out}: no record with id "${id}" in ${BUCKETS.filter((b) => manifest.stages?.[b]).join(', ')} (ids look like ${forms})`);
}

/**
 * `hsa show`: one output record as a reviewer reads it — the transforms with their rename tables,
 * the system prompt as a section-level diff against the source, the conversation beside the
 * source with the changed spans, tool calls with their arguments, and the checks' results. The
 * source comes from `--sources`, else from the run's kept source (`SOURCE~src`) when there is one.
 */
export async function buildShow(opts: ShowOptions): Promise<ShowView> {
  const found = await findRecord(opts.out, opts.id);
  const { stage, record } = found;
  const id = stage === 'rl' ? String((record.extra_info as Obj).id) : String(record.id ?? opts.id);
  const meta = ((stage === 'rl' ? record.extra_info : record.meta) ?? {}) as Obj;
  const sourceId = typeof meta.source_id === 'string' ? meta.source_id : typeof record.id === 'string' ? record.id.replace(/~.*$/, '') : undefined;
  const view: ShowView = {
    id,
    stage,
    file: found.file,
    line: found.line,
    ...(sourceId ? { sourceId } : {}),
    variant: meta.variant,
    state: { hash: isObj(meta.harness) ? meta.harness.state_hash : meta.harness_state, slot: isObj(meta.harness) ? meta.harness.state_slot : undefined },
    source: { from: 'none' },
    transforms: [],
    prompt: [],
    messages: [],
    checks: [],
  };
  if (stage === 'rejects') {
    view.checks.push({ name: 'rejected', ok: false, detail: [String(record.reason), ...((record.problems as string[] | undefined) ?? [])] });
    view.transforms = transformViews(Array.isArray(record.transforms) ? record.transforms : []);
    return view;
  }
  const applied = appliedTransforms(stage, record);
  view.transforms = transformViews(applied);

  let sourceMessages: Obj[] | undefined;
  const sources = opts.sources?.length ? await SourceIndex.create(opts.sources) : undefined;
  if (sources && sourceId) {
    const s = await sources.get(sourceId);
    if (s) {
      sourceMessages = trainerMessages(s.record.messages, 'object');
      view.source = { from: 'sources', file: s.file, line: s.line };
    }
  }
  if (!sourceMessages && sourceId && meta.variant !== 'src') {
    try {
      const kept = await findRecord(opts.out, `${sourceId}~src`);
      if (kept.stage === 'sft') {
        sourceMessages = kept.record.messages as Obj[];
        view.source = { from: 'kept source', file: kept.file, line: kept.line };
      }
    } catch (e) {
      if (!(e instanceof RecordNotFoundError)) throw e;
    }
  }
  const messages = ((stage === 'rl' ? record.prompt : record.messages) ?? []) as Obj[];
  const src = sourceMessages
    ? stage === 'sft'
      ? sourceMessages
      : sourceMessages.slice(0, Math.max(0, messages.filter((m) => m.name !== 'harness:preamble').length))
    : undefined;
  if (src) {
    const sys = (ms: Obj[]) => (ms[0]?.role === 'system' ? String(ms[0].content ?? '') : '');
    const preamble = messages.find((m) => m.role === 'user' && m.name === 'harness:preamble');
    // Catalog and rule lines are paired through the rename tables (new names mapped back).
    const t = renameTables(applied);
    const back = new TextRewriter(Object.fromEntries(Object.values(t).flatMap((m) => Object.entries(m as Record<string, string>).map(([a, b]) => [b, a]))));
    view.prompt = sectionDiff(sys(src), sys(messages), preamble ? String(preamble.content ?? '') : '', (l) => back.rewrite(l, 'record'));
  }
  view.messages = alignMessages(src ?? [], messages, src !== undefined);
  if (stage === 'rl') {
    try {
      view.reference = JSON.parse(String((record.reward_model as Obj).ground_truth));
    } catch {
      /* shown without */
    }
  }
  // As verify does: an inline run's states are rebuilt from the source's own tools and system message.
  const manifest = opts.harness || sources ? await readManifest(opts.out) : undefined;
  const rebuilder = opts.harness
    ? await StateRebuilder.create(manifest!, opts.harness)
    : sources && manifest && StateRebuilder.isInlineRun(manifest)
      ? await StateRebuilder.createInline(manifest)
      : undefined;
  const problems = await recordChecks(stage, record, rebuilder, sources, 'hook:');
  const group = (pred: (p: RecordProblem) => boolean) => problems.filter(pred).map((p) => `${p.path}: ${p.message}`);
  const leaks = group((p) => /old |mentions old/.test(p.message));
  const trip = group((p) => p.message.startsWith('round trip'));
  const hash = group((p) => p.path === 'meta.harness.state_hash' || p.path.endsWith('source_id'));
  const calls = problems
    .filter(
      (p) =>
        !/old |mentions old/.test(p.message) && !p.message.startsWith('round trip') && p.path !== 'meta.harness.state_hash' && !p.path.endsWith('source_id'),
    )
    .map((p) => `${p.path}: ${p.message}`);
  view.checks.push({ name: 'calls (listed tool, valid arguments)', ok: calls.length === 0, detail: calls });
  view.checks.push({ name: rebuilder ? 'leaks (engine check on the rebuilt state)' : 'leaks (rename tables in meta)', ok: leaks.length === 0, detail: leaks });
  if (rebuilder) view.checks.push({ name: 'state rebuilt from the harness (hash matches)', ok: hash.length === 0, detail: hash });
  if (rebuilder && sources && stage === 'sft') view.checks.push({ name: 'round trip to the source', ok: trip.length === 0, detail: trip });
  return view;
}

function transformViews(applied: unknown[]): TransformView[] {
  return applied.filter(isObj).map((a) => {
    const params = isObj(a.params) ? a.params : {};
    const renames: TransformView['renames'] = [];
    const rest: Record<string, string> = {};
    const tables = renameTables([a]);
    for (const kind of ['tools', 'skills', 'params', 'hooks'] as const) {
      const pairs = Object.entries(tables[kind]);
      if (pairs.length) renames.push({ kind, pairs });
    }
    for (const [k, v] of Object.entries(params)) if (!(k === 'renamed' && renames.length)) rest[k] = JSON.stringify(v);
    return { id: String(a.id), version: a.version, class: a.class, renames, params: rest };
  });
}

/** A message's text as shown: content, then each tool call as `→ name(arguments)`. */
export function messageText(m: Obj | undefined): string {
  if (!m) return '';
  const content =
    typeof m.content === 'string' ? m.content : Array.isArray(m.content) ? m.content.map((p) => (isObj(p) ? String(p.text ?? '') : '')).join('') : '';
  const calls = Array.isArray(m.tool_calls)
    ? m.tool_calls.map((c) => {
        const fn = isObj(c) && isObj(c.function) ? c.function : {};
        const args = typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments);
        return `→ ${String(fn.name)}(${args})`;
      })
    : [];
  return [content, ...calls].filter((s) => s !== '').join('\n');
}

/**
 * Pair the source's messages with the record's: in order, a preamble message the record gained
 * standing alone. The system prompt is summarised by the section diff, so its row shows only whether it changed.
 */
function alignMessages(src: Obj[], rec: Obj[], haveSource: boolean): MessageRow[] {
  const rows: MessageRow[] = [];
  let i = 0;
  let j = 0;
  while (j < rec.length || i < src.length) {
    const r = rec[j];
    if (r && r.role === 'user' && r.name === 'harness:preamble' && !(src[i]?.name === 'harness:preamble')) {
      rows.push({
        index: { variant: j },
        role: 'user',
        name: 'harness:preamble',
        status: haveSource ? 'added' : 'same',
        left: [],
        right: [{ text: messageText(r), changed: haveSource }],
      });
      j++;
      continue;
    }
    const s = haveSource ? src[i] : undefined;
    if (!r) {
      rows.push({ index: { source: i }, role: String(s?.role), status: 'removed', left: [{ text: messageText(s), changed: true }], right: [] });
      i++;
      continue;
    }
    const a = messageText(s);
    const b = messageText(r);
    const role = String(r.role);
    const name = typeof r.name === 'string' ? r.name : undefined;
    if (!haveSource) rows.push({ index: { variant: j }, role, ...(name ? { name } : {}), status: 'same', left: [], right: [{ text: b, changed: false }] });
    else if (!s) rows.push({ index: { variant: j }, role, ...(name ? { name } : {}), status: 'added', left: [], right: [{ text: b, changed: true }] });
    else {
      const d =
        j === 0 && role === 'system'
          ? {
              left: [{ text: a === b ? '(unchanged)' : '(see the section diff above)', changed: false }],
              right: [{ text: a === b ? '(unchanged)' : '(see the section diff above)', changed: false }],
            }
          : wordDiff(a, b);
      rows.push({
        index: { source: i, variant: j },
        role,
        ...(name ? { name } : {}),
        status: a === b && s.role === r.role && s.name === r.name ? 'same' : 'changed',
        ...d,
      });
    }
    i += s ? 1 : 0;
    j++;
  }
  return rows;
}
