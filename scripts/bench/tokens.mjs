// `npm run bench` — augment with the token budget on (`--max-tokens`, Qwen3's tokenizer and chat
// template): every SFT record is rendered and counted. Reported against the pass-through rate
// (target ≥ 0.3×), per CPU-second, and against augment without the budget on the same input.
// Called from scripts/bench.mjs with its measureAugment, measurements and report row.

export const TOKENS_RATIO_TARGET = 0.3;
/** Large enough that the bench records (25–40 KB, ~10 K tokens) all fit: every one is counted. */
const BUDGET = '32768';

const fmt = (x, d = 2) => x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });

/** Measure augment --max-tokens on `input` and add its rows to the report. */
export async function benchTokens({ measureAugment, input, bytes, outDir, pt, aug, row, errors }) {
  const m = await measureAugment(input, bytes, outDir, 'augment-tokens', ['--max-tokens', BUDGET]);
  if (!m.ok) {
    errors.push(m.error);
    row('augment --max-tokens', 'FAILED (see below)', `≥ ${TOKENS_RATIO_TARGET}× pass-through`, 'MISSED');
    return;
  }
  const ptRecPerS = pt.records / pt.seconds;
  const ratio = m.recPerS / ptRecPerS;
  row(
    `augment --max-tokens ${BUDGET} (qwen3; every SFT record rendered and counted)`,
    `${fmt(m.recPerS, 0)} output records/s (wall ${fmt(m.r.wall)} s, CPU ${m.cpu == null ? 'n/a' : `${fmt(m.cpu)} s`}, peak RSS ${m.rss == null ? 'n/a' : `${fmt(m.rss, 0)} MB`})`,
    '',
    '',
  );
  row('augment --max-tokens ÷ pass-through (records/s)', fmt(ratio), `≥ ${TOKENS_RATIO_TARGET}`, ratio >= TOKENS_RATIO_TARGET ? 'ok' : 'MISSED');
  if (m.cpu) row('(info) same ratio per CPU-second', fmt(m.outRecords / m.cpu / (pt.records / pt.cpu_seconds)), '', '');
  if (aug?.ok && aug.cpu && m.cpu)
    row('(info) augment --max-tokens ÷ augment without it (records per CPU-second)', fmt(m.outRecords / m.cpu / (aug.outRecords / aug.cpu)), '', '');
}
