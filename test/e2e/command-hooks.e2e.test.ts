import { cpSync, existsSync, readFileSync, readdirSync, writeFileSync, chmodSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { REPO, runHsaAsync } from '../helpers/hsa.js';
import { readJsonl } from '../helpers/tree.js';

afterAll(removeTempDirs);

describe('command hooks (Claude Code convention)', () => {
  it('are accepted in a snapshot, and only run with --allow-command-hooks', async () => {
    const dir = tempDir('hsa-cmdhook-');
    const harness = path.join(dir, 'harness');
    cpSync(path.join(REPO, 'fixtures/live-commerce/harness'), harness, { recursive: true });
    // A stop hook that records its input and blocks (exit 2, stderr = feedback) replies over 30 chars.
    writeFileSync(
      path.join(harness, 'length-check.sh'),
      '#!/bin/sh\ninput=$(cat)\necho "$input" >> calls.log\nreply=$(printf %s "$input" | node -e \'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);process.stdout.write(String([...(j.last_reply||"")].length))})\')\nif [ "$reply" -gt 30 ]; then echo "[length_check] too long ($reply chars)" >&2; exit 2; fi\nexit 0\n',
    );
    chmodSync(path.join(harness, 'length-check.sh'), 0o755);
    const hooks = readFileSync(path.join(harness, 'hooks.yaml'), 'utf8');
    writeFileSync(
      path.join(harness, 'hooks.yaml'),
      `${hooks.trimEnd()}\n  - id: length_check\n    event: Stop\n    command: ./length-check.sh\n    timeout: 10\n`,
    );
    const lines = readFileSync(path.join(REPO, 'fixtures/live-commerce/trajectories.jsonl'), 'utf8').split('\n').filter(Boolean).slice(0, 4);
    writeFileSync(path.join(dir, 'in.jsonl'), `${lines.join('\n')}\n`);
    const args = (out: string) => [
      'augment',
      '--no-gzip',
      '--harness',
      harness,
      '-t',
      path.join(dir, 'in.jsonl'),
      '-o',
      path.join(dir, out),
      '--teacher',
      'replay',
      '--variants',
      '1',
      '--stages',
      'sft',
      '--transforms',
      'tools.order',
    ];

    const off = await runHsaAsync(args('off'));
    expect(off.code, off.stderr).toBe(0);
    expect(off.stderr).toContain('command hooks are not run (pass --allow-command-hooks to run them): length_check');
    expect(existsSync(path.join(harness, 'calls.log'))).toBe(false);

    const on = await runHsaAsync([...args('on'), '--allow-command-hooks']);
    expect(on.code, on.stderr).toBe(0);
    const log = readFileSync(path.join(harness, 'calls.log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(log[0]).toMatchObject({ hook_event_name: 'Stop' });
    expect(typeof log[0].last_reply).toBe('string');
    const rejects = readdirSync(path.join(dir, 'on/rejects')).flatMap((f) => readJsonl(path.join(dir, 'on/rejects', f)));
    expect(rejects.length).toBeGreaterThan(0);
    expect(rejects.every((r) => String(r.reason).startsWith('length_check failed after 3 rounds: [length_check] too long'))).toBe(true);
  });
});
