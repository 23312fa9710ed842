import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { REPO, runHsaAsync } from './helpers/hsa.js';
import { startEnv, type EnvServer } from './helpers/env-server.js';
import { removeTempDirs, tempDir } from './helpers/tmp.js';

// The Python verl bridge (integrations/verl, standard library only) against the real server:
// `python3 -m integrations.verl.test_bridge` must exit 0 and report what it ran.

let env: EnvServer;
let rowsDir: string;

beforeAll(async () => {
  const tmp = tempDir('hsa-verl-');
  const r = await runHsaAsync([
    'augment',
    '--no-gzip',
    '--config',
    'fixtures/live-commerce/hsa.yaml',
    '--out',
    path.join(tmp, 'out'),
    '--stages',
    'rl',
    '--variants',
    '1',
    '-q',
  ]);
  expect(r.code, r.stderr).toBe(0);
  rowsDir = path.join(tmp, 'out', 'rl');
  env = await startEnv(['--rows', `${rowsDir}/*.jsonl`, '--tokenizer', 'estimate', '-q']);
}, 60_000);

afterAll(async () => {
  expect(await env?.stop()).toBe(0);
  removeTempDirs();
});

it('the verl bridge passes its Python tests against hsa env serve', () => {
  const r = spawnSync('python3', ['-m', 'integrations.verl.test_bridge'], {
    cwd: REPO,
    encoding: 'utf8',
    env: { ...process.env, HSA_ENV_URL: env.url, HSA_ROWS_DIR: rowsDir, HSA_REWARD_ARGS: '--tokenizer estimate', PYTHONDONTWRITEBYTECODE: '1' },
    timeout: 120_000,
  });
  const summary = /verl bridge: (\d+) passed, (\d+) failed, (\d+) skipped/.exec(r.stdout);
  expect(summary, `${r.stdout}\n${r.stderr}`).not.toBeNull();
  expect(r.status, r.stderr).toBe(0);
  expect(Number(summary![1])).toBeGreaterThanOrEqual(7);
  expect(Number(summary![3])).toBe(0);
}, 120_000);
