import { fail, list, name, num, obj, optional, record, shownValid, str, type Obj } from '../util/strict-read.js';
import { PLAN_FORMAT } from './types.js';

/**
 * The plan file read by hand: the value the strict plan schema (plan-file.ts) gives for a plan it
 * accepts, or null for any plan it might not (then the schema reads it and words the problems).
 * Every object is rebuilt as zod rebuilds it: keys in the schema's order, absent optional keys left
 * out, defaults filled in as new objects, records and lists copied, `fill` values as they are.
 *
 * Why: the schema's first parse generates and compiles a parser per object shape, ~5 ms of every
 * `migrate apply` for a verdict this walk gives in well under one. Kept in step with planSchemaOf
 * by the differential test (test/migrate-plan-quick.test.ts). Typed by the caller (plan-file.ts's
 * `PlanFile` is the schema's type: importing it here would make the two files import each other).
 */
export function quickPlan(v: unknown): Obj | null {
  return shownValid(() => plan(v));
}

const nullableString = (v: unknown): string | null => (v === null ? null : str(v));
const info = [
  ['score', num],
  ['evidence', (x: unknown) => list(x, str)],
  ['records', num],
  ['stops', num],
] as const;

function shape(v: unknown): { wrap: string } | { unwrap: string } {
  const o = v as Obj;
  if (o !== null && typeof o === 'object' && 'wrap' in o) return { wrap: name(obj(v, ['wrap']).wrap) };
  return { unwrap: name(obj(v, ['unwrap']).unwrap) };
}

/** The mapping fields (shape, params, values, fill, needs) in the schema's order. */
function mapping(out: Obj, src: Obj): void {
  if ('shape' in src) out.shape = shape(src.shape);
  out.params = 'params' in src ? record(src.params, nullableString) : {};
  out.values = 'values' in src ? record(src.values, (x) => record(x, nullableString)) : {};
  out.fill = 'fill' in src ? record(src.fill, (x) => x) : {};
  out.needs = 'needs' in src ? list(src.needs, str) : [];
}

const CASE_KEYS = ['to', 'shape', 'params', 'values', 'fill', 'needs'];
function caseOf(v: unknown): Obj | null {
  if (v === null) return null;
  const src = obj(v, CASE_KEYS);
  const out: Obj = { to: name(src.to) };
  mapping(out, src);
  return out;
}

const TOOL_KEYS = ['from', 'to', 'split', ...CASE_KEYS.slice(1), 'score', 'evidence', 'records', 'stops'];
function tool(v: unknown): Obj {
  const src = obj(v, TOOL_KEYS);
  const out: Obj = { from: name(src.from) };
  if ('to' in src) out.to = src.to === null ? null : name(src.to);
  if ('split' in src) {
    const s = obj(src.split, ['by', 'cases']);
    out.split = { by: name(s.by), cases: record(s.cases, caseOf) };
  }
  mapping(out, src);
  optional(out, src, info);
  return out;
}

function named(v: unknown): Obj {
  const src = obj(v, ['from', 'to', 'score', 'evidence', 'records', 'stops']);
  if (!('to' in src)) fail();
  const out: Obj = { from: name(src.from), to: src.to === null ? null : name(src.to) };
  optional(out, src, info);
  return out;
}

function side(v: unknown): Obj {
  const src = obj(v, ['harness', 'version', 'path']);
  const out: Obj = { harness: str(src.harness), version: str(src.version) };
  optional(out, src, [['path', str]]);
  return out;
}

function section(v: unknown): Obj {
  const src = obj(v, ['from', 'to', 'score', 'evidence']);
  const out: Obj = { from: str(src.from), to: list(src.to, str) };
  optional(out, src, info.slice(0, 2));
  return out;
}

const KINDS = new Set(['tool', 'skill', 'hook']);
function proposal(v: unknown): Obj {
  const src = obj(v, ['kind', 'from', 'to', 'reason', 'model']);
  if (!KINDS.has(src.kind as string)) fail();
  return { kind: src.kind, from: str(src.from), to: str(src.to), reason: str(src.reason), model: str(src.model) };
}

function added(v: unknown): Obj {
  const src = obj(v, ['tools', 'skills', 'hooks', 'sections']);
  const out: Obj = {};
  for (const k of ['tools', 'skills', 'hooks', 'sections']) out[k] = k in src ? list(src[k], str) : [];
  return out;
}

const PLAN_KEYS = ['format', 'from', 'to', 'records', 'tools', 'skills', 'hooks', 'sections', 'added', 'proposals'];
function plan(v: unknown): Obj {
  const src = obj(v, PLAN_KEYS);
  if (src.format !== PLAN_FORMAT) fail();
  const out: Obj = { format: src.format, from: side(src.from), to: side(src.to) };
  optional(out, src, [['records', num]]);
  out.tools = 'tools' in src ? list(src.tools, tool) : [];
  out.skills = 'skills' in src ? list(src.skills, named) : [];
  out.hooks = 'hooks' in src ? list(src.hooks, named) : [];
  out.sections = 'sections' in src ? list(src.sections, section) : [];
  optional(out, src, [['added', added]]);
  out.proposals = 'proposals' in src ? list(src.proposals, proposal) : [];
  return out;
}
