import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO } from '../helpers/hsa.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

// The README promises that its walk, from a folder of OpenAI chat logs to a verl export, works by
// copying its commands. This runs the shell blocks of that section in order, as written, in a
// folder outside the repository with `hsa` on PATH the way the README puts it there. The trainers
// (torchrun, verl) are not installed here: stand-ins print the command line they were given.

afterAll(removeTempDirs);

/** The ```sh blocks of the README between "## From your logs to your trainer" and "### Next steps". */
function walkBlocks(): string[] {
  const readme = readFileSync(path.join(REPO, 'README.md'), 'utf8');
  const start = readme.indexOf('## From your logs to your trainer');
  const end = readme.indexOf('### Next steps', start);
  expect(start, 'the walk section').toBeGreaterThan(-1);
  expect(end, 'the walk ends before Next steps').toBeGreaterThan(start);
  return [...readme.slice(start, end).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

describe("the README's walk from logs to a verl export", () => {
  it('runs as written and ends with verl-sft and verl-rl exports', async () => {
    const blocks = walkBlocks();
    const script = blocks.join('\n');
    for (const step of [
      'hsa import --from openai-log',
      'hsa init',
      'hsa validate',
      'hsa preview',
      'hsa augment',
      'hsa verify',
      'hsa export out --to verl-sft',
      'hsa env serve',
      'hsa export out --to verl-rl',
    ]) {
      expect(script, step).toContain(step);
    }
    const dir = tempDir('hsa-readme-walk-');
    mkdirSync(path.join(dir, 'logs'));
    cpSync(path.join(REPO, 'fixtures/import/openai-log/returns.jsonl'), path.join(dir, 'logs/returns.jsonl'));
    const stubs = path.join(dir, '.stubs');
    mkdirSync(stubs);
    for (const name of ['torchrun', 'python3']) {
      writeFileSync(path.join(stubs, name), `#!/bin/sh\necho "${name} $*"\n`);
      chmodSync(path.join(stubs, name), 0o755);
    }
    // Another test may hold the README's port; the walk is the same on any.
    const port = String(await freePort());
    const body = script.replaceAll('8808', port);
    // The README says to stop the server when done; the trap does so even when a step fails. The
    // server may still be starting when the last export ends (a loaded machine): ask for a minute.
    const wrapped = `trap 'kill $(jobs -p) 2>/dev/null' EXIT\nset -e\n${body}\nnode -e 'const ask = (n) => fetch("http://127.0.0.1:${port}/health").then(async (r) => console.log("health", await r.text()), (e) => { if (n === 0) throw e; return new Promise((ok) => setTimeout(ok, 250)).then(() => ask(n - 1)); }); ask(240)'\n`;
    const r = spawnSync('bash', ['-c', wrapped], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, PATH: `${stubs}:${path.join(REPO, 'bin')}:${process.env.PATH ?? ''}` },
      timeout: 240_000,
    });
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stderr).toContain('imported 6 of 12 records');
    expect(r.stderr).toMatch(/valid: harness harness .*6 records/);
    expect(r.stderr).toContain('2 passed every check, 0 failed');
    expect(r.stderr).toMatch(/^sound: /m);
    for (const f of [
      'verl-sft/sft/part-00000.parquet',
      'verl-sft/verl_sft_dataset.py',
      'verl-rl/train.parquet',
      'verl-rl/agent_loop.yaml',
      'verl-rl/verl_overrides.txt',
    ]) {
      expect(existsSync(path.join(dir, f)), f).toBe(true);
    }
    const max = JSON.parse(readFileSync(path.join(dir, 'verl-sft/export-manifest.json'), 'utf8')).tokens.sft.max;
    expect(r.stdout).toContain(`torchrun -m verl.trainer.sft_trainer data.train_files=[verl-sft/sft/part-00000.parquet] `);
    expect(r.stdout).toContain(`data.max_length=${max} `);
    expect(r.stdout).toMatch(/python3 -m verl\.trainer\.main_ppo data\.max_prompt_length=\d+ /);
    expect(r.stdout).toContain('health {"status":"ok"}');
  }, 300_000);
});
