// Teacher throughput for `npm run bench` (issue #5's target): `hsa augment --teacher openai`
// against the local server of latency-server.mjs, which answers every request after 200 ms, at
// --concurrency 64 with a cold cache. Target: at least 0.8 × 64 / 0.2 s = 256 requests/s sustained
// (server-side rate between the 10th and 90th percentile arrivals). Besides the rates it reports
// what decides whether 64 episodes keep up on a busy machine, which wall rates hide: hsa's CPU per
// request (user + system time of the hsa process, from rss-preload.mjs, over requests the server
// saw; at 256 requests/s the main thread has ~3.9 ms for each) and requests per episode (episodes
// = records × variants; more rounds, re-runs or fallbacks show up here).
// Called from scripts/bench.mjs; also runs alone:
//   node scripts/bench/teacher.mjs [--records N] [--input FILE] [--data DIR] [--runs N] [--cpu-prof DIR] [-- extra hsa flags]
// (default: the first 400 records of bench-data/input.jsonl; --cpu-prof writes a V8 profile of hsa).
// The run's main-thread CPU per request in the sustained window (10th to 90th percentile request)
// is the figure that decides: JavaScript runs on one thread, while the process's CPU also counts
// the file-system and GC threads. This module is therefore also preloaded into hsa, where it
// samples its main thread's CPU (/proc/self/task/<pid>/stat, Linux) every 50 ms.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isMainThread } from 'node:worker_threads';
import { firstLines } from './bench-io.mjs';
import { startLatencyServer } from './latency-server.mjs';

const TIMELINE_ENV = 'HSA_BENCH_TEACHER_TIMELINE';
const SAMPLE_MS = 50;
const now = () => performance.timeOrigin + performance.now();

/** Main-thread CPU in µs (Linux; null elsewhere), and the whole process's. */
function cpuNow() {
  let main = null;
  try {
    const f = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
    main = (Number(rest[11]) + Number(rest[12])) * 10_000; // utime + stime, at 100 ticks/s
  } catch {
    /* not Linux */
  }
  const u = process.cpuUsage();
  return { t: now(), main, proc: u.user + u.system };
}

if (process.env[TIMELINE_ENV] && isMainThread && !process.argv[1]?.endsWith('teacher.mjs')) {
  const samples = [cpuNow()];
  setInterval(() => samples.push(cpuNow()), SAMPLE_MS).unref();
  process.on('exit', () => {
    samples.push(cpuNow());
    try {
      writeFileSync(process.env[TIMELINE_ENV], JSON.stringify(samples));
    } catch {
      /* reported as n/a */
    }
  });
}

/** A timeline's CPU at time `t` (linear between samples). */
function cpuAt(samples, t, k) {
  let i = samples.findIndex((s) => s.t >= t);
  if (i <= 0) i = i === 0 ? 1 : samples.length - 1;
  const a = samples[i - 1];
  const b = samples[i];
  if (a[k] == null || b[k] == null) return null;
  return a[k] + ((b[k] - a[k]) * (t - a.t)) / Math.max(1e-9, b.t - a.t);
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const DATA = path.join(ROOT, 'bench-data');
const PRELOAD = pathToFileURL(path.join(ROOT, 'scripts/bench/rss-preload.mjs')).href;
export const TEACHER_TARGET = 256;
const VARIANTS = 2;

/** `node [--cpu-prof] --import rss-preload bin/hsa …args` in ROOT; resolves with code, wall time, CPU and stderr. */
function runHsa(args, { cpuProf, timeline, data } = {}) {
  const usageFile = path.join(data, '.rss-teacher.json');
  rmSync(usageFile, { force: true });
  rmSync(timeline, { force: true });
  const prof = cpuProf ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(cpuProf)] : [];
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, [...prof, '--import', PRELOAD, '--import', import.meta.url, path.join(ROOT, 'bin/hsa'), ...args], {
      cwd: ROOT,
      env: { ...process.env, HSA_BENCH_RSS_FILE: usageFile, [TIMELINE_ENV]: timeline },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => (err = (err + d).slice(-8000)));
    child.on('close', (code, signal) => {
      let cpuUs = null;
      try {
        const u = JSON.parse(readFileSync(usageFile, 'utf8'));
        cpuUs = u.user_us + u.system_us;
      } catch {
        /* reported as n/a */
      }
      resolve({ code: code ?? (signal ? 128 : 1), wall: Number(process.hrtime.bigint() - t0) / 1e9, cpuUs, err });
    });
  });
}

/**
 * One teacher run on the first `records` records of `input` with `extra` hsa flags. Resolves with
 * `{ ok, requests, episodes, perEpisode, cpuPerRequestUs, wall, rps, sustained }` or `{ ok: false, error }`.
 */
export async function teacherRun({ input = path.join(DATA, 'input.jsonl'), records = 400, extra = [], cpuProf, data = DATA, log = () => {} } = {}) {
  mkdirSync(data, { recursive: true });
  const small = path.join(data, 'teacher-input.jsonl');
  const lines = firstLines(input, records);
  writeFileSync(small, `${lines.join('\n')}\n`);
  const cache = path.join(data, 'teacher-cache');
  const out = path.join(data, 'out-teacher');
  rmSync(cache, { recursive: true, force: true });
  const server = await startLatencyServer({ delayMs: 200 });
  const rel = (p) => path.relative(ROOT, p);
  const args = [
    'augment',
    '--harness',
    rel(path.join(DATA, 'harness')),
    '-t',
    rel(small),
    '-o',
    rel(out),
    '--force',
    '--variants',
    String(VARIANTS),
    '--stages',
    'sft',
    '--part-size',
    '400',
    '-q',
    '--teacher',
    'openai',
    '--teacher-url',
    server.url,
    '--teacher-model',
    'bench',
    '--cache',
    rel(cache),
    '--concurrency',
    '64',
    '--consistency',
    'any',
    ...extra,
  ];
  log(`augment --teacher openai ${extra.join(' ')} on ${lines.length} records against a 200 ms server, --concurrency 64 …`);
  const timeline = path.join(data, '.teacher-timeline.json');
  // The server's request count over time, to find the sustained window in hsa's CPU timeline.
  const counts = [];
  const poll = setInterval(() => counts.push({ t: now(), n: server.count() }), 10);
  const r = await runHsa(args, { cpuProf, timeline, data });
  clearInterval(poll);
  const requests = server.count();
  const sustained = server.sustained();
  await server.close();
  let window = null;
  try {
    const samples = JSON.parse(readFileSync(timeline, 'utf8'));
    const at = (q) => counts.find((c) => c.n >= requests * q);
    const [a, b] = [at(0.1), at(0.9)];
    const per = (k) => {
      const x = cpuAt(samples, a.t, k);
      const y = cpuAt(samples, b.t, k);
      return x == null || y == null ? null : (y - x) / (b.n - a.n);
    };
    if (a && b && b.n > a.n) window = { mainUsPerRequest: per('main'), processUsPerRequest: per('proc') };
  } catch {
    /* no timeline: reported as n/a */
  }
  if (r.code !== 0)
    return {
      ok: false,
      error: `hsa augment --teacher openai exited ${r.code}: node bin/hsa ${args.join(' ')}\n${r.err.trim().split('\n').slice(-15).join('\n')}`,
    };
  const episodes = lines.length * VARIANTS;
  return {
    ok: true,
    requests,
    episodes,
    perEpisode: requests / episodes,
    cpuPerRequestUs: r.cpuUs == null || requests === 0 ? null : r.cpuUs / requests,
    cpuSeconds: r.cpuUs == null ? null : r.cpuUs / 1e6,
    sustainedMainUsPerRequest: window?.mainUsPerRequest ?? null,
    sustainedProcessUsPerRequest: window?.processUsPerRequest ?? null,
    wall: r.wall,
    rps: requests / r.wall,
    sustained,
  };
}

/** One line of figures for a teacher run (also the standalone output). */
export function teacherSummary(t) {
  const f = (x, d = 0) => (x == null ? 'n/a' : x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }));
  return `${f(t.sustained)} requests/s sustained, ${f(t.rps)} over the whole run (${t.requests} requests in ${f(t.wall, 2)} s); ${f(t.perEpisode, 2)} requests per episode (${t.episodes} episodes); hsa CPU ${f(t.cpuSeconds, 2)} s = ${f(t.cpuPerRequestUs)} µs per request; in the sustained window ${f(t.sustainedMainUsPerRequest)} µs main thread, ${f(t.sustainedProcessUsPerRequest)} µs process per request`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const argv = process.argv.slice(2);
  const dash = argv.indexOf('--');
  const own = dash >= 0 ? argv.slice(0, dash) : argv;
  const extra = dash >= 0 ? argv.slice(dash + 1) : [];
  const opt = (n, d) => (own.includes(n) ? own[own.indexOf(n) + 1] : d);
  const runs = Math.max(1, Number(opt('--runs', 1)));
  const log = (l) => process.stderr.write(`${l}\n`);
  let failed = false;
  for (let i = 0; i < runs; i++) {
    const t = await teacherRun({
      input: path.resolve(opt('--input', path.join(DATA, 'input.jsonl'))),
      records: Number(opt('--records', 400)),
      extra,
      cpuProf: opt('--cpu-prof'),
      data: path.resolve(opt('--data', DATA)),
      log,
    });
    if (!t.ok) {
      log(t.error);
      failed = true;
      break;
    }
    process.stdout.write(`${JSON.stringify({ ...t, ok: undefined })}\n${teacherSummary(t)}\n`);
  }
  process.exitCode = failed ? 1 : 0;
}
