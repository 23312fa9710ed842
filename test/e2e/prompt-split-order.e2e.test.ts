import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO } from '../helpers/hsa.js';
import { augmentWith } from '../helpers/one-transform.js';
import { removeTempDirs } from '../helpers/tmp.js';

/**
 * `prompt.merge-split`'s split keeps the prompt's text in order: the sub-sections of the support
 * desk's policy (identity, orders, refunds, shipping, escalation, tone…) and of the travel desk's
 * rules (fixtures/support-desk, fixtures/fidelity) are read in the order written in every variant.
 * Lifting a middle sub-section out put it after the ones that followed it.
 */

afterAll(() => removeTempDirs());

const headings = (text: string) => [...text.matchAll(/^#{1,6}\s+(.*?)\s*$/gm)].map((m) => m[1]!);

describe('a split never moves a sub-section past the ones after it', () => {
  for (const fixture of ['support-desk', 'fidelity']) {
    it(
      fixture,
      async () => {
        const a = await augmentWith('prompt.merge-split: { p: 1, mode: split }', [
          '--harness',
          path.join(REPO, 'fixtures', fixture, 'harness'),
          '-t',
          path.join(REPO, 'fixtures', fixture, 'trajectories.jsonl'),
          '-k',
          '4',
          '--seed',
          '2',
          '--keep-source',
          '--stages',
          'sft',
        ]);
        expect(a.code, a.stderr).toBe(0);
        const out = a.out;
        const records = readFileSync(path.join(out, 'sft/part-00000.jsonl'), 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { id: string; messages: { role: string; content: string }[]; meta: { source_id: string; transforms: unknown[] } });
        const source = new Map(records.filter((r) => r.id.endsWith('~src')).map((r) => [r.meta.source_id, headings(r.messages[0]!.content)]));
        let split = 0;
        for (const r of records) {
          if (r.id.endsWith('~src') || r.meta.transforms.length === 0) continue;
          split++;
          expect(headings(r.messages[0]!.content), r.id).toEqual(source.get(r.meta.source_id));
        }
        expect(split).toBeGreaterThan(0);
      },
      60_000,
    );
  }
});
