import { readFileSync } from 'node:fs';
import path from 'node:path';
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { strictPlanSchema } from '../src/migrate/plan-file.js';
import { quickPlan } from '../src/migrate/plan-quick.js';
import { isParseFailure, parseLocated } from '../src/util/located.js';
import { REPO } from './helpers/hsa.js';

/**
 * The plan read by hand (plan-quick.ts) against the strict plan schema: wherever the hand reading
 * gives a value, the schema must accept the plan and give the same value, keys in the same order;
 * for plain JSON it must give one exactly when the schema accepts.
 */
function planValue(rel: string): unknown {
  const doc = parseLocated(rel, readFileSync(path.join(REPO, rel), 'utf8'));
  if (isParseFailure(doc)) throw new Error(doc.message);
  return doc.value;
}

/** Deep equality that also holds key order (and tells null from a missing key). */
function sameOrdered(a: unknown, b: unknown, at = '$'): string | null {
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return `${at}: array differs`;
    for (let i = 0; i < a.length; i++) {
      const d = sameOrdered(a[i], b[i], `${at}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (a !== null && typeof a === 'object' && b !== null && typeof b === 'object') {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.join('\u0000') !== kb.join('\u0000')) return `${at}: keys ${ka.join(',')} vs ${kb.join(',')}`;
    for (const k of ka) {
      const d = sameOrdered((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${at}.${k}`);
      if (d) return d;
    }
    return null;
  }
  return Object.is(a, b) ? null : `${at}: ${String(a)} vs ${String(b)}`;
}

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

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

type Expect = 'exact' | 'safe';
/** Every way one value is spoilt (or not): `safe` marks inputs outside plain JSON, where the hand reading may give up. */
const SPOILERS: [string, (v: unknown) => unknown, Expect][] = [
  ['null', () => null, 'exact'],
  ['number', () => 5, 'exact'],
  ['NaN', () => NaN, 'exact'],
  ['Infinity', () => Infinity, 'exact'],
  ['empty text', () => '', 'exact'],
  ['text', () => 'x', 'exact'],
  ['list', () => [], 'exact'],
  ['list of text', () => ['x'], 'exact'],
  ['object', () => ({}), 'exact'],
  ['true', () => true, 'exact'],
  ['undefined', () => undefined, 'safe'],
  ['null-prototype copy', (v) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.assign(Object.create(null) as object, v) : v), 'safe'],
];

interface Slot {
  parent: Record<string, unknown> | unknown[];
  key: string | number;
}
function slots(v: unknown, out: Slot[] = []): Slot[] {
  if (Array.isArray(v)) v.forEach((x, i) => (out.push({ parent: v, key: i }), slots(x, out)));
  else if (v !== null && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) (out.push({ parent: v as Record<string, unknown>, key: k }), slots(x, out));
  return out;
}

function check(value: unknown, how: Expect, label: string, failures: string[]): boolean {
  const quick = quickPlan(value);
  const zod = strictPlanSchema().safeParse(value);
  if (quick !== null) {
    if (!zod.success) failures.push(`${label}: hand reading took a plan the schema refuses (${zod.error.issues[0]?.message})`);
    else {
      const d = sameOrdered(quick, zod.data);
      if (d) failures.push(`${label}: ${d}`);
    }
  } else if (how === 'exact' && zod.success) failures.push(`${label}: the schema takes it, the hand reading gives up`);
  return quick !== null;
}

describe('plan read by hand against the strict plan schema', () => {
  it('reads the fixture plans and a plan with every optional part exactly as the schema does', () => {
    const failures: string[] = [];
    for (const rel of ['fixtures/migrate/library/plan.yaml', 'fixtures/migrate/greenhouse/plan.yaml'])
      expect(check(planValue(rel), 'exact', rel, failures)).toBe(true);
    expect(check(fullPlan(), 'exact', 'full plan', failures)).toBe(true);
    expect(failures).toEqual([]);
  });

  it('every value of the plan spoilt in every way, every key dropped, an unknown key added to every object', () => {
    const failures: string[] = [];
    let taken = 0;
    let refused = 0;
    const base = fullPlan();
    const count = slots(base).length;
    for (let i = 0; i < count; i++) {
      for (const [label, spoil, how] of SPOILERS) {
        const v = clone(base);
        const s = slots(v)[i]!;
        (s.parent as Record<string | number, unknown>)[s.key] = spoil((s.parent as Record<string | number, unknown>)[s.key]);
        if (check(v, how, `${String(s.key)}#${i} ${label}`, failures)) taken++;
        else refused++;
      }
      const v = clone(base);
      const s = slots(v)[i]!;
      if (!Array.isArray(s.parent)) {
        delete s.parent[s.key as string];
        check(v, 'exact', `${String(s.key)}#${i} dropped`, failures);
      }
      const target = (s.parent as Record<string | number, unknown>)[s.key];
      if (target !== null && typeof target === 'object' && !Array.isArray(target)) {
        (target as Record<string, unknown>).zz_unknown = 1;
        check(v, 'exact', `${String(s.key)}#${i} unknown key`, failures);
      }
    }
    expect(failures.slice(0, 10)).toEqual([]);
    expect(count).toBeGreaterThan(100);
    expect(taken).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(500);
  });

  it('random multiple spoils agree (seeded)', () => {
    const rng = seedrandom('plan-quick');
    const failures: string[] = [];
    for (let n = 0; n < 1500; n++) {
      const v = clone(fullPlan());
      let how: Expect = 'exact';
      for (let j = 0; j < 1 + Math.floor(rng() * 3); j++) {
        const all = slots(v);
        const s = all[Math.floor(rng() * all.length)]!;
        const [, spoil, h] = SPOILERS[Math.floor(rng() * SPOILERS.length)]!;
        (s.parent as Record<string | number, unknown>)[s.key] = spoil((s.parent as Record<string | number, unknown>)[s.key]);
        if (h === 'safe') how = 'safe';
      }
      check(v, how, `random ${n}`, failures);
    }
    expect(failures.slice(0, 10)).toEqual([]);
  });

  it('gives new objects for defaults and copies, never the input`s own', () => {
    const v = fullPlan();
    const a = quickPlan(v)!;
    const b = quickPlan(v)!;
    expect(a.tools[0]!.params).not.toBe(b.tools[0]!.params);
    expect(a.tools).not.toBe((v as { tools: unknown }).tools);
    expect(a.added).not.toBe((v as { added: unknown }).added);
  });
});
