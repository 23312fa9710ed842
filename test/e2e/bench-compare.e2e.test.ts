import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/hsa.js';

/**
 * scripts/bench/compare.mjs runs two builds of hsa on one command and says whether they wrote the
 * same bytes. Here both sides are this checkout (a folder base, no worktree to build): the same
 * command must come out identical, and a command whose output depends on the run's own path
 * (`--seed {out}`: each side gets its own folder) must be reported as differing, exit 1.
 */

function compare(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [path.join(REPO, 'scripts/bench/compare.mjs'), ...args], { cwd: REPO });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const AUGMENT = ['augment', '--harness', 'fixtures/live-commerce/harness', '-t', 'fixtures/live-commerce/trajectories.jsonl', '--stages', 'sft'];

describe('scripts/bench/compare.mjs', () => {
  it('two runs of the same build write the same bytes: a table, the medians, "outputs identical", exit 0', async () => {
    const r = await compare(['--base', REPO, '--runs', '1', '--', ...AUGMENT, '-o', '{out}']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\| 1 \| [\d.]+ \| [\d.]+ \| \d+ \| [\d.]+ \| [\d.]+ \| \d+ \|$/m);
    expect(r.stdout).toMatch(/median CPU [\d.]+ → [\d.]+ s \(head ÷ base [\d.]+\)/);
    expect(r.stdout).toMatch(/outputs identical \(\d+ files\)/);
  });

  it('outputs that differ are listed side by side, exit 1', async () => {
    const r = await compare(['--base', REPO, '--runs', '1', '--', ...AUGMENT, '--seed', '{out}', '-o', '{out}']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('OUTPUTS DIFFER');
    // Only the files that differ are listed, each with both hashes.
    expect(r.stdout).toMatch(/^out\/sft\/part-00000\.jsonl\.gz {2}base [0-9a-f]{64} {2}head [0-9a-f]{64}$/m);
    expect(r.stdout).not.toContain('out/rejects/'); // no rejects either way: the same bytes, not listed
  });

  it('arguments without {out} are refused before anything runs, exit 2', async () => {
    const r = await compare(['--base', REPO, '--', ...AUGMENT, '-o', '/tmp/x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('{out}');
  });
});
