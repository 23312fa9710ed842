import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadHarness } from '../../src/harness/load.js';
import type { Harness } from '../../src/harness/types.js';
import { checkTrajectory } from '../../src/trajectory/check.js';
import { checkVariant, reportFailures } from '../../src/trajectory/invariants.js';
import { readTrajectories } from '../../src/trajectory/read.js';
import { rewriteTrajectory } from '../../src/trajectory/rewrite.js';
import type { Trajectory } from '../../src/trajectory/types.js';
import type { AnyTransform } from '../../src/transform/define.js';
import { emptyPlan } from '../../src/transform/plan.js';
import { createRng } from '../../src/transform/rng.js';
import { stateIdentifiers } from '../../src/transform/state.js';
import { resolveTransforms, sampleVariant } from '../../src/transform/variant.js';
import describeTools from '../../transforms/tools/describe.js';
import distractors from '../../transforms/tools/distractors.js';
import order from '../../transforms/tools/order.js';
import paramOrder from '../../transforms/tools/param-order.js';
import paramRename from '../../transforms/tools/param-rename.js';
import rename from '../../transforms/tools/rename.js';
import schemaStyle from '../../transforms/tools/schema-style.js';
import { builtinTransforms } from '../../transforms/index.js';
import { builtinWords } from '../../src/words/selection.js';
import { REPO } from '../helpers/hsa.js';

const FAMILY: AnyTransform[] = [distractors, order, rename, paramRename, paramOrder, schemaStyle, describeTools];

async function fixture(name: string): Promise<{ harness: Harness; records: Trajectory[] }> {
  const { harness, problems } = await loadHarness(path.join(REPO, 'fixtures', name, 'harness'));
  expect(problems.filter((p) => p.severity === 'error')).toEqual([]);
  const records: Trajectory[] = [];
  for await (const item of readTrajectories(path.join(REPO, 'fixtures', name, 'trajectories.jsonl'))) {
    if (!item.ok) throw new Error(`${item.file}:${item.line} bad fixture`);
    records.push(item.record);
  }
  return { harness: harness!, records };
}

/** Apply one transform directly with fixed options. */
function applyOne(t: AnyTransform, h: Harness, options: Record<string, unknown>, seed = 1, record?: Trajectory) {
  const opts = t.options.parse(options) as Record<string, unknown>;
  const names = stateIdentifiers(h);
  return t.apply(h, {
    options: opts,
    rng: createRng(seed, 'x', 0, t.id),
    words: builtinWords,
    source: h,
    plan: emptyPlan(),
    ...(record ? { record } : {}),
    isTaken: (n) => names.has(n),
  });
}

let live: { harness: Harness; records: Trajectory[] };
let desk: { harness: Harness; records: Trajectory[] };
beforeAll(async () => {
  live = await fixture('live-commerce');
  desk = await fixture('support-desk');
});

describe('tools transforms, one by one', () => {
  it('tools.rename renames the chosen share of tools everywhere they are named', () => {
    const r = applyOne(rename, live.harness, { intensity: 1, styles: ['opaque'] })!;
    const map = r.params.renamed as Record<string, string>;
    expect(Object.keys(map).sort()).toEqual(live.harness.tools.map((t) => t.name).sort());
    for (const v of Object.values(map)) expect(v).toMatch(/^tool(?:_[0-9a-f]{4}|_[0-9]{3}|[a-z]{2}[0-9]{2})$/);
    expect(r.state.skillLoader!.tool).toBe(map.load_skill);
    const benefit = r.state.skills.find((s) => s.id === 'tool_strategy_benefit')!;
    expect(benefit.tools.every((t) => Object.values(map).includes(t))).toBe(true);
    expect(benefit.body).not.toMatch(/calculate_optimal_promotion/);
    const gate = r.state.hooks.find((h) => h.id === 'stop_gate')!;
    const req = gate.checks.find((c) => c.type === 'require_tool');
    expect(req && req.type === 'require_tool' && req.tools.every((t) => Object.values(map).includes(t))).toBe(true);
    // The input state is never mutated.
    expect(live.harness.tools.some((t) => t.name === 'load_skill')).toBe(true);
  });

  it('tools.rename with mcp style gives server__tool names', () => {
    const r = applyOne(rename, desk.harness, { intensity: 1, styles: ['mcp'] })!;
    for (const v of Object.values(r.params.renamed as Record<string, string>)) expect(v).toMatch(/^[a-z]+__[a-z_]+$/);
  });

  it('tools.param-rename renames a parameter the same way in every tool and in required lists', () => {
    const r = applyOne(paramRename, live.harness, { intensity: 1, styles: ['affix'] })!;
    const map = r.params.renamed as Record<string, string>;
    expect(map.item_id).toBeDefined();
    for (const t of r.state.tools) {
      const props = Object.keys((t.parameters.properties as object) ?? {});
      expect(props).not.toContain('item_id');
      for (const req of (t.parameters.required as string[] | undefined) ?? []) expect(props).toContain(req);
    }
    expect(r.state.skillLoader!.argument).toBe(map.name);
    expect(Object.keys(r.plan!.args!)).toContain('get_item_detail');
  });

  it('tools.param-order keeps the same properties and required entries', () => {
    const r = applyOne(paramOrder, desk.harness, { intensity: 1 })!;
    for (const [i, t] of r.state.tools.entries()) {
      const before = desk.harness.tools[i]!.parameters;
      expect(Object.keys((t.parameters.properties as object) ?? {}).sort()).toEqual(Object.keys((before.properties as object) ?? {}).sort());
    }
    expect(r.params.tools).toHaveLength(desk.harness.tools.filter((t) => Object.keys((t.parameters.properties as object) ?? {}).length > 1).length);
  });

  it('tools.param-order keeps a property named __proto__ an own property, not the prototype', () => {
    const parameters = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"},"b":{"type":"integer"},"c":{"type":"boolean"}}}');
    const h = { ...desk.harness, tools: [{ ...desk.harness.tools[0]!, parameters }] };
    for (let seed = 1; seed <= 6; seed++) {
      const props = applyOne(paramOrder, h, { intensity: 1 }, seed)!.state.tools[0]!.parameters.properties as Record<string, unknown>;
      expect(Object.keys(props).sort()).toEqual(['__proto__', 'b', 'c']);
      expect(Object.getOwnPropertyDescriptor(props, '__proto__')?.value).toEqual({ type: 'string' });
      expect(Object.getPrototypeOf(props)).toBe(Object.prototype);
    }
  });

  it('tools.order and tools.distractors keep every original tool', () => {
    const o = applyOne(order, live.harness, {})!;
    expect(o.state.tools.map((t) => t.name).sort()).toEqual(live.harness.tools.map((t) => t.name).sort());
    const d = applyOne(distractors, live.harness, { max: 3 })!;
    const added = d.params.added as string[];
    expect(added.length).toBeGreaterThan(0);
    expect(
      d.state.tools
        .filter((t) => t.distractor)
        .map((t) => t.name)
        .sort(),
    ).toEqual([...added].sort());
  });

  it('tools.schema-style wraps arguments with a matching argument edit, or restyles enums', () => {
    const w = applyOne(schemaStyle, live.harness, { intensity: 1, styles: ['wrap'] })!;
    const restyled = w.params.restyled as Record<string, string>;
    // Provenance names what was done to each tool, with the wrapper key of the argument edit.
    for (const [name, done] of Object.entries(restyled)) expect(done).toBe(`wrap:${(w.plan!.args![name]![0] as { key: string }).key}`);
    const tool = w.state.tools.find((t) => t.name === 'get_item_detail')!;
    const key = Object.keys(tool.parameters.properties as object)[0]!;
    expect(w.plan!.args!.get_item_detail).toEqual([{ op: 'wrap', key }]);
    expect(w.state.skillLoader!.argument).toBe(`${(w.plan!.args!.load_skill![0] as { key: string }).key}.name`);
    const e = applyOne(schemaStyle, desk.harness, { intensity: 1, styles: ['enum-oneof'] })!;
    const s = JSON.stringify(e.state.tools.map((t) => t.parameters));
    expect(s).toContain('"oneOf":[{"const"');
    expect(Object.values(e.params.restyled as Record<string, string>).every((d) => d === 'enum-to-oneof')).toBe(true);
  });

  it('tools.schema-style records flatten (not wrap) when the wrap style flattens a wrapper', () => {
    const w = applyOne(schemaStyle, live.harness, { intensity: 1, styles: ['wrap'] })!;
    const f = applyOne(schemaStyle, w.state, { intensity: 1, styles: ['wrap'] })!;
    const restyled = f.params.restyled as Record<string, string>;
    expect(Object.keys(restyled).length).toBeGreaterThan(0);
    for (const [name, done] of Object.entries(restyled)) {
      const op = f.plan!.args![name]![0] as { op: string; key: string };
      expect(op.op).toBe('unwrap');
      expect(done).toBe(`flatten:${op.key}`);
    }
  });

  it('tools.describe rewords descriptions with a frame and keeps the original text', () => {
    const r = applyOne(describeTools, live.harness, { intensity: 1 })!;
    for (const [i, t] of r.state.tools.entries()) {
      const before = live.harness.tools[i]!.description.trim();
      // The lead-in may change ("Look up …" → "This tool looks up …"); the rest is kept.
      expect(t.description.toLowerCase()).toContain(before.split(' ').slice(2).join(' ').toLowerCase());
      expect(t.description).not.toBe(before);
    }
  });
});

describe('tools family properties', () => {
  it('1,000 variants on live-commerce: 0 leaks, 0 invalid calls, 0 round-trip failures', () => {
    const selection = Object.fromEntries(FAMILY.map((t) => [t.id, { p: 1 }]));
    const resolved = resolveTransforms(builtinTransforms, selection, 'rewrite');
    let n = 0;
    const failures: string[] = [];
    for (let k = 0; n < 1000; k++) {
      for (const rec of live.records) {
        if (n >= 1000) break;
        const v = sampleVariant(live.harness, rec, resolved, 'prop', k, builtinWords);
        const aug = rewriteTrajectory(rec, v.plan, live.harness, v.state);
        const report = checkVariant(rec, aug, v.plan, live.harness, v.state, { roundTrip: true, rules: true });
        for (const f of reportFailures(report)) failures.push(`${rec.id}~v${k}: ${f}`);
        // The augmented record is also a valid trajectory of its own harness state.
        const own = checkTrajectory(aug, v.state, { file: 'aug', line: 0 }).filter((p) => p.severity === 'error');
        for (const p of own) failures.push(`${rec.id}~v${k}: ${p.path}: ${p.message}`);
        n++;
      }
    }
    expect(failures.slice(0, 5)).toEqual([]);
    // ~25 s alone on 2 cores, ~55 s beside the other test files: the default 60 s is too close.
  }, 180_000);

  it('on a foreign minimal harness (support-desk, 16 tools) every tool transform applies and every check passes', () => {
    for (const t of FAMILY) {
      const resolved = resolveTransforms(builtinTransforms, { [t.id]: { p: 1 } }, 'rewrite');
      let applied = 0;
      for (const [i, rec] of desk.records.entries()) {
        const v = sampleVariant(desk.harness, rec, resolved, 'desk', i, builtinWords);
        if (v.applied.length) applied++;
        const aug = rewriteTrajectory(rec, v.plan, desk.harness, v.state);
        const fails = reportFailures(checkVariant(rec, aug, v.plan, desk.harness, v.state, { roundTrip: true, rules: true }));
        expect(fails, `${t.id} ${rec.id}`).toEqual([]);
      }
      expect(applied, t.id).toBe(desk.records.length);
    }
  });
});
