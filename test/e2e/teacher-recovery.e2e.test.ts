import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { REPO, runHsaAsync, STACK_LINE } from '../helpers/hsa.js';
import { replayingModel } from '../helpers/replaying-model.js';
import { canonicalJson, faults } from '../helpers/teacher-behaviours.js';
import { startTeacherServer, type Behaviour, type ChatRequest, type TeacherServer } from '../helpers/teacher-server.js';
import { readJsonl, treeHashes } from '../helpers/tree.js';

afterAll(async () => {
  for (const s of servers.splice(0)) await s.close();
  removeTempDirs();
});

// Teacher recovery end to end: the real binary, the real `openai` client, a server on 127.0.0.1
// that injects the fault profile of real endpoints and real models.
const KEY = 'sk-hsa-recovery-test-91c2';
process.env.HSA_RECOVERY_KEY = KEY;
process.env.HSA_RECOVERY_WRONG_KEY = 'sk-wrong';
delete process.env.HSA_RECOVERY_UNSET_KEY;
const tmp = () => tempDir('hsa-recovery-');
const servers: TeacherServer[] = [];
async function serve(respond: (req: ChatRequest, i: number) => Behaviour | Promise<Behaviour>): Promise<TeacherServer> {
  const s = await startTeacherServer(respond, { idleTimeoutMs: 120_000 });
  servers.push(s);
  return s;
}

const RECORDS = 24;
const VARIANTS = 2;
let input: string;
let reference: string[];
let sourceTools: string[];

function config(dir: string, url: string, teacher: Record<string, unknown> = {}): string {
  const file = path.join(dir, 'hsa.yaml');
  const t = {
    mode: 'openai',
    base_url: url,
    model: 'teacher-test',
    api_key_env: 'HSA_RECOVERY_KEY',
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
      'seed: 5',
      `variants: ${VARIANTS}`,
      'part_size: 8',
      'stages: [sft, rl]',
      'concurrency: 8',
      'cache: cache',
      `teacher: ${JSON.stringify(t)}`,
    ].join('\n'),
  );
  return file;
}

const rowsOf = (dir: string, stage: string) =>
  existsSync(path.join(dir, stage))
    ? readdirSync(path.join(dir, stage))
        .sort()
        .flatMap((f) => readJsonl(path.join(dir, stage, f)))
    : [];

beforeAll(async () => {
  const dir = tmp();
  const lines = readFileSync(path.join(REPO, 'fixtures/live-commerce/trajectories.jsonl'), 'utf8').split('\n').filter(Boolean).slice(0, RECORDS);
  input = path.join(dir, 'in.jsonl');
  writeFileSync(input, `${lines.join('\n')}\n`);
  const r = await runHsaAsync(['augment', '--no-gzip', '--config', config(dir, 'http://127.0.0.1:9/v1', { mode: 'replay' }), '-q']);
  expect(r.code, r.stderr).toBe(0);
  reference = readdirSync(path.join(dir, 'out/sft'))
    .sort()
    .map((f) => path.join(dir, 'out/sft', f));
  const inspect = await runHsaAsync(['inspect', path.join(REPO, 'fixtures/live-commerce/harness'), '--json']);
  sourceTools = JSON.parse(inspect.stdout).tools.names;
});

describe('teacher recovery', () => {
  it('under the fault profile (429, 500, timeouts, bad JSON, old names, missing arguments) ≥ 95% of variants are accepted, equal to the reference, and a warm rerun is identical', async () => {
    // Faults are drawn per request hash, so which requests get one moves with the output bytes; at
    // ~220 requests a 2% hang rate gave none for one seed (P ≈ 1%), 4% leaves that at ~0.02%.
    const profile = {
      rate429: 0.1,
      rate500: 0.05,
      rateHang: 0.04,
      rateBadJson: 0.05,
      rateOldName: 0.1,
      rateMissingArg: 0.05,
      oldNames: sourceTools,
      seed: 7,
      retryAfter: 0.01,
    };
    const flaky = faults(replayingModel(reference), profile);
    const server = await serve(flaky);
    const dir = tmp();
    const cfg = config(dir, server.url, { timeout_s: 1 });
    // The same profile without recovery, for comparison (its own server: fault decisions count attempts).
    const bare = await serve(faults(replayingModel(reference), profile));
    const bareDir = tmp();
    const [r, without] = await Promise.all([
      runHsaAsync(['augment', '--no-gzip', '--config', cfg, '--json']),
      runHsaAsync([
        'augment',
        '--no-gzip',
        '--config',
        config(bareDir, bare.url, { timeout_s: 1, recovery: { max_call_retries: 0, max_attempts: 1 } }),
        '--json',
      ]),
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(without.code, without.stderr).toBe(0);
    const s = JSON.parse(r.stdout);
    const expected = RECORDS * VARIANTS;
    const w = JSON.parse(without.stdout);
    expect(w.totals.variants_written + w.totals.variants_rejected).toBe(expected);
    expect(w.totals.variants_written / expected).toBeLessThan(0.9);
    expect(w.teacher.call_retries).toBe(0);
    expect(s.totals.variants_expected).toBe(expected);
    expect(s.totals.variants_written + s.totals.variants_rejected).toBe(expected);
    expect(s.totals.variants_written / expected).toBeGreaterThanOrEqual(0.95);
    // Every fault happened, and recovery is counted by kind.
    for (const o of ['429', '500', 'hang', 'bad_json', 'old_name', 'missing_arg']) expect(flaky.outcomes, o).toContain(o);
    expect(s.teacher.call_retries).toBeGreaterThan(0);
    expect(s.teacher.recovered_variants).toBeGreaterThan(0);
    for (const k of ['call_retry.teacher_invalid_call', 'call_retry.teacher_old_name']) expect(s.teacher.recovery[k], k).toBeGreaterThan(0);
    expect(s.teacher_requests.retries).toBeGreaterThan(0);
    // Accepted trajectories are the clean ones: the failed calls and their errors are not in them.
    const refs = new Map(reference.flatMap((f) => readJsonl(f)).map((x) => [x.id, JSON.stringify(x.messages)]));
    const sft = rowsOf(path.join(dir, 'out'), 'sft');
    expect(sft).toHaveLength(s.totals.variants_written);
    for (const rec of sft) expect(JSON.stringify(rec.messages), String(rec.id)).toBe(refs.get(rec.id));
    // Each recovered record says so in its provenance; the counts add up to the summary's.
    const recovered = sft
      .map((rec) => (rec.meta as { teacher_recovery?: { attempts: number; call_retries: Record<string, number> } }).teacher_recovery)
      .filter((x) => x !== undefined);
    expect(recovered).toHaveLength(s.teacher.recovered_variants);
    const sum = (m: Record<string, number>) => Object.values(m).reduce((a, b) => a + b, 0);
    const inRejects = rowsOf(path.join(dir, 'out'), 'rejects').reduce((n, x) => n + sum(x.call_retries as Record<string, number>), 0);
    expect(recovered.reduce((n, x) => n + sum(x.call_retries), 0) + inRejects).toBe(s.teacher.call_retries);
    // The manifest states the same recovery numbers; a warm rerun sends nothing and writes the same bytes.
    const manifest = JSON.parse(readFileSync(path.join(dir, 'out/manifest.json'), 'utf8'));
    expect(manifest.teacher).toEqual(s.teacher);
    const first = treeHashes(path.join(dir, 'out'));
    const before = server.count();
    const again = await runHsaAsync(['augment', '--no-gzip', '--config', cfg, '--force', '--json', '--require-cache']);
    expect(again.code, again.stderr).toBe(0);
    expect(server.count()).toBe(before);
    expect(treeHashes(path.join(dir, 'out'))).toEqual(first);
  });

  it('a missing required argument is reported as an invalid call (not a divergent one), with the error the model got', async () => {
    const server = await serve(faults(replayingModel(reference), { rateMissingArg: 1, seed: 1 }));
    const dir = tmp();
    const r = await runHsaAsync([
      'augment',
      '--no-gzip',
      '--config',
      config(dir, server.url, { recovery: { max_call_retries: 1, max_attempts: 1 } }),
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const rejects = rowsOf(path.join(dir, 'out'), 'rejects');
    expect(rejects.length).toBeGreaterThan(0);
    for (const x of rejects) {
      expect(x.reason_kind).toBe('teacher_invalid_call');
      expect(String(x.reason)).toMatch(/^turn \d+: invalid call of \S+: missing required argument "[^"]+" \(after 1 retry\)$/);
    }
    const s = JSON.parse(r.stdout);
    expect(Object.keys(s.rejectReasons)).toEqual(['teacher_invalid_call']);
    // The tool messages answering the model's last message in each request: the invalid call's error,
    // and, for parallel calls beside it, "not run".
    const answers = server.requests
      .map((q) => {
        let last = q.messages.length - 1;
        while (last >= 0 && q.messages[last].role !== 'assistant') last--;
        return q.messages.slice(last + 1).filter((m: { role: string; content: unknown }) => m.role === 'tool' && String(m.content).startsWith('error: '));
      })
      .filter((a) => a.length > 0);
    expect(answers.length).toBeGreaterThan(0);
    const missing = /^error: missing required argument "[^"]+" \(tool "[^"]+"\)$/;
    const notRun = /^error: not run, because another call in the same message was invalid/;
    for (const a of answers) {
      expect(a.some((m) => missing.test(m.content))).toBe(true);
      expect(a.every((m) => missing.test(m.content) || notRun.test(m.content))).toBe(true);
    }
  });

  it('401 is fatal: exit 1, no complete part or manifest; the corrected rerun resumes without --force', async () => {
    const model = replayingModel(reference);
    const server = await serve((req, i) => (server.authHeaders[i] === `Bearer ${KEY}` ? model(req, i) : { kind: 'status', status: 401 }));
    const dir = tmp();
    const cfg = config(dir, server.url, { api_key_env: 'HSA_RECOVERY_WRONG_KEY' });
    const r = await runHsaAsync(['augment', '--no-gzip', '--config', cfg]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('teacher refused our credentials (401)');
    expect(r.stderr).toContain('HSA_RECOVERY_WRONG_KEY');
    expect(r.stderr).not.toContain(STACK_LINE);
    expect(existsSync(path.join(dir, 'out/manifest.json'))).toBe(false);
    expect(readdirSync(path.join(dir, 'out/.hsa/done'))).toEqual([]);
    expect(rowsOf(path.join(dir, 'out'), 'rejects')).toEqual([]);
    const again = await runHsaAsync(['augment', '--no-gzip', '--config', cfg, '--teacher-key-env', 'HSA_RECOVERY_KEY', '--json']);
    expect(again.code, again.stderr).toBe(0);
    const s = JSON.parse(again.stdout);
    expect(s.resumed).toBe(true);
    expect(s.totals.variants_written).toBe(RECORDS * VARIANTS);
  });

  it.each([
    [403, 'teacher denied permission (403)'],
    [404, 'no model "teacher-test" there, or the base_url is wrong'],
  ])('%i is fatal too', async (status, message) => {
    const server = await serve(() => ({ kind: 'status', status }));
    const dir = tmp();
    const r = await runHsaAsync(['augment', '--no-gzip', '--config', config(dir, server.url), '-q']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(message);
    expect(existsSync(path.join(dir, 'out/manifest.json'))).toBe(false);
    // The first requests of the episodes in flight (8) and nothing after: not one per variant. (A
    // request may arrive twice when a kept-alive connection is reset under load.)
    expect(new Set(server.requests.map((q) => canonicalJson(q))).size).toBeLessThanOrEqual(8);
  });

  it('an unset key variable is an error for a remote endpoint, and fine for a loopback one (a placeholder is sent)', async () => {
    const dir = tmp();
    const remote = await runHsaAsync(['augment', '--no-gzip', '--config', config(dir, 'http://192.0.2.1/v1', { api_key_env: 'HSA_RECOVERY_UNSET_KEY' })]);
    expect(remote.code).toBe(1);
    expect(remote.stderr).toContain('teacher.api_key_env: the variable HSA_RECOVERY_UNSET_KEY is not set, and http://192.0.2.1/v1 is not a loopback address');
    expect(remote.stderr).not.toContain(STACK_LINE);
    expect(existsSync(path.join(dir, 'out'))).toBe(false);
    const server = await serve(replayingModel(reference));
    const local = tmp();
    const r = await runHsaAsync(['augment', '--no-gzip', '--config', config(local, server.url, { api_key_env: 'HSA_RECOVERY_UNSET_KEY' }), '-q']);
    expect(r.code, r.stderr).toBe(0);
    expect(new Set(server.authHeaders)).toEqual(new Set(['Bearer no-key']));
  });
});
