import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HSA_BIN, REPO } from './helpers/hsa.js';
import { makeTmp } from './helpers/tmp.js';

// Commands that only read valid input never load zod or the yaml package: zod's schemas and yaml's
// parser stand behind hand readers (src/util/zod.ts, src/util/yaml-quick.ts). Each run here records the packages the process loaded — ES modules through a
// load hook, CommonJS ones from the require cache at exit — so a module that imports zod at its
// top again (or a command that starts importing such a module) fails here.

const tmp = await makeTmp('hsa-lazy-');
afterAll(() => tmp.cleanup());

const PRELOAD = path.join(tmp.dir, 'trace.mjs');
writeFileSync(
  PRELOAD,
  `import { register, createRequire } from 'node:module';
import { appendFileSync } from 'node:fs';
const out = process.env.HSA_TRACE_FILE;
register('data:text/javascript,' + encodeURIComponent(
  'import { appendFileSync } from "node:fs";' +
  'export async function load(url, ctx, next) { appendFileSync(' + JSON.stringify(out) + ', url + "\\\\n"); return next(url, ctx); }'));
process.on('exit', () => { for (const k of Object.keys(createRequire(import.meta.url).cache)) appendFileSync(out, k + '\\n'); });
`,
);

/** Packages (under node_modules) a run of `hsa args` loaded, and its exit code and output. */
function packagesLoaded(args: string[], name: string): { code: number | null; stdout: string; stderr: string; packages: Set<string>; files: string[] } {
  const trace = path.join(tmp.dir, `${name}.txt`);
  writeFileSync(trace, '');
  const r = spawnSync(process.execPath, ['--import', PRELOAD, HSA_BIN, ...args], {
    cwd: REPO,
    encoding: 'utf8',
    env: { ...process.env, HSA_TRACE_FILE: trace, NO_COLOR: '1' },
  });
  const packages = new Set<string>();
  const files = readFileSync(trace, 'utf8').split('\n');
  for (const line of files) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(line);
    if (m) packages.add(m[1]!);
  }
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, packages, files };
}

const LIB = 'fixtures/migrate/library';

describe('zod and yaml are loaded only when a hand reader gives up', () => {
  it('`migrate apply` on a log with carried and rejected records does not load them', () => {
    const out = path.join(tmp.dir, 'migrated.jsonl');
    const r = packagesLoaded(['migrate', 'apply', '--plan', `${LIB}/plan.yaml`, '-t', `${LIB}/logs-v1.jsonl`, '-o', out, '--json'], 'migrate');
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as { migrated: number; rejected: number };
    expect(summary.migrated).toBeGreaterThan(0);
    expect(summary.rejected).toBeGreaterThan(0);
    expect(r.packages.has('commander')).toBe(true); // the trace sees packages at all
    expect([...r.packages]).not.toContain('zod');
    expect([...r.packages]).not.toContain('yaml');
  });

  it('`validate` of a harness and its valid records does not load them', () => {
    const r = packagesLoaded(['validate', `${LIB}/v1`, '-t', `${LIB}/logs-v1.jsonl`], 'validate');
    expect(r.code, r.stderr).toBe(0);
    expect([...r.packages]).not.toContain('zod');
    expect([...r.packages]).not.toContain('yaml');
  });

  it('a record the hand check refuses loads it, and its message is the schema’s', () => {
    const bad = path.join(tmp.dir, 'bad.jsonl');
    const first = readFileSync(path.join(REPO, LIB, 'logs-v1.jsonl'), 'utf8').split('\n')[0]!;
    const rec = JSON.parse(first) as { messages: { role: string }[] };
    rec.messages[1]!.role = 'robot';
    writeFileSync(bad, `${JSON.stringify(rec)}\n`);
    const r = packagesLoaded(['validate', `${LIB}/v1`, '-t', bad], 'bad');
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toMatch(/bad\.jsonl:1.*messages\.1/);
    expect(r.packages.has('zod')).toBe(true);
  });

  it('`augment` of a harness with MCP tools loads one copy of zod (the transforms’), not its CommonJS build beside it', () => {
    const input = path.join(tmp.dir, 'two.jsonl');
    const lines = readFileSync(path.join(REPO, 'fixtures/live-commerce/trajectories.jsonl'), 'utf8').split('\n').slice(0, 2);
    writeFileSync(input, `${lines.join('\n')}\n`);
    const args = ['augment', '--harness', 'fixtures/live-commerce/harness', '-t', input, '-o', path.join(tmp.dir, 'aug'), '--variants', '1', '-q'];
    const r = packagesLoaded(args, 'augment');
    expect(r.code, r.stderr).toBe(0);
    const zodFiles = r.files.filter((f) => f.includes('node_modules/zod/'));
    expect(zodFiles.some((f) => f.endsWith('.js'))).toBe(true);
    expect(zodFiles.filter((f) => f.endsWith('.cjs'))).toEqual([]);
  });

  it('a harness file the hand YAML reader gives up on (an anchor) loads yaml and reads the same', () => {
    const dir = path.join(tmp.dir, 'anchored');
    cpSync(path.join(REPO, LIB, 'v1'), dir, { recursive: true });
    const file = path.join(dir, 'harness.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^description: (.*)$/m, 'description: &d $1'));
    const r = packagesLoaded(['validate', dir, '-t', `${LIB}/logs-v1.jsonl`], 'anchored');
    expect(r.code, r.stderr).toBe(0);
    expect(r.packages.has('yaml')).toBe(true);
  });
});
