import { ownMemo } from '../util/derived.js';
import { put } from '../util/copy.js';
import { dict, keyedObject } from '../util/dict.js';

/**
 * A rewrite plan carries a trajectory from one harness state to another: identifier maps
 * (original → final name) and, per tool, an ordered list of argument edits. Everything else a
 * trajectory shows (system prompt, tools, skill bodies, hook feedback) is re-rendered from the
 * target state, so the plan only holds what cannot be re-derived.
 *
 * Plans compose (`composePlans(a, b)` rewrites exactly like applying `a` then `b`) and every plan
 * has an inverse (`invertPlan`).
 */
export type IdMap = Record<string, string>;

export type ArgOp =
  /** Rename object keys: path of original key names (dots, arrays transparent) → new key name. */
  | { op: 'rename'; paths: IdMap }
  /** Wrap all arguments in one object under `key`. */
  | { op: 'wrap'; key: string }
  /** The inverse of wrap: arguments are `{key: {...}}`; lift the inner object. */
  | { op: 'unwrap'; key: string };

export interface RewritePlan {
  tools: IdMap;
  skills: IdMap;
  hooks: IdMap;
  sections: IdMap;
  /** Argument edits per tool, keyed by the tool's name in the plan's source state, in order. */
  args: Record<string, ArgOp[]>;
}

/**
 * Every name a plan renames away: tools, skills, hooks, and the leaf names of renamed parameters
 * (of any tool, distractors included). Text a transform generates must not spell them.
 */
export function renamedAwayNames(p: RewritePlan): Set<string> {
  const out = new Set<string>();
  for (const m of [p.tools, p.skills, p.hooks]) for (const [a, b] of Object.entries(m)) if (a !== b) out.add(a);
  for (const ops of Object.values(p.args)) {
    for (const op of ops)
      if (op.op === 'rename') for (const [path, leaf] of Object.entries(op.paths)) if (path.split('.').pop() !== leaf) out.add(path.split('.').pop()!);
  }
  return out;
}

/** An empty object for names as keys (an IdMap, a map per tool): `dict` of src/util/dict.ts. */
export const dictionary: <V = string>() => Record<string, V> = dict;

export function emptyPlan(): RewritePlan {
  return { tools: {}, skills: {}, hooks: {}, sections: {}, args: {} };
}

export function isIdentityPlan(p: RewritePlan): boolean {
  return (
    Object.keys(p.tools).length === 0 &&
    Object.keys(p.skills).length === 0 &&
    Object.keys(p.hooks).length === 0 &&
    Object.keys(p.sections).length === 0 &&
    Object.keys(p.args).length === 0
  );
}

export function mapId(map: IdMap, id: string): string {
  return Object.prototype.hasOwnProperty.call(map, id) ? map[id]! : id;
}

function composeMaps(a: IdMap, b: IdMap): IdMap {
  const out: IdMap = dictionary();
  const aTargets = new Set<string>();
  for (const [k, v] of Object.entries(a)) {
    aTargets.add(v);
    const final = mapId(b, v);
    if (final !== k) out[k] = final;
  }
  for (const [k, v] of Object.entries(b)) {
    // b's key was not produced by a: it is an original name a left alone (unless a moved it away).
    if (!aTargets.has(k) && !Object.prototype.hasOwnProperty.call(a, k) && v !== k) out[k] = v;
  }
  return out;
}

function invertMap(m: IdMap): IdMap {
  const out: IdMap = dictionary();
  for (const k of Object.keys(m)) out[m[k]!] = k;
  return out;
}

/** `a` then `b`, as one plan. */
export function composePlans(a: RewritePlan, b: RewritePlan): RewritePlan {
  // Most transforms change only the state: then the result is `a` without its identity entries,
  // which a composed plan (or an empty one) already is. Plans are never changed after they are made.
  if (isIdentityPlan(b) && !hasIdentityEntries(a)) return a;
  const args = dictionary<ArgOp[]>();
  for (const [tool, ops] of Object.entries(a.args)) args[tool] = [...ops];
  const aInverse = invertMap(a.tools);
  for (const [tool, ops] of Object.entries(b.args)) {
    const original = mapId(aInverse, tool);
    args[original] = [...(args[original] ?? []), ...ops];
  }
  return {
    tools: composeMaps(a.tools, b.tools),
    skills: composeMaps(a.skills, b.skills),
    hooks: composeMaps(a.hooks, b.hooks),
    sections: composeMaps(a.sections, b.sections),
    args,
  };
}

function hasIdentityEntries(p: RewritePlan): boolean {
  for (const m of [p.tools, p.skills, p.hooks, p.sections]) for (const k in m) if (m[k] === k) return true;
  for (const k in p.args) if (p.args[k]!.length === 0) return true;
  return false;
}

const INVERSE = Symbol('hsa.inverse');

/**
 * The plan that carries the target state's trajectories back to the source state. Plans are never
 * changed after they are made, so the inverse is computed once per plan object; callers must not
 * modify it.
 */
export function invertPlan(p: RewritePlan): RewritePlan {
  return ownMemo(INVERSE, p, () => computeInverse(p));
}

function computeInverse(p: RewritePlan): RewritePlan {
  const args = dictionary<ArgOp[]>();
  for (const [tool, ops] of Object.entries(p.args)) {
    args[mapId(p.tools, tool)] = [...ops].reverse().map(invertOp);
  }
  return {
    tools: invertMap(p.tools),
    skills: invertMap(p.skills),
    hooks: invertMap(p.hooks),
    sections: invertMap(p.sections),
    args,
  };
}

function invertOp(op: ArgOp): ArgOp {
  if (op.op === 'wrap') return { op: 'unwrap', key: op.key };
  if (op.op === 'unwrap') return { op: 'wrap', key: op.key };
  // Inverse renames are keyed by new paths: rename each ancestor segment too.
  const out: IdMap = dictionary();
  for (const path of Object.keys(op.paths)) {
    // A top-level key (most renames) has no ancestors to rename.
    if (!path.includes('.')) {
      out[op.paths[path]!] = path;
      continue;
    }
    const segs = path.split('.');
    const newSegs = segs.map((seg, i) => leafName(op.paths, segs.slice(0, i + 1).join('.'), seg));
    out[newSegs.join('.')] = segs[segs.length - 1]!;
  }
  return { op: 'rename', paths: out };
}

/** Apply a tool's argument edits to parsed arguments; returns a new object, key order kept. */
export function applyArgOps(args: unknown, ops: readonly ArgOp[]): unknown {
  let cur = args;
  for (const op of ops) {
    if (op.op === 'rename') cur = renameKeys(cur, op.paths, '');
    else if (op.op === 'wrap') cur = { [op.key]: cur };
    else if (isObject(cur) && isObject(cur[op.key]) && Object.keys(cur).length === 1) cur = cur[op.key];
  }
  return cur;
}

function renameKeys(value: unknown, paths: IdMap, prefix: string): unknown {
  if (Array.isArray(value)) return value.map((v) => renameKeys(v, paths, prefix));
  if (!isObject(value)) return value;
  const inner = innerPaths(paths);
  // (Keys are a record's own parameter names: a plain `{}` would make a hidden class per key.)
  const out = keyedObject();
  for (const k of Object.keys(value)) {
    const v = value[k];
    const path = prefix === '' ? k : `${prefix}.${k}`;
    // A value with no renamed path below it is taken as it is (values are never modified).
    // (put: an argument named __proto__ stays an own key, as JSON.parse made it.)
    put(
      out,
      Object.prototype.hasOwnProperty.call(paths, path) ? paths[path]! : k,
      v !== null && typeof v === 'object' && inner.has(path) ? renameKeys(v, paths, path) : v,
    );
  }
  return out;
}

const INNER = Symbol('hsa.innerPaths');

/** The paths that have a renamed path below them (`a` and `a.b` for `a.b.c`), once per map. */
function innerPaths(paths: IdMap): ReadonlySet<string> {
  // Renames of top-level keys only (the usual case) have none: no set, and nothing kept.
  let any = false;
  for (const p in paths) if (p.includes('.')) any = true;
  if (!any) return NO_PATHS;
  return ownMemo(INNER, paths, () => {
    const set = new Set<string>();
    for (const p of Object.keys(paths)) {
      const segs = p.split('.');
      for (let i = 1; i < segs.length; i++) set.add(segs.slice(0, i).join('.'));
    }
    return set;
  });
}

const NO_PATHS: ReadonlySet<string> = new Set();

/**
 * Net parameter renames per original tool (original path → final leaf name), when a tool's edits
 * are renames only; tools with shape edits are listed in `reshaped`. For previews and leak checks.
 */
export function netParamRenames(p: RewritePlan): NetParamRenames {
  return ownMemo(NET_RENAMES, p, () => computeNetParamRenames(p));
}

export interface NetParamRenames {
  params: Record<string, IdMap>;
  reshaped: string[];
}

/** Computed once per plan object (read-only for callers). */
const NET_RENAMES = Symbol('hsa.netParamRenames');

function computeNetParamRenames(p: RewritePlan): NetParamRenames {
  const params = dictionary<IdMap>();
  const reshaped: string[] = [];
  for (const [tool, ops] of Object.entries(p.args)) {
    if (ops.some((o) => o.op !== 'rename')) {
      reshaped.push(tool);
      continue;
    }
    if (ops.length === 1) {
      // One rename op (most tools): each named path ends as the op names it.
      const paths = (ops[0] as { paths: IdMap }).paths;
      const net: IdMap = dictionary();
      let any = false;
      for (const path of Object.keys(paths)) {
        const leaf = paths[path]!;
        const dot = path.lastIndexOf('.');
        if (leaf !== (dot < 0 ? path : path.slice(dot + 1))) {
          net[path] = leaf;
          any = true;
        }
      }
      if (any) params[tool] = net;
      continue;
    }
    // Track each original path through successive renames; a path an op names is matched to the
    // original whose current segments it equals, else it is an original not renamed before.
    const current = new Map<string, string[]>(); // original path → current segments
    for (const op of ops) {
      if (op.op !== 'rename') continue;
      const byCurrent = new Map<string, string>();
      for (const [orig, segs] of current) byCurrent.set(segs.join('.'), orig);
      for (const path of Object.keys(op.paths)) if (!byCurrent.has(path)) current.set(path, path.split('.'));
      for (const [orig, segs] of current) {
        current.set(
          orig,
          segs.map((seg, i) => leafName(op.paths, segs.slice(0, i + 1).join('.'), seg)),
        );
      }
    }
    const net: IdMap = dictionary();
    for (const [orig, segs] of current) {
      const leaf = segs[segs.length - 1]!;
      if (leaf !== orig.split('.').pop()) net[orig] = leaf;
    }
    if (Object.keys(net).length) params[tool] = net;
  }
  return { params, reshaped: reshaped.sort() };
}

/** The new name of the key at `path` under a rename op (its own name when not renamed). */
function leafName(paths: IdMap, path: string, own: string): string {
  return Object.prototype.hasOwnProperty.call(paths, path) ? paths[path]! : own;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
