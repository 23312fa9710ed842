import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { HSA_BIN, REPO, runHsaAsync, STACK_LINE } from '../helpers/hsa.js';
import { replayingModel } from '../helpers/replaying-model.js';
import { batchResults, faults, withoutCallRetries } from '../helpers/teacher-behaviours.js';
import { startTeacherServer, type Behaviour, type ChatRequest, type TeacherServer } from '../helpers/teacher-server.js';
import { readJsonl, treeHashes } from '../helpers/tree.js';

afterAll(removeTempDirs);

// End-to-end tests of the teacher re-run: the real binary, through the real `openai` client,
// against an OpenAI-compatible server this test starts on 127.0.0.1.
const KEY = 'sk-hsa-test-SECRET-7d1f0c';
process.env.HSA_TEST_KEY = KEY;
const tmp = () => tempDir('hsa-teacher-');
const servers: TeacherServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

let input: string;
let referenceSft: string[];
const RECORDS = 16;

/** A config for the subset, pointing at `url` (teacher block overridable). */
function config(dir: string, url: string, teacher: Record<string, unknown> = {}, extra = ''): string {
  const file = path.join(dir, 'hsa.yaml');
  const t = {
    mode: 'openai',
    base_url: url,
    model: 'teacher-test',
    api_key_env: 'HSA_TEST_KEY',
    temperature: 0,
    max_tokens: 512,
    timeout_s: 2,
    max_retries: 6,
    ...teacher,
  };
  writeFileSync(
    file,
    [
      `harness: ${path.join(REPO, 'fixtures/live-commerce/harness')}`,
      `trajectories: [${input}]`,
      'out: out',
      'seed: 11',
      'variants: 2',
      'part_size: 4',
      'stages: [sft, rl]',
      'concurrency: 8',
      'cache: cache',
      `teacher: ${JSON.stringify(t)}`,
      extra,
    ].join('\n'),
  );
  return file;
}

beforeAll(async () => {
  const dir = tmp();
  const lines = readFileSync(path.join(REPO, 'fixtures/live-commerce/trajectories.jsonl'), 'utf8').split('\n').filter(Boolean).slice(0, RECORDS);
  input = path.join(dir, 'in.jsonl');
  writeFileSync(input, `${lines.join('\n')}\n`);
  // The reference a good teacher would produce: the replay teacher's output under the same states.
  const cfg = config(dir, 'http://127.0.0.1:9/v1', { mode: 'replay' });
  const r = await runHsaAsync(['augment', '--no-gzip', '--config', cfg, '-q']);
  expect(r.code, r.stderr).toBe(0);
  referenceSft = readdirSync(path.join(dir, 'out/sft'))
    .sort()
    .map((f) => path.join(dir, 'out/sft', f));
});

/** The replay teacher's SFT output under a given transforms line (the reference a good teacher matches). */
const references = new Map<string, string[]>();
async function referenceFor(transforms: string): Promise<string[]> {
  const hit = references.get(transforms);
  if (hit) return hit;
  const dir = tmp();
  const r = await runHsaAsync(['augment', '--no-gzip', '--config', config(dir, 'http://127.0.0.1:9/v1', { mode: 'replay' }, transforms), '-q']);
  expect(r.code, r.stderr).toBe(0);
  const files = readdirSync(path.join(dir, 'out/sft'))
    .sort()
    .map((f) => path.join(dir, 'out/sft', f));
  references.set(transforms, files);
  return files;
}

/** Resolves once a run writing into `out` has finished its first part (its done marker exists). */
function afterFirstPart(out: string): Promise<void> {
  const done = path.join(out, '.hsa/done');
  return new Promise((resolve) => {
    const poll = setInterval(() => {
      if (existsSync(done) && readdirSync(done).some((f) => f.endsWith('.json'))) {
        clearInterval(poll);
        resolve();
      }
    }, 5);
  });
}

const messagesOf = (dir: string) =>
  readdirSync(path.join(dir, 'sft'))
    .sort()
    .flatMap((f) => readJsonl(path.join(dir, 'sft', f)))
    .map((r) => JSON.stringify([r.id, r.messages]));

async function serve(respond: (req: ChatRequest, i: number) => Behaviour | Promise<Behaviour>): Promise<TeacherServer> {
  const s = await startTeacherServer(respond, { idleTimeoutMs: 120_000 });
  servers.push(s);
  return s;
}

describe('hsa augment --teacher openai', () => {
  it('accepts a teacher that answers like the reference (renamed tools and parameters), and a warm rerun sends nothing', async () => {
    const server = await serve(replayingModel(referenceSft));
    const dir = tmp();
    const cfg = config(dir, server.url);
    const r = await runHsaAsync(['augment', '--no-gzip', '--config', cfg, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary.totals.variants_written).toBe(RECORDS * 2);
    expect(server.count()).toBeGreaterThan(RECORDS * 2);
    const refMessages = new Map(referenceSft.flatMap((f) => readJsonl(f)).map((x) => [x.id, JSON.stringify(x.messages)]));
    for (const line of messagesOf(path.join(dir, 'out'))) {
      const [id, messages] = JSON.parse(line);
      expect(JSON.stringify(messages), id).toBe(refMessages.get(id));
    }
    const first = treeHashes(path.join(dir, 'out'));
    const before = server.count();
    const again = await runHsaAsync(['augment', '--no-gzip', '--config', cfg, '--force', '--json', '--require-cache']);
    expect(again.code, again.stderr).toBe(0);
    expect(server.count()).toBe(before);
    expect(JSON.parse(again.stdout).teacher_requests.requests).toBe(0);
    expect(treeHashes(path.join(dir, 'out'))).toEqual(first);
    // The API key was sent to the server and written nowhere.
    expect(server.authHeaders.every((h) => h === `Bearer ${KEY}`)).toBe(true);
    for (const tree of [path.join(dir, 'out'), path.join(dir, 'cache')]) {
      for (const f of Object.keys(treeHashes(tree))) expect(readFileSync(path.join(tree, f)).includes(KEY), f).toBe(false);
    }
    for (const text of [r.stdout, r.stderr, again.stdout, again.stderr]) expect(text).not.toContain(KEY);
  });

  it('survives 429 (Retry-After), 500 and hangs: every variant accepted or rejected with a reason, rerun identical with 0 requests', async () => {
    const flaky = faults(replayingModel(referenceSft), { rate429: 0.1, rate500: 0.05, rateHang: 0.02, seed: 3, retryAfter: 0.01 });
    const server = await serve(flaky);
    const dir = tmp();
    const cfg = config(dir, server.url, { timeout_s: 0.5 });
    const r = await runHsaAsync(['augment', '--no-gzip', '--config', cfg, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.totals.variants_written + s.totals.variants_rejected).toBe(RECORDS * 2);
    expect(s.teacher_requests.retries).toBeGreaterThan(0);
    expect(flaky.outcomes).toContain('429');
    expect(flaky.outcomes).toContain('500');
    const first = treeHashes(path.join(dir, 'out'));
    const before = server.count();
    const again = await runHsaAsync(['augment', '--no-gzip', '--config', cfg, '--force', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(server.count()).toBe(before);
    expect(treeHashes(path.join(dir, 'out'))).toEqual(first);
  });

  it('rejects a teacher that uses an old tool name or sends arguments that are not JSON, with the reason', async () => {
    const renameAll = 'transforms: { tools.rename: { p: 1, intensity: 1 } }';
    const model = replayingModel(await referenceFor(renameAll));
    const server = await serve((request, i) => {
      // A teacher that makes the same mistake however often it is told (the retries are ignored).
      const req = withoutCallRetries(request);
      const b = model(req, i) as Behaviour;
      if (b.kind !== 'message' || !b.tool_calls?.length) return b;
      const last = JSON.stringify(req.messages.at(-1));
      // Odd requests: the old, unrenamed tool name; even: broken arguments.
      if (last.length % 2 === 1) return { ...b, tool_calls: b.tool_calls.map((c) => ({ ...c, name: 'load_skill', arguments: c.arguments })) };
      return { ...b, tool_calls: b.tool_calls.map((c) => ({ ...c, arguments: '{"not json' })) };
    });
    const dir = tmp();
    const cfg = config(dir, server.url, {}, renameAll);
    const r = await runHsaAsync(['augment', '--no-gzip', '--config', cfg, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const rejects = readdirSync(path.join(dir, 'out/rejects')).flatMap((f) => readJsonl(path.join(dir, 'out/rejects', f)));
    const reasons = rejects.map((x) => String(x.reason));
    // Every bad call was answered with a tool error and asked again (3 times per attempt, 3
    // attempts) before the variant was rejected with the kind of the last failure.
    expect(
      reasons.some((x) => x.includes('leak: the teacher called the old tool name "load_skill"') && x.includes('(after 3 retries)')),
      JSON.stringify([...new Set(reasons)].slice(0, 8)),
    ).toBe(true);
    expect(reasons.some((x) => /arguments of \S+ are not JSON/.test(x))).toBe(true);
    for (const x of rejects) {
      expect(['teacher_old_name', 'teacher_invalid_call']).toContain(x.reason_kind);
      expect(x.attempts).toHaveLength(3);
      expect(x).toHaveProperty('trajectory');
      expect(Array.isArray(x.teacher_output)).toBe(true);
    }
    const errors = server.requests
      .map((q) => q.messages.at(-1))
      .filter((m) => m.role === 'tool' && String(m.content).startsWith('error: '))
      .map((m) => String(m.content));
    expect(errors.some((e) => /^error: tool "load_skill" does not exist; available tools: \S+/.test(e))).toBe(true);
    expect(errors.some((e) => e.startsWith('error: arguments are not valid JSON (') && e.endsWith('; you sent: {"not json'))).toBe(true);
    const s = JSON.parse(r.stdout);
    expect(s.teacher.call_retries).toBeGreaterThan(0);
    expect(Object.keys(s.rejectReasons).every((k) => k === 'teacher_old_name' || k === 'teacher_invalid_call')).toBe(true);
  });

  it('fails the run when the teacher stays down, keeps no partial part, and resumes once it is back', async () => {
    let down = true;
    const model = replayingModel(referenceSft);
    const server = await serve((req, i) => (down ? { kind: 'status', status: 503 } : model(req, i)));
    const dir = tmp();
    const cfg = config(dir, server.url, { max_retries: 1 });
    const r = await runHsaAsync(['augment', '--no-gzip', '--config', cfg]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('teacher unavailable after 2 attempts');
    expect(r.stderr).not.toContain(STACK_LINE);
    expect(existsSync(path.join(dir, 'out/manifest.json'))).toBe(false);
    expect(readdirSync(path.join(dir, 'out/sft'))).toEqual([]);
    down = false;
    const again = await runHsaAsync(['augment', '--no-gzip', '--config', cfg, '-q']);
    expect(again.code, again.stderr).toBe(0);
    expect(existsSync(path.join(dir, 'out/manifest.json'))).toBe(true);
  });

  it('--require-cache turns a miss into an error', async () => {
    const server = await serve(replayingModel(referenceSft));
    const dir = tmp();
    const r = await runHsaAsync(['augment', '--no-gzip', '--config', config(dir, server.url), '--require-cache']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('is not in the cache (--require-cache)');
    expect(server.count()).toBe(0);
  });

  it('follows a stricter reply gate: a teacher that shortens on feedback is accepted, the replay teacher is rejected with the reason', async () => {
    // The teacher knows the trajectories under the unchanged harness; the stricter gate is new to it.
    const server = await serve(replayingModel(await referenceFor('transforms: { tools.order: false }')));
    const dir = tmp();
    const strict = 'transforms: { hooks.threshold: { p: 1, minFactor: 0.5, maxFactor: 0.6, checks: [max_chars] } }';
    const r = await runHsaAsync(['augment', '--no-gzip', '--config', config(dir, server.url, {}, strict), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const sft = readdirSync(path.join(dir, 'out/sft')).flatMap((f) => readJsonl(path.join(dir, 'out/sft', f))) as {
      messages: { role: string; name?: string; content: string }[];
      meta: { transforms: { params: { to?: number } }[] };
    }[];
    const rej = readdirSync(path.join(dir, 'out/rejects')).flatMap((f) => readJsonl(path.join(dir, 'out/rejects', f)));
    expect(sft.length, JSON.stringify(rej.map((x) => x.reason).slice(0, 5))).toBeGreaterThan(0);
    let withFeedback = 0;
    for (const rec of sft) {
      const limit = Number(JSON.stringify(rec.meta.transforms).match(/"to":(\d+)/)?.[1]);
      const final = rec.messages.filter((m) => m.role === 'assistant' && m.content).at(-1)!;
      expect([...final.content].length).toBeLessThanOrEqual(limit);
      if (rec.messages.some((m) => m.name === 'hook:stop_gate')) withFeedback++;
    }
    expect(withFeedback).toBeGreaterThan(0);

    const replayDir = tmp();
    const cfg = config(replayDir, server.url, { mode: 'replay' }, strict);
    const rr = await runHsaAsync(['augment', '--no-gzip', '--config', cfg, '--json']);
    expect(rr.code, rr.stderr).toBe(0);
    const rejects = readdirSync(path.join(replayDir, 'out/rejects')).flatMap((f) => readJsonl(path.join(replayDir, 'out/rejects', f)));
    expect(rejects.length).toBeGreaterThan(0);
    expect(rejects.every((x) => /stop_gate failed after \d+ rounds: reply is \d+ chars, limit \d+/.test(String(x.reason)))).toBe(true);
  });

  it('exports missing requests as Batch JSONL and imports results until nothing is missing', async () => {
    const model = replayingModel(referenceSft);
    const dir = tmp();
    const cfg = config(dir, 'http://127.0.0.1:9/v1');
    let rounds = 0;
    for (;;) {
      const batchDir = path.join(dir, `batch-${rounds}`);
      const ex = await runHsaAsync(['teacher', 'export', '--config', cfg, '--batch-dir', batchDir, '--json']);
      expect(ex.code, ex.stderr).toBe(0);
      const s = JSON.parse(ex.stdout);
      if (s.requests === 0) break;
      for (const f of s.files) {
        const line = JSON.parse(readFileSync(f, 'utf8').split('\n')[0]!);
        expect(line).toMatchObject({ method: 'POST', url: '/v1/chat/completions' });
        expect(line.custom_id).toMatch(/^[0-9a-f]{64}$/);
        const results = path.join(batchDir, `results-${path.basename(f)}`);
        writeFileSync(results, await batchResults(readFileSync(f, 'utf8'), model));
        const im = await runHsaAsync(['teacher', 'import', results, '--config', cfg]);
        expect(im.code, im.stderr).toBe(0);
      }
      rounds++;
      expect(rounds).toBeLessThan(20);
    }
    expect(rounds).toBeGreaterThan(1);
    const r = await runHsaAsync(['augment', '--no-gzip', '--config', cfg, '--require-cache', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).totals.variants_written).toBe(RECORDS * 2);
  });

  it('resumes after kill -9 to the bytes of an uninterrupted run', async () => {
    const model = replayingModel(referenceSft);
    const server = await serve(async (req, i) => ({ ...(model(req, i) as Behaviour), delayMs: 20 }) as Behaviour);
    const whole = tmp();
    expect((await runHsaAsync(['augment', '--no-gzip', '--config', config(whole, server.url), '-q'])).code).toBe(0);
    const killedDir = tmp();
    const cfg = config(killedDir, server.url);
    // A fresh cache for the killed run, so it really talks to the server.
    const child = spawn(process.execPath, [HSA_BIN, 'augment', '--no-gzip', '--config', cfg, '-q'], { cwd: REPO, stdio: 'ignore', env: process.env });
    await afterFirstPart(path.join(killedDir, 'out'));
    child.kill('SIGKILL');
    await new Promise((r) => child.on('close', r));
    expect(existsSync(path.join(killedDir, 'out/manifest.json'))).toBe(false);
    const again = await runHsaAsync(['augment', '--no-gzip', '--config', cfg, '-q']);
    expect(again.code, again.stderr).toBe(0);
    expect(treeHashes(path.join(killedDir, 'out'))).toEqual(treeHashes(path.join(whole, 'out')));
  });

  it('stops cleanly on Ctrl-C (SIGINT): exit 130, finished parts kept, the same command resumes to the same bytes', async () => {
    const model = replayingModel(referenceSft);
    const server = await serve(async (req, i) => ({ ...(model(req, i) as Behaviour), delayMs: 30 }) as Behaviour);
    const whole = tmp();
    expect((await runHsaAsync(['augment', '--no-gzip', '--config', config(whole, server.url), '-q'])).code).toBe(0);
    const dir = tmp();
    const cfg = config(dir, server.url);
    const child = spawn(process.execPath, [HSA_BIN, 'augment', '--no-gzip', '--config', cfg, '-q'], {
      cwd: REPO,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: process.env,
    });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    await afterFirstPart(path.join(dir, 'out'));
    child.kill('SIGINT');
    const code = await new Promise((r) => child.on('close', r));
    expect(code).toBe(130);
    expect(stderr).toContain('interrupted: finished parts are kept');
    expect(stderr).not.toContain(STACK_LINE);
    expect(existsSync(path.join(dir, 'out/manifest.json'))).toBe(false);
    expect(readdirSync(path.join(dir, 'out/sft')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    const again = await runHsaAsync(['augment', '--no-gzip', '--config', cfg, '-q']);
    expect(again.code, again.stderr).toBe(0);
    expect(treeHashes(path.join(dir, 'out'))).toEqual(treeHashes(path.join(whole, 'out')));
  });

  it('writes the same bytes whatever the concurrency (replay and openai teachers)', async () => {
    const server = await serve(replayingModel(referenceSft));
    const trees: Record<string, string>[] = [];
    for (const mode of ['replay', 'openai']) {
      for (const concurrency of ['1', '16']) {
        const dir = tmp();
        const r = await runHsaAsync(['augment', '--no-gzip', '--config', config(dir, server.url, { mode }), '--concurrency', concurrency, '-q']);
        expect(r.code, r.stderr).toBe(0);
        trees.push(treeHashes(path.join(dir, 'out')));
      }
    }
    expect(trees[1]).toEqual(trees[0]);
    expect(trees[3]).toEqual(trees[2]);
  });
});
