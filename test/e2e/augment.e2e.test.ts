import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { HSA_BIN, REPO, runHsa, runHsaAsync, STACK_LINE } from '../helpers/hsa.js';
import { readJsonl, treeHashes } from '../helpers/tree.js';

afterAll(removeTempDirs);

const HARNESS = 'fixtures/live-commerce/harness';
const TRAJ = 'fixtures/live-commerce/trajectories.jsonl';
const tmp = () => tempDir('hsa-augment-');

/** The first `n` lines of the fixture, as a new input file. */
function subset(n: number, dir = tmp()): string {
  const lines = readFileSync(path.join(REPO, TRAJ), 'utf8').split('\n').filter(Boolean).slice(0, n);
  const file = path.join(dir, 'in.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

const small = (input: string, out: string, extra: string[] = []) => [
  'augment',
  '--no-gzip',
  '--harness',
  HARNESS,
  '-t',
  input,
  '-o',
  out,
  '--seed',
  '7',
  '--variants',
  '2',
  '--part-size',
  '8',
  '-q',
  ...extra,
];

describe('hsa augment', () => {
  it('gives byte-identical folders for the same seed, whatever the concurrency', async () => {
    const input = subset(30);
    const a = tmp();
    const b = tmp();
    const c = tmp();
    const [ra, rb, rc] = await Promise.all([
      runHsaAsync(small(input, a, ['--concurrency', '1'])),
      runHsaAsync(small(input, b, ['--concurrency', '8'])),
      runHsaAsync(small(input, c, ['--concurrency', '1', '--seed', '8'])),
    ]);
    expect([ra.code, rb.code, rc.code]).toEqual([0, 0, 0]);
    const ha = treeHashes(a);
    expect(Object.keys(ha)).toContain('manifest.json');
    expect(Object.keys(ha)).toContain('sft/part-00003.jsonl');
    expect(treeHashes(b)).toEqual(ha);
    // A different seed changes the records.
    expect(treeHashes(c)['sft/part-00000.jsonl']).not.toEqual(ha['sft/part-00000.jsonl']);
  });

  it('writes stage records that trainers read, with provenance and balanced counts', () => {
    const input = subset(12);
    const out = tmp();
    const r = runHsa([...small(input, out), '--keep-source', '--general', 'fixtures/general/prompts.jsonl']);
    expect(r.code).toBe(0);
    const manifest = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8'));
    expect(manifest.totals).toMatchObject({ input_records: 12, valid_records: 12, variants_expected: 24, kept_sources: 12 });
    expect(manifest.totals.variants_written + manifest.totals.variants_rejected).toBe(24);
    expect(manifest.balance.holds).toBe(true);
    for (const stage of ['sft', 'opd', 'rl', 'rejects']) {
      for (const f of manifest.stages[stage].files) expect(existsSync(path.join(out, f.file))).toBe(true);
    }
    const sft = readJsonl(path.join(out, 'sft/part-00000.jsonl'));
    expect(sft[0]!.id).toBe('lc-000001~src');
    expect(sft[1]!.id).toBe('lc-000001~v0');
    const rec = sft[1] as {
      messages: { role: string; content: unknown; tool_calls?: { function: { arguments: unknown } }[] }[];
      tools: unknown[];
      meta: Record<string, unknown>;
    };
    expect(rec.meta).toMatchObject({ source_id: 'lc-000001', source_file: input, source_line: 1, variant: 0, seed: '7' });
    expect(Array.isArray(rec.tools)).toBe(true);
    for (const m of rec.messages) {
      expect(typeof m.content).toBe('string');
      for (const c of m.tool_calls ?? []) expect(typeof c.function.arguments).toBe('object');
    }
    const opd = readJsonl(path.join(out, 'opd/part-00000.jsonl')) as { id: string; messages: { role: string }[] }[];
    const domain = opd.filter((o) => !o.id.startsWith('gen-'));
    expect(domain.length).toBeGreaterThan(0);
    for (const o of domain) expect(o.messages[o.messages.length - 1]!.role).not.toBe('assistant');
    expect(opd.some((o) => o.id.startsWith('gen-'))).toBe(true);
    const rl = readJsonl(path.join(out, 'rl/part-00000.jsonl')) as {
      prompt: { role: string }[];
      reward_model: { style: string; ground_truth: string };
      extra_info: { env: string; source_id: string };
    }[];
    expect(rl[0]!.reward_model.style).toBe('rule');
    const gt = JSON.parse(rl[1]!.reward_model.ground_truth);
    expect(gt).toHaveProperty('expected_calls');
    expect(gt).toHaveProperty('reference_reply');
    const env = JSON.parse(rl[1]!.extra_info.env);
    expect(env.user_turns.length).toBeGreaterThan(0);
    expect(Array.isArray(env.tool_replay)).toBe(true);
    expect(rl[1]!.prompt.at(-1)!.role).toBe('user');
  });

  it('--on-error skip sends exactly the malformed line to rejects; fail exits non-zero without a manifest', () => {
    const dir = tmp();
    const lines = readFileSync(path.join(REPO, TRAJ), 'utf8').split('\n').filter(Boolean).slice(0, 10);
    lines.splice(4, 0, '{"id": "broken", "messages": [');
    const input = path.join(dir, 'in.jsonl');
    writeFileSync(input, `${lines.join('\n')}\n`);

    const out = path.join(dir, 'skip');
    const r = runHsa([...small(input, out), '--on-error', 'skip']);
    expect(r.code).toBe(0);
    const rejects = readJsonl(path.join(out, 'rejects/part-00000.jsonl'));
    expect(rejects).toHaveLength(1);
    expect(rejects[0]).toMatchObject({ kind: 'input', source_file: input, source_line: 5, line: '{"id": "broken", "messages": [' });
    expect(String(rejects[0]!.reason)).toContain(`${input}:5`);
    const manifest = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8'));
    expect(manifest.totals).toMatchObject({ input_records: 11, valid_records: 10, rejected_records: 1 });
    expect(manifest.totals.variants_written + manifest.totals.variants_rejected).toBe(20);

    const failOut = path.join(dir, 'fail');
    const f = runHsa([...small(input, failOut), '--on-error', 'fail']);
    expect(f.code).toBe(1);
    expect(f.stderr).toContain(`${input}:5`);
    expect(f.stderr).not.toContain(STACK_LINE);
    expect(existsSync(path.join(failOut, 'manifest.json'))).toBe(false);
  });

  it('a duplicate id is rejected naming where it was first seen, across files and in a resumed run', () => {
    const dir = tmp();
    const lines = readFileSync(path.join(REPO, TRAJ), 'utf8').split('\n').filter(Boolean).slice(0, 12);
    const a = path.join(dir, 'a.jsonl');
    const b = path.join(dir, 'b.jsonl');
    writeFileSync(a, `${lines.slice(0, 6).join('\n')}\n`);
    // b.jsonl line 3 repeats a.jsonl line 2 (a later part: --part-size 8 ends the first part at b line 2).
    writeFileSync(b, `${[...lines.slice(6, 8), lines[1]!, ...lines.slice(8)].join('\n')}\n`);
    const id = (JSON.parse(lines[1]!) as { id: string }).id;
    const args = (out: string) => [
      'augment',
      '--no-gzip',
      '--harness',
      HARNESS,
      '-t',
      a,
      b,
      '-o',
      out,
      '--seed',
      '7',
      '--variants',
      '1',
      '--part-size',
      '8',
      '--on-error',
      'skip',
      '-q',
    ];
    const out = path.join(dir, 'out');
    expect(runHsa(args(out)).code).toBe(0);
    const rejects = readJsonl(path.join(out, 'rejects/part-00001.jsonl'));
    expect(rejects).toHaveLength(1);
    expect(rejects[0]).toMatchObject({ kind: 'input', id, source_file: b, source_line: 3 });
    expect(String(rejects[0]!.reason)).toContain(`duplicate id (first at ${a}:2)`);
    const manifest = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8'));
    expect(manifest.totals).toMatchObject({ input_records: 13, valid_records: 12, rejected_records: 1 });
    // Rerun after losing the second part: the first part is skipped, and still registers its ids.
    const reference = treeHashes(out);
    rmSync(path.join(out, 'manifest.json'));
    rmSync(path.join(out, '.hsa', 'done', 'part-00001.json'), { force: true });
    expect(runHsa(args(out)).code).toBe(0);
    expect(treeHashes(out)).toEqual(reference);
    const v = runHsa(['validate', HARNESS, '--trajectories', a, b]);
    expect(v.code).toBe(1);
    expect(v.stdout).toContain(`${b}:3`);
    expect(v.stdout).toContain(`duplicate id (first at ${a}:2)`);
  });

  it('resumes after kill -9 to a folder byte-identical to an uninterrupted run', async () => {
    const input = subset(60);
    const whole = tmp();
    const killed = tmp();
    const args = (out: string) => small(input, out, ['--part-size', '4', '--variants', '3']);
    expect((await runHsaAsync(args(whole))).code).toBe(0);
    const reference = treeHashes(whole);

    const child = spawn(process.execPath, [HSA_BIN, ...args(killed)], { cwd: REPO, stdio: 'ignore' });
    const doneDir = path.join(killed, '.hsa', 'done');
    await new Promise<void>((resolve, reject) => {
      const started = Date.now();
      const poll = setInterval(() => {
        const n = existsSync(doneDir) ? readdirSync(doneDir).filter((f) => f.endsWith('.json')).length : 0;
        if (n >= 2) {
          clearInterval(poll);
          child.kill('SIGKILL');
          resolve();
        } else if (Date.now() - started > 60_000) {
          clearInterval(poll);
          reject(new Error('no part finished within 60 s'));
        }
      }, 5);
    });
    await new Promise((r) => child.on('close', r));
    expect(existsSync(path.join(killed, 'manifest.json'))).toBe(false);
    // A part under its final name is complete: same bytes as the uninterrupted run's.
    const partial = treeHashes(killed);
    for (const [file, hash] of Object.entries(partial)) {
      if (/^(sft|opd|rl|rejects)\/part-\d+\.jsonl$/.test(file)) expect(hash, file).toBe(reference[file]);
    }
    const again = await runHsaAsync(args(killed));
    expect(again.code).toBe(0);
    expect(treeHashes(killed)).toEqual(reference);
  });

  it('a run killed while writing manifest.json or run.json leaves a temporary file, which the resumed run removes', () => {
    const input = subset(6);
    const whole = tmp();
    const killed = tmp();
    expect(runHsa(small(input, whole)).code).toBe(0);
    const reference = treeHashes(whole);
    expect(runHsa(small(input, killed)).code).toBe(0);
    // What writeAtomic leaves when killed between writing its temporary file and renaming it.
    writeFileSync(path.join(killed, 'manifest.json.4242.tmp'), '{"half": ');
    writeFileSync(path.join(killed, '.hsa', 'run.json.4242.tmp'), '{"fingerprint": ');
    rmSync(path.join(killed, 'manifest.json'));
    expect(runHsa(small(input, killed)).code).toBe(0);
    expect(treeHashes(killed)).toEqual(reference);
  });

  it('refuses an out folder made with another seed, and --force starts over', () => {
    const input = subset(8);
    const out = tmp();
    expect(runHsa(small(input, out)).code).toBe(0);
    const r = runHsa([...small(input, out), '--seed', '9']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/changed: .*seed/);
    expect(r.stderr).toContain('--force');
    expect(runHsa([...small(input, out), '--seed', '9', '--force']).code).toBe(0);
  });

  it('writes deterministic gzip parts whose content equals the plain parts', () => {
    const input = subset(10);
    const plain = tmp();
    const gz1 = tmp();
    const gz2 = tmp();
    expect(runHsa(small(input, plain)).code).toBe(0);
    expect(runHsa([...small(input, gz1), '--gzip']).code).toBe(0);
    expect(runHsa([...small(input, gz2), '--gzip']).code).toBe(0);
    expect(treeHashes(gz1)).toEqual(treeHashes(gz2));
    const z = readFileSync(path.join(gz1, 'sft/part-00000.jsonl.gz'));
    expect(z.readUInt32LE(4)).toBe(0); // no timestamp in the gzip header
    expect(gunzipSync(z).toString('utf8')).toBe(readFileSync(path.join(plain, 'sft/part-00000.jsonl'), 'utf8'));
  });

  it('reports config errors with the key path and line', () => {
    const dir = tmp();
    const cfg = path.join(dir, 'hsa.yaml');
    writeFileSync(cfg, 'harness: x\nvariants: -1\nstagez: [sft]\n');
    const r = runHsa(['augment', '--no-gzip', '--config', cfg]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${cfg}:2: variants:`);
    expect(r.stderr).toContain(`${cfg}:3: (root): unknown key: stagez`);
  });

  it('writes the OpenAI string form of arguments and tools as one JSON string when asked', () => {
    const input = subset(4);
    const out = tmp();
    const r = runHsa([...small(input, out), '--arguments', 'string', '--tools-format', 'json-string', '--stages', 'sft,opd']);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(path.join(out, 'rl'))).toBe(false);
    const sft = readJsonl(path.join(out, 'sft/part-00000.jsonl')) as { tools: unknown; messages: { tool_calls?: { function: { arguments: unknown } }[] }[] }[];
    for (const rec of sft) {
      expect(typeof rec.tools).toBe('string');
      expect(Array.isArray(JSON.parse(rec.tools as string))).toBe(true);
      for (const m of rec.messages) for (const c of m.tool_calls ?? []) expect(typeof c.function.arguments).toBe('string');
    }
    const manifest = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8'));
    expect(Object.keys(manifest.stages).sort()).toEqual(['opd', 'rejects', 'sft']);
    expect(manifest.inputs.trajectories[0].records).toBe(4);
  });

  it('takes one OPD prompt per record with opd.turns first', () => {
    const input = subset(6);
    const dir = tmp();
    const cfg = path.join(dir, 'hsa.yaml');
    writeFileSync(
      cfg,
      `harness: ${path.join(REPO, HARNESS)}\ntrajectories: [${input}]\nout: out\nvariants: 1\nstages: [opd]\nopd: { turns: first, general_ratio: 0 }\n`,
    );
    const r = runHsa(['augment', '--no-gzip', '--config', cfg, '-q']);
    expect(r.code, r.stderr).toBe(0);
    const opd = readJsonl(path.join(dir, 'out/opd/part-00000.jsonl')) as { id: string; messages: { role: string }[] }[];
    expect(opd).toHaveLength(6);
    for (const o of opd) {
      expect(o.id).toMatch(/~v0#\d+$/);
      expect(o.messages.filter((m) => m.role === 'assistant')).toHaveLength(0);
    }
  });
});
