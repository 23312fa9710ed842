#!/usr/bin/env node
// npm run demo: augment the bundled live-commerce fixtures into out/demo and print the summary.
// It starts over each time (--force), so a demo folder left by an older version never blocks it;
// run the printed command without --force to see a rerun resume instead.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

if (!existsSync(new URL('../dist/src/cli/main.js', import.meta.url))) {
  const build = spawnSync('npx', ['--no-install', 'tsc', '-p', 'tsconfig.json'], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
const args = ['bin/hsa', 'augment', '--config', 'fixtures/live-commerce/hsa.yaml', '--force', ...process.argv.slice(2)];
console.error(`$ ${['hsa', ...args.slice(1)].join(' ')}`);
const run = spawnSync(process.execPath, args, { stdio: 'inherit' });
process.exit(run.status ?? 1);
