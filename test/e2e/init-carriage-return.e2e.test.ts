import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, runHsaAsync } from '../helpers/hsa.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

/**
 * A logged system prompt with lone carriage returns inside lines (API descriptions pasted from web
 * pages, as a public tool-use set's recorded runs have them): `hsa init` writes a prompt file that
 * renders it back byte for byte, so the records validate and augment under the inferred folder.
 * Before, prompt files read every `\r` as a line end and no record validated, with or without
 * --system-prompt locate. CRLF line ends in a prompt file still read as `\n`.
 */

const FIXTURE = path.join(REPO, 'fixtures/init/carriage-return/trajectories.jsonl');
const CHECKER = path.join(REPO, 'scripts/audit/check-output.mjs');

afterAll(() => removeTempDirs());

describe('hsa init on logs whose system prompt holds lone carriage returns', () => {
  const dir = tempDir('hsa-init-cr-');
  const h = path.join(dir, 'harness');
  const system = (JSON.parse(readFileSync(FIXTURE, 'utf8').split('\n')[0]!) as { messages: { content: string }[] }).messages[0]!.content;

  it('init writes the carriage returns into the prompt file; validate passes as given', async () => {
    expect(system).toContain('Free observing slots.\rSlots are 30 minutes long.');
    const i = await runHsaAsync(['init', '-t', FIXTURE, '-o', h]);
    expect(i.code, i.stdout + i.stderr).toBe(0);
    expect(i.stdout + i.stderr).toContain('check: 5 records validate, 0 do not');
    const prompt = readdirSync(path.join(h, 'prompt'))
      .map((f) => readFileSync(path.join(h, 'prompt', f), 'utf8'))
      .join('\n');
    expect(prompt).toContain('Free observing slots.\rSlots are 30 minutes long.');
    const v = await runHsaAsync(['validate', h, '-t', FIXTURE]);
    expect(v.code, v.stdout + v.stderr).toBe(0);
  });

  it('augment under the inferred folder keeps them in every variant; the checker finds nothing', async () => {
    const out = path.join(dir, 'out');
    const a = await runHsaAsync(['augment', '--no-gzip', '--harness', h, '-t', FIXTURE, '-o', out, '-k', '8', '--stages', 'sft', '-q', '--json']);
    expect(a.code, a.stderr).toBe(0);
    expect((JSON.parse(a.stdout) as { totals: Record<string, number> }).totals).toMatchObject({ valid_records: 5, variants_written: 40, variants_rejected: 0 });
    const sft = readFileSync(path.join(out, 'sft/part-00000.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { messages: { content: string }[] });
    // In the system message, or where prompt.placement put the section (a preamble turn).
    for (const r of sft) expect(r.messages.map((m) => m.content).join('\n')).toMatch(/Free observing slots\.\rSlots are 30 minutes long\./);
    const c = spawnSync(process.execPath, [CHECKER, '--out', out, '--sources', FIXTURE, '--harness', h, '--json'], { encoding: 'utf8' });
    expect((JSON.parse(c.stdout) as { failures: unknown }).failures).toEqual({});
    expect(c.status).toBe(0);
  }, 60_000);

  it('a prompt file saved with CRLF line ends still renders with \\n', async () => {
    const crlf = path.join(dir, 'crlf');
    const i = await runHsaAsync(['init', '-t', FIXTURE, '-o', crlf]);
    expect(i.code).toBe(0);
    for (const f of readdirSync(path.join(crlf, 'prompt'))) {
      const file = path.join(crlf, 'prompt', f);
      writeFileSync(file, readFileSync(file, 'utf8').replace(/\n/g, '\r\n'));
    }
    const v = await runHsaAsync(['validate', crlf, '-t', FIXTURE]);
    expect(v.code, v.stdout + v.stderr).toBe(0);
  });
});
