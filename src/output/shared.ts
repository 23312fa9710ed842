import type { Stage } from '../config/augment-config.js';
import { HsaError } from '../errors.js';
import type { IdIndex } from '../util/id-index.js';
import type { OutputLine } from '../util/json-out.js';
import { TEACHER_REJECT_KINDS } from '../episode/reject-kinds.js';

/** A stage folder or the rejects folder. */
export type Bucket = Stage | 'rejects';

export class BadRecordError extends HsaError {
  constructor(message: string) {
    super('HSA_BAD_RECORD', message, 1);
    this.name = 'BadRecordError';
  }
}

export interface PartCounts {
  input_records: number;
  valid_records: number;
  rejected_records: number;
  variants_expected: number;
  variants_written: number;
  variants_rejected: number;
  kept_sources: number;
  /** Variants whose teacher run was rejected and that kept the rewritten reference (--fallback rewrite). */
  fallbacks: number;
  /** SFT records (variants, kept sources) without an assistant turn: written, or skipped to rejects with `sft.skip_without_assistant`. */
  sft_without_assistant: number;
  /** Valid records by what became of their system message (--system-prompt); records without one count in none. */
  prompts_matched: number;
  prompts_located: number;
  prompts_replaced: number;
  /** Characters of logged system messages dropped by --system-prompt replace. */
  prompt_chars_discarded: number;
  /** Tool-call ids used again in a record and written unique (`ID~2`), over valid records. */
  reused_call_ids: number;
}

export function emptyCounts(): PartCounts {
  return {
    input_records: 0,
    valid_records: 0,
    rejected_records: 0,
    variants_expected: 0,
    variants_written: 0,
    variants_rejected: 0,
    kept_sources: 0,
    fallbacks: 0,
    sft_without_assistant: 0,
    prompts_matched: 0,
    prompts_located: 0,
    prompts_replaced: 0,
    prompt_chars_discarded: 0,
    reused_call_ids: 0,
  };
}

/**
 * Teacher totals that belong in the manifest: they come from the answers themselves (cached or
 * not), so a rerun from a warm cache states the same numbers. Requests made, cache hits and
 * retries differ between runs and live only in the summary.
 */
export interface TeacherTotals {
  calls: number;
  tokens_in: number;
  tokens_out: number;
  /** Per-call fallbacks: invalid calls answered with a tool error and asked again. */
  call_retries: number;
  /** Trajectory-level recovery: episodes run again with the next sample index. */
  episode_reruns: number;
  /** Variants accepted after any recovery (a call retry or a re-run). */
  recovered_variants: number;
}

export function emptyTeacherTotals(): TeacherTotals {
  return { calls: 0, tokens_in: 0, tokens_out: 0, call_retries: 0, episode_reruns: 0, recovered_variants: 0 };
}

/** The lines one input record produces, in order, and what they add to the part's counts. */
export interface Output {
  lines: [Bucket, OutputLine][];
  counts: Partial<Record<keyof PartCounts, number>>;
  /** Reject kinds (see REJECT_KINDS), one per rejected input or variant. */
  reasons: RejectKind[];
  teacher: Partial<TeacherTotals>;
  /** Recovery by kind: `call_retry.<kind>` and `rerun.<kind>` (what failed and was recovered from). */
  recovery: Record<string, number>;
  outputs: number;
  /** The record's id when it parsed (what duplicate detection notes); set for worker threads. */
  id?: string;
  /** With a tokenizer: the token count of every SFT/OPD record written, and those over the budget. */
  tokens?: OutputTokens;
}

/** Token counts of one record's SFT/OPD output (see src/tokenize/). */
export interface OutputTokens {
  sft: number[];
  opd: number[];
  tooLong: { sft: number; opd: number };
}

/**
 * Every reason a record can be rejected for, as a fixed set of kinds: the summary and the manifest
 * count these; the reject record keeps the kind (`reason_kind`) and the detail (`reason`).
 */
export const REJECT_KINDS = {
  input_malformed: 'the input line is not a valid trajectory record',
  input_duplicate_id: 'an id seen before (in this or an earlier input)',
  input_harness_mismatch: 'the record does not match the harness (system prompt, tools, hooks)',
  input_tool_schema: "the record's own tool list (no --harness) holds a tool that is not valid: its shape, its name or its argument schema",
  check_invalid_call: 'a call of the variant does not validate against its tools',
  check_leak: 'a renamed identifier survives in what the model reads',
  check_round_trip: 'the inverse plan does not give the source back',
  check_rules: 'the prompt rules changed (semantic transforms)',
  check_record_prompt_text: "the record's own prompt text (kept verbatim by --system-prompt locate) names an identifier the variant renames",
  check_skill_body: 'a skill body changed in a way the plan does not explain',
  check_other: 'another variant check failed',
  too_long_sft: 'an SFT record longer than --max-tokens (rendered through the chat template), kept whole in rejects',
  too_long_opd: 'an OPD prompt longer than --max-tokens, kept whole in rejects',
  sft_no_assistant: 'an SFT record without an assistant turn (sft.skip_without_assistant)',
  ...TEACHER_REJECT_KINDS,
} as const;

export type RejectKind = keyof typeof REJECT_KINDS;

const CHECK_KINDS: Record<string, RejectKind> = {
  calls: 'check_invalid_call',
  leaks: 'check_leak',
  roundTrip: 'check_round_trip',
  rules: 'check_rules',
  bodies: 'check_skill_body',
};

/** The reject kind of a failed variant check (a check added later counts as check_other until it has a kind). */
export function checkKind(check: string): RejectKind {
  return CHECK_KINDS[check] ?? 'check_other';
}

/** Remember a record id; returns where it was first seen when it is a duplicate. */
export function noteId(item: { file: string; line: number; text: string }, seen: IdIndex, id?: string): string | undefined {
  let key = id;
  if (key === undefined) {
    try {
      const v = JSON.parse(item.text) as { id?: unknown };
      if (typeof v.id === 'string') key = v.id;
    } catch {
      return undefined;
    }
  }
  if (key === undefined) return undefined;
  return seen.note(key, item.file, item.line);
}
