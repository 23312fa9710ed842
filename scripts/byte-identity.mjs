#!/usr/bin/env node
// Byte-identity list: run the demo, an augment of every fixture folder (harness + trajectories),
// an inline augment of every import shape, every export format of the demo, and migrate on both
// fixture pairs, then print one `sha256  path` line per output file, sorted by path.
// A refactor that promises "behaviour unchanged" shows the same list before and after:
//   node scripts/byte-identity.mjs > /tmp/before.txt   (on the old commit)
//   node scripts/byte-identity.mjs > /tmp/after.txt    (on the new one)
//   diff /tmp/before.txt /tmp/after.txt
// Usage: node scripts/byte-identity.mjs [--keep DIR]   (DIR keeps the outputs for a closer look)
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const keepAt = process.argv.indexOf('--keep');
const work = keepAt > 0 ? process.argv[keepAt + 1] : mkdtempSync(join(tmpdir(), 'hsa-identity-'));
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });

function hsa(...args) {
  return hsaIn(root, ...args);
}
// Records name their source file as it was given; files written here are given relative to the
// work folder, so the list does not depend on where the work folder is.
function hsaIn(cwd, ...args) {
  const run = spawnSync(process.execPath, [join(root, 'bin/hsa'), ...args], { cwd, encoding: 'utf8' });
  if (run.status !== 0 && run.status !== 1) {
    process.stderr.write(`hsa ${args.join(' ')} exited ${run.status}\n${run.stderr}\n`);
    process.exit(2);
  }
  return run;
}

// 1. the demo config, written elsewhere
hsa('augment', '--config', 'fixtures/live-commerce/hsa.yaml', '-o', join(work, 'demo'), '--force', '-q');

// 2. every fixture folder with a harness and trajectories, defaults (gzip, all stages) and -k 4 plain
for (const name of readdirSync(join(root, 'fixtures')).sort()) {
  const dir = join('fixtures', name);
  if (!existsSync(join(root, dir, 'harness')) || !existsSync(join(root, dir, 'trajectories.jsonl'))) continue;
  hsa('augment', '--harness', join(dir, 'harness'), '-t', join(dir, 'trajectories.jsonl'), '-o', join(work, 'folder', name), '-q', '--on-error', 'skip');
  hsa(
    'augment',
    '--harness',
    join(dir, 'harness'),
    '-t',
    join(dir, 'trajectories.jsonl'),
    '-o',
    join(work, 'folder-k4', name),
    '-q',
    '-k',
    '4',
    '--no-gzip',
    '--on-error',
    'skip',
  );
}

// 3. import every shape, then augment it with its inline harness
for (const format of readdirSync(join(root, 'fixtures/import')).sort()) {
  const src = join(root, 'fixtures/import', format);
  if (!statSync(src).isDirectory() || format === 'shapes') continue;
  const files = readdirSync(src)
    .filter((f) => /\.(jsonl|json)$/.test(f))
    .sort()
    .map((f) => join(src, f));
  if (files.length === 0) continue;
  const out = join(work, 'import', `${format}.jsonl`);
  mkdirSync(join(work, 'import'), { recursive: true });
  hsa('import', '--from', format, '-o', out, '--on-error', 'skip', ...files);
  if (existsSync(out)) hsaIn(work, 'augment', '--harness', 'inline', '-t', `import/${format}.jsonl`, '-o', join('inline', format), '-q', '--on-error', 'skip');
}
for (const name of ['inline.jsonl', 'located.jsonl']) {
  const file = join('fixtures/pydantic-airline', name);
  const mode = name === 'located.jsonl' ? ['--harness', 'fixtures/pydantic-airline/harness', '--system-prompt', 'locate'] : ['--harness', 'inline'];
  hsa('augment', ...mode, '-t', file, '-o', join(work, 'pydantic', name), '-q', '--on-error', 'skip');
}

// 4. every export format of the demo output
for (const to of ['verl-sft', 'verl-rl', 'llamafactory', 'swift', 'trl']) {
  hsa('export', join(work, 'demo'), '--to', to, '--out', join(work, 'export', to));
}
hsa('export', join(work, 'demo'), '--to', 'swift', '--merge-turns', '--out', join(work, 'export', 'swift-merged'));

// 5. migrate on both fixture pairs
for (const pair of readdirSync(join(root, 'fixtures/migrate')).sort()) {
  const dir = join('fixtures/migrate', pair);
  const logs = readdirSync(join(root, dir))
    .filter((f) => f.endsWith('.jsonl'))
    .sort();
  const side = (v) => (existsSync(join(root, dir, v)) ? join(dir, v) : join(dir, `${v}.yaml`));
  const from = side('v1');
  const to = side('v2');
  const plan = join(work, 'migrate', pair, 'plan.yaml');
  mkdirSync(join(work, 'migrate', pair), { recursive: true });
  hsa('migrate', 'plan', '--from', from, '--to', to, ...logs.flatMap((l) => ['-t', join(dir, l)]), '-o', plan);
  hsa(
    'migrate',
    'apply',
    '--plan',
    plan,
    '--to',
    to,
    '--from',
    from,
    ...logs.flatMap((l) => ['-t', join(dir, l)]),
    '-o',
    join(work, 'migrate', pair, 'migrated.jsonl'),
  );
  const diff = hsa('migrate', 'diff', from, to, '--json');
  mkdirSync(join(work, 'migrate', pair), { recursive: true });
  spawnSync('sh', ['-c', 'cat > "$0"', join(work, 'migrate', pair, 'diff.json')], { input: diff.stdout });
}

// the list; a migrate plan names its harnesses relative to itself, so the repository's own
// place (a worktree, a clone) is written as <repo> before hashing
function bytesOf(path) {
  const bytes = readFileSync(path);
  if (!path.endsWith('plan.yaml')) return bytes;
  return bytes
    .toString('utf8')
    .split(`${relative(dirname(path), root)}/`)
    .join('<repo>/');
}
const lines = [];
(function walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path);
    else lines.push(`${createHash('sha256').update(bytesOf(path)).digest('hex')}  ${relative(work, path)}`);
  }
})(work);
process.stdout.write(lines.join('\n') + '\n');
if (keepAt < 0) rmSync(work, { recursive: true, force: true });
