import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is test/helpers/hsa.ts). */
export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const HSA_BIN = path.join(REPO, 'bin', 'hsa');

export interface HsaRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Run the real CLI (`bin/hsa`, which runs the built `dist/`) with `node`, in `cwd` (default: the
 * repo root). Never throws on a non-zero exit; the caller asserts the code.
 */
export function runHsa(args: readonly string[], opts: { cwd?: string; input?: string } = {}): HsaRun {
  for (let attempt = 1; ; attempt++) {
    const r = runHsaOnce(args, opts);
    if (!distWasMidRebuild(r) || attempt === 3) return r;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
  }
}

/**
 * A run that failed only because `dist/` was being rewritten by a concurrent `tsc` (a module
 * found half-written while Node linked it). A genuinely broken build fails the same way on
 * every attempt, so retrying such a run hides nothing.
 */
function distWasMidRebuild(r: HsaRun): boolean {
  return (
    r.code !== 0 &&
    r.stdout === '' &&
    /^file:\/\/.*\/dist\/.*\n[\s\S]*^(SyntaxError: The requested module '[^']+' does not provide an export named|SyntaxError: Unexpected end of input)/m.test(
      r.stderr,
    )
  );
}

function runHsaOnce(args: readonly string[], opts: { cwd?: string; input?: string }): HsaRun {
  if (!existsSync(path.join(REPO, 'dist', 'src', 'cli', 'main.js'))) {
    throw new Error('dist/ is missing: build first (npx tsc -p . or npm test)');
  }
  const r = spawnSync(process.execPath, [HSA_BIN, ...args], {
    cwd: opts.cwd ?? REPO,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    ...(opts.input !== undefined ? { input: opts.input } : {}),
  });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A Node stack-trace line, which must never reach a user. */
export const STACK_LINE = '    at ';

/** `runHsa` without blocking the worker, so independent CLI runs can overlap (it.concurrent). */
export async function runHsaAsync(args: readonly string[], opts: { cwd?: string } = {}): Promise<HsaRun> {
  for (let attempt = 1; ; attempt++) {
    const r = await runHsaAsyncOnce(args, opts);
    if (!distWasMidRebuild(r) || attempt === 3) return r;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

function runHsaAsyncOnce(args: readonly string[], opts: { cwd?: string }): Promise<HsaRun> {
  if (!existsSync(path.join(REPO, 'dist', 'src', 'cli', 'main.js'))) {
    return Promise.reject(new Error('dist/ is missing: build first (npx tsc -p . or npm test)'));
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HSA_BIN, ...args], {
      cwd: opts.cwd ?? REPO,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
  });
}
