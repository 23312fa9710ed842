import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { strictPlanSchema, type PlanFile } from '../src/migrate/plan-file.js';
import { quickPlan } from '../src/migrate/plan-quick.js';
import { isParseFailure, parseLocated } from '../src/util/located.js';
import { REPO } from './helpers/hsa.js';
import { check, clone, spoilEach, spoilRandomly, type Twin } from './helpers/quick-twin.js';

/** The plan read by hand (plan-quick.ts) against the strict plan schema (see helpers/quick-twin.ts). */
const twin: Twin = { quick: quickPlan, schema: strictPlanSchema };

function planValue(rel: string): unknown {
  const doc = parseLocated(rel, readFileSync(path.join(REPO, rel), 'utf8'));
  if (isParseFailure(doc)) throw new Error(doc.message);
  return doc.value;
}

/** A plan using every optional part of the format (shapes, splits, fills, needs, added, proposals, counts). */
function fullPlan(): Record<string, unknown> {
  const p = clone(planValue('fixtures/migrate/library/plan.yaml')) as Record<string, unknown>;
  const tools = p.tools as Record<string, unknown>[];
  tools.push(
    {
      from: 'a',
      to: 'b',
      shape: { wrap: 'query' },
      params: { x: 'y', z: null },
      values: { x: { '1': 'one', two: null } },
      fill: { k: { deep: [1] } },
      needs: ['k'],
      score: 0.5,
      evidence: ['e'],
      records: 3,
      stops: 1,
    },
    { from: 'c', split: { by: 'mode', cases: { fast: { to: 'd', shape: { unwrap: 'inner' }, needs: [] }, slow: null } }, records: 2 },
    { from: 'e', to: null },
  );
  p.records = 12;
  p.skills = [
    { from: 's', to: 't', score: 1, evidence: [], records: 1, stops: 0 },
    { from: 'u', to: null },
  ];
  p.sections = [
    { from: 'role', to: ['role', 'intro'], score: 1, evidence: ['x'] },
    { from: 'x', to: [] },
  ];
  p.added = { tools: ['n'], skills: [], hooks: ['h'] };
  p.proposals = [{ kind: 'tool', from: 'a', to: 'b', reason: 'r', model: 'm' }];
  return p;
}

describe('plan read by hand against the strict plan schema', () => {
  it('reads the fixture plans and a plan with every optional part exactly as the schema does', () => {
    const failures: string[] = [];
    for (const rel of ['fixtures/migrate/library/plan.yaml', 'fixtures/migrate/greenhouse/plan.yaml'])
      expect(check(twin, planValue(rel), 'exact', rel, failures)).toBe(true);
    expect(check(twin, fullPlan(), 'exact', 'full plan', failures)).toBe(true);
    expect(failures).toEqual([]);
  });

  it('every value of the plan spoilt in every way, every key dropped, an unknown key added to every object', () => {
    const failures: string[] = [];
    const r = spoilEach(twin, fullPlan(), failures);
    expect(failures.slice(0, 10)).toEqual([]);
    expect(r.slots).toBeGreaterThan(100);
    expect(r.taken).toBeGreaterThan(100);
    expect(r.refused).toBeGreaterThan(500);
  });

  it('random multiple spoils agree (seeded)', () => {
    const failures: string[] = [];
    spoilRandomly(twin, fullPlan(), 'plan-quick', 1500, failures);
    expect(failures.slice(0, 10)).toEqual([]);
  });

  it('gives new objects for defaults and copies, never the input`s own', () => {
    const v = fullPlan();
    const a = quickPlan(v) as unknown as PlanFile;
    const b = quickPlan(v) as unknown as PlanFile;
    expect(a.tools[0]!.params).not.toBe(b.tools[0]!.params);
    expect(a.tools).not.toBe((v as { tools: unknown }).tools);
    expect(a.added).not.toBe((v as { added: unknown }).added);
  });
});
