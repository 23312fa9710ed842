// Per-record tools for scripts/bench.mjs (issue #26, deliverable 1): 20,000 BFCL-live-shaped records
// (scripts/bench/bfcl-live.mjs, our own seeded generator), each with its own 1–8 tools and no two tool
// lists alike, so `hsa augment` without --harness derives a harness (and samples its states) for
// every record. Two settings, each against the pass-through on the same input, runs interleaved
// (pass-through, rename set, defaults, pass-through, …; the fastest run of each kept):
//   - the rename set: `--variants 1 --transforms tools.rename tools.param-rename tools.order
//     --stages sft` — the issue's side-by-side comparison with the peers' scripts (one variant per
//     record, tool and parameter renames plus tool order); target ≥ 0.35× the pass-through;
//   - defaults: every default transform, the default variants (4), `--stages sft`; target ≥ 0.25×
//     per output record;
// and the peak RSS of both (target ≤ 250 MB).
// Standalone: node scripts/bench/inline-tools.mjs [--records N] [--runs N] [--seed S]
//
// How fair the ratio is: the pass-through's rate is taken inside its process (records ÷ the time of
// its read-parse-write loop), hsa's from outside (output records ÷ the wall time of the whole
// process: start, module loading, word packs, the manifest), so every fixed cost counts against
// hsa; hsa's `--version` start is reported on its own row. The ratio per CPU-second (all threads
// of both processes) is printed beside it: on a shared machine wall time is noise, and both are
// side by side in one run. The floor rows (inline-floor.mjs) are what writing outputs of this shape
// costs with no hsa work at all, without and with a state identity per variant.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { writeBfclLiveInput } from './bfcl-live.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The default size of the input: the issue's 20,000 records (public function-calling sets are 10^4–10^5). */
export const DEFAULT_RECORDS = 20000;
export const TARGET_RENAME_SET = 0.35;
export const TARGET_DEFAULTS = 0.25;
export const RSS_TARGET_MB = 250;
const RENAME_SET = ['--variants', '1', '--transforms', 'tools.rename', 'tools.param-rename', 'tools.order', '--stages', 'sft'];
const DEFAULTS = ['--stages', 'sft'];

/** The input, written unless it is already there for these parameters. */
function ensureInput(file, records, seed) {
  const stamp = `${file}.params`;
  const params = JSON.stringify({
    v: 1,
    records,
    seed,
    gen: ['bfcl-live.mjs', 'bfcl-live-data.mjs'].map((f) => statSync(path.join(ROOT, 'scripts/bench', f)).size).join('+'),
  });
  if (existsSync(file) && existsSync(stamp) && readFileSync(stamp, 'utf8') === params) return { file, bytes: statSync(file).size, records };
  const r = writeBfclLiveInput(file, records, seed);
  writeFileSync(stamp, params);
  return r;
}

/** Run `node --import rss-preload bin/hsa …`: wall time, and CPU time and peak RSS from the preload's file. */
function run(args, usageFile) {
  rmSync(usageFile, { force: true });
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, ['--import', pathToFileURL(path.join(ROOT, 'scripts/bench/rss-preload.mjs')).href, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, HSA_BENCH_RSS_FILE: usageFile },
    });
    let err = '';
    child.stdout.on('data', () => {});
    child.stderr.on('data', (d) => (err = (err + d).slice(-4000)));
    child.on('close', (code) => {
      let cpu = null;
      let rss = null;
      try {
        const u = JSON.parse(readFileSync(usageFile, 'utf8'));
        cpu = (u.user_us + u.system_us) / 1e6;
        rss = u.maxRSS_kb / 1024;
      } catch {
        /* reported without the CPU ratio */
      }
      resolve({ code, err, cpu, rss, wall: Number(process.hrtime.bigint() - t0) / 1e9 });
    });
  });
}

function passThrough(input, out) {
  const pt = spawnSync(process.execPath, [path.join(ROOT, 'scripts/bench/passthrough.mjs'), input, out], { encoding: 'utf8' });
  rmSync(out, { force: true });
  if (pt.status !== 0) throw new Error(`pass-through failed: ${pt.stderr.slice(-300)}`);
  return JSON.parse(pt.stdout.trim().split('\n').pop());
}

const f2 = (x) => x.toFixed(2);
const f3 = (x) => x.toFixed(3);

/** Rows `[measurement, result, target, status]` for the report of scripts/bench.mjs. */
export async function inlineToolsRows({ data, seed = 'hsa-bench-v1', records = DEFAULT_RECORDS, runs = 2, log = () => {}, errors = [] }) {
  mkdirSync(data, { recursive: true });
  const input = ensureInput(path.join(data, 'input-bfcl-live.jsonl'), records, seed);
  log(`per-record tools (BFCL-live shape): ${records} records, ${(input.bytes / 2 ** 20).toFixed(1)} MB …`);
  const settings = { rename: RENAME_SET, defaults: DEFAULTS };
  const best = {};
  let pt = null;
  let ptCpu = Infinity;
  for (let i = 0; i < runs; i++) {
    const p = passThrough(input.file, path.join(data, 'passthrough-inline.jsonl'));
    if (!pt || p.seconds < pt.seconds) pt = p;
    ptCpu = Math.min(ptCpu, p.cpu_seconds);
    for (const [k, extra] of Object.entries(settings)) {
      log(`per-record tools: augment ${extra.join(' ')} (run ${i + 1}/${runs}) …`);
      const out = path.join(data, `out-inline-${k}`);
      rmSync(out, { recursive: true, force: true });
      const r = await run(
        [path.join(ROOT, 'bin/hsa'), 'augment', '--no-gzip', '-t', input.file, '-o', out, '--force', '-q', ...extra],
        path.join(data, `.usage-inline-${k}.json`),
      );
      if (r.code !== 0) {
        errors.push(`per-record tools: hsa augment ${extra.join(' ')} exited ${r.code}: ${r.err.slice(-800)}`);
        return [['per-record tools', `augment ${extra.join(' ')} FAILED (see below)`, '', 'MISSED']];
      }
      const manifest = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8'));
      const m = { ...r, manifest, written: manifest.totals.variants_written, rejected: manifest.totals.variants_rejected + manifest.totals.rejected_records };
      const b = best[k];
      best[k] =
        !b || m.wall < b.wall
          ? { ...m, cpu: Math.min(m.cpu ?? Infinity, b?.cpu ?? Infinity), rss: Math.max(m.rss ?? 0, b?.rss ?? 0) }
          : { ...b, cpu: Math.min(b.cpu, m.cpu ?? Infinity), rss: Math.max(b.rss, m.rss ?? 0) };
    }
  }
  const start = await run([path.join(ROOT, 'bin/hsa'), '--version'], path.join(data, '.usage-inline-start.json'));
  const ptRate = pt.records / pt.seconds;
  const ptCpuRate = pt.records / ptCpu;
  const rows = [
    [
      `(per-record tools) pass-through, ${records} BFCL-live-shaped records with their own 1–8 tools (best of ${runs})`,
      `${Math.round(ptRate)} records/s (per CPU-second ${Math.round(ptCpuRate)}; ${(input.bytes / 2 ** 20).toFixed(1)} MB)`,
      '',
      '',
    ],
  ];
  const ratios = {};
  for (const [k, label, target] of [
    ['rename', 'rename set (tools.rename, tools.param-rename, tools.order), --variants 1, SFT', TARGET_RENAME_SET],
    ['defaults', 'defaults (every default transform, 4 variants), SFT, per output record', TARGET_DEFAULTS],
  ]) {
    const r = best[k];
    const ratio = r.written / r.wall / ptRate;
    const cpuRatio = Number.isFinite(r.cpu) ? r.written / r.cpu / ptCpuRate : null;
    ratios[k] = ratio;
    rows.push([
      `(per-record tools) augment, ${label}: output records/s ÷ pass-through`,
      `${f3(ratio)} (per CPU-second ${cpuRatio == null ? 'n/a' : f3(cpuRatio)}; ${Math.round(r.written / r.wall)} output records/s, ${r.written} written, ${r.rejected} rejected, wall ${f2(r.wall)} s, CPU ${Number.isFinite(r.cpu) ? f2(r.cpu) : 'n/a'} s)`,
      `≥ ${target}`,
      ratio >= target ? 'ok' : 'MISSED',
    ]);
  }
  const rss = Math.max(best.rename.rss ?? 0, best.defaults.rss ?? 0);
  rows.push([
    '(per-record tools) augment peak RSS, both settings',
    rss ? `${Math.round(rss)} MB (rename set ${Math.round(best.rename.rss)} MB, defaults ${Math.round(best.defaults.rss)} MB)` : 'n/a',
    `≤ ${RSS_TARGET_MB} MB`,
    rss && rss <= RSS_TARGET_MB ? 'ok' : 'MISSED',
  ]);
  rows.push([
    '(per-record tools) hsa start-up (`hsa --version`), counted in the wall above',
    `${f2(start.wall)} s wall${start.cpu ? `, ${f2(start.cpu)} s CPU` : ''}`,
    '',
    '',
  ]);
  // The floor (inline-floor.mjs): parse + output-shaped SFT lines with each variant's own tool
  // list, then the same with a canonical-JSON + sha256 state identity per variant.
  const floor = (k, hash) => {
    const sample = path.join(data, `out-inline-${k}`, 'sft', 'part-00000.jsonl');
    const variants = String(best[k].manifest.config.variants);
    const f = spawnSync(
      process.execPath,
      [path.join(ROOT, 'scripts/bench/inline-floor.mjs'), input.file, path.join(data, 'floor-inline.jsonl'), sample, variants, hash ? 'hash' : 'plain'],
      { encoding: 'utf8' },
    );
    rmSync(path.join(data, 'floor-inline.jsonl'), { force: true });
    return f.status === 0 ? JSON.parse(f.stdout.trim().split('\n').pop()) : null;
  };
  const cell = (f) => (f ? `${f2(f.outputs / f.seconds / ptRate)}× (per CPU-second ${f2(f.outputs / f.cpu_seconds / ptCpuRate)}×)` : 'FAILED');
  for (const [k, label] of [
    ['rename', 'one variant'],
    ['defaults', 'four variants'],
  ]) {
    rows.push([
      `(per-record tools) floor, ${label}: parse + output-shaped SFT lines, each variant its own tools, ÷ pass-through`,
      `${cell(floor(k, false))}; with a canonical-JSON + sha256 state identity per variant ${cell(floor(k, true))}`,
      '',
      '',
    ]);
  }
  for (const k of Object.keys(settings)) rmSync(path.join(data, `out-inline-${k}`), { recursive: true, force: true });
  return rows;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const argv = process.argv.slice(2);
  const opt = (n, d) => (argv.includes(n) ? argv[argv.indexOf(n) + 1] : d);
  const errors = [];
  const rows = await inlineToolsRows({
    data: path.join(ROOT, 'bench-data'),
    seed: opt('--seed', 'hsa-bench-v1'),
    records: Number(opt('--records', DEFAULT_RECORDS)),
    runs: Math.max(1, Number(opt('--runs', 2))),
    log: (l) => process.stderr.write(`${l}\n`),
    errors,
  });
  for (const row of rows) process.stdout.write(`| ${row.join(' | ')} |\n`);
  if (errors.length) {
    process.stderr.write(`${errors.join('\n\n')}\n`);
    process.exit(1);
  }
}
