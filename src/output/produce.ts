import type { LimitFunction } from 'p-limit';
import type { RunConfig } from '../config/augment-config.js';
import type { Harness } from '../harness/types.js';
import { formatProblem, type Problem } from '../problems.js';
import { ReplayTeacher } from '../teacher/replay.js';
import { runEpisode, type EpisodeResult } from '../teacher/runtime.js';
import { episodeOptions, variantOf, variantsOf } from './variants.js';
import type { Teacher } from '../teacher/types.js';
import type { StatePool, AugmentedVariant } from '../trajectory/augment.js';
import { checkTrajectory, type CheckContext } from '../trajectory/check.js';
import type { InlineHarnesses } from '../ingest/inline-harness.js';
import { parseTrajectoryLine } from '../trajectory/read.js';
import type { Trajectory } from '../trajectory/types.js';
import type { ResolvedTransform } from '../transform/variant.js';
import type { WordLists } from '../words/types.js';
import { canonicalJson } from '../util/canonical-json.js';
import { RenderError } from '../errors.js';
import { hashState } from '../util/hash.js';
import { messagesWriter, objectWriter, recordLine } from '../util/json-out.js';
import { messageContentJson, promptLayout, renderTools } from '../harness/render.js';
import { baseStyle } from '../transform/prompt-style.js';
import type { AppliedTransform } from '../transform/variant.js';
import type { TokenCounter } from '../tokenize/tokenizer.js';
import { tooLongReason } from '../tokenize/stats.js';
import { opdRecords, opdShownMessages, rlRecord, sftRecord, type GeneralPrompt, type Provenance, type StageInput } from './stages.js';
import type { IdIndex } from '../util/id-index.js';
import { BadRecordError, checkKind, noteId, type Output, type OutputTokens, type PartCounts } from './shared.js';

/** Members of SFT and OPD records that are the same object for every record of a state. */
const SHARED = ['tools'];
/** `meta.transforms` (a few KB) is the same object for every record of a pooled state. */
const META = objectWriter(['transforms']);
/**
 * The system prompt inside `messages` is written from the escaped sections of its state. OPD
 * prefixes share a variant's messages; in SFT only the source's messages recur (in each variant).
 */
const OPD_WRITERS = { messages: messagesWriter(messageContentJson), meta: META };

/** One input line with where it came from. */
export interface InputItem {
  file: string;
  line: number;
  text: string;
}

/** What producing a record's output needs; built once per run (or once per worker thread). */
export interface ProduceContext {
  cfg: RunConfig;
  harness: Harness;
  transforms: readonly ResolvedTransform[];
  words: WordLists;
  general: readonly GeneralPrompt[];
  pool: StatePool | undefined;
  /** Inline harnesses (each record's own tools and system message), when the run has no harness folder. */
  inline?: InlineHarnesses<StatePool | undefined>;
  teacher: Teacher | undefined;
  limit: LimitFunction | undefined;
  warn: (line: string) => void;
  /** Ids seen so far, when duplicates are detected here (in-process runs). */
  seenIds?: IdIndex;
  /** With `tokenizer`: counts SFT/OPD records (and enforces `max_tokens`). */
  tokens?: TokenCounter;
}

/**
 * Every output line of one input record, in order, with what they add to the part's counts: the
 * record checked (or rejected with its reason), its kept source, and each variant rewritten or
 * re-run by the teacher. A pure function of the record, the run's inputs, config and seed (and
 * cached teacher answers), so it can run in any thread.
 */
export async function produceRecord(run: ProduceContext, item: InputItem, pos: number, partIndex: number, duplicateOf?: string): Promise<Output> {
  const { cfg, general } = run;
  const out: Output = { lines: [], counts: {}, reasons: [], teacher: {}, recovery: {}, outputs: 0 };
  const count = (k: keyof PartCounts) => (out.counts[k] = (out.counts[k] ?? 0) + 1);
  const ordinalBase = (partIndex * cfg.partSize + pos) * (cfg.variants + 1);
  const parsed = parseTrajectoryLine(item.file, item.line, item.text);
  const at: CheckContext = { file: item.file, line: item.line, systemPrompt: cfg.systemPrompt, outcome: {} };
  // The record's harness: the run's, or (inline) the one its own tools and system message make.
  let ctx = run;
  let problems: Problem[];
  // In inline mode a record whose own tool list is no harness (a bad tool, an invalid schema) is a
  // problem of its tools, not a mismatch with a harness.
  let badTools = false;
  if (!parsed.ok) problems = parsed.problems;
  else if (run.inline) {
    const { inline, extra } = run.inline.for(parsed.record, item);
    if (inline.harness) ctx = { ...run, harness: inline.harness, pool: extra };
    problems = inline.harness ? checkTrajectory(parsed.record, inline.harness, at) : inline.problems;
    badTools = !inline.harness;
  } else problems = checkTrajectory(parsed.record, run.harness, at);
  const harness = ctx.harness;
  if (parsed.ok) {
    out.id = parsed.record.id;
    const dup = duplicateOf ?? (ctx.seenIds ? noteId(item, ctx.seenIds, parsed.record.id) : undefined);
    if (dup)
      problems = [
        ...problems,
        { file: item.file, line: item.line, id: parsed.record.id, path: 'id', message: `duplicate id (first at ${dup})`, severity: 'error' },
      ];
  }
  const errors = problems.filter((p) => p.severity === 'error');
  if (!parsed.ok || errors.length > 0) {
    if (cfg.onError === 'fail') throw new BadRecordError(errors.map(formatProblem).join('\n'));
    count('rejected_records');
    const kind = errors.some((p) => p.message.startsWith('duplicate id'))
      ? 'input_duplicate_id'
      : !parsed.ok
        ? 'input_malformed'
        : badTools
          ? 'input_tool_schema'
          : 'input_harness_mismatch';
    out.reasons.push(kind);
    out.lines.push([
      'rejects',
      canonicalJson({
        kind: 'input',
        source_file: item.file,
        source_line: item.line,
        id: parsed.ok ? parsed.record.id : null,
        reason_kind: kind,
        reason: formatProblem(errors[0]!),
        problems: errors.map(formatProblem),
        line: item.text,
      }),
    ]);
    return out;
  }
  const source = parsed.record;
  count('valid_records');
  const prompt = at.outcome?.prompt;
  if (prompt) count(prompt === 'matched' ? 'prompts_matched' : prompt === 'located' ? 'prompts_located' : 'prompts_replaced');
  if (at.outcome?.discardedChars) out.counts.prompt_chars_discarded = at.outcome.discardedChars;
  if (parsed.warnings.length > 0) out.counts.reused_call_ids = parsed.warnings.length;
  // A source message shown by more than one SFT record (each variant, the kept source) has its
  // JSON encoded once; when only one record shows it (one variant), it is written as text.
  const sourceMessages = cfg.variants + (cfg.keepSource ? 1 : 0) > 1 ? new Set<object>(source.messages) : undefined;
  // So is a message that an OPD prompt of the same output shows again (set per output in emit).
  let opdShown: ReadonlySet<object> | undefined;
  const sftWriters = { messages: messagesWriter(messageContentJson, (m) => sourceMessages?.has(m) === true || opdShown?.has(m) === true), meta: META };
  const counter = ctx.tokens;
  const tokens: OutputTokens | undefined = counter ? (out.tokens = { sft: [], opd: [], tooLong: { sft: 0, opd: 0 } }) : undefined;
  /**
   * With a tokenizer, whether a record fits the budget (rendered through the chat template with its
   * tools, as the trainer will); one over it goes to rejects whole, with its count — never cut.
   */
  const fits = (stage: 'sft' | 'opd', record: Record<string, unknown>, tools: unknown[]): boolean => {
    if (!counter || !tokens) return true;
    let n: number;
    try {
      n = counter.count(record.messages as unknown[], tools, stage === 'opd');
    } catch (e) {
      throw new RenderError(
        `${item.file}:${item.line}`,
        `record ${String(record.id)} does not render through the chat template of ${counter.info.name} (${(e as Error).message})`,
      );
    }
    if (cfg.maxTokens !== null && n > cfg.maxTokens) {
      tokens.tooLong[stage]++;
      out.reasons.push(stage === 'sft' ? 'too_long_sft' : 'too_long_opd');
      // Plain JSON, not canonical: the record keeps its key order, which the template's tojson
      // renders (sorted keys would count differently).
      out.lines.push([
        'rejects',
        JSON.stringify({
          kind: 'too_long',
          reason_kind: stage === 'sft' ? 'too_long_sft' : 'too_long_opd',
          stage,
          id: record.id,
          source_file: item.file,
          source_line: item.line,
          reason: tooLongReason(n, cfg.maxTokens),
          tokens: n,
          max_tokens: cfg.maxTokens,
          record,
        }),
      ]);
      return false;
    }
    tokens[stage].push(n);
    return true;
  };
  const emit = (x: StageInput) => {
    if (cfg.stages.includes('sft')) {
      opdShown = cfg.stages.includes('opd') ? opdShownMessages(x, cfg) : undefined;
      const r = sftRecord(x, cfg);
      if (!x.record.messages.some((m) => m.role === 'assistant')) {
        // Nothing for SFT to learn from: counted always, and skipped into rejects when asked.
        count('sft_without_assistant');
        if (cfg.sft.skipWithoutAssistant) {
          out.reasons.push('sft_no_assistant');
          out.lines.push([
            'rejects',
            canonicalJson({
              kind: 'sft',
              id: x.id,
              source_file: item.file,
              source_line: item.line,
              reason_kind: 'sft_no_assistant',
              reason: 'the record has no assistant turn (sft.skip_without_assistant)',
            }),
          ]);
        } else if (fits('sft', r, renderTools(x.state))) out.lines.push(['sft', recordLine(r, SHARED, sftWriters)]);
      } else if (fits('sft', r, renderTools(x.state))) out.lines.push(['sft', recordLine(r, SHARED, sftWriters)]);
    }
    if (cfg.stages.includes('opd')) {
      for (const r of opdRecords(x, cfg, general)) {
        if (fits('opd', r, (r.meta as { source?: string }).source === 'general' ? [] : renderTools(x.state)))
          out.lines.push(['opd', recordLine(r, SHARED, OPD_WRITERS)]);
      }
    }
    if (cfg.stages.includes('rl')) out.lines.push(['rl', JSON.stringify(rlRecord(x, cfg))]);
    out.outputs++;
  };
  const provenance = (
    variant: number | 'src',
    applied: Provenance['transforms'],
    stateHash: string,
    slot: number | null = null,
    extra: Partial<Provenance> = {},
  ): Provenance => ({
    source_id: source.id,
    source_file: item.file,
    source_line: item.line,
    variant,
    transforms: shownTransforms(applied, source, harness),
    harness: { name: harness.name, version: harness.version, state_hash: stateHash, ...(slot !== null ? { state_slot: slot } : {}) },
    seed: cfg.seed,
    ...extra,
  });
  if (cfg.keepSource) {
    count('kept_sources');
    emit({
      id: `${source.id}~src`,
      record: source,
      state: harness,
      provenance: provenance('src', [], hashState(harness)),
      ordinal: ordinalBase + cfg.variants,
    });
  }
  const handle = (k: number, v: AugmentedVariant, episode: { result: EpisodeResult } | undefined) => {
    count('variants_expected');
    if (episode) {
      const { stats, recovery, status } = episode.result;
      const add = (k: keyof Output['teacher'], n: number) => (out.teacher[k] = (out.teacher[k] ?? 0) + n);
      add('calls', stats.answers);
      add('tokens_in', stats.tokensIn);
      add('tokens_out', stats.tokensOut);
      const retries = Object.entries(recovery.callRetries);
      add(
        'call_retries',
        retries.reduce((n, [, r]) => n + r, 0),
      );
      add('episode_reruns', recovery.attempts - 1);
      if (status === 'accepted' && (retries.length > 0 || recovery.attempts > 1)) add('recovered_variants', 1);
      for (const [kind, n] of retries) out.recovery[`call_retry.${kind}`] = (out.recovery[`call_retry.${kind}`] ?? 0) + n;
      // A failure followed by another attempt was recovered from (or retried in vain).
      for (const f of recovery.failures.slice(0, recovery.attempts - 1)) out.recovery[`rerun.${f.kind}`] = (out.recovery[`rerun.${f.kind}`] ?? 0) + 1;
    }
    if (episode && episode.result.status === 'rejected') {
      const useFallback = cfg.teacher.fallback === 'rewrite' && v.failures.length === 0 && v.variant.applied.every((a) => a.class !== 'behavioural');
      if (!useFallback) {
        count('variants_rejected');
        const { kind, reason, recovery } = episode.result;
        out.reasons.push(kind!);
        out.lines.push([
          'rejects',
          canonicalJson({
            kind: 'variant',
            id: v.id,
            source_file: item.file,
            source_line: item.line,
            reason_kind: kind,
            reason,
            attempts: recovery.failures.map((f) => ({ reason_kind: f.kind, reason: f.reason })),
            call_retries: recovery.callRetries,
            transforms: v.variant.applied,
            trajectory: episode.result.trajectory,
            teacher_output: episode.result.raw,
          }),
        ]);
        return;
      }
      count('variants_written');
      count('fallbacks');
      emit({
        id: v.id,
        record: v.record,
        state: v.variant.state,
        provenance: provenance(k, v.variant.applied, v.variant.stateHash, v.slot, {
          fallback: 'rewrite',
          teacher_reason: episode.result.reason,
          teacher_reason_kind: episode.result.kind,
        }),
        ordinal: ordinalBase + k,
      });
      return;
    }
    if (v.promptText.length > 0) {
      // The record's own prompt text is kept verbatim: a variant that renames what it names would leak the old name.
      count('variants_rejected');
      out.reasons.push('check_record_prompt_text');
      out.lines.push([
        'rejects',
        canonicalJson({
          kind: 'variant',
          id: v.id,
          source_file: item.file,
          source_line: item.line,
          reason_kind: 'check_record_prompt_text',
          reason: `check failed: ${v.promptText[0]}`,
          problems: v.promptText,
          transforms: v.variant.applied,
        }),
      ]);
      return;
    }
    if (!episode && v.failures.length > 0) {
      count('variants_rejected');
      // One kind per reject (the first failing check), so the kinds add up to the rejects.
      const kind = checkKind(Object.entries(v.checks).find(([, list]) => list.length > 0)?.[0] ?? '');
      out.reasons.push(kind);
      out.lines.push([
        'rejects',
        canonicalJson({
          kind: 'variant',
          id: v.id,
          source_file: item.file,
          source_line: item.line,
          reason_kind: kind,
          reason: `check failed: ${v.failures[0]}`,
          problems: v.failures,
          transforms: v.variant.applied,
        }),
      ]);
      return;
    }
    count('variants_written');
    const record = episode ? episode.result.trajectory : v.record;
    const recovered = episode && (episode.result.recovery.attempts > 1 || Object.keys(episode.result.recovery.callRetries).length > 0);
    const extra: Partial<Provenance> = episode
      ? {
          teacher: cfg.teacher.mode,
          ...(recovered ? { teacher_recovery: { attempts: episode.result.recovery.attempts, call_retries: episode.result.recovery.callRetries } } : {}),
        }
      : {};
    emit({
      id: v.id,
      record,
      state: v.variant.state,
      provenance: provenance(k, v.variant.applied, v.variant.stateHash, v.slot, extra),
      ordinal: ordinalBase + k,
    });
  };
  if (!ctx.teacher) {
    // Rewrite mode: one variant at a time, written as soon as it is made, so a variant's objects
    // die young (holding all K made every scavenge promote them).
    for (let k = 0; k < cfg.variants; k++) handle(k, variantOf(ctx, source, k), undefined);
    return out;
  }
  // Teacher episodes of one record run concurrently (bounded by the run's limiter).
  const variants = variantsOf(ctx, source);
  const episodes = await Promise.all(variants.map((v) => ctx.limit!(() => episode(ctx, source, v))));
  variants.forEach((v, k) => handle(k, v, episodes[k]));
  return out;
}

/**
 * The transforms a record shows: provenance says only what was applied. Under a `slots` layout
 * (`--system-prompt locate`) the record's own text stands between the located sections, so the
 * section separator prompt.spacing draws is never rendered; its entry keeps only a changed title
 * casing (which the sections do show), or goes. Kept per applied list (lists belong to pooled
 * states, and their JSON is shared by identity, see sharedText).
 */
function shownTransforms(applied: AppliedTransform[], source: Trajectory, harness: Harness): AppliedTransform[] {
  if (promptLayout(source.messages[0])?.kind !== 'slots') return applied;
  const i = applied.findIndex((a) => a.id === 'prompt.spacing');
  if (i < 0) return applied;
  let byHarness = locatedShown.get(applied);
  if (!byHarness) locatedShown.set(applied, (byHarness = new WeakMap()));
  let out = byHarness.get(harness);
  if (!out) {
    const a = applied[i]!;
    const { separator: _separator, ...shown } = a.params;
    out = applied.slice();
    if (shown.titleCase === undefined || shown.titleCase === baseStyle(harness).titleCase) out.splice(i, 1);
    else out[i] = { ...a, params: shown };
    byHarness.set(harness, out);
  }
  return out;
}
const locatedShown = new WeakMap<AppliedTransform[], WeakMap<Harness, AppliedTransform[]>>();

/** One teacher episode for a variant (the rewritten record is the replay teacher's reference). */
async function episode(ctx: ProduceContext, source: Trajectory, v: AugmentedVariant): Promise<{ result: EpisodeResult }> {
  const { harness, teacher, cfg } = ctx;
  if (teacher instanceof ReplayTeacher) teacher.setReference(v.id, v.record, v.variant.state.hookMessages.namePrefix);
  try {
    const result = await runEpisode(source, harness, v.variant.state, v.variant.plan, v.id, teacher!, episodeOptions(cfg, ctx.warn));
    return { result };
  } finally {
    if (teacher instanceof ReplayTeacher) teacher.forget(v.id);
  }
}
