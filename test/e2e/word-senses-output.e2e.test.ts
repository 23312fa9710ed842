import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, runHsaAsync } from '../helpers/hsa.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

/**
 * Synonyms of the built-in packs that change what a name means, read from written variants: a
 * slot's `start` time (fixtures/clinic) renamed `launch`, a current-weather tool (`Get Weather`,
 * fixtures/ingest/longer-names) renamed to a forecast beside the real `Get Weather Forecast`.
 */

afterAll(() => removeTempDirs());

interface Out {
  meta: { transforms: { id: string; params?: { renamed?: Record<string, string> } }[] };
}

/** Every new name a transform gave `name` over `seeds` runs of synonym renames only. */
async function newNames(transform: string, args: string[], name: string, seeds: number[]): Promise<string[]> {
  const dir = tempDir('hsa-senses-');
  const config = path.join(dir, 'hsa.yaml');
  writeFileSync(config, `transforms:\n  ${transform}: { p: 1, intensity: 1, styles: [synonym] }\n`);
  const names = new Set<string>();
  for (const seed of seeds) {
    const out = path.join(dir, `out-${seed}`);
    const a = await runHsaAsync(['augment', '-c', config, ...args, '-o', out, '-k', '6', '--seed', String(seed), '--state-pool', '0', '--stages', 'sft', '-q']);
    expect(a.code, a.stderr).toBe(0);
    for (const line of readFileSync(path.join(out, 'sft/part-00000.jsonl'), 'utf8').trim().split('\n')) {
      const r = JSON.parse(line) as Out;
      const to = r.meta.transforms.find((t) => t.id === transform)?.params?.renamed?.[name];
      if (to !== undefined) names.add(to);
    }
  }
  return [...names].sort();
}

describe('synonyms keep the sense of the name', () => {
  it("a start time is never a launch (the process sense's word)", async () => {
    const clinic = path.join(REPO, 'fixtures/clinic');
    const names = await newNames('tools.param-rename', ['--harness', path.join(clinic, 'harness'), '-t', path.join(clinic, 'trajectories.jsonl')], 'start', [1, 2]);
    expect(names.length).toBeGreaterThan(0);
    for (const n of names) expect(n).not.toMatch(/launch/i);
  }, 60_000);

  it('the weather now is never a forecast', async () => {
    const names = await newNames('tools.rename', ['-t', path.join(REPO, 'fixtures/ingest/longer-names/records.jsonl')], 'Get_Weather', [1, 2]);
    expect(names.length).toBeGreaterThan(0);
    for (const n of names) expect(n).not.toMatch(/forecast/i);
  }, 60_000);
});
