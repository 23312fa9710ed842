import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HSA_BIN, REPO, STACK_LINE } from '../helpers/hsa.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

afterAll(removeTempDirs);
// 20,000 bad lines: one problem line each on stdout, far more than a pipe holds.
const bad = path.join(tempDir('hsa-epipe-'), 'bad.jsonl');
writeFileSync(bad, '{"id":\n'.repeat(20_000));

/** Run bin/hsa and close its stdout after the first chunk, as `| head -1` does. */
function runClosingStdout(args: string[]): Promise<{ code: number | null; stderr: string; got: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HSA_BIN, ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let got = 0;
    child.stdout.once('data', (b: Buffer) => {
      got = b.length;
      child.stdout.destroy();
    });
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr, got }));
  });
}

const H = 'fixtures/live-commerce/harness';
const T = 'fixtures/live-commerce/trajectories.jsonl';

describe.concurrent('a closed stdout ends a command quietly', () => {
  it.each([
    ['validate (20,000 problems; exit 1 as usual)', ['validate', H, '-t', bad], 1],
    ['preview --json (MBs of output)', ['preview', H, '-t', T, '--id', 'lc-000037', '-k', '30', '--json'], 0],
  ] as const)('%s', async (_what, args, code) => {
    const r = await runClosingStdout([...args]);
    expect(r.got).toBeGreaterThan(0);
    expect(r.stderr).not.toContain('EPIPE');
    expect(r.stderr).not.toContain(STACK_LINE);
    expect(r.code).toBe(code);
  });
});
