import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadHarness } from '../../src/harness/load.js';
import type { Harness } from '../../src/harness/types.js';
import { augmentOne, StatePool } from '../../src/trajectory/augment.js';
import { checkTrajectory } from '../../src/trajectory/check.js';
import { readTrajectories } from '../../src/trajectory/read.js';
import type { Trajectory } from '../../src/trajectory/types.js';
import { resolveTransforms } from '../../src/transform/variant.js';
import { builtinTransforms } from '../../transforms/index.js';
import { builtinWords } from '../../src/words/selection.js';
import { REPO } from '../helpers/hsa.js';

// The acceptance property of the transforms: on the fixtures, 1,000 variants per family with 0
// leaks, 0 schema-invalid calls and 0 round-trip failures (and 0 rule failures for semantic ones),
// through the same path `hsa augment` takes.
let harness: Harness;
const records: Trajectory[] = [];
beforeAll(async () => {
  const loaded = await loadHarness(path.join(REPO, 'fixtures/live-commerce/harness'));
  harness = loaded.harness!;
  for await (const item of readTrajectories(path.join(REPO, 'fixtures/live-commerce/trajectories.jsonl'))) if (item.ok) records.push(item.record);
});

const families = ['skills', 'tools', 'prompt', 'hooks'] as const;

describe.each(families)('the %s family over 1,000 variants', (family) => {
  it('has no leak, no invalid call, no round-trip or rule failure', () => {
    const ids = Object.values(builtinTransforms)
      .filter((t) => t.family === family && t.class !== 'behavioural')
      .map((t) => t.id);
    const resolved = resolveTransforms(builtinTransforms, Object.fromEntries(ids.map((id) => [id, { p: 0.8 }])), 'rewrite');
    const failures: string[] = [];
    const applied = new Map<string, number>();
    let n = 0;
    for (let k = 0; n < 1000; k++) {
      for (const rec of records) {
        if (n++ >= 1000) break;
        const v = augmentOne(rec, harness, resolved, `family-${family}`, k, builtinWords);
        for (const f of v.failures) failures.push(`${v.id}: ${f}`);
        for (const a of v.variant.applied) applied.set(a.id, (applied.get(a.id) ?? 0) + 1);
        // Structural truth: the augmented record is a valid trajectory of its own state.
        for (const p of checkTrajectory(v.record, v.variant.state, { file: 'variant', line: 0 }))
          if (p.severity === 'error') failures.push(`${v.id}: ${p.path}: ${p.message}`);
      }
    }
    expect(failures.slice(0, 5)).toEqual([]);
    // Every transform of the family did something on this harness — except merge-split: the
    // live-commerce prompt has no sub-headings and no two adjacent free sections (prompt.test.ts
    // exercises it on support-desk).
    for (const id of ids.filter((x) => x !== 'prompt.merge-split')) expect(applied.get(id) ?? 0, id).toBeGreaterThan(50);
  });
});

describe('the state pool', () => {
  it('gives the same variants whatever order records come in, and every pooled variant passes its checks', () => {
    const resolved = resolveTransforms(builtinTransforms, undefined, 'rewrite');
    const run = (order: Trajectory[]) => {
      const pool = new StatePool(harness, resolved, 'pool-seed', builtinWords, 16);
      const out = new Map<string, string>();
      for (const rec of order) {
        for (let k = 0; k < 2; k++) {
          const v = augmentOne(rec, harness, resolved, 'pool-seed', k, builtinWords, pool);
          expect(v.failures).toEqual([]);
          out.set(v.id, JSON.stringify([v.slot, v.record]));
        }
      }
      return out;
    };
    const subset = records.slice(0, 40);
    const forward = run(subset);
    const backward = run([...subset].reverse());
    expect([...backward.entries()].sort()).toEqual([...forward.entries()].sort());
    const slots = new Set([...forward.values()].map((v) => JSON.parse(v)[0]));
    expect(slots.size).toBeGreaterThan(8);
  });

  it("gives a record's variants distinct slots while there are enough, and valid slots when not", () => {
    const resolved = resolveTransforms(builtinTransforms, undefined, 'rewrite');
    const pool = new StatePool(harness, resolved, 'pool-seed', builtinWords, 16);
    const small = new StatePool(harness, resolved, 'pool-seed', builtinWords, 3);
    for (const rec of records.slice(0, 100)) {
      const slots = Array.from({ length: 8 }, (_, k) => pool.slotFor(rec.id, k));
      expect(new Set(slots).size, rec.id).toBe(8);
      const few = Array.from({ length: 5 }, (_, k) => small.slotFor(rec.id, k));
      expect(new Set(few.slice(0, 3)).size).toBe(3);
      for (const s of few) expect(s >= 0 && s < 3).toBe(true);
      // The K-th slot does not depend on how many variants are asked for.
      expect(pool.slotFor(rec.id, 2)).toBe(slots[2]);
    }
  });
});
