import type { Harness } from '../harness/types.js';
import { getPath } from '../util/path.js';
import { dictionary, emptyPlan, invertPlan, type ArgOp, type IdMap, type RewritePlan } from '../transform/plan.js';
import type { CallMapping, MigrationPlan, ToolEntry } from './types.js';

/** A call mapping with its argument edits worked out once. */
export interface CompiledMapping {
  from: string;
  to: string;
  /** Index of the plan entry (`tools[i]`), for reject reasons. */
  entry: number;
  mapping: CallMapping;
  /** The engine's argument edits (rename, wrap, unwrap) from A's arguments to B's. */
  ops: ArgOp[];
  /** Their exact inverse. */
  inverse: ArgOp[];
  /** B's wrapper key when the mapping wraps (values and fills sit below it). */
  wrapKey: string | null;
  /** Enum values at B paths (full), B value → A value as well as A → B. */
  valuesB: Record<string, { forward: Record<string, string>; back: Record<string, string> }>;
  /** Fills at B paths (full). */
  fillB: Record<string, unknown>;
  /** Split case: the A parameter and its value that chose this mapping. */
  split?: { by: string; value: string };
}

export interface CompiledPlan {
  plan: MigrationPlan;
  /** What the engine carries: identifier maps and the argument edits of one-to-one tools. */
  rewrite: RewritePlan;
  /** The rewrite plan plus each split tool mapped to its first case: for the leak check, whose old names are A's. */
  leakPlan: RewritePlan;
  /** A tool name → its entry (one-to-one, split, or removed) and, for one-to-one, its compiled mapping. */
  byFrom: Map<string, { entry: ToolEntry; index: number; mapping?: CompiledMapping }>;
  /** Split tools by A name: value → mapping (null: no case). */
  splits: Map<string, { by: string; cases: Map<string, CompiledMapping | null>; index: number }>;
  /**
   * B tool name → the mappings that produce its calls: one, or several when A's tools were merged
   * into it (each then fills one parameter with its own value, which tells a B call's origin).
   */
  byTarget: Map<string, CompiledMapping[]>;
  skills: Map<string, { to: string | null; index: number }>;
  hooks: Map<string, { to: string | null; index: number }>;
  /** B id → A id, for mapping back. */
  skillsBack: Map<string, string>;
  hooksBack: Map<string, string>;
  /** A tools whose calls get per-call edits after the engine (values, fills, splits). */
  edited: Set<string>;
}

/**
 * The plan as the engine and the apply step use it. A tool of A the plan does not list is kept
 * under its own name when B has it, removed otherwise; the same for skills and hooks.
 */
export function compilePlan(plan: MigrationPlan, a: Harness, b: Harness): CompiledPlan {
  const rewrite = emptyPlan();
  const leak = emptyPlan();
  const byFrom = new Map<string, { entry: ToolEntry; index: number; mapping?: CompiledMapping }>();
  const splits: CompiledPlan['splits'] = new Map();
  const byTarget = new Map<string, CompiledMapping[]>();
  const target = (c: CompiledMapping) => byTarget.set(c.to, [...(byTarget.get(c.to) ?? []), c]);
  const bNames = new Set(b.tools.map((t) => t.name));
  const entries = [...plan.tools];
  for (const t of a.tools) {
    if (t.distractor || entries.some((e) => e.from === t.name)) continue;
    entries.push(
      bNames.has(t.name)
        ? { from: t.name, map: { to: t.name, params: {}, values: {}, fill: {}, needs: [] }, score: 1, evidence: ['not in the plan: kept under its own name'] }
        : { from: t.name, score: 0, evidence: ['not in the plan, and B has no tool of its name'] },
    );
  }
  entries.forEach((entry, index) => {
    byFrom.set(entry.from, { entry, index });
    if (entry.map) {
      const c = compileMapping(entry.from, entry.map, index);
      byFrom.set(entry.from, { entry, index, mapping: c });
      target(c);
      if (c.to !== entry.from) {
        rewrite.tools[entry.from] = c.to;
        leak.tools[entry.from] = c.to;
      }
      if (c.ops.length) {
        rewrite.args[entry.from] = c.ops;
        leak.args[entry.from] = c.ops;
      }
    } else if (entry.split) {
      const cases = new Map<string, CompiledMapping | null>();
      let first: string | null = null;
      for (const [value, m] of Object.entries(entry.split.cases)) {
        if (!m) {
          cases.set(value, null);
          continue;
        }
        const c = { ...compileMapping(entry.from, m, index), split: { by: entry.split.by, value } };
        cases.set(value, c);
        target(c);
        first ??= c.to;
      }
      splits.set(entry.from, { by: entry.split.by, cases, index });
      if (first !== null) leak.tools[entry.from] = first;
    }
  });
  const named = (list: MigrationPlan['skills'], ids: string[], bIds: Set<string>, map: IdMap, leakMap: IdMap) => {
    const out = new Map<string, { to: string | null; index: number }>();
    list.forEach((e, index) => {
      out.set(e.from, { to: e.to, index });
      if (e.to !== null && e.to !== e.from) {
        map[e.from] = e.to;
        leakMap[e.from] = e.to;
      }
    });
    for (const id of ids) if (!out.has(id)) out.set(id, { to: bIds.has(id) ? id : null, index: -1 });
    const anyId = [...bIds][0];
    if (anyId !== undefined) for (const [from, e] of out) if (e.to === null && !bIds.has(from)) leakMap[from] = anyId;
    return out;
  };
  // The leak check looks for the old names of a plan's renames; a removed tool has no new name, so
  // it is listed as renamed to one of B's (never used to rewrite): a record that still mentions it
  // is caught like any other name of A alone.
  const anyB = b.tools.find((t) => !t.distractor)?.name;
  if (anyB !== undefined) for (const [name, e] of byFrom) if (!e.entry.map && !e.entry.split && !bNames.has(name)) leak.tools[name] = anyB;
  const skills = named(
    plan.skills,
    a.skills.map((s) => s.id),
    new Set(b.skills.map((s) => s.id)),
    rewrite.skills,
    leak.skills,
  );
  const hooks = named(
    plan.hooks,
    a.hooks.map((k) => k.id),
    new Set(b.hooks.map((k) => k.id)),
    rewrite.hooks,
    leak.hooks,
  );
  const back = (m: Map<string, { to: string | null }>) => {
    const out = new Map<string, string>();
    for (const [from, e] of m) if (e.to !== null) out.set(e.to, from);
    return out;
  };
  const edited = new Set<string>(splits.keys());
  for (const [from, e] of byFrom) if (e.mapping && (Object.keys(e.mapping.valuesB).length || Object.keys(e.mapping.fillB).length)) edited.add(from);
  return { plan, rewrite, leakPlan: leak, byFrom, splits, byTarget, skills, hooks, skillsBack: back(skills), hooksBack: back(hooks), edited };
}

function compileMapping(from: string, m: CallMapping, entry: number): CompiledMapping {
  // Rename paths are A's (below an unwrapped wrapper): each segment of a mapped path takes B's name.
  const paths: IdMap = dictionary();
  for (const [pa, pb] of Object.entries(m.params)) {
    if (pb === null) continue;
    const sa = pa.split('.');
    const sb = pb.split('.');
    if (sa.length !== sb.length) continue;
    for (let i = 0; i < sa.length; i++) if (sa[i] !== sb[i]) paths[sa.slice(0, i + 1).join('.')] = sb[i]!;
  }
  const rename: ArgOp[] = Object.keys(paths).length ? [{ op: 'rename', paths }] : [];
  let ops: ArgOp[] = rename;
  let wrapKey: string | null = null;
  if (m.shape && 'unwrap' in m.shape) ops = [{ op: 'unwrap', key: m.shape.unwrap }, ...rename];
  if (m.shape && 'wrap' in m.shape) {
    wrapKey = m.shape.wrap;
    ops = [...rename, { op: 'wrap', key: m.shape.wrap }];
  }
  const inverse = ops.length ? invertPlan({ ...emptyPlan(), args: { [from]: ops } }).args[from]! : [];
  const full = (p: string) => (wrapKey === null ? p : `${wrapKey}.${p}`);
  const valuesB: CompiledMapping['valuesB'] = {};
  for (const [pa, vm] of Object.entries(m.values)) {
    const pb = m.params[pa];
    if (pb === null || pb === undefined) continue;
    const forward: Record<string, string> = {};
    const back: Record<string, string> = {};
    for (const [x, y] of Object.entries(vm)) {
      if (y === null || x === y) continue;
      forward[x] = y;
      back[y] = x;
    }
    if (Object.keys(forward).length) valuesB[full(pb)] = { forward, back };
  }
  const fillB: Record<string, unknown> = {};
  for (const [p, v] of Object.entries(m.fill)) fillB[full(p)] = v;
  return { from, to: m.to, entry, mapping: m, ops, inverse, wrapKey, valuesB, fillB };
}

/**
 * The mapping that made a call of B tool `name`: the only one, or among tools merged into it the
 * one whose filled values the call's arguments hold.
 */
export function mappingFor(cp: CompiledPlan, name: string, args: unknown): CompiledMapping | undefined {
  const list = cp.byTarget.get(name);
  if (!list || list.length === 0) return undefined;
  if (list.length === 1) return list[0];
  return list.find((c) => Object.entries(c.fillB).every(([p, v]) => JSON.stringify(getPath(args, p)) === JSON.stringify(v)));
}
