#!/usr/bin/env node
// The project's one test command (npm test, .ci/run): build the CLI the end-to-end tests run,
// run vitest, and end with a plain `N passed, N failed` line read from vitest's JSON report.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';

/** Run a command with inherited output; resolves to its exit status. */
function runAsync(cmd, args) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: 'inherit' });
    child.on('error', () => resolve({ status: 1 }));
    child.on('close', (status) => resolve({ status }));
  });
}

// Build what the end-to-end tests run, and type-check the tests themselves too: side by side,
// since the type check (noEmit) reads the sources, not dist/.
const [build, typecheck] = await Promise.all([
  runAsync('npx', ['--no-install', 'tsc', '-p', 'tsconfig.json']),
  runAsync('npx', ['--no-install', 'tsc', '-p', 'tsconfig.test.json']),
]);
if (build.status !== 0 || typecheck.status !== 0) {
  console.log(build.status !== 0 ? 'build failed' : 'type check of the tests failed');
  console.log('0 passed, 1 failed');
  process.exit(1);
}
mkdirSync('test-results', { recursive: true });
const report = 'test-results/vitest.json';
rmSync(report, { force: true });
const args = ['--no-install', 'vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...process.argv.slice(2)];
const run = spawnSync('npx', args, { stdio: 'inherit' });
let passed = 0;
let failed = 0;
let skipped = 0;
try {
  const r = JSON.parse(readFileSync(report, 'utf8'));
  passed = r.numPassedTests;
  failed = r.numFailedTests + (r.numRuntimeErrorTestSuites ?? 0);
  skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  if (r.numTotalTests === 0) failed += 1;
} catch {
  failed = Math.max(1, failed);
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(run.status === 0 && failed === 0 ? 0 : 1);
