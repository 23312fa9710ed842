import type { z } from 'zod';
import { HsaError } from '../errors.js';
import { describeIssue } from '../harness/schema.js';
import type { Harness, JsonSchema } from '../harness/types.js';
import { formatProblem, sortProblems, type Problem } from '../problems.js';
import { isParseFailure, parseLocated, yaml, type LocatedDoc, type ParseFailure } from '../util/located.js';
import { quickPlan } from './plan-quick.js';
import { zod } from '../util/zod.js';
import { PLAN_FORMAT, type CallMapping, type MigrationPlan, type ToolEntry } from './types.js';

/** A plan file that does not parse, has an unknown key, or names what its harnesses do not have. */
export class BadPlanError extends HsaError {
  readonly problems: Problem[];
  constructor(problems: Problem[]) {
    super('HSA_BAD_CONFIG', sortProblems(problems).map(formatProblem).join('\n'), 1);
    this.name = 'BadPlanError';
    this.problems = problems;
  }
}

const HEADER = `# hsa migrate plan — how harness A's tools, parameters, values, skills, hooks and prompt
# sections correspond to harness B's. Inferred by \`hsa migrate plan\`; edit it and commit it.
#   tools[].to: null        the tool is removed (its calls cannot be carried)
#   params: {a: b | null}   A's parameter → B's (null: B has none); paths below a shape's wrapper
#   values: {param: {a: b | null}}   enum values
#   needs: [p]              B requires p and A's calls have no value: move it to fill: {p: value}
#   split: {by, cases}      one A tool became several, chosen by the value of \`by\`
#   score, evidence, records, stops: what inference saw (read, never applied)
`;

/** The plan as YAML: a fixed key order, empty parts left out, scores with two decimals. */
export function planToYaml(plan: MigrationPlan): string {
  const tools = plan.tools.map((t) => {
    const out: Record<string, unknown> = { from: t.from };
    if (t.split) out.split = { by: t.split.by, cases: Object.fromEntries(Object.entries(t.split.cases).map(([v, c]) => [v, c ? mappingOut(c) : null])) };
    else if (t.map) Object.assign(out, mappingOut(t.map));
    else out.to = null;
    out.score = t.score;
    if (t.records !== undefined) out.records = t.records;
    if (t.stops !== undefined) out.stops = t.stops;
    out.evidence = t.evidence;
    return out;
  });
  const named = (es: MigrationPlan['skills']) =>
    es.map((e) => ({ from: e.from, to: e.to, score: e.score, ...(e.records !== undefined ? { records: e.records } : {}), evidence: e.evidence }));
  const doc: Record<string, unknown> = {
    format: plan.format,
    from: plan.from,
    to: plan.to,
    ...(plan.records !== undefined ? { records: plan.records } : {}),
    tools,
    skills: named(plan.skills),
    hooks: named(plan.hooks),
    sections: plan.sections.map((s) => ({ from: s.from, to: s.to, score: s.score, evidence: s.evidence })),
    added: plan.added,
    proposals: plan.proposals,
  };
  // (yaml is loaded on first use: `migrate apply` reads plans, never writes them.)
  return HEADER + yaml().stringify(doc, { lineWidth: 0, sortMapEntries: false, aliasDuplicateObjects: false });
}

function mappingOut(m: CallMapping): Record<string, unknown> {
  const out: Record<string, unknown> = { to: m.to };
  if (m.shape) out.shape = m.shape;
  out.params = m.params;
  if (Object.keys(m.values).length) out.values = m.values;
  if (Object.keys(m.fill).length) out.fill = m.fill;
  if (m.needs.length) out.needs = m.needs;
  return out;
}

// ---------------------------------------------------------------------------------------------
// reading

/** The plan file's schema; `strict` refuses unknown keys (a second, lenient pass still checks the rest). */
function planSchemaOf(strict: boolean) {
  const { z } = zod();
  const obj = <T extends z.ZodRawShape>(shape: T) => (strict ? z.strictObject(shape) : z.object(shape));
  const shapeSchema = z.union([obj({ wrap: z.string().min(1) }), obj({ unwrap: z.string().min(1) })]);
  const mappingFields = {
    shape: shapeSchema.optional(),
    params: z.record(z.string(), z.string().nullable()).default({}),
    values: z.record(z.string(), z.record(z.string(), z.string().nullable())).default({}),
    fill: z.record(z.string(), z.unknown()).default({}),
    needs: z.array(z.string()).default([]),
  };
  const caseSchema = obj({ to: z.string().min(1), ...mappingFields });
  const info = { score: z.number().optional(), evidence: z.array(z.string()).optional(), records: z.number().optional(), stops: z.number().optional() };
  const toolSchema = obj({
    from: z.string().min(1),
    to: z.string().min(1).nullable().optional(),
    split: obj({ by: z.string().min(1), cases: z.record(z.string(), caseSchema.nullable()) }).optional(),
    ...mappingFields,
    ...info,
  });
  const namedSchema = obj({ from: z.string().min(1), to: z.string().min(1).nullable(), ...info });
  const side = obj({ harness: z.string(), version: z.string(), path: z.string().optional() });
  return obj({
    format: z.literal(PLAN_FORMAT),
    from: side,
    to: side,
    records: z.number().optional(),
    tools: z.array(toolSchema).default([]),
    skills: z.array(namedSchema).default([]),
    hooks: z.array(namedSchema).default([]),
    sections: z.array(obj({ from: z.string(), to: z.array(z.string()), score: z.number().optional(), evidence: z.array(z.string()).optional() })).default([]),
    added: obj({
      tools: z.array(z.string()).default([]),
      skills: z.array(z.string()).default([]),
      hooks: z.array(z.string()).default([]),
      sections: z.array(z.string()).default([]),
    }).optional(),
    proposals: z.array(obj({ kind: z.enum(['tool', 'skill', 'hook']), from: z.string(), to: z.string(), reason: z.string(), model: z.string() })).default([]),
  });
}

// The schemas are built for the first plan the hand reading (plan-quick.ts) does not take: the
// strict one words the problems, the lenient one reads on past unknown keys to report them all.
let strictSchema: ReturnType<typeof planSchemaOf> | undefined;
let lenientSchema: ReturnType<typeof planSchemaOf> | undefined;
/** The strict plan schema (exported for the test that holds quickPlan to it). */
export const strictPlanSchema = () => (strictSchema ??= planSchemaOf(true));
const lenientPlanSchema = () => (lenientSchema ??= planSchemaOf(false));
export type PlanFile = z.infer<ReturnType<typeof planSchemaOf>>;
type CaseFile = NonNullable<NonNullable<PlanFile['tools'][number]['split']>['cases'][string]>;

/** Check a plan file (its text, or as parseLocated read it) against the two harnesses; every problem at once, each with its line and key. */
export function parsePlan(file: string, text: string | LocatedDoc | ParseFailure, a: Harness, b: Harness): MigrationPlan {
  // (Text, or the file as parseLocated read it already: the CLI reads the harness paths from it first.)
  const doc = typeof text === 'string' ? parseLocated(file, text) : text;
  if (isParseFailure(doc))
    throw new BadPlanError([{ file, ...(doc.line !== undefined ? { line: doc.line } : {}), path: '', message: doc.message, severity: 'error' }]);
  const problems: Problem[] = [];
  const v: PlanFile = (quickPlan(doc.value) as PlanFile | null) ?? readWithSchemas(doc, problems);
  const err = (path: (string | number)[], message: string) => problems.push(problem(doc, path, message));
  for (const [key, h] of [
    ['from', a],
    ['to', b],
  ] as const) {
    if (v[key].harness !== h.name || v[key].version !== h.version)
      err([key], `the plan is for ${v[key].harness} ${v[key].version}, the harness given is ${h.name} ${h.version}`);
  }
  const aTools = new Map(a.tools.map((t) => [t.name, t]));
  const bTools = new Map(b.tools.map((t) => [t.name, t]));
  const targets = new Map<string, { from: string; fill: Record<string, unknown>; where: (string | number)[] }[]>();
  const listed = new Set<string>();
  const tools: ToolEntry[] = v.tools.map((t, i) => {
    const at = ['tools', i];
    if (listed.has(t.from)) err([...at, 'from'], `tool "${t.from}" has an entry already`);
    listed.add(t.from);
    const aTool = aTools.get(t.from);
    if (!aTool) err([...at, 'from'], `tool "${t.from}" is not in harness A (${a.name} ${a.version})`);
    const checkMapping = (m: CaseFile, where: (string | number)[], drop?: string): CallMapping => {
      const bTool = bTools.get(m.to);
      if (!bTool) err([...where, 'to'], `tool "${m.to}" is not in harness B (${b.name} ${b.version})`);
      else targets.set(m.to, [...(targets.get(m.to) ?? []), { from: t.from, fill: m.fill, where: [...where, 'to'] }]);
      const aRoot = aTool ? below(aTool.parameters, m.shape && 'unwrap' in m.shape ? m.shape.unwrap : null) : null;
      const bRoot = bTool ? below(bTool.parameters, m.shape && 'wrap' in m.shape ? m.shape.wrap : null) : null;
      if (aTool && m.shape && 'unwrap' in m.shape && aRoot === null)
        err([...where, 'shape', 'unwrap'], `tool "${t.from}" of A has no object parameter "${m.shape.unwrap}" to unwrap`);
      if (bTool && m.shape && 'wrap' in m.shape && bRoot === null)
        err([...where, 'shape', 'wrap'], `tool "${m.to}" of B has no object parameter "${m.shape.wrap}" to wrap into`);
      for (const [pa, pb] of Object.entries(m.params)) {
        if (aRoot && !hasPath(aRoot, pa) && pa !== drop) err([...where, 'params', pa], `parameter "${pa}" is not a parameter of "${t.from}" in A`);
        if (bRoot && pb !== null && !hasPath(bRoot, pb)) err([...where, 'params', pa], `parameter "${pb}" is not a parameter of "${m.to}" in B`);
      }
      for (const p of Object.keys(m.fill)) if (bRoot && !hasPath(bRoot, p)) err([...where, 'fill', p], `parameter "${p}" is not a parameter of "${m.to}" in B`);
      for (const p of Object.keys(m.values)) if (!(p in m.params)) err([...where, 'values', p], `values for "${p}", which params does not map`);
      return { to: m.to, ...(m.shape ? { shape: m.shape } : {}), params: m.params, values: m.values, fill: m.fill, needs: m.needs };
    };
    const entry: ToolEntry = { from: t.from, score: t.score ?? 0, evidence: t.evidence ?? [] };
    if (t.split) {
      if (t.to !== undefined) err([...at, 'to'], 'a split tool has cases, not one "to"');
      if (aTool && !(t.split.by in ((aTool.parameters.properties as object | undefined) ?? {})))
        err([...at, 'split', 'by'], `"${t.split.by}" is not a parameter of "${t.from}" in A`);
      const cases: Record<string, CallMapping | null> = {};
      for (const [value, c] of Object.entries(t.split.cases)) cases[value] = c ? checkMapping(c, [...at, 'split', 'cases', value], t.split.by) : null;
      entry.split = { by: t.split.by, cases };
    } else if (t.to !== undefined && t.to !== null) {
      entry.map = checkMapping({ to: t.to, ...(t.shape ? { shape: t.shape } : {}), params: t.params, values: t.values, fill: t.fill, needs: t.needs }, at);
    } else if (t.to === undefined) err(at, `tool "${t.from}": give "to" (a tool of B, or null when it is removed) or "split"`);
    return entry;
  });
  // Several A tools may become one B tool (a merge) when each fills one parameter with its own
  // value: that value tells which A tool a B call maps back to.
  for (const [to, list] of targets) {
    if (list.length < 2) continue;
    const keys = Object.keys(list[0]!.fill).filter(
      (k) => list.every((e) => k in e.fill) && new Set(list.map((e) => JSON.stringify(e.fill[k]))).size === list.length,
    );
    if (keys.length === 0)
      err(
        list[1]!.where,
        `tool "${to}" is the target of ${list.map((e) => `"${e.from}"`).join(', ')}: merged tools must each fill one parameter with a value of its own`,
      );
  }
  const named = (list: typeof v.skills, key: 'skills' | 'hooks', ids: (h: Harness) => string[]) => {
    const inA = new Set(ids(a));
    const inB = new Set(ids(b));
    return list.map((e, i) => {
      if (!inA.has(e.from)) err([key, i, 'from'], `${key.slice(0, -1)} "${e.from}" is not in harness A`);
      if (e.to !== null && !inB.has(e.to)) err([key, i, 'to'], `${key.slice(0, -1)} "${e.to}" is not in harness B`);
      return { from: e.from, to: e.to, score: e.score ?? 0, evidence: e.evidence ?? [] };
    });
  };
  const skills = named(v.skills, 'skills', (h) => h.skills.map((s) => s.id));
  const hooks = named(v.hooks, 'hooks', (h) => h.hooks.map((k) => k.id));
  if (problems.length) throw new BadPlanError(problems);
  return {
    format: v.format,
    from: v.from,
    to: v.to,
    tools,
    skills,
    hooks,
    sections: v.sections.map((s) => ({ from: s.from, to: s.to, score: s.score ?? 0, evidence: s.evidence ?? [] })),
    added: { tools: v.added?.tools ?? [], skills: v.added?.skills ?? [], hooks: v.added?.hooks ?? [], sections: v.added?.sections ?? [] },
    proposals: v.proposals,
  };
}

/** The plan as the schemas read it: the strict one's problems are added to `problems`; throws when even the lenient one refuses it. */
function readWithSchemas(doc: LocatedDoc, problems: Problem[]): PlanFile {
  const strict = strictPlanSchema().safeParse(doc.value);
  if (!strict.success) {
    for (const issue of strict.error.issues) {
      const d = describeIssue(issue);
      // An unknown key is named by its own path (and line), not its parent's.
      const keyPath = issue.code === 'unrecognized_keys' ? [...d.path, issue.keys[0]!] : d.path;
      problems.push(problem(doc, keyPath, d.message));
    }
  }
  // Unknown keys aside, the plan is read on, so every problem is reported at once (a plan the strict
  // schema took has no unknown key: the lenient one would give the same value).
  const lenient = strict.success ? strict : lenientPlanSchema().safeParse(doc.value);
  if (!lenient.success) throw new BadPlanError(problems);
  return lenient.data;
}

function problem(doc: LocatedDoc, path: (string | number)[], message: string): Problem {
  const line = doc.lineOf(path);
  return { file: doc.file, ...(line !== undefined ? { line } : {}), path: path.join('.'), message, severity: 'error' };
}

/** The schema arguments are read in below an optional wrapper key (null when there is no such object). */
function below(schema: JsonSchema, key: string | null): JsonSchema | null {
  if (key === null) return schema;
  const inner = (schema.properties as Record<string, JsonSchema> | undefined)?.[key];
  return inner && inner.type === 'object' ? inner : null;
}

function hasPath(schema: JsonSchema, path: string): boolean {
  let cur: JsonSchema | undefined = schema;
  for (const seg of path.split('.')) {
    cur = (cur?.properties as Record<string, JsonSchema> | undefined)?.[seg];
    if (!cur) return false;
  }
  return true;
}
