// `npm run bench` — the review lines: `hsa verify` and `hsa diff` on the bench's augment output.
// Called from scripts/bench.mjs with its helpers; adds rows to its table and never fails the bench
// (a command that fails is reported in the errors section).
//
//   verify: records/s over the whole process (startup included) and peak RSS; target ≥ 0.5× the
//           augment rate (output records/s) measured on the same output. The same ratio per
//           CPU-second is shown beside it (on a shared machine wall time is noise).
//   diff:   the augment output against a copy of itself in another folder (every record read,
//           indexed and joined; nothing differs, so no record is re-read) — records/s (both sides)
//           and peak RSS; target < 300 MB on two 1 GB outputs (--big).
import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

const VERIFY_RATIO = 0.5;
const RSS_LIMIT_MB = 300;

/** Records and bytes over every stage of an output folder, from its manifest. */
function sizeOf(out) {
  try {
    const stages = Object.values(JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8')).stages ?? {});
    return { records: stages.reduce((n, s) => n + (s.records ?? 0), 0), bytes: stages.reduce((n, s) => n + (s.bytes ?? 0), 0) };
  } catch {
    return { records: 0, bytes: 0 };
  }
}

const cpuSeconds = (r) => (r?.usage ? (r.usage.user_us + r.usage.system_us) / 1e6 : null);

async function measure(ctx, label, out, augRate, augCpu) {
  const { runHsa, row, rel, fmtNum, errors } = ctx;
  if (!existsSync(path.join(out, 'manifest.json'))) return;
  const { records: n, bytes } = sizeOf(out);
  const mb = bytes / 2 ** 20;
  const v = await runHsa(['verify', rel(out), '-q'], `verify${label}`);
  if (v.code !== 0) errors.push(`hsa verify ${rel(out)} exited ${v.code}:\n${v.out.slice(-2000)}${v.err.slice(-2000)}`);
  else {
    const rate = n / v.wall;
    const rss = v.usage ? v.usage.maxRSS_kb / 1024 : null;
    const ratio = augRate ? rate / augRate : null;
    // Same records on both sides: the per-CPU-second ratio is augment's CPU over verify's.
    const cpu = cpuSeconds(v);
    const cpuRatio = cpu && augCpu ? augCpu / cpu : null;
    const cpuNote = cpuRatio == null ? '' : `; per CPU-second ${fmtNum(cpuRatio, 2)}× (CPU ${fmtNum(cpu, 2)} s)`;
    row(
      `verify${label} records/s (${fmtNum(mb, 0)} MB output)`,
      `${fmtNum(rate, 0)} (wall ${fmtNum(v.wall, 2)} s; ${ratio == null ? 'no augment rate' : `${fmtNum(ratio, 2)}× augment`}${cpuNote})`,
      `≥ ${VERIFY_RATIO}× augment`,
      ratio == null ? '' : ratio >= VERIFY_RATIO ? 'ok' : 'MISSED',
    );
    row(
      `verify${label} peak RSS`,
      rss == null ? 'n/a' : `${fmtNum(rss, 0)} MB`,
      `< ${RSS_LIMIT_MB} MB`,
      rss == null ? '' : rss < RSS_LIMIT_MB ? 'ok' : 'MISSED',
    );
  }
  const copy = `${out}-copy`;
  rmSync(copy, { recursive: true, force: true });
  cpSync(out, copy, { recursive: true });
  const d = await runHsa(['diff', rel(out), rel(copy), '-q'], `diff${label}`);
  rmSync(copy, { recursive: true, force: true });
  if (d.code !== 0) errors.push(`hsa diff ${rel(out)} ${rel(copy)} exited ${d.code}:\n${d.out.slice(-2000)}${d.err.slice(-2000)}`);
  else {
    const rss = d.usage ? d.usage.maxRSS_kb / 1024 : null;
    row(`diff${label} records/s (two ${fmtNum(mb, 0)} MB outputs)`, `${fmtNum((2 * n) / d.wall, 0)} (wall ${fmtNum(d.wall, 2)} s)`, '', '');
    row(
      `diff${label} peak RSS`,
      rss == null ? 'n/a' : `${fmtNum(rss, 0)} MB`,
      `< ${RSS_LIMIT_MB} MB on two 1 GB outputs`,
      rss == null ? '' : rss < RSS_LIMIT_MB ? 'ok' : 'MISSED',
    );
  }
}

/** Measure verify and diff on the main augment output (and the big one with --big); rows go into the bench table. */
export async function benchReview(ctx) {
  const { log, aug, big, outDir, bigOutDir } = ctx;
  log('review: verify and diff on the augment output …');
  await measure(ctx, '', outDir, aug?.ok ? aug.recPerS : null, aug?.ok ? aug.cpu : null);
  if (big?.aug?.ok && bigOutDir !== outDir) await measure(ctx, ' (big)', bigOutDir, big.aug.recPerS, big.aug.cpu);
}
