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
}

/** The lines one input record produces, in order, and what they add to the part's counts. */
export interface Output {
  lines: [Bucket, OutputLine][];
  counts: Partial<Record<keyof PartCounts, number>>;
  reasons: string[];
  teacher: Partial<TeacherTotals>;
  outputs: number;
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
