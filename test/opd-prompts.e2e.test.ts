import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runChecker } from './helpers/checker.js';
import { REPO, runHsa } from './helpers/hsa.js';
import { removeTempDirs, tempDir } from './helpers/tmp.js';
import { treeHashes } from './helpers/tree.js';

// OPD prompt selection through the real binary (docs/output.md, "OPD prompts"), on three harness
// folders of other domains (an airline desk, a clinic front desk, live commerce) and general prompts
// mixed in: the default keeps one prompt per output record, `all` writes every prefix as before,
// and nothing else changes.

afterAll(removeTempDirs);

const SETS = ['airline', 'clinic', 'live-commerce'];

function lines(out: string, stage: string): string[] {
  return readdirSync(path.join(out, stage))
    .sort()
    .flatMap((f) =>
      readFileSync(path.join(out, stage, f), 'utf8')
        .split('\n')
        .filter(Boolean),
    );
}

function augment(set: string, out: string, ...more: string[]) {
  const r = runHsa([
    'augment',
    '--harness',
    `fixtures/${set}/harness`,
    '-t',
    `fixtures/${set}/trajectories.jsonl`,
    '--general',
    'fixtures/general/prompts.jsonl',
    '--out',
    out,
    '-k',
    '4',
    '--part-size',
    '10',
    '--no-gzip',
    '--quiet',
    ...more,
  ]);
  expect(r.code, r.stderr).toBe(0);
  return out;
}

describe.each(SETS)('OPD prompts on %s', (set) => {
  const dir = tempDir(`hsa-opd-${set}-`);
  const one = augment(set, path.join(dir, 'default'));
  const all = augment(set, path.join(dir, 'all'), '--opd-prompts', 'all');

  it('the default writes one domain prompt per output record; every one is a line of the every-prefix run', () => {
    const domain = (out: string) => lines(out, 'opd').filter((l) => !JSON.parse(l).meta.source);
    const picked = domain(one);
    const every = new Set(domain(all));
    const sftIds = lines(one, 'sft').map((l) => JSON.parse(l).id as string);
    // Every SFT record with an assistant turn after the first message has exactly one OPD prompt.
    expect(picked.map((l) => (JSON.parse(l).id as string).replace(/#\d+$/, ''))).toEqual(
      sftIds.filter((id) => picked.some((l) => l.startsWith(`{"id":"${id}#`))),
    );
    expect(picked.length).toBeGreaterThan(0.9 * sftIds.length);
    for (const l of picked) expect(every.has(l), l.slice(0, 80)).toBe(true);
    expect(every.size).toBeGreaterThan(picked.length);
  });

  it('the variants of a source take different turns where it has enough of them', () => {
    // A variant's turns as positions among its assistant turns (a transform may add a message, so
    // the same turn can stand at another index in another variant).
    const turnsOf = new Map<string, number[]>();
    for (const l of lines(all, 'opd')) {
      const r = JSON.parse(l);
      if (r.meta.source) continue;
      const key = `${r.meta.source_id}~${r.meta.variant}`;
      turnsOf.set(key, [...(turnsOf.get(key) ?? []), r.meta.turn]);
    }
    const positions = new Map<string, Set<number>>();
    const counts = new Map<string, Set<number>>();
    for (const l of lines(one, 'opd')) {
      const r = JSON.parse(l);
      if (r.meta.source) continue;
      const turns = turnsOf.get(`${r.meta.source_id}~${r.meta.variant}`)!;
      expect(turns).toContain(r.meta.turn);
      if (!positions.has(r.meta.source_id)) positions.set(r.meta.source_id, new Set());
      if (!counts.has(r.meta.source_id)) counts.set(r.meta.source_id, new Set());
      positions.get(r.meta.source_id)!.add(turns.indexOf(r.meta.turn));
      counts.get(r.meta.source_id)!.add(turns.length);
    }
    let checked = 0;
    for (const [source, taken] of positions) {
      const n = [...counts.get(source)!];
      if (n.length !== 1 || n[0]! < 2) continue; // variants with different numbers of turns
      expect(taken.size, source).toBe(Math.min(4, n[0]!));
      checked++;
    }
    expect(checked).toBeGreaterThan(3);
  });

  it('SFT, RL and rejects are byte-identical to the every-prefix run; general prompts follow the kept prompts', () => {
    for (const stage of ['sft', 'rl', 'rejects']) expect(lines(one, stage), stage).toEqual(lines(all, stage));
    const general = lines(one, 'opd').filter((l) => JSON.parse(l).meta.source === 'general');
    const kept = new Set(lines(one, 'opd').map((l) => JSON.parse(l).id as string));
    for (const g of general) expect(kept.has(JSON.parse(g).meta.mixed_with)).toBe(true);
  });

  it('does not depend on worker threads, and verify and the independent checker pass', () => {
    const two = augment(set, path.join(dir, 'workers'), '--workers', '2');
    expect(treeHashes(two)).toEqual(treeHashes(one));
    const v = runHsa(['verify', one, '--sources', `fixtures/${set}/trajectories.jsonl`, '--harness', `fixtures/${set}/harness`]);
    expect(v.code, v.stdout + v.stderr).toBe(0);
    const audit = runChecker(one, [`fixtures/${set}/trajectories.jsonl`], `fixtures/${set}/harness`);
    expect(audit.failures).toEqual({});
    expect(audit.code).toBe(0);
  });
});

describe('bounded output on a 128-tool multi-turn set (the bench figure, on 12 conversations)', () => {
  it('the defaults write at most 15% of the bytes of every prefix written plain, and the manifest states bytes per input byte', async () => {
    // The generator of scripts/bench/output-size.mjs (a repository script; the files go to a temporary folder).
    const { writeOutputSizeInput } = (await import(pathToFileURL(path.join(REPO, 'scripts/bench/output-size.mjs')).href)) as unknown as {
      writeOutputSizeInput: (dir: string, seed?: string, n?: number) => { harness: string; trajectories: string; bytes: number };
    };
    const dir = tempDir('hsa-output-size-');
    const input = writeOutputSizeInput(path.join(dir, 'in'), 'hsa-output-size-v1', 12);
    const run = (out: string, ...more: string[]) => {
      const r = runHsa(['augment', '--harness', input.harness, '-t', input.trajectories, '--out', out, '-k', '8', '--quiet', ...more]);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8')) as {
        summary: { input_bytes: number; output_bytes: number; bytes_per_input_byte: number };
        stages: Record<string, { records: number }>;
      };
    };
    const before = run(path.join(dir, 'old'), '--opd-prompts', 'all', '--no-gzip');
    const now = run(path.join(dir, 'defaults'));
    expect(before.summary.input_bytes).toBe(input.bytes);
    expect(now.summary.output_bytes / before.summary.output_bytes).toBeLessThanOrEqual(0.15);
    expect(before.summary.bytes_per_input_byte).toBeGreaterThan(1000); // each prefix repeats the 128 tools
    expect(now.stages.opd!.records).toBe(12 * 8);
    expect(now.stages.sft!.records).toBe(before.stages.sft!.records);
  }, 180_000);
});
