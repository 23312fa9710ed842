import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO } from '../helpers/hsa.js';
import { augmentWith } from '../helpers/one-transform.js';
import { removeTempDirs } from '../helpers/tmp.js';

/**
 * A distractor tool is listed and never called, so it must not be one that would do the task: the
 * travel pack's `get_destination_weather` beside a ferry desk's own `Get Weather`
 * (fixtures/ingest/longer-names). Read from the written tool lists.
 */

afterAll(() => removeTempDirs());

describe('tools.distractors never adds a tool about what a real tool is about', () => {
  it('no weather distractor beside a weather tool; other distractors still come', async () => {
    const a = await augmentWith('tools.distractors: { p: 1, max: 20 }', [
      '-t',
      path.join(REPO, 'fixtures/ingest/longer-names/records.jsonl'),
      '--words',
      'default',
      'travel',
      '-k',
      '4',
      '--seed',
      '1',
      '--stages',
      'sft',
    ]);
    expect(a.code, a.stderr).toBe(0);
    const out = a.out;
    const added = new Set<string>();
    for (const line of readFileSync(path.join(out, 'sft/part-00000.jsonl'), 'utf8').trim().split('\n')) {
      const r = JSON.parse(line) as { meta: { transforms: { params?: { added?: string[] } }[] } };
      for (const t of r.meta.transforms) for (const n of t.params?.added ?? []) added.add(n);
    }
    expect([...added].filter((n) => /weather/i.test(n))).toEqual([]);
    expect(added.has('get_airport_info')).toBe(true);
    expect(added.size).toBeGreaterThan(5);
  }, 60_000);
});
