import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tamperedCopy } from '../helpers/checker.js';
import { REPO, runHsaAsync } from '../helpers/hsa.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

/**
 * `hsa verify --sources` on a harness folder whose trajectories call a tool by a name OpenAI
 * refuses (fixtures/clinic: `lab.get_result`, listed as `lab_get_result`). augment reads such calls
 * under the OpenAI-safe name; verify compared the round trip with the calls as logged and called
 * every variant of the record broken. It must pass the sound output and still catch a changed call.
 */

afterAll(() => removeTempDirs());

const HARNESS = path.join(REPO, 'fixtures/clinic/harness');
const SOURCES = path.join(REPO, 'fixtures/clinic/trajectories.jsonl');

describe('verify reads logged tool names as augment does', () => {
  const dir = tempDir('hsa-verify-dotted-');
  const out = path.join(dir, 'out');

  it('the output of augment is sound', async () => {
    const a = await runHsaAsync(['augment', '--no-gzip', '--harness', HARNESS, '-t', SOURCES, '-o', out, '-k', '4', '--seed', '3', '--stages', 'sft', '-q']);
    expect(a.code, a.stderr).toBe(0);
    const v = await runHsaAsync(['verify', out, '--harness', HARNESS, '--sources', SOURCES]);
    expect(v.stdout + v.stderr).not.toMatch(/round trip: /);
    expect(v.code, v.stdout).toBe(0);
  }, 60_000);

  it('a call changed in a variant of that record is still a round-trip problem', async () => {
    const lines = readFileSync(path.join(out, 'sft/part-00000.jsonl'), 'utf8').trim().split('\n');
    const k = lines.findIndex((l) => l.startsWith('{"id":"cl-3~v0"'));
    expect(k).toBeGreaterThanOrEqual(0);
    const copy = tamperedCopy(out, path.join(dir, 'tampered'), k, lines[k]!.replace('"HBA1C"', '"LDL"'));
    const v = await runHsaAsync(['verify', copy, '--harness', HARNESS, '--sources', SOURCES]);
    expect(v.code).toBe(1);
    expect(v.stdout).toMatch(/cl-3~v0: messages: round trip: messages\.4 differs after inverse/);
  }, 60_000);
});
