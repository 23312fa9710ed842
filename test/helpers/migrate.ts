import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'vitest';
import { loadHarness } from '../../src/harness/load.js';
import type { Harness } from '../../src/harness/types.js';
import type { MigrationPlan } from '../../src/migrate/types.js';
import { parseTrajectoryLine } from '../../src/trajectory/read.js';
import type { Trajectory } from '../../src/trajectory/types.js';
import { REPO } from './hsa.js';

// Shared by the migrate-*.test.ts files: the fixture pairs, and how their harnesses and logs are read.

export const LIB = path.join(REPO, 'fixtures/migrate/library');
export const GH = path.join(REPO, 'fixtures/migrate/greenhouse');
export async function load(p: string): Promise<Harness> {
  const r = await loadHarness(p);
  expect(r.problems.filter((x) => x.severity === 'error')).toEqual([]);
  return r.harness!;
}
export async function records(file: string): Promise<Trajectory[]> {
  const text = await readFile(file, 'utf8');
  return text
    .trim()
    .split('\n')
    .map((l, i) => {
      const item = parseTrajectoryLine(file, i + 1, l);
      if (!item.ok) throw new Error('fixture line does not parse');
      return item.record;
    });
}
/** The matches of a plan without scores and evidence: what a reviewer checks first. */
export function matches(plan: MigrationPlan) {
  return {
    tools: plan.tools.map((t) => (t.split ? { from: t.from, split: t.split } : t.map ? { from: t.from, ...t.map } : { from: t.from, to: null })),
    skills: plan.skills.map((s) => [s.from, s.to]),
    hooks: plan.hooks.map((h) => [h.from, h.to]),
    sections: plan.sections.map((s) => [s.from, s.to]),
    added: plan.added,
  };
}
