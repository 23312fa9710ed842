import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, runHsaAsync } from '../helpers/hsa.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { treeHashes } from '../helpers/tree.js';

afterAll(removeTempDirs);

const HARNESS = path.join(REPO, 'fixtures/live-commerce/harness');

/**
 * 45 records with a reused id far from its first use (another batch and part), a malformed line and
 * a bad record; a BOM, white-space-only lines (Unicode ones too, which are not records) and a CRLF
 * line, since threads are sent the lines' bytes and decode them themselves.
 */
function input(): string {
  const lines = readFileSync(path.join(REPO, 'fixtures/live-commerce/trajectories.jsonl'), 'utf8').split('\n').filter(Boolean).slice(0, 40);
  const crlf = { ...(JSON.parse(lines[5]!) as object), id: 'crlf-1' };
  lines.splice(36, 0, lines[3]!);
  lines.splice(30, 0, lines[30]!); // a duplicate right after its first use (the same batch)
  lines.splice(20, 0, '{"id": "cut-off", "messages": [{"role": "user"');
  lines.splice(10, 0, '{"id": 7, "messages": []}');
  lines[0] = `\uFEFF${lines[0]!}`;
  lines.push('\u3000', ' \t', `${JSON.stringify(crlf)}\r`, '\u00A0');
  const file = path.join(tempDir('hsa-workers-'), 'in.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

describe('augment --workers', () => {
  it('writes the same bytes with 1, 2 and 4 worker threads, rejects and duplicates included', async () => {
    const traj = input();
    const args = (out: string, n: number, extra: string[] = []) => [
      'augment',
      '--no-gzip',
      '--harness',
      HARNESS,
      '-t',
      traj,
      '-o',
      out,
      '--seed',
      'w',
      '-k',
      '1',
      '--part-size',
      '16',
      '--on-error',
      'skip',
      '--general',
      path.join(REPO, 'fixtures/general/prompts.jsonl'),
      '-q',
      '--workers',
      String(n),
      ...extra,
    ];
    const outs = [1, 2, 4].map(() => path.join(tempDir('hsa-workers-'), 'out'));
    const runs = await Promise.all([1, 2, 4].map((n, i) => runHsaAsync(args(outs[i]!, n))));
    expect(
      runs.map((r) => r.code),
      runs.map((r) => r.stderr).join('\n'),
    ).toEqual([0, 0, 0]);
    const one = treeHashes(outs[0]!);
    expect(Object.keys(one)).toContain('sft/part-00002.jsonl');
    const manifest = JSON.parse(readFileSync(path.join(outs[0]!, 'manifest.json'), 'utf8')) as { reject_reasons: Record<string, number> };
    expect(manifest.reject_reasons).toMatchObject({ input_duplicate_id: 2, input_malformed: 2 });
    expect(treeHashes(outs[1]!)).toEqual(one);
    expect(treeHashes(outs[2]!)).toEqual(one);

    // A shard on threads: ids of the other shards' parts still count, in input order.
    const shard = path.join(tempDir('hsa-workers-'), 'out');
    for (const i of [1, 0]) expect((await runHsaAsync(args(shard, 2, ['--num-shards', '2', '--shard-index', String(i)]))).code).toBe(0);
    expect((await runHsaAsync(['merge', shard, '-q'])).code).toBe(0);
    expect(treeHashes(shard)).toEqual(one);
  }, 60_000);

  it('with a token budget: threads and shards give the bytes of one thread (token stats and too-long rejects included)', async () => {
    const traj = input();
    const args = (out: string, extra: string[]) => [
      'augment',
      '--no-gzip',
      '--harness',
      HARNESS,
      '-t',
      traj,
      '-o',
      out,
      '--seed',
      't',
      '-k',
      '1',
      '--part-size',
      '16',
      '--on-error',
      'skip',
      '--max-tokens',
      '3000',
      '-q',
      ...extra,
    ];
    const one = path.join(tempDir('hsa-workers-'), 'out');
    const two = path.join(tempDir('hsa-workers-'), 'out');
    const runs = await Promise.all([runHsaAsync(args(one, ['--workers', '1'])), runHsaAsync(args(two, ['--workers', '2']))]);
    expect(
      runs.map((r) => r.code),
      runs.map((r) => r.stderr).join('\n'),
    ).toEqual([0, 0]);
    const manifest = JSON.parse(readFileSync(path.join(one, 'manifest.json'), 'utf8')) as {
      tokens: { stages: { sft: { records: number; too_long: number } } };
      reject_reasons: Record<string, number>;
    };
    expect(manifest.tokens.stages.sft.records).toBeGreaterThan(0);
    expect(manifest.tokens.stages.sft.too_long).toBeGreaterThan(0);
    expect(manifest.reject_reasons.too_long_sft).toBe(manifest.tokens.stages.sft.too_long);
    const expected = treeHashes(one);
    expect(treeHashes(two)).toEqual(expected);
    const shard = path.join(tempDir('hsa-workers-'), 'out');
    for (const i of [1, 0]) expect((await runHsaAsync(args(shard, ['--num-shards', '2', '--shard-index', String(i)]))).code).toBe(0);
    expect((await runHsaAsync(['merge', shard, '-q'])).code).toBe(0);
    expect(treeHashes(shard)).toEqual(expected);
  }, 90_000);

  it('fails on a bad record under --on-error fail exactly as one thread does, leaving the same folder', async () => {
    const traj = input();
    // One part (the default size: the run stays on one thread), then parts of 4 records on threads.
    for (const extra of [[], ['--part-size', '4']]) {
      const outs = [1, 2].map(() => path.join(tempDir('hsa-workers-'), 'out'));
      const runs = await Promise.all(
        [1, 2].map((n, i) => runHsaAsync(['augment', '--no-gzip', '--harness', HARNESS, '-t', traj, '-o', outs[i]!, '-q', '--workers', String(n), ...extra])),
      );
      expect(runs[0]!.code).toBe(1);
      expect(runs[1]!.code).toBe(1);
      expect(runs[1]!.stderr).toBe(runs[0]!.stderr);
      expect(runs[0]!.stderr).toMatch(/in\.jsonl:11: id:/);
      expect(treeHashes(outs[1]!)).toEqual(treeHashes(outs[0]!));
    }
  }, 30_000);
});
