import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Problem } from '../problems.js';
import { trainerMessages } from '../output/stages.js';
import { NO_CONTEXT, promptLayout, renderPrompt, setPromptLayout, type PromptLayout } from '../harness/render.js';
import { setUserTextLayout, userTextLayout, type UserTextLayout } from '../harness/user-text-layout.js';
import type { Harness } from '../harness/types.js';
import { checkTrajectory, firstUserTurn, mcpNames, type SystemPromptMode } from '../trajectory/check.js';
import { textRewriterFor } from '../trajectory/rewrite.js';
import type { RewritePlan } from '../transform/plan.js';
import { checkLeaks } from '../trajectory/invariants.js';
import { checkRoundTrip } from '../trajectory/round-trip.js';
import { renameCalls } from '../trajectory/read.js';
import { textOf, type Trajectory } from '../trajectory/types.js';
import { IdIndex } from '../util/id-index.js';
import { BUCKETS, readManifest, recordId, unlistedFiles, type ListedPart, type Manifest, type ReviewBucket } from './folder.js';
import { newTally, readPartLines } from './part-reader.js';
import { appliedTransforms, asTrajectory, callProblems, renameTables, rlPath, shapeProblems, splitPath, type RecordProblem } from './record-checks.js';
import { LeakScanCache, metaLeaks } from './meta-leaks.js';
import { SourceIndex, StateRebuilder } from './rebuild.js';
import { INLINE_HARNESS } from '../config/names.js';

export interface VerifyOptions {
  out: string;
  /** Source trajectories (globs): with `harness`, every exact variant is round-tripped to its source. */
  sources?: string[];
  /** The run's harness: the engine's own leak check and the state hash are checked against it. */
  harness?: string;
  onProgress?: (p: ReviewProgress) => void;
  /** Problems kept in the report (the rest are counted); default 10,000. */
  maxProblems?: number;
}

/** Where a long review run is (for the progress line). */
export interface ReviewProgress {
  bytesRead: number;
  bytesTotal: number;
  records: number;
}

export interface PartReport {
  file: string;
  stage: ReviewBucket;
  status: 'ok' | 'missing' | 'changed' | 'truncated' | 'unlisted' | 'bad records';
  records: number;
  listed: ListedPart | null;
}

export interface VerifyReport {
  ok: boolean;
  out: string;
  records: Partial<Record<ReviewBucket, number>>;
  parts: PartReport[];
  /** What was checked on the records (so a reader knows what "sound" covered). */
  checked: { shape: true; ids: true; calls: true; leaks: 'meta' | 'engine'; state_hash: boolean; round_trip: boolean };
  problems: Problem[];
  /** Problems beyond `maxProblems`, counted only. */
  more_problems: number;
  warnings: string[];
}

type Obj = Record<string, unknown>;

/**
 * `hsa verify`: re-read an output folder and prove it — every listed part present with its sha256,
 * bytes and record count; no unlisted file; every record parsed and shaped for its stage; ids
 * unique per stage; the manifest's balance; and on every SFT/OPD/RL record the checks augment ran
 * (calls against the record's tools; no old name, from the rename tables in its meta or — with the
 * harness — the engine's leak check on the rebuilt state; the round trip to the source with
 * `--sources`). Streams: memory holds one record, the id index and the rebuilt states.
 */
export async function runVerify(opts: VerifyOptions): Promise<VerifyReport> {
  const manifest = await readManifest(opts.out);
  const max = opts.maxProblems ?? 10_000;
  const problems: Problem[] = [];
  let more = 0;
  const add = (p: Omit<Problem, 'severity'>) => {
    if (problems.length < max) problems.push({ ...p, severity: 'error' });
    else more++;
  };
  const manifestFile = path.join(opts.out, 'manifest.json');
  const sources = opts.sources?.length ? await SourceIndex.create(opts.sources) : undefined;
  // An inline run's harnesses are its sources' own: with --sources they are rebuilt like a folder's.
  const inline = !opts.harness && sources !== undefined && StateRebuilder.isInlineRun(manifest);
  const rebuilder = opts.harness ? await StateRebuilder.create(manifest, opts.harness) : inline ? await StateRebuilder.createInline(manifest) : undefined;
  const warnings = [...(rebuilder?.warnings ?? [])];
  if (sources && !rebuilder) warnings.push('--sources without --harness: the round trip needs the harness; only the record checks ran');
  if (!sources && opts.harness === INLINE_HARNESS)
    warnings.push("--harness inline without --sources: each record's harness is its source's own; only the record checks ran");

  balanceProblems(manifest, manifestFile).forEach(add);
  for (const f of await unlistedFiles(opts.out, manifest))
    add({ file: path.join(opts.out, f), path: '(file)', message: 'not listed in manifest.json (a leftover or a foreign file)' });

  const parts: PartReport[] = [];
  const listedParts: { stage: ReviewBucket; part: ListedPart }[] = [];
  for (const b of BUCKETS) for (const part of manifest.stages?.[b]?.files ?? []) listedParts.push({ stage: b, part });
  let bytesTotal = 0;
  for (const { part } of listedParts) bytesTotal += part.bytes ?? 0;
  const progress: ReviewProgress = { bytesRead: 0, bytesTotal, records: 0 };
  const records: VerifyReport['records'] = {};
  const hookPrefix = 'hook:';
  const cache = new LeakScanCache();

  for (const b of BUCKETS) {
    const ids = new IdIndex();
    let stageRecords = 0;
    for (const { part } of listedParts.filter((x) => x.stage === b)) {
      const file = path.join(opts.out, part.file);
      try {
        await stat(file);
      } catch {
        add({ file, path: '(file)', message: `missing: the manifest lists it with ${part.records} records` });
        parts.push({ file, stage: b, status: 'missing', records: 0, listed: part });
        continue;
      }
      const tally = newTally();
      let n = 0;
      let bad = 0;
      for await (const l of readPartLines(file, tally)) {
        progress.records++;
        if (l.text.trim() === '') {
          add({ file, line: l.line, path: '(line)', message: 'blank line (a part holds one record per line)' });
          continue;
        }
        n++;
        let v: unknown;
        try {
          v = JSON.parse(l.text);
        } catch (e) {
          bad++;
          add({ file, line: l.line, path: '(json)', message: `not valid JSON: ${(e as Error).message}` });
          continue;
        }
        const id = recordId(b, v);
        const here = (p: RecordProblem) => add({ file, line: l.line, ...(id !== undefined ? { id } : {}), path: p.path, message: p.message });
        const shape = shapeProblems(b, v);
        shape.forEach(here);
        if (shape.length) bad++;
        if (id !== undefined) {
          const first = ids.note(id, file, l.line);
          if (first) here({ path: b === 'rl' ? 'extra_info.id' : 'id', message: `duplicate id in ${b} (first at ${first})` });
        }
        if (shape.length === 0 && b !== 'rejects') {
          const found = await recordChecks(b, v as Obj, rebuilder, sources, hookPrefix, cache);
          found.forEach(here);
          if (found.length) bad++;
        }
        if (n % 256 === 0) opts.onProgress?.({ ...progress, bytesRead: progress.bytesRead + l.offset });
      }
      progress.bytesRead += tally.bytes;
      opts.onProgress?.(progress);
      stageRecords += n;
      let status: PartReport['status'] = bad ? 'bad records' : 'ok';
      if (tally.error) {
        status = 'truncated';
        add({ file, path: '(file)', message: `truncated or corrupt: ${tally.error}` });
      } else if (!tally.endsWithNewline && tally.bytes > 0) {
        status = 'truncated';
        add({ file, line: tally.lines, path: '(file)', message: 'truncated: the last line has no newline (hsa ends every part with one)' });
      }
      if (tally.sha256 !== part.sha256) {
        if (status === 'ok' || status === 'bad records') status = 'changed';
        add({
          file,
          path: '(file)',
          message: `sha256 ${tally.sha256.slice(0, 12)}… does not match the manifest's ${String(part.sha256).slice(0, 12)}… (the file was changed after the run)`,
        });
      }
      if (tally.bytes !== part.bytes) add({ file, path: '(file)', message: `${tally.bytes} bytes, the manifest says ${part.bytes}` });
      if (n !== part.records) add({ file, path: '(file)', message: `${n} records, the manifest says ${part.records}` });
      parts.push({ file, stage: b, status, records: n, listed: part });
    }
    if (manifest.stages?.[b]) records[b] = stageRecords;
  }
  for (const f of await unlistedFiles(opts.out, manifest)) {
    const b = f.split(path.sep)[0] as ReviewBucket;
    parts.push({ file: path.join(opts.out, f), stage: b, status: 'unlisted', records: 0, listed: null });
  }
  if (rebuilder?.unrebuilt)
    warnings.push(
      `${rebuilder.unrebuilt} records had a state sampled for them (no pool slot): without --sources their states were not rebuilt, and their leaks were judged by the rename tables in their meta`,
    );
  return {
    ok: problems.length === 0 && more === 0,
    out: opts.out,
    records,
    parts,
    checked: {
      shape: true,
      ids: true,
      calls: true,
      leaks: rebuilder ? 'engine' : 'meta',
      state_hash: rebuilder !== undefined,
      round_trip: rebuilder !== undefined && sources !== undefined,
    },
    problems,
    more_problems: more,
    warnings,
  };
}

/** The manifest's own arithmetic: the balance, stage sums, and stage records against the counts. */
function balanceProblems(m: Manifest, file: string): Omit<Problem, 'severity'>[] {
  const out: Omit<Problem, 'severity'>[] = [];
  const t = m.totals ?? {};
  const num = (k: string) => (typeof t[k] === 'number' ? t[k] : 0);
  if (num('input_records') !== num('valid_records') + num('rejected_records')) {
    out.push({ file, path: 'totals', message: `inputs ${num('input_records')} ≠ valid ${num('valid_records')} + rejected ${num('rejected_records')}` });
  }
  if (num('variants_expected') !== num('variants_written') + num('variants_rejected')) {
    out.push({
      file,
      path: 'totals',
      message: `variants ${num('variants_expected')} ≠ written ${num('variants_written')} + rejected ${num('variants_rejected')}`,
    });
  }
  for (const [stage, s] of Object.entries(m.stages ?? {})) {
    const files = s.files ?? [];
    const sum = files.reduce((n, f) => n + (f.records ?? 0), 0);
    if (sum !== s.records) out.push({ file, path: `stages.${stage}.records`, message: `${s.records}, but its parts hold ${sum}` });
    const bytes = files.reduce((n, f) => n + (f.bytes ?? 0), 0);
    if (bytes !== s.bytes) out.push({ file, path: `stages.${stage}.bytes`, message: `${s.bytes}, but its parts hold ${bytes}` });
  }
  const per = num('variants_written') + num('kept_sources');
  for (const stage of ['sft', 'rl']) {
    const s = m.stages?.[stage];
    if (s && s.records !== per) out.push({ file, path: `stages.${stage}.records`, message: `${s.records}, but written variants + kept sources = ${per}` });
  }
  const rej = m.stages?.rejects;
  // Every rejected input line and every rejected variant is one line in rejects.
  if (rej && rej.records !== num('rejected_records') + num('variants_rejected')) {
    out.push({
      file,
      path: 'stages.rejects.records',
      message: `${rej.records}, but rejected inputs + rejected variants = ${num('rejected_records') + num('variants_rejected')}`,
    });
  }
  return out;
}

/**
 * The checks augment ran, on one record read from disk. Without the harness: calls against the
 * record's tools and leaks judged by its rename tables. With it: the rebuilt state's hash, the
 * engine's leak check, and (with the source) the round trip.
 */
export async function recordChecks(
  stage: ReviewBucket,
  v: Obj,
  rebuilder: StateRebuilder | undefined,
  sources: SourceIndex | undefined,
  hookPrefix: string,
  cache = new LeakScanCache(),
): Promise<RecordProblem[]> {
  const rec = asTrajectory(stage, v);
  if (!rec) return [];
  const promptLength = stage === 'rl' ? (v.prompt as unknown[]).length : 0;
  const fix = (p: RecordProblem) => (stage === 'rl' ? { ...p, path: rlPath(p.path, promptLength) } : p);
  const meta = (stage === 'rl' ? v.extra_info : v.meta) as Obj;
  // A state's records carry equal tool lists: one shared list lets every per-list cache serve them all.
  const stateHash = (meta.harness as { state_hash?: unknown } | undefined)?.state_hash;
  if (rec.tools) rec.tools = cache.sharedTools(rec.tools, typeof stateHash === 'string' ? stateHash : '');
  if (meta.source === 'general') return callProblems(rec).map(fix);
  const out: RecordProblem[] = callProblems(rec);
  const applied = appliedTransforms(stage, v);
  const sourceId = typeof meta.source_id === 'string' ? meta.source_id : undefined;
  if (!rebuilder) {
    out.push(...metaLeaks(rec, renameTables(applied), hookPrefix, cache));
    return out.map(fix);
  }
  const provenance =
    stage === 'rl'
      ? { variant: meta.variant, harness: { state_slot: undefined as unknown } }
      : (meta as { variant?: unknown; harness?: { state_slot?: unknown; state_hash?: unknown } });
  const source = sources && sourceId ? await sources.get(sourceId) : undefined;
  if (sources && sourceId && !source)
    out.push({ path: stage === 'rl' ? 'extra_info.source_id' : 'meta.source_id', message: `source "${sourceId}" is not in --sources` });
  // The source read as augment read it (the system message matched, located or replaced under the
  // run's --system-prompt): its prompt layout — the record's own text around the harness sections —
  // is the variant's too, so both are rendered as augment rendered them (and a state sampled for
  // the record is sampled from it as augment sampled it).
  const harness = rebuilder.harnessOf(source?.record);
  const layout = source && harness && rec.messages[0]?.role === 'system' ? sourceLayout(source, harness, rebuilder.systemPrompt) : undefined;
  if (layout) setPromptLayout(rec.messages[0]!, layout);
  // RL rows name their state by hash only; SFT/OPD meta carries the pool slot.
  const variant = stage === 'rl' ? undefined : rebuilder.variantFor(provenance, source?.record);
  if (!variant || !harness) {
    if (stage !== 'rl') rebuilder.unrebuilt++;
    out.push(...metaLeaks(rec, renameTables(applied), hookPrefix, cache));
    return out.map(fix);
  }
  if (meta.variant !== 'src' && variant.stateHash !== stateHash) {
    out.push({
      path: 'meta.harness.state_hash',
      message: `the rebuilt state hashes to ${variant.stateHash.slice(0, 12)}…, the record says ${String(stateHash).slice(0, 12)}… (harness, transforms or seed differ from the run's)`,
    });
    return out.map(fix);
  }
  // Harness text in the first user turn (prompt.user_sections): where augment found it in the
  // source, and what the plan makes of it in the record.
  const userLayout = source ? carryUserTexts(source.record, rec, variant.plan, harness) : undefined;
  // Output records carry no context; the source's fills the prompt's slots (else the whole prompt is scanned).
  const withContext = source?.record.context ? { ...rec, context: source.record.context } : rec;
  out.push(...checkLeaks(withContext, variant.plan, harness, variant.state).map(splitPath));
  const exact = variant.applied.every((a) => a.class !== 'behavioural') && meta.teacher === undefined;
  if (stage === 'sft' && source && exact) {
    const src: Trajectory = {
      id: source.record.id,
      messages: structuredClone(trainerMessages(source.record.messages, 'string')) as unknown as Trajectory['messages'],
    };
    // As augment reads it: calls logged under a name OpenAI refuses (`lab.get_result`, `Get Weather`)
    // follow the harness's OpenAI-safe name.
    renameCalls(src, mcpNames(harness));
    if (layout && src.messages[0]) setPromptLayout(src.messages[0], layout);
    if (userLayout) setUserTextLayout(src.messages[firstUserTurn(src, harness)]!, userLayout);
    const back = checkRoundTrip(src, { ...rec, ...(source.record.context ? { context: source.record.context } : {}) }, variant.plan, harness, variant.state);
    out.push(...back.map((m) => ({ path: 'messages', message: `round trip: ${m}` })));
  }
  return out.map(fix);
}

/**
 * The prompt layout augment found in a source's system message (src/trajectory/check.ts), or none
 * when the message is the rendered harness itself. `replace` puts the rendered harness in the
 * source's place, as augment did.
 */
function sourceLayout(source: { record: Trajectory; file: string; line: number }, harness: Harness, systemPrompt: SystemPromptMode): PromptLayout | undefined {
  const first = source.record.messages[0];
  if (first?.role !== 'system') return undefined;
  // A source whose system message is the rendered harness, without harness text in its user turn,
  // has no layout: the per-record check is spared (it validates every call again).
  if (harness.userTexts === undefined && systemPrompt === 'match' && textOf(first.content) === renderPromptOrUndefined(harness, source.record))
    return undefined;
  checkTrajectory(source.record, harness, { file: source.file, line: source.line, systemPrompt });
  return promptLayout(source.record.messages[0]);
}

/**
 * The layout of harness text augment found in a source's first user turn (prompt.user_sections),
 * carried to the record's first user turn with the texts as the plan rewrites them (kept only
 * where the record's turn is exactly that); the source's layout is returned for its copies.
 */
function carryUserTexts(source: Trajectory, rec: Trajectory, plan: RewritePlan, harness: Harness): UserTextLayout | undefined {
  if (!harness.userTexts) return undefined;
  const i = firstUserTurn(source, harness);
  const m = source.messages[i];
  const layout = m && typeof m.content === 'string' ? userTextLayout(m, m.content) : undefined;
  const j = firstUserTurn(rec, harness);
  if (!layout || j < 0) return layout;
  const text = textRewriterFor(plan, harness);
  setUserTextLayout(rec.messages[j]!, { ids: layout.ids, texts: layout.texts.map((t) => text.rewrite(t, 'record')), outer: layout.outer });
  return layout;
}

/** The harness's system prompt for a record's context, or undefined when its context cannot fill it. */
function renderPromptOrUndefined(harness: Harness, rec: Trajectory): string | undefined {
  try {
    return renderPrompt(harness, rec.context ?? NO_CONTEXT).system;
  } catch {
    return undefined;
  }
}
