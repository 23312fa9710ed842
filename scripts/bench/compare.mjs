// Two builds of hsa on one command, run alternately: CPU, wall and peak RSS of every run, and
// whether the two write the same bytes. For a speed change that must not move output.
//
//   node scripts/bench/compare.mjs --base REF [--runs N] -- <hsa arguments with {out}>
//
// REF is a folder holding a built checkout (its bin/hsa and dist/), or a git ref of this
// repository, checked out in a temporary worktree (node_modules linked, dist built with tsc) and
// removed at the end. `{out}` in the arguments becomes `out` in a fresh folder per run (`-o {out}`
// for augment's folder, `-o {out}.jsonl` for migrate's file and its rejects beside it); each build
// runs in this checkout's folder, so relative input paths are spelled alike on both sides (outputs
// record them as spelled). Every file of the first run of each side is hashed (paths relative to
// its folder) and the two lists compared. Prints a table, the medians and
// the ratio head ÷ base of the median CPU; exits 1 when the outputs differ or a run fails.
// Example:
//   node scripts/bench/compare.mjs --base HEAD~1 --runs 4 -- migrate apply \
//     --plan fixtures/migrate/library/plan.yaml -t bench-data/migrate-input.jsonl -o {out} --json
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const PRELOAD = pathToFileURL(path.join(ROOT, 'scripts/bench/rss-preload.mjs')).href;

function parseArgs(argv) {
  const dash = argv.indexOf('--');
  const own = dash < 0 ? argv : argv.slice(0, dash);
  const hsa = dash < 0 ? [] : argv.slice(dash + 1);
  const opt = (name) => (own.includes(name) ? own[own.indexOf(name) + 1] : undefined);
  const base = opt('--base');
  const runs = Number(opt('--runs') ?? 3);
  if (!base || hsa.length === 0 || !Number.isInteger(runs) || runs < 1) {
    process.stderr.write('usage: node scripts/bench/compare.mjs --base REF|DIR [--runs N] -- <hsa arguments with {out}>\n');
    process.exit(2);
  }
  if (!hsa.some((a) => a.includes('{out}'))) {
    process.stderr.write('compare: the hsa arguments need {out} where the output goes (-o {out})\n');
    process.exit(2);
  }
  return { base, runs, hsa };
}

/** A built checkout for `ref`: the folder itself, or a temporary worktree built from the git ref. */
function checkout(ref, scratch) {
  if (existsSync(path.join(ref, 'bin', 'hsa'))) {
    if (!existsSync(path.join(ref, 'dist'))) throw new Error(`${ref}: no dist/ (build it first)`);
    return { dir: path.resolve(ref), cleanup: () => undefined };
  }
  const dir = path.join(scratch, 'base');
  const git = (...a) => spawnSync('git', a, { cwd: ROOT, encoding: 'utf8' });
  const add = git('worktree', 'add', '--detach', dir, ref);
  if (add.status !== 0) throw new Error(`git worktree add ${ref}: ${add.stderr.trim()}`);
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  const tsc = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: dir, encoding: 'utf8' });
  if (tsc.status !== 0) throw new Error(`building ${ref}: ${tsc.stdout}${tsc.stderr}`);
  return { dir, cleanup: () => git('worktree', 'remove', '--force', dir) };
}

function run(dir, hsa, out, usage) {
  const args = hsa.map((a) => a.replaceAll('{out}', out));
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['--import', PRELOAD, path.join(dir, 'bin', 'hsa'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, HSA_BENCH_RSS_FILE: usage },
  });
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0 && r.status !== 1) throw new Error(`${dir}: hsa exited ${r.status}: ${r.stderr.slice(-800)}`);
  const u = JSON.parse(readFileSync(usage, 'utf8'));
  return { wall, cpu: (u.user_us + u.system_us) / 1e6, rssMb: u.maxRSS_kb / 1024, status: r.status };
}

/** `sha256  relative/path` of every file under a run's folder, sorted by path. */
function hashes(dir) {
  const files = [];
  const walk = (p) => {
    if (statSync(p).isDirectory()) for (const name of readdirSync(p).sort()) walk(path.join(p, name));
    else files.push(p);
  };
  walk(dir);
  return files.map((f) => `${createHash('sha256').update(readFileSync(f)).digest('hex')}  ${path.relative(dir, f)}`);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const { base, runs, hsa } = parseArgs(process.argv.slice(2));
const scratch = mkdtempSync(path.join(tmpdir(), 'hsa-compare-'));
const b = checkout(base, scratch);
const sides = [
  { name: 'base', dir: b.dir, rows: [] },
  { name: 'head', dir: ROOT, rows: [] },
];
let same = true;
try {
  const lists = {};
  for (let i = 0; i < runs; i++) {
    // Alternate which side goes first, so that a slow spell of the machine favours neither.
    for (const side of i % 2 === 0 ? sides : [...sides].reverse()) {
      const dir = path.join(scratch, `${side.name}-${i}`);
      mkdirSync(dir);
      const r = run(side.dir, hsa, path.join(dir, 'out'), path.join(scratch, `${side.name}-${i}.usage.json`));
      if (i === 0) lists[side.name] = hashes(dir);
      side.rows.push(r);
      rmSync(dir, { recursive: true, force: true });
    }
  }
  same = lists.base.join('\n') === lists.head.join('\n');
  const f = (x) => x.toFixed(2);
  process.stdout.write('| run | base CPU s | base wall s | base RSS MB | head CPU s | head wall s | head RSS MB |\n|---|---|---|---|---|---|---|\n');
  for (let i = 0; i < runs; i++) {
    const [x, y] = [sides[0].rows[i], sides[1].rows[i]];
    process.stdout.write(`| ${i + 1} | ${f(x.cpu)} | ${f(x.wall)} | ${x.rssMb.toFixed(0)} | ${f(y.cpu)} | ${f(y.wall)} | ${y.rssMb.toFixed(0)} |\n`);
  }
  const m = sides.map((s) => ({ cpu: median(s.rows.map((r) => r.cpu)), wall: median(s.rows.map((r) => r.wall)) }));
  process.stdout.write(
    `median CPU ${f(m[0].cpu)} → ${f(m[1].cpu)} s (head ÷ base ${(m[1].cpu / m[0].cpu).toFixed(3)}), wall ${f(m[0].wall)} → ${f(m[1].wall)} s\n`,
  );
  if (same) process.stdout.write(`outputs identical (${lists.head.length} files)\n`);
  else {
    // The files whose bytes differ, or that one side alone wrote: path, then base's and head's hash.
    const byPath = (list) => new Map(list.map((l) => [l.slice(66), l.slice(0, 64)]));
    const [x, y] = [byPath(lists.base), byPath(lists.head)];
    const paths = [...new Set([...x.keys(), ...y.keys()])].sort();
    process.stdout.write('OUTPUTS DIFFER\n');
    for (const p of paths) if (x.get(p) !== y.get(p)) process.stdout.write(`${p}  base ${x.get(p) ?? '(none)'}  head ${y.get(p) ?? '(none)'}\n`);
  }
} finally {
  b.cleanup();
  rmSync(scratch, { recursive: true, force: true });
}
process.exitCode = same ? 0 : 1;
