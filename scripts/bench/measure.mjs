// The helpers and measurements of scripts/bench.mjs: run bin/hsa in a child process with the
// RSS preload, the pass-through baseline, `hsa augment` and `hsa validate --trajectories` timed,
// and the number formats of its report.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const DATA = path.join(ROOT, 'bench-data');
export const HARNESS = path.join(DATA, 'harness');
const PRELOAD = pathToFileURL(path.join(ROOT, 'scripts/bench/rss-preload.mjs')).href;
const PASSTHROUGH = path.join(ROOT, 'scripts/bench/passthrough.mjs');
const BIN = path.join(ROOT, 'bin/hsa');
export const MB = 2 ** 20;
export const rel = (p) => path.relative(ROOT, p) || '.';
export const log = (s) => process.stderr.write(`${s}\n`);

// ---------------------------------------------------------------------------------------------
// helpers

export function fmtNum(x, digits = 0) {
  return x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}
export const fmtMB = (b) => `${fmtNum(b / MB, 1)} MB`;
export const fmtS = (s) => `${fmtNum(s, 2)} s`;

/** Run `node --import preload bin/hsa …args`; resolves with wall time, exit code, output and rusage. */
export function runHsa(args, tag) {
  const rssFile = path.join(DATA, `.rss-${tag}.json`);
  rmSync(rssFile, { force: true });
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, ['--import', PRELOAD, BIN, ...args], {
      cwd: ROOT,
      env: { ...process.env, HSA_BENCH_RSS_FILE: rssFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out = (out + d).slice(-20000);
    });
    child.stderr.on('data', (d) => {
      err = (err + d).slice(-20000);
    });
    child.on('close', (code, signal) => {
      const wall = Number(process.hrtime.bigint() - t0) / 1e9;
      let usage = null;
      try {
        usage = JSON.parse(readFileSync(rssFile, 'utf8'));
      } catch {
        /* reported as n/a */
      }
      resolve({ code: code ?? (signal ? 128 : 1), signal, wall, out, err, usage, args });
    });
  });
}

export function passThrough(input, output) {
  rmSync(output, { force: true });
  const r = spawnSync(process.execPath, [PASSTHROUGH, input, output], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`pass-through failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

export function failure(what, r) {
  const tail = (s) => s.trim().split('\n').slice(-15).join('\n');
  return `${what} exited ${r.code}${r.signal ? ` (${r.signal})` : ''}: node bin/hsa ${r.args.join(' ')}\n${tail(r.err)}\n${tail(r.out)}`;
}

export function newestMtime(dir) {
  let newest = 0;
  if (!existsSync(dir)) return 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile() || !e.name.endsWith('.ts')) continue;
    const m = statSync(path.join(e.parentPath ?? e.path, e.name)).mtimeMs;
    if (m > newest) newest = m;
  }
  return newest;
}

export function gitDescribe() {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src', 'transforms'], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    return `${sha}${dirty ? ' (src/transforms modified)' : ''}`;
  } catch {
    return 'unknown';
  }
}

export const SLICE_RECORDS = 500;

export const rssMB = (r) => (r.usage ? r.usage.maxRSS_kb / 1024 : null);
export const cpuS = (r) => (r.usage ? (r.usage.user_us + r.usage.system_us) / 1e6 : null);

export function readManifest(outDir) {
  try {
    return JSON.parse(readFileSync(path.join(outDir, 'manifest.json'), 'utf8'));
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// measurements

export async function measureAugment(input, inBytes, outDir, tag, extra = []) {
  log(`augment${extra.length ? ` ${extra.join(' ')}` : ''}: ${rel(input)} → ${rel(outDir)} …`);
  // The previous run's output (GBs) is removed before the clock starts, as for the pass-through.
  rmSync(outDir, { recursive: true, force: true });
  const r = await runHsa(
    ['augment', '--no-gzip', '--harness', rel(HARNESS), '-t', rel(input), '-o', rel(outDir), '--force', '--stages', 'sft', '-q', ...extra],
    tag,
  );
  if (r.code !== 0) return { ok: false, error: failure('hsa augment', r), r };
  const m = readManifest(outDir);
  const outRecords = m?.stages?.sft?.records ?? m?.totals?.variants_written ?? 0;
  return {
    ok: true,
    r,
    outRecords,
    variants: m?.config?.variants ?? null,
    statePool: m?.config?.state_pool ?? null,
    rejected: (m?.totals?.variants_rejected ?? 0) + (m?.totals?.rejected_records ?? 0),
    recPerS: outRecords / r.wall,
    mbPerS: inBytes / MB / r.wall,
    rss: rssMB(r),
    cpu: cpuS(r),
    outBytes: m?.stages?.sft?.bytes ?? null,
  };
}

export async function measureValidate(input, records, tag) {
  log(`validate: ${rel(input)} …`);
  const r = await runHsa(['validate', rel(HARNESS), '--trajectories', rel(input)], tag);
  if (r.code !== 0) return { ok: false, error: failure('hsa validate --trajectories', r), r };
  return { ok: true, r, recPerS: records / r.wall, rss: rssMB(r), cpu: cpuS(r) };
}
