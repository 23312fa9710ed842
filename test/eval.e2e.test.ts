import { readFileSync, writeFileSync } from 'node:fs';
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
  const r = runHsa(['augment', '--harness', 'fixtures/live-commerce/harness', '-t', dev, '--out', set, '--variants', '3', '--keep-source', '--stages', 'rl', '--words', 'live-commerce', '--seed', '7', '--quiet']);
  expect(r.code, r.stderr).toBe(0);
  parts = (await readdir(path.join(set, 'rl'))).filter((f) => f.endsWith('.jsonl')).map((f) => path.join(set, 'rl', f));
}, 60_000);

afterAll(() => tmp?.cleanup());

const evalArgs = (url: string, model: string, cache: string, ...more: string[]) => ['eval', '--set', set, '--model-url', url, '--model', model, '--cache', cache, '--tokenizer', 'estimate', '--bootstrap', '200', '--max-retries', '0', ...more];

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
});
