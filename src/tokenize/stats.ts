/**
 * Token counts of one stage as a histogram (count → records), so part markers stay small and the
 * percentiles over a whole run are exact after merging.
 */
export type TokenHistogram = [tokens: number, records: number][];

export interface TokenSummary {
  records: number;
  min: number;
  p50: number;
  p95: number;
  max: number;
}

/** Collects token counts. */
export class TokenTally {
  private readonly counts = new Map<number, number>();

  add(tokens: number, n = 1): void {
    this.counts.set(tokens, (this.counts.get(tokens) ?? 0) + n);
  }

  merge(h: TokenHistogram): void {
    for (const [t, n] of h) this.add(t, n);
  }

  /** Sorted by token count (so it serialises the same however the counts arrived). */
  histogram(): TokenHistogram {
    return [...this.counts.entries()].sort((a, b) => a[0] - b[0]);
  }

  /** min / nearest-rank p50 and p95 / max, or null with no records. */
  summary(): TokenSummary | null {
    return summarise(this.histogram());
  }
}

/** Nearest-rank percentiles of a histogram. */
export function summarise(h: TokenHistogram): TokenSummary | null {
  const records = h.reduce((n, [, c]) => n + c, 0);
  if (records === 0) return null;
  const at = (p: number) => {
    const rank = Math.max(1, Math.ceil((p / 100) * records));
    let seen = 0;
    for (const [t, c] of h) {
      seen += c;
      if (seen >= rank) return t;
    }
    return h[h.length - 1]![0];
  };
  return { records, min: h[0]![0], p50: at(50), p95: at(95), max: h[h.length - 1]![0] };
}

/** `too_long: 9,321 tokens > 8,192` — the reason a record over the budget carries. */
export function tooLongReason(tokens: number, max: number): string {
  return `too_long: ${tokens.toLocaleString('en-US')} tokens > ${max.toLocaleString('en-US')}`;
}
