#!/usr/bin/env node
// npm run words:compile: write words/compiled.json, the built-in word packs parsed and checked (see
// COMPILED_PACKS in src/words/packs.ts). Run it after editing a pack in words/ (a pack
// whose YAML no longer matches its compiled copy is still read correctly, only slower; the test
// test/word-packs-compiled.test.ts fails until the copy is written again).
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.join(path.dirname(new URL(import.meta.url).pathname), '..');
const build = spawnSync('npx', ['--no-install', 'tsc', '-p', 'tsconfig.json'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
const { builtinPackDir, compilePacks, COMPILED_PACKS } = await import('../dist/src/words/packs.js');
const file = path.join(builtinPackDir(), COMPILED_PACKS);
writeFileSync(file, `${JSON.stringify(compilePacks())}\n`);
console.error(`wrote ${path.relative(process.cwd(), file)}`);
