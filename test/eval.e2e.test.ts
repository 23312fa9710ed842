import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memorising, reading } from './helpers/eval-models.js';
import { REPO, runHsa, runHsaAsync } from './helpers/hsa.js';
import { startTeacherServer } from './helpers/teacher-server.js';
import { makeTmp } from './helpers/tmp.js';

// `hsa eval` end to end: a set built by `hsa augment --keep-source` from the live-commerce
// fixtures, models behind real local HTTP servers, the report read from stdout.
let tmp: { dir: string; cleanup: () => Promise<void> };
let set: string;
let parts: string[];

beforeAll(async () => {
  tmp = await makeTmp('hsa-eval-');
  const dev = path.join(tmp.dir, 'dev.jsonl');
  writeFileSync(dev, `${readFileSync(path.join(REPO, 'fixtures/live-commerce/trajectories.jsonl'), 'utf8').split('\n').slice(0, 16).join('\n')}\n`);
  set = path.join(tmp.dir, 'set');
  const r = runHsa([
    'augment',
    '--no-gzip',
    '--harness',
    'fixtures/live-commerce/harness',
    '-t',
    dev,
    '--out',
    set,
    '--variants',
    '3',
    '--keep-source',
    '--stages',
    'rl',
    '--words',
    'live-commerce',
    '--seed',
    '7',
    '--quiet',
  ]);
  expect(r.code, r.stderr).toBe(0);
  parts = (await readdir(path.join(set, 'rl'))).filter((f) => f.endsWith('.jsonl')).map((f) => path.join(set, 'rl', f));
}, 60_000);

afterAll(() => tmp?.cleanup());

const evalArgs = (url: string, model: string, cache: string, ...more: string[]) => [
  'eval',
  '--set',
  set,
  '--model-url',
  url,
  '--model',
  model,
  '--cache',
  cache,
  '--tokenizer',
  'estimate',
  '--bootstrap',
  '200',
  '--max-retries',
  '0',
  ...more,
];

describe('hsa eval', () => {
  it('a memorising model: a large gap on the tools family, none on the source harness; a warm rerun makes no request and prints the same bytes', async () => {
    const server = await startTeacherServer(memorising(parts));
    try {
      const cache = path.join(tmp.dir, 'cache-mem');
      const html = path.join(tmp.dir, 'mem.html');
      const cold = await runHsaAsync(evalArgs(server.url, 'mem', cache, '--json', '--html', html));
      expect(cold.code, cold.stderr).toBe(0);
      const report = JSON.parse(cold.stdout);
      expect(report.source.reward.mean).toBeGreaterThan(0.95);
      const tools = report.gap.families.find((f: any) => f.key === 'tools');
      expect(tools.gap.mean).toBeGreaterThan(0.2);
      expect(tools.gap.lo).toBeGreaterThan(0.1);
      expect(report.gap.transforms.find((t: any) => t.key === 'tools.rename').gap.mean).toBeGreaterThan(0.2);
      // RL rows carry each record's `meta.intent` (the live-commerce harness has no hook reading it):
      // the per-intent gap is grouped by the intents of the 16 source records, never "(no intent)".
      expect(report.gap.intents.map((g: any) => g.key).sort()).toEqual(['aftersale', 'chat', 'clarification', 'product_qa']);
      expect(report.failures.length).toBeGreaterThan(0);
      expect(report.failures[0].id).toMatch(/~v\d+$/);
      const page = readFileSync(html, 'utf8');
      expect(page).toContain('<svg');
      expect(page).not.toMatch(/<script|<link|src="http/);
      const sent = server.count();
      expect(sent).toBeGreaterThan(0);
      const warm = await runHsaAsync(evalArgs(server.url, 'mem', cache, '--json', '--html', `${html}.2`));
      expect(warm.code, warm.stderr).toBe(0);
      expect(server.count()).toBe(sent);
      expect(warm.stdout).toBe(cold.stdout);
      expect(readFileSync(`${html}.2`, 'utf8')).toBe(page);
      const serial = await runHsaAsync(evalArgs(server.url, 'mem', cache, '--json', '--concurrency', '1'));
      expect(serial.stdout).toBe(cold.stdout);
      const text = await runHsaAsync(evalArgs(server.url, 'mem', cache, '--concurrency', '1'));
      expect(text.stdout).toMatch(/per transform family:\n[\s\S]*tools/);
      expect(text.stdout).toContain('hsa show');
      expect(server.count()).toBe(sent);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('a reading model: a gap near zero', async () => {
    const server = await startTeacherServer(reading(parts));
    try {
      const r = await runHsaAsync(evalArgs(server.url, 'reader', path.join(tmp.dir, 'cache-read'), '--json'));
      expect(r.code, r.stderr).toBe(0);
      const report = JSON.parse(r.stdout);
      expect(report.source.reward.mean).toBeGreaterThan(0.95);
      expect(Math.abs(report.gap.overall.gap.mean)).toBeLessThan(0.03);
      expect(Math.abs(report.gap.families.find((f: any) => f.key === 'tools').gap.mean)).toBeLessThan(0.03);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('a model URL that refuses connections: a clear error and exit 1; an endpoint that fails midway keeps the finished episodes in the cache', async () => {
    const closed = await startTeacherServer(() => ({ kind: 'message', content: 'x' }));
    const url = closed.url;
    await closed.close();
    const r = await runHsaAsync(evalArgs(url, 'gone', path.join(tmp.dir, 'cache-gone')));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`model gone at ${url}`);
    expect(r.stderr).toMatch(/APIConnectionError/);
    expect(r.stderr).toContain('0 of 64 episodes finished');

    let failing = false;
    const inner = memorising(parts);
    const server = await startTeacherServer((req, i) => (failing ? { kind: 'status', status: 503 } : inner(req, i)));
    try {
      const cache = path.join(tmp.dir, 'cache-midway');
      const full = await runHsaAsync(evalArgs(server.url, 'mem2', path.join(tmp.dir, 'cache-full'), '--concurrency', '1'));
      expect(full.code, full.stderr).toBe(0);
      const perRun = server.count();
      const before = server.count();
      // Fail after 40 requests: the run stops with exit 1 and says how far it got.
      const stopAt = before + 40;
      const counting = server.count.bind(server);
      const watcher = setInterval(() => {
        if (counting() >= stopAt) failing = true;
      }, 1);
      const broken = await runHsaAsync(evalArgs(server.url, 'mem2', cache, '--concurrency', '1'));
      clearInterval(watcher);
      expect(broken.code).toBe(1);
      expect(broken.stderr).toMatch(/episodes finished; their answers are in the cache/);
      failing = false;
      const mid = server.count();
      const resumed = await runHsaAsync(evalArgs(server.url, 'mem2', cache, '--concurrency', '1'));
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(server.count() - mid).toBeLessThan(perRun - 20);
      expect(resumed.stdout).toBe(full.stdout);
    } finally {
      await server.close();
    }
  }, 90_000);

  it('--harness A --harness B names the dev records that regress when B removes a tool they need', async () => {
    const b = path.join(tmp.dir, 'harness-b');
    cpSync(path.join(REPO, 'fixtures/live-commerce/harness'), b, { recursive: true });
    rmSync(path.join(b, 'tools/faq.json'));
    for (const skill of ['aftersale', 'faq_reply', 'tool_strategy_multi']) {
      const f = path.join(b, 'skills', skill, 'SKILL.md');
      writeFileSync(
        f,
        readFileSync(f, 'utf8').replace(
          /^tools: \[(.*)\]$/m,
          (_, list: string) =>
            `tools: [${list
              .split(', ')
              .filter((t) => t !== 'lookup_faq')
              .join(', ')}]`,
        ),
      );
    }
    const dev = path.join(tmp.dir, 'dev.jsonl');
    const need = readFileSync(dev, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"lookup_faq"'))
      .map((l) => JSON.parse(l).id as string);
    expect(need.length).toBeGreaterThan(1);
    const server = await startTeacherServer(memorising(parts));
    try {
      const r = await runHsaAsync([
        'eval',
        '--harness',
        'fixtures/live-commerce/harness',
        '--harness',
        b,
        '-t',
        dev,
        '--model-url',
        server.url,
        '--model',
        'mem',
        '--cache',
        path.join(tmp.dir, 'cache-ab'),
        '--tokenizer',
        'estimate',
        '--bootstrap',
        '100',
        '--json',
      ]);
      expect(r.code, r.stderr).toBe(0);
      const report = JSON.parse(r.stdout);
      expect(report.records).toBe(16);
      expect(report.regressed.map((p: any) => p.id).sort()).toEqual([...need].sort());
      expect(report.ties).toBe(16 - need.length);
      const text = await runHsaAsync([
        'eval',
        '--harness',
        'fixtures/live-commerce/harness',
        '--harness',
        b,
        '-t',
        dev,
        '--model-url',
        server.url,
        '--model',
        'mem',
        '--cache',
        path.join(tmp.dir, 'cache-ab'),
        '--tokenizer',
        'estimate',
        '--bootstrap',
        '100',
      ]);
      expect(text.stdout).toContain(`regressed under B (${need.length}):`);
      for (const id of need) expect(text.stdout).toContain(id);
    } finally {
      await server.close();
    }
  }, 90_000);
});
