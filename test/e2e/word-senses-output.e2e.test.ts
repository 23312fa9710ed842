import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO } from '../helpers/hsa.js';
import { augmentWith } from '../helpers/one-transform.js';
import { removeTempDirs } from '../helpers/tmp.js';

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
async function newNames(transform: string, args: string[], name: string | null, seeds: number[], style = 'synonym'): Promise<string[]> {
  const names = new Set<string>();
  for (const seed of seeds) {
    const a = await augmentWith(
      `${transform}: { p: 1, intensity: 1, styles: [${style}] }`,
      [...args, '-k', '6', '--seed', String(seed), '--state-pool', '0', '--stages', 'sft'],
      'hsa-senses-',
    );
    expect(a.code, a.stderr).toBe(0);
    const out = a.out;
    for (const line of readFileSync(path.join(out, 'sft/part-00000.jsonl'), 'utf8').trim().split('\n')) {
      const r = JSON.parse(line) as Out;
      const renamed = r.meta.transforms.find((t) => t.id === transform)?.params?.renamed ?? {};
      for (const [from, to] of Object.entries(renamed)) if (name === null || from === name) names.add(to);
    }
  }
  return [...names].sort();
}

describe('synonyms keep the sense of the name', () => {
  it("a start time is never a launch (the process sense's word)", async () => {
    const clinic = path.join(REPO, 'fixtures/clinic');
    const names = await newNames(
      'tools.param-rename',
      ['--harness', path.join(clinic, 'harness'), '-t', path.join(clinic, 'trajectories.jsonl')],
      'start',
      [1, 2],
    );
    expect(names.length).toBeGreaterThan(0);
    for (const n of names) expect(n).not.toMatch(/launch/i);
  }, 60_000);

  it('the weather now is never a forecast', async () => {
    const names = await newNames('tools.rename', ['-t', path.join(REPO, 'fixtures/ingest/longer-names/records.jsonl')], 'Get_Weather', [1, 2]);
    expect(names.length).toBeGreaterThan(0);
    for (const n of names) expect(n).not.toMatch(/forecast/i);
  }, 60_000);

  it('a parameter, skill or hook never gets an affix that names a callable (urgency_tool, triage-zh-api)', async () => {
    const clinic = ['--harness', path.join(REPO, 'fixtures/clinic/harness'), '-t', path.join(REPO, 'fixtures/clinic/trajectories.jsonl')];
    const callable = /(^|[_-])(tool|fn|api|call|action|op|task)($|[_-])|[a-z](Tool|Fn|Api|Call|Action|Op|Task)($|[A-Z])/;
    for (const t of ['tools.param-rename', 'skills.rename', 'hooks.rename']) {
      const names = await newNames(t, clinic, null, [1], 'affix');
      expect(names.length, t).toBeGreaterThan(0);
      for (const n of names) expect(n, t).not.toMatch(callable);
    }
    // Tools keep them: `search_flights_fn` is a tool's name.
    const tools = await newNames('tools.rename', clinic, null, [1], 'affix');
    expect(tools.some((n) => callable.test(n))).toBe(true);
  }, 60_000);
});
