import type { Stage } from '../config/augment-config.js';
import { HsaError } from '../errors.js';
import type { IdIndex } from '../util/id-index.js';
import type { OutputLine } from '../util/json-out.js';

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
}

export function emptyCounts(): PartCounts {
  return { input_records: 0, valid_records: 0, rejected_records: 0, variants_expected: 0, variants_written: 0, variants_rejected: 0, kept_sources: 0, fallbacks: 0 };
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
}

/** The lines one input record produces, in order, and what they add to the part's counts. */
export interface Output {
  lines: [Bucket, OutputLine][];
  counts: Partial<Record<keyof PartCounts, number>>;
  reasons: string[];
  teacher: Partial<TeacherTotals>;
  outputs: number;
  /** With a tokenizer: the token count of every SFT/OPD record written, and those over the budget. */
  tokens?: OutputTokens;
}

/** Token counts of one record's SFT/OPD output (see src/tokenize/). */
export interface OutputTokens {
  sft: number[];
  opd: number[];
  tooLong: { sft: number; opd: number };
}

/** The kind of a teacher rejection, for counting (numbers and quoted names removed). */
export function reasonKind(reason: string): string {
  return reason.replace(/"[^"]*"/g, '"…"').replace(/\d+/g, 'N').slice(0, 80);
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
