import { restyleSection } from '../harness/markdown.js';
import { parseFeedback } from '../harness/feedback.js';
import type { Harness, JsonSchema } from '../harness/types.js';
import { schemaErrors } from '../util/json-schema.js';
import { toolSpellings } from '../harness/tools.js';
import { TextRewriter } from '../transform/text-rewriter.js';
import { dictionary, mapId, netParamRenames, type RewritePlan } from '../transform/plan.js';
import { declares, leafRenamesByTool, planOwners, PREAMBLE_NAME, propertyNames, textMap, textRewriterFor } from './rewrite.js';
import { discriminatorNames } from '../transform/schema-walk.js';
import { keysLeftUnrenamed, valueKeysLeftUnrenamed } from '../transform/unrenamed-keys.js';
import { distinctiveName, gluedNamePattern } from '../transform/state.js';
import { catalogText, renderRecordPrompt, renderTools, type RenderedPrompt } from '../harness/render.js';
import { userTextLayout } from '../harness/user-text-layout.js';
import { RenderError } from '../errors.js';
import { callArgs, NOT_JSON } from '../util/call-args.js';
import { getPath } from '../util/path.js';
import { ownMemo, pairMemo, schemaMemo } from '../util/derived.js';
import { textOf, type Trajectory } from './types.js';
import { clip } from '../util/clip.js';
import { checkBodies } from './body-check.js';
import { checkRules } from './rules-check.js';
import { checkRoundTrip } from './round-trip.js';

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * The checks every augmented record passes (DESIGN §5): calls valid against the record's tools,
 * no leaked old identifier, exact round trip, prompt rules kept. Each returns human-readable
 * failures; an empty list means the check passed.
 */
export interface CheckReport {
  calls: string[];
  leaks: string[];
  roundTrip: string[];
  rules: string[];
  /** Skill-body changes the plan does not explain (checkBodies). */
  bodies: string[];
}

export function checkVariant(
  source: Trajectory,
  augmented: Trajectory,
  plan: RewritePlan,
  from: Harness,
  to: Harness,
  opts: { roundTrip: boolean; rules: boolean },
): CheckReport {
  return {
    calls: checkCalls(augmented, to),
    leaks: checkLeaks(augmented, plan, from, to),
    roundTrip: opts.roundTrip ? checkRoundTrip(source, augmented, plan, from, to) : [],
    rules: opts.rules ? checkRules(from, to, plan) : [],
    bodies: checkBodies(from, to, plan),
  };
}

export function reportFailures(r: CheckReport): string[] {
  // (Almost every variant passes: no five mapped copies of empty lists.)
  if (r.calls.length + r.leaks.length + r.roundTrip.length + r.rules.length + r.bodies.length === 0) return [];
  return [
    ...r.calls.map((x) => `invalid call: ${x}`),
    ...r.leaks.map((x) => `leak: ${x}`),
    ...r.roundTrip.map((x) => `round trip: ${x}`),
    ...r.rules.map((x) => `rules: ${x}`),
    ...r.bodies.map((x) => `skill body: ${x}`),
  ];
}

/** Every tool call names a listed tool and its arguments validate against that tool's schema. */
export function checkCalls(rec: Trajectory, state: Harness): string[] {
  const schemas = rec.tools ? schemasOf(rec.tools) : stateSchemas(state);
  const out: string[] = [];
  rec.messages.forEach((m, i) => {
    if (m.role !== 'assistant' || !m.tool_calls) return;
    m.tool_calls.forEach((c, k) => {
      const where = () => `messages.${i}.tool_calls.${k}`;
      const schema = schemas.get(c.function.name);
      if (!schema) return void out.push(`${where()}: tool "${c.function.name}" is not in the record's tools`);
      const args = callArgs(c.function);
      if (args === NOT_JSON) return void out.push(`${where()}: arguments are not JSON`);
      for (const e of schemaErrors(schema, args)) out.push(`${where()}: ${e}`);
    });
  });
  return out;
}

// Tool name → schema, once per tool list (a state's list is one object for all its records).
const SCHEMAS = Symbol('hsa.schemas');

function schemasOf(tools: readonly { function: { name: string; parameters?: unknown } }[]): Map<string, JsonSchema> {
  return ownMemo(SCHEMAS, tools, () => {
    const map = new Map<string, JsonSchema>();
    for (const t of tools) map.set(t.function.name, (t.function.parameters ?? { type: 'object' }) as JsonSchema);
    return map;
  });
}

function stateSchemas(state: Harness): Map<string, JsonSchema> {
  return ownMemo(SCHEMAS, state, () => new Map(state.tools.map((t) => [t.name, t.parameters])));
}

/**
 * No renamed identifier survives in what the model reads: not as a tool, call, parameter,
 * skill-load or hook name, and not mentioned in the final text of any message — the system prompt
 * and preamble as rendered (restyled, with generated tags and headings), the tool list, assistant
 * text, skill bodies as loaded, hook feedback (any channel). Plain-word identifiers count only in
 * code spans and JSON keys, and in skill bodies only where the body refers to them (see
 * TextRewriter.referenceMentions); user words, tool data and context values are not checked.
 */
export function checkLeaks(rec: Trajectory, plan: RewritePlan, from: Harness, to: Harness): string[] {
  const lc = leakContext(plan, to);
  const out: string[] = [];

  // Structural places. The state's own tool list is checked once per state.
  const ownTools = rec.tools === undefined || rec.tools === renderTools(to);
  if (ownTools) out.push(...lc.stateTools);
  else
    out.push(
      ...toolListLeaks(
        rec.tools!.map((t) => ({ name: t.function.name, parameters: t.function.parameters ?? {} })),
        lc,
      ),
    );
  const prefix = to.hookMessages.namePrefix;
  const callSchemas = rec.tools ? schemasOf(rec.tools) : stateSchemas(to);
  rec.messages.forEach((m, i) => {
    if ((m.role === 'user' || m.role === 'system') && m.name?.startsWith(prefix) && lc.oldHooks.has(m.name.slice(prefix.length))) {
      out.push(`messages.${i}.name: old hook name "${m.name}"`);
    }
    if (m.role !== 'assistant' || !m.tool_calls) return;
    m.tool_calls.forEach((c, k) => {
      const where = () => `messages.${i}.tool_calls.${k}`;
      if (lc.oldTools.has(c.function.name)) out.push(`${where()}: old tool name "${c.function.name}"`);
      const renames = lc.keyRenamesByTool.get(c.function.name);
      const loads = to.skillLoader !== null && c.function.name === to.skillLoader.tool && lc.oldSkills.size > 0;
      if (!renames && !loads) return;
      const args = callArgs(c.function);
      if (args === NOT_JSON) return;
      // Position by position against the record's own schema (keysLeftUnrenamed): a key the
      // source's call carried where its schema does not declare it is data, left as written.
      if (renames)
        for (const key of keysLeftUnrenamed(args, callSchemas.get(c.function.name), (k) => renames.get(k))) out.push(`${where()}: old parameter "${key}"`);
      if (loads) {
        const v = getPath(args, to.skillLoader!.argument);
        if (typeof v === 'string' && lc.oldSkills.has(v)) out.push(`${where()}: loads old skill name "${v}"`);
      }
    });
  });

  // Free text, as the model reads it. What the state renders the same for every record (the
  // restyled prompt sections, the tool texts, skill bodies, feedback templates) is scanned once per
  // state and plan; a message that is exactly that rendering needs no scan of its own. Everything
  // else a record carries is scanned as it stands. Context values filled into the prompt are data,
  // like user words and tool results, and stay as written.
  const finder = leakFinder(plan, from, to);
  if (finder.text.size === 0) return out;
  out.push(...stateLeaks(to, finder));
  const scan = (i: number, text: string, body = false) => {
    const found = body ? finder.body.referenceMentions(text, 'record') : finder.text.mentions(text, 'record');
    for (const name of found) out.push(`messages.${i}: mentions old name "${name}"`);
  };
  if (!ownTools) {
    rec.tools!.forEach((t, k) => {
      for (const name of finder.text.mentions([t.function.description, ...schemaDescriptions(t.function.parameters ?? {})].join('\n'), 'record')) {
        out.push(`tools.${k}: mentions old name "${name}"`);
      }
    });
  }
  const rendered = rec.messages[0]?.role === 'system' ? statePrompt(to, rec) : undefined;
  const toolHooks = finder.toolHooks;
  const loaderCalls = new Map<string, string>();
  rec.messages.forEach((m, i) => {
    if (i === 0 && m.role === 'system' && !m.name?.startsWith(prefix)) {
      if (textOf(m.content) !== rendered?.system) scan(i, textOf(m.content));
    } else if (m.role === 'user' && m.name === PREAMBLE_NAME) {
      if (textOf(m.content) !== rendered?.preamble) scan(i, textOf(m.content));
    } else if (m.role === 'system' || m.role === 'developer') scan(i, textOf(m.content));
    else if (m.role === 'user' && m.name?.startsWith(prefix)) scan(i, textOf(m.content));
    else if (m.role === 'user' && typeof m.content === 'string' && to.userTexts !== undefined) {
      // Harness text in the first user turn (prompt.user_sections) is read like the prompt; the user's words around it are data.
      const layout = userTextLayout(m, m.content);
      if (layout) for (const t of layout.texts) scan(i, t);
    } else if (m.role === 'assistant') {
      scan(i, textOf(m.content));
      for (const c of m.tool_calls ?? []) {
        if (!to.skillLoader || c.function.name !== to.skillLoader.tool) continue;
        const v = getPath(callArgs(c.function), to.skillLoader.argument);
        loaderCalls.set(c.id, typeof v === 'string' ? v : '');
      }
    } else if (m.role === 'tool' && loaderCalls.has(m.tool_call_id)) {
      const body = to.skills.find((x) => x.id === loaderCalls.get(m.tool_call_id))?.body;
      const content = textOf(m.content);
      if (content !== body) scan(i, content, true);
    } else if (m.role === 'tool' && toolHooks.length > 0) {
      // Feedback a tool-channel hook wrote in place of a result.
      const content = textOf(m.content);
      if (toolHooks.some((k) => parseFeedback(k.feedback, content) !== null)) scan(i, content);
    }
  });
  return out;
}

/**
 * The state's rendering of a record's prompt (its own layout: located sections, text around), or
 * undefined when it cannot be rendered — an output record read back without its context — and the
 * whole message is then scanned as it stands.
 */
function statePrompt(to: Harness, rec: Trajectory): RenderedPrompt | undefined {
  try {
    return renderRecordPrompt(to, rec);
  } catch (e) {
    if (e instanceof RenderError) return undefined;
    throw e;
  }
}

interface LeakContext {
  oldTools: Set<string>;
  oldSkills: Set<string>;
  oldHooks: Set<string>;
  inverseTools: Record<string, string>;
  params: Record<string, Record<string, string>>;
  /** Per current tool name: its parameters renamed (leaf names, old → new), reshaped tools included. */
  keyRenamesByTool: Map<string, Map<string, string>>;
  /** Leaks in the state's own tool list. */
  stateTools: string[];
  /** Old distinctive tool names as found glued to a word in a title (`name_shrimpArguments`). */
  gluedOldTools: (readonly [string, RegExp])[];
}

const LEAK_CONTEXT = Symbol('hsa.leakContext');

/** What the leak check needs of a plan and its target state, worked out once per pair. */
function leakContext(plan: RewritePlan, to: Harness): LeakContext {
  return pairMemo(LEAK_CONTEXT, plan, to, () => computeLeakContext(plan, to));
}

function computeLeakContext(plan: RewritePlan, to: Harness): LeakContext {
  const gone = (map: Record<string, string>) => {
    const out = new Set<string>();
    for (const a of Object.keys(map)) if (a !== map[a] && !declares(to, a)) out.add(a);
    return out;
  };
  const inverseTools = dictionary();
  for (const a of Object.keys(plan.tools)) inverseTools[plan.tools[a]!] = a;
  const { params } = netParamRenames(plan);
  const keyRenamesByTool = new Map<string, Map<string, string>>();
  const leaves = leafRenamesByTool(plan);
  for (const original of Object.keys(leaves)) {
    const net = leaves[original]!;
    const renamed = new Map<string, string>();
    for (const a of Object.keys(net)) if (a !== net[a]) renamed.set(a, net[a]!);
    if (renamed.size > 0) keyRenamesByTool.set(mapId(plan.tools, original), renamed);
  }
  const oldTools = gone(plan.tools);
  // (Patterns without the global flag: `test` then keeps no position between calls.)
  const gluedOldTools = [...oldTools].filter(distinctiveName).map((n) => [n, new RegExp(gluedNamePattern(n).source)] as const);
  const lc: LeakContext = {
    oldTools,
    oldSkills: gone(plan.skills),
    oldHooks: gone(plan.hooks),
    inverseTools,
    params,
    keyRenamesByTool,
    stateTools: [],
    gluedOldTools,
  };
  lc.stateTools = toolListLeaks(to.tools, lc);
  return lc;
}

function toolListLeaks(tools: readonly { name: string; parameters: unknown }[], lc: LeakContext): string[] {
  const out: string[] = [];
  for (const t of tools) {
    if (lc.oldTools.has(t.name)) out.push(`tools: old tool name "${t.name}"`);
    if (lc.gluedOldTools.length > 0) {
      for (const title of schemaTitles(t.parameters))
        for (const [old, re] of lc.gluedOldTools) if (re.test(title)) out.push(`tools.${t.name}: title "${clip(title)}" spells old tool name "${old}"`);
    }
    const renamed = lc.params[mapId(lc.inverseTools, t.name)];
    if (renamed === undefined) continue;
    const paths = Object.keys(renamed);
    if (paths.length === 0) continue;
    const now = propertyNames(t.parameters);
    const discriminators = discriminatorNames(t.parameters);
    const leaves = new Map<string, string>();
    for (const path of paths) {
      const old = lastSegment(path);
      const leaf = renamed[path];
      if (old === leaf || paths.some((p) => renamed[p] === old)) continue;
      if (leaf !== undefined) leaves.set(old, lastSegment(leaf));
      if (now.includes(old)) out.push(`tools.${t.name}: old parameter "${old}"`);
      // A union's discriminator that still names the property by its old name.
      else if (discriminators.includes(old)) out.push(`tools.${t.name}: discriminator names old parameter "${old}"`);
    }
    // Objects of `default`/`examples`/`const`/`enum` values keyed by an old name where the schema declares the new one.
    if (leaves.size > 0)
      for (const left of valueKeysLeftUnrenamed(t.parameters, (k) => leaves.get(k)))
        out.push(`tools.${t.name}: ${left.replace(/: (.*)$/, ' value keeps old parameter "$1"')}`);
  }
  return out;
}

/** The last segment of a dotted parameter path (`a.b.c` → `c`). */
function lastSegment(path: string): string {
  const i = path.lastIndexOf('.');
  return i < 0 ? path : path.slice(i + 1);
}

interface LeakFinder {
  /** Old names under the text rules (prompt, tool texts, assistant text, feedback). */
  text: TextRewriter;
  /** The same names under the reference rules of skill bodies (made on first use). */
  readonly body: TextRewriter;
  /** Leaks in what the state renders the same for every record (computed on first use). */
  state?: string[];
  /** The target state's hooks that answer on the tool channel (their feedback stands in for a result). */
  toolHooks: Harness['hooks'];
}

const LEAK_FINDER = Symbol('hsa.leakFinder');

/** Old identifiers that must not be mentioned any more (renamed, and not a current name again). */
export function leakFinder(plan: RewritePlan, from: Harness, to: Harness): LeakFinder {
  return pairMemo(LEAK_FINDER, plan, to, () => computeLeakFinder(plan, from, to));
}

function computeLeakFinder(plan: RewritePlan, from: Harness, to: Harness): LeakFinder {
  const map = textMap(plan, from);
  const textOld = dictionary();
  let all = true;
  for (const a of Object.keys(map)) {
    if (!declares(to, a)) textOld[a] = map[a]!;
    else all = false;
  }
  let body: TextRewriter | undefined;
  const finder: LeakFinder = {
    // When no old name is a current one, the names are the text map's: its rewriter (and what it
    // has learnt of texts) serves.
    text: all ? textRewriterFor(plan, from) : new TextRewriter(textOld, undefined, () => toolSpellings(from)),
    // Only states with skills (or records that load one) read skill bodies.
    get body() {
      return (body ??= new TextRewriter(textOld, planOwners(plan, from, Object.keys(textOld)), () => toolSpellings(from)));
    },
    toolHooks: to.hooks.filter((k) => k.channel === 'tool'),
  };
  return finder;
}

/**
 * Mentions of old names in the final text of everything a state renders the same for every record
 * (once per state and plan): each prompt section as rendered — restyled, with the tags, headings
 * and markers a transform generated, template slots left out —, the section separator, the tool
 * list's texts, skill bodies and hook feedback templates.
 */
function stateLeaks(to: Harness, finder: LeakFinder): string[] {
  if (finder.state) return finder.state;
  const out: string[] = [];
  const scan = (where: string, text: string) => {
    for (const name of finder.text.mentions(text)) out.push(`${where}: mentions old name "${name}"`);
  };
  for (const s of to.sections) {
    const text = s.kind === 'catalog' ? catalogText(to) : s.text;
    scan(`prompt.${s.id}`, to.promptStyle ? restyleSection(text, to.promptStyle) : text);
  }
  scan('prompt.separator', to.promptStyle?.separator ?? to.separator);
  for (const t of to.tools) {
    scan(`tools.${t.name}.description`, t.description);
    scan(`tools.${t.name}.parameters`, descriptionText(t.parameters));
  }
  for (const k of to.skills) for (const name of finder.body.referenceMentions(k.body)) out.push(`skills.${k.id}.body: mentions old name "${name}"`);
  for (const h of to.hooks) scan(`hooks.${h.id}.feedback`, h.feedback);
  finder.state = out;
  return out;
}

const DESCRIPTIONS = Symbol('hsa.descriptions');

/** A schema's descriptions and titles, one a line, kept by schema object (shared by a record's variants). */
function descriptionText(schema: unknown): string {
  if (schema === null || typeof schema !== 'object') return '';
  return schemaMemo(DESCRIPTIONS, schema, () => schemaDescriptions(schema).join('\n'));
}

function schemaDescriptions(schema: unknown): string[] {
  const out: string[] = [];
  walkDescriptions(schema, out);
  return out;
}

function walkDescriptions(s: unknown, out: string[]): void {
  if (s === null || typeof s !== 'object') return;
  if (Array.isArray(s)) {
    for (const x of s) walkDescriptions(x, out);
    return;
  }
  const o = s as Record<string, unknown>;
  // (for…in, not Object.keys: no key array per node; schema nodes have no inherited enumerable keys to skip.)
  for (const k in o) {
    if (!hasOwn.call(o, k)) continue;
    const v = o[k];
    if ((k === 'description' || k === 'title') && typeof v === 'string') out.push(v);
    else if (k !== 'enum' && k !== 'const' && k !== 'default' && k !== 'examples') walkDescriptions(v, out);
  }
}

const TITLES = Symbol('hsa.schemaTitles');

/** The `title` strings of a schema (not inside `default`/`examples`/`const`/`enum` values), once per schema object. */
function schemaTitles(schema: unknown): readonly string[] {
  if (schema === null || typeof schema !== 'object') return [];
  return schemaMemo(TITLES, schema, () => collectTitles(schema));
}

function collectTitles(s: unknown, out: string[] = []): string[] {
  if (s === null || typeof s !== 'object') return out;
  if (Array.isArray(s)) {
    for (const x of s) collectTitles(x, out);
    return out;
  }
  const o = s as Record<string, unknown>;
  for (const k in o) {
    if (!hasOwn.call(o, k)) continue;
    const v = o[k];
    if (k === 'title' && typeof v === 'string') out.push(v);
    else if (k !== 'enum' && k !== 'const' && k !== 'default' && k !== 'examples') collectTitles(v, out);
  }
  return out;
}
