import { canonicalJson } from '../util/canonical-json.js';
import type { Output, RejectKind } from './shared.js';

/**
 * The reject writer of one input record's output. `reject(kind, detail)` is the one place a reject
 * is made: its kind is counted (and the count it belongs to: a rejected input, a rejected variant,
 * a record over the token budget) and its line is written to rejects with where it came from.
 * `detail` holds the rest of the line (`id`, `reason`, …) in the order it is written.
 */
export function rejectWriter(out: Output, at: { file: string; line: number }): (kind: RejectKind, detail: Record<string, unknown>) => void {
  const source = { source_file: at.file, source_line: at.line };
  return (kind, detail) => {
    out.reasons.push(kind);
    if (kind === 'too_long_sft' || kind === 'too_long_opd') {
      const stage = kind === 'too_long_sft' ? 'sft' : 'opd';
      out.tokens!.tooLong[stage]++;
      // Plain JSON, not canonical: the record keeps its key order, which the template's tojson
      // renders (sorted keys would count differently).
      const { id, ...rest } = detail;
      out.lines.push(['rejects', JSON.stringify({ kind: 'too_long', reason_kind: kind, stage, id, ...source, ...rest })]);
      return;
    }
    const family = kind.startsWith('input_') ? 'input' : kind === 'sft_no_assistant' ? 'sft' : 'variant';
    if (family === 'input') out.counts.rejected_records = (out.counts.rejected_records ?? 0) + 1;
    else if (family === 'variant') out.counts.variants_rejected = (out.counts.variants_rejected ?? 0) + 1;
    out.lines.push(['rejects', canonicalJson({ kind: family, ...source, reason_kind: kind, ...detail })]);
  };
}
