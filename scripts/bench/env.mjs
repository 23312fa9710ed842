// The RL environment's benchmark (called from scripts/bench.mjs; also runs alone:
// `node scripts/bench/env.mjs [--episodes N] [--concurrency C]`, 64 concurrent sessions by
// default as in the issue's target). It writes RL rows from the live-commerce fixtures with
// `hsa augment --stages rl`, starts the environment server in this process (dist/) and a client in
// a child process, which replays row references over HTTP (Open Reward Standard) with reasoning in
// every message; every call is one assistant message, so a step is one request. Reported:
// episodes/s, the p50/p95 of the server's own work per step (request body read to response
// written, from the server's onRequest hook — the same span as before), split by step kind (tool
// call, reply, final reply with the reward; session starts apart, they are not steps), the server
// process's CPU per step, the GC pauses of the measured run and how many steps one fell into, what
// the client saw and the client's own CPU. On a busy machine wall times include time the process
// was not running; the CPU figures and GC counts do not.
//
// The client is kept about as light as a trainer's: node:http with keep-alive and the headers an
// HTTP library sends (fetch cost it ~2.5–2.9 ms of CPU per step on the two shared cores, three
// times the server's). Each message's reasoning is its own text, as a policy's is, so no cache of
// counts can make the reward's token counting look cheaper than it is. Reports, never asserts.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import http from 'node:http';
import { PerformanceObserver } from 'node:perf_hooks';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SELF = fileURLToPath(import.meta.url);

function quantile(xs, q) {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

function sseJson(text) {
  let d = '';
  for (const block of text.split('\n\n')) {
    const lines = block.split('\n');
    const ev = lines.find((l) => l.startsWith('event: '))?.slice(7);
    if (ev === 'chunk' || ev === 'end')
      d += lines
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
  }
  return d ? JSON.parse(d) : undefined;
}

const rowFiles = (dir) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map((f) => path.join(dir, f));

/** A keep-alive POST with node:http (lighter than fetch, so the client takes less of the shared cores). */
function poster(url, concurrency) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const { hostname, port } = new URL(url);
  return (p, body, headers) =>
    new Promise((resolve, reject) => {
      const data = JSON.stringify(body);
      const req = http.request(
        {
          agent,
          hostname,
          port,
          path: p,
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(data),
            accept: '*/*',
            'accept-encoding': 'gzip, deflate',
            'user-agent': 'hsa-env-bench',
            ...headers,
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode, type: res.headers['content-type'] ?? '', text }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(data);
    });
}

/**
 * The client (a child process): warm up, say `start`, run the episodes, print its numbers as JSON.
 * Each message's reasoning is its own text (as a policy's is), so no count cache can flatter the
 * reward's token counting; `x-bench-step` tells the server's hook which kind of step a request is.
 */
async function client(url, dir, episodes, concurrency) {
  const plans = rowFiles(dir)
    .flatMap((f) => readFileSync(f, 'utf8').split('\n').filter(Boolean))
    .map((t) => {
      const r = JSON.parse(t);
      const gt = JSON.parse(r.reward_model.ground_truth);
      const msgs = gt.turns.flatMap((turn, ti) => [
        ...turn.calls.map((c, i) => ({
          kind: 'call',
          reasoning: (e) => `checking the tools first for turn ${ti} call ${i} of episode ${e} `.repeat(4),
          call: { id: `c${ti}_${i}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } },
        })),
        { kind: 'reply', think: (e) => `the viewer asks about this in turn ${ti} of episode ${e} `.repeat(5), reply: turn.reply },
      ]);
      msgs[msgs.length - 1].kind = 'final';
      return { index: r.extra_info.index, msgs };
    });
  const message = (m, e) =>
    m.call
      ? { role: 'assistant', content: '', reasoning_content: m.reasoning(e), tool_calls: [m.call] }
      : { role: 'assistant', content: `<think>${m.think(e)}</think>${m.reply}` };
  const send = poster(url, concurrency);
  const latencies = [];
  let steps = 0;
  let next = 0;
  let total = 0;
  const post = async (p, body, sid, kind = 'control') => {
    const t0 = performance.now();
    const res = await send(p, body, { 'x-session-id': sid, 'x-bench-step': kind });
    if (res.status !== 200) throw new Error(`${p}: ${res.status} ${res.text}`);
    if (p === '/hsa/call') latencies.push(performance.now() - t0);
    return res.type.startsWith('text/event-stream') ? sseJson(res.text) : JSON.parse(res.text);
  };
  const worker = async () => {
    for (let e = next++; e < total; e = next++) {
      const plan = plans[e % plans.length];
      const sid = `bench-${total}-${e}`;
      await post('/create', { task_spec: { index: plan.index } }, sid, 'start');
      for (const m of plan.msgs) {
        steps++;
        if ((await post('/hsa/call', { name: 'hsa.message', input: { message: message(m, `${total}-${e}`) } }, sid, m.kind)).output.finished) break;
      }
      await post('/delete', {}, sid);
    }
  };
  const round = async (n) => {
    total = n;
    next = 0;
    steps = 0;
    latencies.length = 0;
    const t0 = performance.now();
    await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
    return (performance.now() - t0) / 1000;
  };
  await round(Math.min(64, episodes)); // warm-up: JIT, tokenizer, parsed rows
  process.stdout.write('start\n');
  const cpu0 = process.cpuUsage();
  const wall = await round(episodes);
  const cpu = process.cpuUsage(cpu0);
  process.stdout.write(
    `${JSON.stringify({ wall, steps, cpuMs: (cpu.user + cpu.system) / 1000, p50: quantile(latencies, 0.5), p95: quantile(latencies, 0.95) })}\n`,
  );
}

/** Run the benchmark; returns report rows [measurement, result, target, status]. */
export async function envBench({ data = path.join(ROOT, 'bench-data'), episodes = 2000, concurrency = 64, log = (s) => process.stderr.write(`${s}\n`) } = {}) {
  const out = path.join(data, 'env-rl');
  if (!existsSync(path.join(out, 'manifest.json'))) {
    log('env bench: writing RL rows from fixtures/live-commerce …');
    const r = spawnSync(
      process.execPath,
      [path.join(ROOT, 'bin/hsa'), 'augment', '--config', path.join(ROOT, 'fixtures/live-commerce/hsa.yaml'), '--out', out, '--stages', 'rl', '--force', '-q'],
      { encoding: 'utf8' },
    );
    if (r.status !== 0) throw new Error(`hsa augment for the env bench failed: ${r.stderr}`);
  }
  const dist = (p) => import(pathToFileURL(path.join(ROOT, 'dist/src', p)).href);
  const [{ RowSet }, { SessionStore }, { createOrsProtocol }, { startEnvServer }, { tokenCounter }, { DEFAULT_REWARD_CONFIG }] = await Promise.all([
    dist('episode/rows.js'),
    dist('env/sessions.js'),
    dist('env/ors.js'),
    dist('env/server.js'),
    dist('episode/tokens.js'),
    dist('episode/reward.js'),
  ]);
  const dir = path.join(out, 'rl');
  const rows = await RowSet.load(rowFiles(dir));
  const counter = await tokenCounter('qwen3');
  const store = new SessionStore(rows, { ttlMs: 600_000, maxSessions: 100_000, reward: DEFAULT_REWARD_CONFIG, counter });
  // Server work per step by kind (the client's x-bench-step header), and every step's window on
  // the performance clock, to tell which steps a GC pause fell into.
  const byKind = { start: [], call: [], reply: [], final: [] };
  const windows = [];
  let measuring = false;
  const onRequest = (p, _s, ms, headers) => {
    if (!measuring) return;
    const kind = headers['x-bench-step'];
    if (byKind[kind]) byKind[kind].push(ms);
    if (p === '/hsa/call') windows.push(performance.now() - ms, ms);
  };
  const gcs = [];
  // Entries arrive later than the pauses; they are kept by when they started (the measured span).
  let span = [Infinity, Infinity];
  const gcObserver = new PerformanceObserver((list) =>
    gcs.push(...list.getEntries().map((e) => ({ start: e.startTime, ms: e.duration, kind: e.detail?.kind }))),
  );
  gcObserver.observe({ entryTypes: ['gc'] });
  const server = await startEnvServer({ host: '127.0.0.1', port: 0, protocols: [createOrsProtocol()], store, maxBodyBytes: 16 << 20, log, onRequest });
  log(`env bench: ${episodes} episodes over ${concurrency} concurrent clients (rows: ${rows.size}, tokenizer ${counter.name}) …`);
  const child = spawn(
    process.execPath,
    [SELF, '--client', server.url, '--rows-dir', dir, '--episodes', String(episodes), '--concurrency', String(concurrency)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let cpu0;
  let result;
  let cpu;
  for await (const line of createInterface({ input: child.stdout })) {
    if (line === 'start') {
      measuring = true;
      span = [performance.now(), Infinity];
      cpu0 = process.cpuUsage();
    } else if (line.startsWith('{')) {
      cpu = process.cpuUsage(cpu0);
      measuring = false;
      span[1] = performance.now();
      result = JSON.parse(line);
    }
  }
  await server.close();
  await new Promise((r) => setTimeout(r, 50));
  gcObserver.disconnect();
  const inSpan = gcs.filter((g) => g.start >= span[0] && g.start <= span[1]);
  if (!result) throw new Error('the env bench client did not finish');
  const serverMs = [...byKind.call, ...byKind.reply, ...byKind.final];
  const cpuMsPerStep = (cpu.user + cpu.system) / 1000 / result.steps;
  const p95 = quantile(serverMs, 0.95);
  const f = (x, d = 2) => x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  const pct = (xs) => `${f(quantile(xs, 0.5))} / ${f(quantile(xs, 0.95))} ms (${xs.length})`;
  // GC kinds (perf_hooks constants): 1 scavenge, 4 mark-compact, 8 incremental marking, 16 weak callbacks.
  const gcOf = (k) => inSpan.filter((g) => g.kind === k);
  const gcLine = (xs) =>
    `${xs.length}, ${f(
      xs.reduce((a, g) => a + g.ms, 0),
      1,
    )} ms${xs.length ? `, longest ${f(Math.max(...xs.map((g) => g.ms)), 1)} ms` : ''}`;
  let hit = 0;
  for (let i = 0; i < windows.length; i += 2) if (inSpan.some((g) => g.start < windows[i] + windows[i + 1] && g.start + g.ms > windows[i])) hit++;
  return [
    [`env: episodes/s (${episodes} episodes, ${concurrency} concurrent clients in another process)`, f(episodes / result.wall, 0), '', ''],
    ['env: steps/s', `${f(result.steps / result.wall, 0)} (${result.steps} steps)`, '', ''],
    ['env: server work per step p50 / p95 (wall)', `${f(quantile(serverMs, 0.5))} / ${f(p95)} ms`, '< 2 ms (p95)', p95 < 2 ? 'ok' : 'MISSED'],
    ['(info) env: server CPU per step (HTTP, JSON, episode, reward)', `${f(cpuMsPerStep)} ms`, '', ''],
    ['(info) env: server work p50 / p95 — tool-call steps', pct(byKind.call), '', ''],
    ['(info) env: server work p50 / p95 — replies / final replies (with the reward)', `${pct(byKind.reply)}; ${pct(byKind.final)}`, '', ''],
    ['(info) env: server work p50 / p95 — session starts (not steps)', pct(byKind.start), '', ''],
    ['(info) env: GC pauses in the run: scavenges / mark-compacts', `${gcLine(gcOf(1))}; ${gcLine(gcOf(4))}`, '', ''],
    ['(info) env: steps a GC pause fell into', `${hit} of ${windows.length / 2}`, '', ''],
    ['(info) env: step latency seen by the client p50 / p95', `${f(result.p50)} / ${f(result.p95)} ms`, '', ''],
    ['(info) env: client CPU per step (its own process, on the same cores)', `${f(result.cpuMs / result.steps)} ms`, '', ''],
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const argv = process.argv.slice(2);
  const opt = (n, d) => (argv.includes(n) ? argv[argv.indexOf(n) + 1] : d);
  if (argv.includes('--client')) {
    await client(opt('--client'), opt('--rows-dir'), Number(opt('--episodes', 2000)), Number(opt('--concurrency', 64)));
  } else {
    const rows = await envBench({ episodes: Number(opt('--episodes', 2000)), concurrency: Number(opt('--concurrency', 64)) });
    process.stdout.write(['| measurement | result | target | |', '|---|---|---|---|', ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n') + '\n');
  }
}
