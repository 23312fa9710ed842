#!/usr/bin/env node
// Runs the linter or formatter installed in tools/lint/ on the repository:
//   node tools/lint/run.mjs lint [eslint options]  type-checked ESLint on the tree (cached under node_modules/.cache)
//   node tools/lint/run.mjs format:check | format  prettier --check / --write
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const bin = (name) => path.join(here, 'node_modules', '.bin', name);
const [task, ...rest] = process.argv.slice(2);

if (!existsSync(bin('eslint')) || !existsSync(bin('prettier'))) {
  console.error('tools/lint is not installed: run `npm ci --prefix tools/lint` (its own package: typescript-eslint needs TypeScript 6, the build uses 7).');
  process.exit(2);
}
const cache = path.join(root, 'node_modules', '.cache');
const runs = {
  lint: [
    bin('eslint'),
    [
      '-c',
      path.join(here, 'eslint.config.mjs'),
      '--cache',
      '--cache-strategy',
      'content',
      '--cache-location',
      path.join(cache, 'eslint/'),
      '--max-warnings',
      '0',
      ...rest,
      '.',
    ],
  ],
  'format:check': [bin('prettier'), ['--check', '.', ...rest]],
  format: [bin('prettier'), ['--write', '.', ...rest]],
};
if (!runs[task]) {
  console.error(`usage: node tools/lint/run.mjs ${Object.keys(runs).join(' | ')} [args]`);
  process.exit(2);
}
const [cmd, args] = runs[task];
const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);
