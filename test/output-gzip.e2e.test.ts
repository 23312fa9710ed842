import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRows, referenceMessages } from './helpers/env-server.js';
import { memorising } from './helpers/eval-models.js';
import { HSA_BIN, REPO, runHsa, runHsaAsync } from './helpers/hsa.js';
import { startTeacherServer } from './helpers/teacher-server.js';
import { removeTempDirs, tempDir } from './helpers/tmp.js';
import { treeHashes } from './helpers/tree.js';

// Compressed parts (docs/output.md): every hsa command that reads an output folder reads its
// `.jsonl.gz` parts — verify, diff, show, stats, export, env serve, reward, eval, merge, and a
// resumed augment — and gives what it gives on the same run written plain. The run is the
// support-desk fixture (customer support, not live commerce) with a kept source (eval needs it),
// parts of 8 records (several per stage) and every stage; plus a per-record-tools input (each
// record its own harness) for verify --sources.

afterAll(removeTempDirs);

const HARNESS = 'fixtures/support-desk/harness';
const TRAJ = 'fixtures/support-desk/trajectories.jsonl';
const args = (out: string, ...more: string[]) => [
  'augment',
  '--harness',
  HARNESS,
  '-t',
  TRAJ,
  '--out',
  out,
  '-k',
  '2',
  '--keep-source',
  '--part-size',
  '8',
  '--seed',
  '26',
  '--quiet',
  ...more,
];

let dir: string;
let gz: string;
let plain: string;

/** Every part file of a folder (relative paths), sorted. */
function parts(out: string): string[] {
  const found: string[] = [];
  for (const stage of ['sft', 'opd', 'rl', 'rejects']) {
    if (!existsSync(path.join(out, stage))) continue;
    for (const f of readdirSync(path.join(out, stage)).sort()) found.push(`${stage}/${f}`);
  }
  return found;
}

beforeAll(() => {
  dir = tempDir('hsa-gzip-');
  gz = path.join(dir, 'gz');
  plain = path.join(dir, 'plain');
  const a = runHsa(args(gz, '--gzip'));
  expect(a.code, a.stderr).toBe(0);
  const b = runHsa(args(plain, '--no-gzip'));
  expect(b.code, b.stderr).toBe(0);
}, 120_000);

describe('gzip parts as augment writes them', () => {
  it("hold the plain parts' bytes, part for part, and name them .jsonl.gz in the manifest", () => {
    const g = parts(gz);
    expect(g.length).toBeGreaterThan(8);
    expect(g.every((f) => f.endsWith('.jsonl.gz'))).toBe(true);
    expect(parts(plain)).toEqual(g.map((f) => f.slice(0, -3)));
    for (const f of g) expect(gunzipSync(readFileSync(path.join(gz, f))).equals(readFileSync(path.join(plain, f.slice(0, -3)))), f).toBe(true);
    const m = JSON.parse(readFileSync(path.join(gz, 'manifest.json'), 'utf8'));
    expect(m.out_format.gzip).toBe(true);
    const files = Object.values(m.stages as Record<string, { files: { file: string; bytes: number }[] }>).flatMap((s) => s.files);
    expect(files.map((f) => f.file).sort()).toEqual([...g].sort());
    for (const f of files) expect(f.bytes).toBe(statSync(path.join(gz, f.file)).size);
  });

  it('are what augment writes with no flag (the default), byte for byte', () => {
    const plainDefault = path.join(dir, 'default');
    const r = runHsa(args(plainDefault));
    expect(r.code, r.stderr).toBe(0);
    expect(treeHashes(plainDefault)).toEqual(treeHashes(gz));
  });

  it('are the same bytes on every run and platform: no name, mtime 0, fixed level, OS byte 3 (RFC 1952 header)', () => {
    const again = path.join(dir, 'gz-again');
    const r = runHsa(args(again, '--gzip'));
    expect(r.code, r.stderr).toBe(0);
    expect(treeHashes(again)).toEqual(treeHashes(gz));
    const head = readFileSync(path.join(gz, 'sft/part-00000.jsonl.gz')).subarray(0, 10);
    // HF datasets' json builder extracts its data files before reading them (huggingface/datasets
    // b7cb10b0e38ab8bbefdb142d0279bc85ac8c7ab8, src/datasets/packaged_modules/json/json.py:84-85)
    // and knows gzip by these two magic bytes (src/datasets/utils/extract.py:135-136, GzipExtractor).
    expect([...head.subarray(0, 3)]).toEqual([0x1f, 0x8b, 8]); // magic, deflate
    expect(head[3]).toBe(0); // FLG: no FNAME, FCOMMENT, FEXTRA
    expect(head.readUInt32LE(4)).toBe(0); // MTIME
    expect(head[9]).toBe(3); // OS: Unix, whatever system wrote it (zlib puts its build's code here)
  });

  it("state bytes written per input byte in the manifest summary, the stored (compressed) bytes over the input's", () => {
    const sum = (out: string) => parts(out).reduce((n, f) => n + statSync(path.join(out, f)).size, 0);
    const input = statSync(path.join(REPO, TRAJ)).size;
    for (const out of [gz, plain]) {
      const { summary } = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8'));
      expect(summary).toEqual({ input_bytes: input, output_bytes: sum(out), bytes_per_input_byte: Math.round((1000 * sum(out)) / input) / 1000 });
    }
    expect(sum(gz)).toBeLessThan(sum(plain) / 3);
  });

  it("DuckDB reads a gzip part as JSON lines (the reader trainers' data tools share with HF datasets)", async () => {
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    try {
      const file = path.join(gz, 'sft/part-00000.jsonl.gz');
      // Columns named with nested fields as JSON: DuckDB's auto-detection merges every row's objects
      // into one struct, and objects keyed by a variant's names (tool schemas' properties, meta's
      // rename tables) can hold `getCustomerProfile` in one row and `GetCustomerProfile` in another,
      // which its case-insensitive struct refuses (docs/output.md says so).
      const rows = (
        await c.runAndReadAll(
          `SELECT id, json_array_length(messages) AS n FROM read_json('${file}', format = 'newline_delimited', columns = {id: 'VARCHAR', messages: 'JSON', tools: 'JSON', meta: 'JSON'}) ORDER BY id`,
        )
      ).getRowObjects();
      const want = readFileSync(path.join(plain, 'sft/part-00000.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .map((r) => ({ id: r.id, n: BigInt(r.messages.length) }));
      expect(rows).toEqual(want.sort((x, y) => (x.id < y.id ? -1 : 1)));
    } finally {
      c.closeSync();
      db.closeSync();
    }
  });
});

describe('every hsa reader of an output folder reads gzip parts', () => {
  it('verify and verify --sources pass', () => {
    for (const more of [[], ['--sources', TRAJ, '--harness', HARNESS]]) {
      const r = runHsa(['verify', gz, ...more]);
      expect(r.code, `${more.join(' ')}\n${r.stdout}${r.stderr}`).toBe(0);
    }
  });

  it('verify --sources passes on per-record harnesses (inline tools) written gzip', () => {
    const traj = 'fixtures/ingest/inline/records.jsonl';
    const out = path.join(dir, 'inline-gz');
    const r = runHsa(['augment', '-t', traj, '--out', out, '-k', '2', '--gzip', '--quiet']);
    expect(r.code, r.stderr).toBe(0);
    expect(parts(out).every((f) => f.endsWith('.gz'))).toBe(true);
    const v = runHsa(['verify', out, '--sources', traj]);
    expect(v.code, v.stdout + v.stderr).toBe(0);
  });

  it('stats and show give what they give on the plain run', () => {
    const stats = (out: string) => runHsa(['stats', out, '--json']);
    const [a, b] = [stats(gz), stats(plain)];
    expect(a.code, a.stderr).toBe(0);
    const strip = (s: string) => JSON.stringify(JSON.parse(s), (k, v) => (k === 'out' || k === 'folder' || k === 'bytes' || k === 'file' ? undefined : v));
    expect(strip(a.stdout)).toBe(strip(b.stdout));
    const id = JSON.parse(readFileSync(path.join(plain, 'sft/part-00002.jsonl'), 'utf8').split('\n')[3]!).id as string;
    const show = (out: string) => runHsa(['show', out, '--id', id]);
    const [s, t] = [show(gz), show(plain)];
    expect(s.code, s.stderr).toBe(0);
    expect(s.stdout).toContain(id);
    expect(s.stdout.replaceAll('.jsonl.gz', '.jsonl').replaceAll(gz, plain)).toBe(t.stdout);
  });

  it('diff of the gzip and the plain run finds no record that differs', () => {
    const r = runHsa(['diff', plain, gz, '--json']);
    expect(r.code, r.stderr).toBe(1); // the manifests differ: the format, and the bytes stored
    const report = JSON.parse(r.stdout) as {
      manifest: { path: string }[];
      stages: { stage: string; changed: number; only_a: number; only_b: number; identical: number; records_a: number }[];
    };
    expect(report.manifest.map((d) => d.path).filter((p) => p !== 'config.gzip' && !/^stages\.\w+\.bytes$/.test(p) && !p.startsWith('summary.'))).toEqual([]);
    expect(report.stages.map((st) => st.stage)).toEqual(['sft', 'opd', 'rl', 'rejects']);
    for (const st of report.stages) expect([st.changed, st.only_a, st.only_b, st.identical], st.stage).toEqual([0, 0, 0, st.records_a]);
    expect(report.stages[0]!.identical).toBeGreaterThan(100);
  });

  it('export writes the same trainer files from either', () => {
    for (const format of ['verl-sft', 'verl-rl', 'llamafactory', 'swift']) {
      const [a, b] = [path.join(dir, `x-gz-${format}`), path.join(dir, `x-plain-${format}`)];
      const r = runHsa(['export', gz, '--to', format, '--out', a, '--quiet']);
      expect(r.code, r.stderr).toBe(0);
      expect(runHsa(['export', plain, '--to', format, '--out', b, '--quiet']).code).toBe(0);
      const ha = treeHashes(a);
      const hb = treeHashes(b);
      expect(Object.keys(ha).length).toBeGreaterThan(0);
      expect(Object.keys(ha)).toEqual(Object.keys(hb));
      // Every data file is the same; the export's manifest and rejects name the part files they read.
      for (const k of Object.keys(hb)) {
        if (k === 'export-manifest.json' || k === 'rejects.jsonl') {
          const text = (d: string) => readFileSync(path.join(d, k), 'utf8').replaceAll('.jsonl.gz', '.jsonl').replaceAll(gz, plain);
          if (k === 'rejects.jsonl') expect(text(a), k).toBe(text(b));
        } else expect(ha[k], `${format}: ${k}`).toBe(hb[k]);
      }
    }
  });

  it('env serve loads the gzip rows and reward scores rollouts against them', async () => {
    const served = await runHsaAsync([
      'env',
      'serve',
      '--rows',
      path.join(gz, 'rl', '*.jsonl.gz'),
      '--port',
      '0',
      '--idle-exit',
      '1',
      '--tokenizer',
      'estimate',
    ]);
    expect(served.code, served.stderr).toBe(0);
    const rows = readRows(path.join(plain, 'rl'));
    expect(served.stderr).toContain(`${rows.length} rows`);
    const rollouts = path.join(dir, 'rollouts.jsonl');
    writeFileSync(
      rollouts,
      `${rows
        .slice(0, 3)
        .map((row) => JSON.stringify({ id: row.extra_info.id, messages: referenceMessages(row)[0] }))
        .join('\n')}\n`,
    );
    const score = (glob: string) => runHsaAsync(['reward', '--rows', glob, '--rollouts', rollouts, '--tokenizer', 'estimate']);
    const [a, b] = await Promise.all([score(path.join(gz, 'rl', '*.jsonl.gz')), score(path.join(plain, 'rl', '*.jsonl'))]);
    expect(a.code, a.stderr).toBe(0);
    expect(a.stdout.split('\n').filter(Boolean)).toHaveLength(3);
    expect(a.stdout).toBe(b.stdout);
  });

  it('eval runs the gzip set and reports what it reports on the plain one', async () => {
    const plainParts = readdirSync(path.join(plain, 'rl')).map((f) => path.join(plain, 'rl', f));
    const server = await startTeacherServer(memorising(plainParts));
    try {
      const run = (set: string) =>
        runHsaAsync([
          'eval',
          '--set',
          set,
          '--model-url',
          server.url,
          '--model',
          'mem',
          '--cache',
          path.join(dir, 'eval-cache'),
          '--tokenizer',
          'estimate',
          '--bootstrap',
          '50',
          '--max-retries',
          '0',
          '--json',
        ]);
      const a = await run(gz);
      expect(a.code, a.stderr).toBe(0);
      const b = await run(plain);
      const report = JSON.parse(a.stdout);
      expect(report.source.reward.mean).toBeGreaterThan(0.5);
      expect(a.stdout.replaceAll(gz, plain).replaceAll('.jsonl.gz', '.jsonl')).toBe(b.stdout);
    } finally {
      await server.close();
    }
  });

  it('a resumed run redoes only the part without its files, and gives the same bytes', () => {
    const out = path.join(dir, 'resume');
    expect(runHsa(args(out, '--gzip')).code).toBe(0);
    const want = treeHashes(out);
    // As after a crash while part 3 was written: its marker and files gone, a temporary file left.
    rmSync(path.join(out, '.hsa', 'parts', 'part-00003.json'), { force: true });
    for (const f of parts(out).filter((f) => f.includes('part-00003'))) rmSync(path.join(out, f));
    writeFileSync(path.join(out, 'sft', 'part-00003.jsonl.gz.tmp'), 'half');
    rmSync(path.join(out, 'manifest.json'));
    const r = spawnSync(process.execPath, [HSA_BIN, ...args(out, '--gzip').filter((a) => a !== '--quiet')], { cwd: REPO, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/resumed: .*\n[\s\S]*\(4 parts resumed\)/);
    expect(treeHashes(out)).toEqual(want);
  });

  it("a sharded gzip run merges into the whole run's folder, byte for byte", () => {
    const out = path.join(dir, 'sharded');
    const env = (i: number) => ({ ...process.env, HSA_SHARD_INDEX: String(i), HSA_NUM_SHARDS: '2', NO_COLOR: '1' });
    for (const i of [1, 0]) {
      const r = spawnSync(process.execPath, [HSA_BIN, ...args(out, '--gzip')], { cwd: REPO, encoding: 'utf8', env: env(i) });
      expect(r.status, r.stderr).toBe(0);
    }
    const m = runHsa(['merge', out, '-q']);
    expect(m.code, m.stderr).toBe(0);
    expect(treeHashes(out)).toEqual(treeHashes(gz));
  });
});
