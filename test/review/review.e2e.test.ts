import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runHsa, STACK_LINE } from '../helpers/hsa.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { smallRun, snapshotTree, type SmallRun } from './setup.js';
import type { StageDiff } from '../../src/review/diff.js';

const ESC = '\x1b';

describe('review commands on real output folders', () => {
  let base: SmallRun;
  beforeAll(async () => {
    base = await smallRun({ records: 16 });
  });
  afterAll(removeTempDirs);

  const copyOut = () => {
    const dir = tempDir('hsa-review-copy-');
    cpSync(base.out, dir, { recursive: true });
    return dir;
  };

  it('verify: a fresh run is sound (exit 0), with and without the harness and sources', () => {
    const r = runHsa(['verify', base.out]);
    expect(r.stderr).toContain('sound');
    expect(r.code).toBe(0);
    const full = runHsa(['verify', base.out, '--harness', base.harness, '--sources', base.traj, '--json']);
    expect(full.code).toBe(0);
    const doc = JSON.parse(full.stdout);
    expect(doc.ok).toBe(true);
    expect(doc.checked).toMatchObject({ leaks: 'engine', state_hash: true, round_trip: true });
  });

  it('verify names a part with a flipped byte, a truncated part, a missing part and an unlisted file', () => {
    const out = copyOut();
    // A flipped byte inside a string keeps the line valid JSON: only the hash can tell.
    const rl = path.join(out, 'rl', 'part-00001.jsonl');
    const bytes = readFileSync(rl);
    const at = bytes.indexOf('"ability":"agent"') + 12;
    bytes[at] = bytes[at]! ^ 0x01;
    writeFileSync(rl, bytes);
    const opd = path.join(out, 'opd', 'part-00000.jsonl');
    const o = readFileSync(opd);
    writeFileSync(opd, o.subarray(0, o.length - 200));
    rmSync(path.join(out, 'sft', 'part-00001.jsonl'));
    writeFileSync(path.join(out, 'sft', 'part-00009.jsonl'), '');
    const r = runHsa(['verify', out, '-q']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`${escape(rl)}: \\(file\\): sha256 .* does not match`));
    expect(r.stdout).toMatch(new RegExp(`${escape(opd)}:\\d+: \\(file\\): truncated`));
    expect(r.stdout).toContain(`${path.join(out, 'sft', 'part-00001.jsonl')}: (file): missing`);
    expect(r.stdout).toContain(`${path.join(out, 'sft', 'part-00009.jsonl')}: (file): not listed in manifest.json`);
    // Only the damaged parts are named.
    expect(r.stdout).not.toContain('sft/part-00000.jsonl');
    expect(r.stderr).toBe('');
  });

  it('verify checks the records themselves: an old name put back into a call is a leak and an invalid call', () => {
    const out = copyOut();
    const file = path.join(out, 'sft', 'part-00000.jsonl');
    const lines = readFileSync(file, 'utf8').split('\n');
    let hit = -1;
    for (let i = 0; i < lines.length && hit < 0; i++) {
      if (!lines[i]) continue;
      const rec = JSON.parse(lines[i]!);
      const renamed = rec.meta.transforms.find((t: { id: string }) => t.id === 'tools.rename')?.params.renamed as Record<string, string> | undefined;
      for (const m of rec.messages) {
        for (const c of m.tool_calls ?? []) {
          const old = Object.entries(renamed ?? {}).find(([, n]) => n === c.function.name)?.[0];
          if (old && hit < 0) {
            c.function.name = old;
            hit = i;
          }
        }
      }
      if (hit === i) lines[i] = JSON.stringify(rec);
    }
    expect(hit).toBeGreaterThanOrEqual(0);
    writeFileSync(file, lines.join('\n'));
    const r = runHsa(['verify', out, '-q']);
    expect(r.code).toBe(1);
    const id = JSON.parse(lines[hit]!).id as string;
    expect(r.stdout).toContain(`${file}:${hit + 1}: ${id}: messages.`);
    expect(r.stdout).toMatch(/old tool name "[^"]+"/);
    expect(r.stdout).toMatch(/is not in the record's tools/);
  });

  it('diff: two runs with the same seed are identical (exit 0); different seeds differ and the counts add up', async () => {
    const same = path.join(base.dir, 'same');
    await base.make(same);
    const r = runHsa(['diff', base.out, same]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('manifest: no differences');
    expect(r.stdout.trim().endsWith('identical')).toBe(true);

    const other = path.join(base.dir, 'seed2');
    await base.make(other, ['--seed', '2']);
    const d = runHsa(['diff', base.out, other, '--json']);
    expect(d.code).toBe(1);
    const doc = JSON.parse(d.stdout);
    expect(doc.identical).toBe(false);
    expect(doc.manifest.map((c: { path: string }) => c.path)).toContain('seed');
    const ma = JSON.parse(readFileSync(path.join(base.out, 'manifest.json'), 'utf8'));
    const mb = JSON.parse(readFileSync(path.join(other, 'manifest.json'), 'utf8'));
    for (const s of doc.stages as StageDiff[]) {
      expect(s.records_a).toBe(ma.stages[s.stage].records);
      expect(s.records_b).toBe(mb.stages[s.stage].records);
      expect(s.identical + s.changed + s.only_a).toBe(s.records_a);
      expect(s.identical + s.changed + s.only_b).toBe(s.records_b);
    }
    expect((doc.stages as StageDiff[]).find((s) => s.stage === 'sft')!.changed).toBeGreaterThan(0);
  });

  it("diff after editing one input record: exactly that source's records change", async () => {
    const run = await smallRun({ records: 10 });
    const lines = readFileSync(run.traj, 'utf8').split('\n');
    const rec = JSON.parse(lines[5]!);
    const user = rec.messages.find((m: { role: string }) => m.role === 'user');
    user.content = `${user.content} (edited)`;
    lines[5] = JSON.stringify(rec);
    writeFileSync(run.traj, lines.join('\n'));
    const edited = path.join(run.dir, 'edited');
    await run.make(edited);
    const d = runHsa(['diff', run.out, edited, '--json', '--limit', '1000']);
    expect(d.code).toBe(1);
    const doc = JSON.parse(d.stdout);
    expect(doc.manifest.some((c: { path: string }) => c.path.startsWith('inputs.trajectories['))).toBe(true);
    const mine = (id: string) => id.startsWith(`${rec.id}~`) || id.includes(`@${rec.id}~`);
    for (const s of doc.stages as StageDiff[]) {
      for (const c of s.changed_records) expect(mine(c.id)).toBe(true);
      for (const id of [...s.only_a_ids, ...s.only_b_ids]) expect(mine(id)).toBe(true);
    }
    const sft = (doc.stages as StageDiff[]).find((s) => s.stage === 'sft')!;
    // The kept source and its 4 variants, and nothing else.
    expect(sft.changed).toBe(5);
    expect(sft.identical).toBe(sft.records_a - 5);
    expect(sft.changed_records.every((c) => c.changes.some((x) => x.path.startsWith('messages.')))).toBe(true);
  });

  it('diff --ignore leaves volatile fields out; --html writes one page; single part files compare', () => {
    const dir = tempDir('hsa-review-parts-');
    const a = path.join(base.out, 'sft', 'part-00000.jsonl');
    const b = path.join(dir, 'sft', 'part-00000.jsonl');
    mkdirSync(path.dirname(b), { recursive: true });
    const lines = readFileSync(a, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    writeFileSync(
      b,
      `${lines.map((l) => JSON.stringify({ ...JSON.parse(l), meta: { ...JSON.parse(l).meta, source_file: 'elsewhere/traj.jsonl' } })).join('\n')}\n`,
    );
    const r = runHsa(['diff', a, b, '--limit', '1']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('meta.source_file: ');
    expect(r.stdout).toMatch(/… and \d+ more changed records/);
    const html = path.join(dir, 'diff.html');
    const ok = runHsa(['diff', a, b, '--ignore', 'meta.source_file', '--html', html]);
    expect(ok.code).toBe(0);
    expect(readFileSync(html, 'utf8')).toContain('<h1>hsa diff: identical</h1>');
  });

  it('show: a variant with its rename tables beside its source; piped output has no escape codes', () => {
    const sft = readFileSync(path.join(base.out, 'sft', 'part-00000.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l));
    const v = sft.find((r) => r.meta.transforms.some((t: { id: string }) => t.id === 'tools.rename' || t.id === 'skills.rename'))!;
    const html = path.join(base.dir, 'show.html');
    const r = runHsa(['show', base.out, '--id', v.id, '--harness', base.harness, '--sources', base.traj, '--html', html]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain(ESC);
    expect(r.stdout).toContain(`record ${v.id}`);
    const t = v.meta.transforms.find((x: { id: string }) => x.id === 'tools.rename' || x.id === 'skills.rename');
    const [old, neu] = Object.entries(t.params.renamed as Record<string, string>)[0]!;
    expect(r.stdout).toMatch(new RegExp(`${escape(old)}\\s+→ ${escape(neu)}`));
    expect(r.stdout).toContain('system prompt, by section');
    expect(r.stdout).toContain('conversation (source │ variant)');
    expect(r.stdout).toMatch(/✓ round trip to the source/);
    // Without --sources the run's kept source is shown beside it.
    const kept = runHsa(['show', base.out, '--id', v.id]);
    expect(kept.stdout).toContain('source shown: kept source');
    // OPD ids and RL indexes are accepted too.
    const opd = readFileSync(path.join(base.out, 'opd', 'part-00000.jsonl'), 'utf8').split('\n')[1]!;
    expect(runHsa(['show', base.out, '--id', JSON.parse(opd).id]).code).toBe(0);
    const rl = JSON.parse(readFileSync(path.join(base.out, 'rl', 'part-00000.jsonl'), 'utf8').split('\n')[1]!);
    const byIndex = runHsa(['show', base.out, '--id', String(rl.extra_info.index)]);
    expect(byIndex.code).toBe(0);
    expect(byIndex.stdout).toContain(`record ${rl.extra_info.id}`);
    expect(readFileSync(html, 'utf8')).toContain('<del>');
  });

  it('augment --check: exit 0 on an unchanged dataset, 1 after a seed change; OUT never modified', () => {
    const before = snapshotTree(base.out);
    // --force is passed too (by the helper): --check must still leave OUT alone.
    const same = base.augment(path.join(base.dir, 'unused'), ['--check', base.out]);
    expect(same.code).toBe(0);
    expect(same.stdout).toContain('up to date');
    const drift = base.augment(base.out, ['--check', '--seed', '99']);
    expect(drift.code).toBe(1);
    expect(drift.stdout).toContain('seed: "');
    expect(drift.stdout).toContain('drifted');
    expect(snapshotTree(base.out)).toEqual(before);
    expect(existsSync(path.join(base.dir, 'unused'))).toBe(false);
  });

  it('gzip parts: verify reads them, and names a truncated one', async () => {
    const run = await smallRun({ records: 8, extra: ['--gzip', '--stages', 'sft,rl'] });
    expect(runHsa(['verify', run.out]).code).toBe(0);
    const part = path.join(
      run.out,
      'sft',
      readdirSync(path.join(run.out, 'sft')).find((f) => f.endsWith('.gz'))!,
    );
    const gz = readFileSync(part);
    expect(gunzipSync(gz).length).toBeGreaterThan(0);
    writeFileSync(part, gz.subarray(0, Math.floor(gz.length / 2)));
    const r = runHsa(['verify', run.out, '-q']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`${part}: (file): truncated or corrupt`);
  });

  it('bad inputs: no manifest, an unknown id, a part that is not JSONL, different stages — clear errors, nothing written', async () => {
    const empty = tempDir('hsa-review-empty-');
    writeFileSync(path.join(empty, 'notes.txt'), 'hello');
    const snap = snapshotTree(empty);
    for (const args of [
      ['verify', empty],
      ['stats', empty],
      ['show', empty, '--id', 'x~v0'],
      ['diff', empty, base.out],
    ]) {
      const r = runHsa(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(`${path.join(empty, 'manifest.json')}: no manifest`);
      expect(r.stderr).not.toContain(STACK_LINE);
    }
    expect(snapshotTree(empty)).toEqual(snap);

    const baseSnap = snapshotTree(base.out);
    const missing = runHsa(['show', base.out, '--id', 'lc-999999~v0']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no record with id "lc-999999~v0"');

    const junk = path.join(empty, 'junk.jsonl');
    writeFileSync(junk, 'this is not json\n');
    const nj = runHsa(['diff', junk, path.join(base.out, 'sft', 'part-00000.jsonl')]);
    expect(nj.code).toBe(2);
    expect(nj.stderr).toContain(`${junk}:1: not JSONL`);

    const sftOnly = (await smallRun({ records: 3, extra: ['--stages', 'sft'] })).out;
    const rlOnly = (await smallRun({ records: 3, extra: ['--stages', 'rl'] })).out;
    const stages = runHsa(['diff', sftOnly, rlOnly]);
    expect(stages.code).toBe(2);
    expect(stages.stderr).toContain('share no stage');
    const files = runHsa(['diff', path.join(sftOnly, 'sft', 'part-00000.jsonl'), path.join(rlOnly, 'rl', 'part-00000.jsonl')]);
    expect(files.code).toBe(2);
    expect(files.stderr).toContain('two different stages cannot be compared');
    expect(snapshotTree(base.out)).toEqual(baseSnap);
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
