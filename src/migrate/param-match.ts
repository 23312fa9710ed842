import type { JsonSchema } from '../harness/types.js';
import { cmp } from '../problems.js';
import { nameSimilarity, round2, textSimilarity } from './similarity.js';
import type { ParamMap, Shape, ValueMap } from './types.js';

// Matching the parameters of two tool schemas (by name, description, type and shape) and the
// values of their enums, for `hsa migrate`'s plan inference.

/** Below this two parameters are not the same parameter (unless they are the only ones left). */
const PARAM_THRESHOLD = 0.45;

/** A parameter mapping between two schemas: score, shape edit, parameter and value maps, what it needs, evidence. */
export interface ParamResult {
  score: number;
  shape?: Shape;
  params: ParamMap;
  values: ValueMap;
  needs: string[];
  evidence: string[];
}

/** The parameter mapping under no shape edit, unwrapping A's wrapper or wrapping in B's: the best of them. */
export function bestParams(sa: JsonSchema, sb: JsonSchema): ParamResult {
  const options: ParamResult[] = [mapObject(sa, sb)];
  const wa = wrapperKey(sa);
  const wb = wrapperKey(sb);
  if (wa !== null && wb === null) {
    const r = mapObject(props(sa)[wa]!, sb);
    options.push({
      ...r,
      shape: { unwrap: wa },
      evidence: [`shape: A's parameters sit under "${wa}", B's at the top (unwrap, exact inverse wrap)`, ...r.evidence],
    });
  }
  if (wb !== null && wa === null) {
    const r = mapObject(sa, props(sb)[wb]!);
    options.push({
      ...r,
      shape: { wrap: wb },
      evidence: [`shape: B's parameters sit under "${wb}", A's at the top (wrap, exact inverse unwrap)`, ...r.evidence],
    });
  }
  // A shape edit must do clearly better than none (ties keep the plain mapping).
  let best = options[0]!;
  for (const o of options.slice(1)) if (o.score > best.score + 0.05) best = o;
  return best;
}

/** A schema's `properties` (empty when it has none). */
export function props(s: unknown): Record<string, JsonSchema> {
  const p = (s as JsonSchema | undefined)?.properties;
  return p && typeof p === 'object' && !Array.isArray(p) ? (p as Record<string, JsonSchema>) : {};
}

/** A schema's `required` names. */
export function requiredOf(s: JsonSchema): string[] {
  return Array.isArray(s.required) ? (s.required as unknown[]).filter((x): x is string => typeof x === 'string') : [];
}

/** The key of a schema whose only (required) property is an object with properties: a wrapper. */
function wrapperKey(s: JsonSchema): string | null {
  const keys = Object.keys(props(s));
  if (keys.length !== 1) return null;
  const inner = props(s)[keys[0]!]!;
  return inner.type === 'object' && Object.keys(props(inner)).length > 0 && requiredOf(s).includes(keys[0]!) ? keys[0]! : null;
}

function typeOf(s: JsonSchema): string {
  if (Array.isArray(s.type)) return [...(s.type as string[])].sort().join('|');
  if (typeof s.type === 'string') return s.type;
  if (Array.isArray(s.enum)) return 'enum';
  return '';
}

/**
 * Types a value can keep across versions: equal ones, an unknown one, and number ↔ integer (a call's
 * value either validates under B's type or the record is stopped by the check under B).
 */
function compatibleTypes(ta: string, tb: string): boolean {
  if (ta === '' || tb === '' || ta === tb) return true;
  const numeric = new Set(['number', 'integer']);
  return numeric.has(ta) && numeric.has(tb);
}

/** A schema's string `enum`, or null. */
export function enumOf(s: JsonSchema): string[] | null {
  return Array.isArray(s.enum) && s.enum.every((v) => typeof v === 'string') ? s.enum : null;
}

/** Match two object schemas' properties (recursively into objects both sides have). */
export function mapObject(sa: JsonSchema, sb: JsonSchema, prefixA = '', prefixB = ''): ParamResult {
  const pa = props(sa);
  const pb = props(sb);
  const ka = Object.keys(pa);
  const kb = Object.keys(pb);
  const params: ParamMap = {};
  const values: ValueMap = {};
  const evidence: string[] = [];
  const needs: string[] = [];
  const pairs: { x: string; y: string; s: number; why: string }[] = [];
  for (const x of ka) {
    for (const y of kb) {
      if (!compatibleTypes(typeOf(pa[x]!), typeOf(pb[y]!))) continue;
      const n = nameSimilarity(x, y);
      const d = textSimilarity(String(pa[x]!.description ?? ''), String(pb[y]!.description ?? ''));
      const s = 0.5 * n + 0.3 * d + 0.2;
      if (s >= PARAM_THRESHOLD) pairs.push({ x, y, s, why: x === y ? 'same name' : `name ${round2(n)}, description ${round2(d)}` });
    }
  }
  pairs.sort((p, q) => q.s - p.s || cmp(p.x, q.x) || cmp(p.y, q.y));
  const usedA = new Set<string>();
  const usedB = new Set<string>();
  let total = 0;
  const take = (x: string, y: string, s: number, why: string) => {
    usedA.add(x);
    usedB.add(y);
    total += s;
    params[prefixA + x] = prefixB + y;
    if (x !== y) evidence.push(`parameter ${prefixA + x} → ${prefixB + y} (${why})`);
  };
  for (const p of pairs) if (!usedA.has(p.x) && !usedB.has(p.y)) take(p.x, p.y, p.s, p.why);
  // One parameter left on each side, of the same type: the same parameter under a new name.
  const leftA = ka.filter((x) => !usedA.has(x));
  const leftB = kb.filter((y) => !usedB.has(y));
  if (leftA.length === 1 && leftB.length === 1 && typeOf(pa[leftA[0]!]!) !== '' && compatibleTypes(typeOf(pa[leftA[0]!]!), typeOf(pb[leftB[0]!]!))) {
    take(leftA[0]!, leftB[0]!, 0.5, 'the only parameter left on each side, same type');
  }
  for (const x of ka) {
    const y = params[prefixA + x];
    if (y === undefined || y === null) {
      params[prefixA + x] = null;
      evidence.push(`parameter ${prefixA + x}: no counterpart in B (a call that sets it cannot be carried)`);
      continue;
    }
    const ya = y.slice(prefixB.length);
    const ea = enumOf(pa[x]!);
    const eb = enumOf(pb[ya]!);
    if (ea && eb) {
      const vm = matchValues(ea, eb);
      if (Object.keys(vm.map).length > 0) {
        values[prefixA + x] = vm.map;
        evidence.push(...vm.evidence.map((e) => `parameter ${prefixA + x}: ${e}`));
      }
    }
    if (pa[x]!.type === 'object' && pb[ya]!.type === 'object' && (Object.keys(props(pa[x])).length > 0 || Object.keys(props(pb[ya])).length > 0)) {
      const inner = mapObject(pa[x]!, pb[ya]!, `${prefixA}${x}.`, `${y}.`);
      Object.assign(params, inner.params);
      Object.assign(values, inner.values);
      evidence.push(...inner.evidence);
      needs.push(...inner.needs);
    }
  }
  for (const y of requiredOf(sb)) {
    if (!usedB.has(y) && y in pb) {
      needs.push(prefixB + y);
      evidence.push(`parameter ${prefixB + y}: new and required in B, A's calls have no value for it`);
    }
  }
  const score = ka.length === 0 && kb.length === 0 ? 1 : total / Math.max(ka.length, kb.length);
  // In A's parameter order (nested paths after their parent), not the order matches were made in.
  const ordered: ParamMap = {};
  for (const x of ka) for (const k of Object.keys(params)) if (k === prefixA + x || k.startsWith(`${prefixA}${x}.`)) ordered[k] = params[k]!;
  return { score, params: ordered, values, needs, evidence };
}

/** Enum values: equal ones, then the most similar, then the one left on each side. */
function matchValues(ea: readonly string[], eb: readonly string[]): { map: Record<string, string | null>; evidence: string[] } {
  const map: Record<string, string | null> = {};
  const evidence: string[] = [];
  const leftB = eb.filter((v) => !ea.includes(v));
  const leftA = ea.filter((v) => !eb.includes(v));
  const pairs: { x: string; y: string; s: number }[] = [];
  for (const x of leftA)
    for (const y of leftB) {
      const s = nameSimilarity(x, y);
      if (s >= 0.5) pairs.push({ x, y, s });
    }
  pairs.sort((p, q) => q.s - p.s || cmp(p.x, q.x) || cmp(p.y, q.y));
  const used = new Set<string>();
  for (const p of pairs) {
    if (p.x in map || used.has(p.y)) continue;
    map[p.x] = p.y;
    used.add(p.y);
    evidence.push(`value "${p.x}" → "${p.y}" (name ${round2(p.s)})`);
  }
  const restA = leftA.filter((x) => !(x in map));
  const restB = leftB.filter((y) => !used.has(y));
  if (restA.length === 1 && restB.length === 1) {
    map[restA[0]!] = restB[0]!;
    evidence.push(`value "${restA[0]!}" → "${restB[0]!}" (the only value left on each side)`);
  } else {
    for (const x of restA) {
      map[x] = null;
      evidence.push(`value "${x}": no counterpart in B`);
    }
  }
  return { map, evidence };
}

/**
 * The values a mode parameter takes: its enum (or oneOf of consts), else the options its
 * description lists one per line (`- 'add' - …`, `1. get - …`), as MCP servers write them.
 */
export function optionValues(s: JsonSchema): string[] | null {
  const e = enumOf(s);
  if (e) return e;
  if (Array.isArray(s.oneOf) && s.oneOf.every((x) => x && typeof x === 'object' && typeof (x as { const?: unknown }).const === 'string'))
    return (s.oneOf as { const: string }[]).map((x) => x.const);
  if (s.type !== 'string' || typeof s.description !== 'string') return null;
  const out: string[] = [];
  for (const m of s.description.matchAll(/^[ \t]*(?:[-*•]|\d+[.)])[ \t]*(['"`]?)([A-Za-z_][A-Za-z0-9_-]*)\1[ \t]*[-:–—]/gm))
    if (!out.includes(m[2]!)) out.push(m[2]!);
  return out.length >= 2 ? out : null;
}
