// `npm run bench` — augment with the token budget on (`--max-tokens`, Qwen3's tokenizer and chat
// template): every SFT record is rendered and counted. Reported against the pass-through rate,
// target ≥ 0.3×. Called from scripts/bench.mjs with its own measureAugment and report row.

export const TOKENS_RATIO_TARGET = 0.3;
/** Large enough that the bench records (25–40 KB, ~10 K tokens) all fit: every one is counted. */
const BUDGET = '32768';

/** Measure augment --max-tokens on `input` and add its rows to the report. */
export async function benchTokens({ measureAugment, input, bytes, outDir, ptRecPerS, row, errors }) {
  const m = await measureAugment(input, bytes, outDir, 'augment-tokens', ['--max-tokens', BUDGET]);
  if (!m.ok) {
    errors.push(m.error);
    row('augment --max-tokens', 'FAILED (see below)', `≥ ${TOKENS_RATIO_TARGET}× pass-through`, 'MISSED');
    return;
  }
  const ratio = m.recPerS / ptRecPerS;
  row(`augment --max-tokens ${BUDGET} (qwen3; every SFT record rendered and counted)`, `${m.recPerS.toLocaleString('en-US', { maximumFractionDigits: 0 })} output records/s (wall ${m.r.wall.toFixed(2)} s, peak RSS ${m.rss == null ? 'n/a' : `${m.rss.toFixed(0)} MB`})`, '', '');
  row('augment --max-tokens ÷ pass-through (records/s)', ratio.toFixed(2), `≥ ${TOKENS_RATIO_TARGET}`, ratio >= TOKENS_RATIO_TARGET ? 'ok' : 'MISSED');
}
