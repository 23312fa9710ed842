import type { Harness, HookCheck, JsonSchema } from '../harness/types.js';
import { toolSpellings } from '../harness/tools.js';
import { TextRewriter } from './text-rewriter.js';
import { dict } from '../util/dict.js';
import { mapId, type IdMap } from './plan.js';
import { ownMemo, schemaMemo } from '../util/derived.js';

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * A copy of a harness state that a transform may edit: every section, skill, tool and hook object
 * (and their lists) is new. JSON Schemas (`tool.parameters`) and annotations are shared between
 * states: transforms replace them, never mutate them in place.
 */
export function cloneState(h: Harness): Harness {
  return {
    ...h,
    sections: h.sections.map((s) => ({ ...s })),
    pinned: [...h.pinned],
    unordered: [...h.unordered],
    catalog: { ...h.catalog },
    variables: { ...h.variables },
    skillLoader: h.skillLoader ? { ...h.skillLoader } : null,
    skills: h.skills.map((s) => ({ ...s, tools: [...s.tools], extra: { ...s.extra } })),
    tools: h.tools.map((t) => ({ ...t })),
    hooks: h.hooks.map((k) => ({ ...k, checks: k.checks.map((c) => ({ ...c })), ...(k.matcher ? { matcher: [...k.matcher] } : {}) })),
    hookMessages: { ...h.hookMessages },
    promptStyle: h.promptStyle ? { ...h.promptStyle } : null,
  };
}

/**
 * A new state object that shares every list and object with `h`, laid out key for key as
 * cloneState lays out its copy (the same JSON, so the same state hash), for transforms that replace
 * what they change (a list, a tool, the prompt style) instead of editing a copy of everything. What
 * it shares must not be edited: replace it.
 */
export function shallowState(h: Harness): Harness {
  return {
    ...h,
    sections: h.sections,
    pinned: h.pinned,
    unordered: h.unordered,
    catalog: h.catalog,
    variables: h.variables,
    skillLoader: h.skillLoader ? h.skillLoader : null,
    skills: h.skills,
    tools: h.tools,
    hooks: h.hooks,
    hookMessages: h.hookMessages,
    promptStyle: h.promptStyle ? h.promptStyle : null,
  };
}

/**
 * Apply identifier renames to a whole harness state: names, every reference to them (skill tool
 * lists, loader, hook matchers and checks, schemas) and every free-text mention (prompt sections,
 * catalog intro, skill bodies and descriptions, tool descriptions, hook feedback templates).
 */
export function renameInState(
  h: Harness,
  maps: { tools?: IdMap; skills?: IdMap; hooks?: IdMap; text?: IdMap; owners?: Readonly<Record<string, readonly string[]>> },
): Harness {
  const tools = maps.tools ?? {};
  const skills = maps.skills ?? {};
  const hooks = maps.hooks ?? {};
  // One map of every rename, later ones winning (a Map: its keys are this record's names).
  const all = new Map<string, string>();
  for (const m of [maps.text ?? {}, sourceSpellings(h, tools), tools, skills, hooks]) for (const k of Object.keys(m)) all.set(k, m[k]!);
  const text = new TextRewriter(all, parameterOwners(h, Object.keys(maps.text ?? {}), maps.owners), () => toolSpellings(h));
  const out = cloneState(h);
  // Texts repeat within a state (parameter descriptions across tools): each is rewritten once.
  const done = new Map<string, string>();
  const t = (s: string) => {
    let r = done.get(s);
    if (r === undefined) done.set(s, (r = text.rewrite(s)));
    return r;
  };
  for (const s of out.sections) s.text = t(s.text);
  if (out.catalog.intro !== undefined) out.catalog.intro = t(out.catalog.intro);
  out.catalog.title = t(out.catalog.title);
  for (const s of out.skills) {
    s.id = mapId(skills, s.id);
    s.description = t(s.description);
    // A body is about other things too: plain words only where it refers to the element.
    s.body = text.rewriteReferences(s.body);
    s.tools = s.tools.map((x) => mapId(tools, x));
  }
  // A title may glue a renamed tool's name to a word (FastMCP's `name_shrimpArguments`): the name follows there too.
  const glued = gluedToolNames(h, tools);
  const title = glued ? (s: string) => glued(t(s)) : t;
  for (const tool of out.tools) {
    tool.name = mapId(tools, tool.name);
    tool.description = t(tool.description);
    tool.parameters = rewriteSchemaText(tool.parameters, t, title) as JsonSchema;
  }
  if (out.skillLoader) {
    out.skillLoader.tool = mapId(tools, out.skillLoader.tool);
    // A loader whose argument lists the skill names (enum/const) must list the new names.
    if (Object.keys(skills).length > 0) {
      const loader = out.tools.find((x) => x.name === out.skillLoader!.tool);
      if (loader) loader.parameters = mapLoaderEnum(loader.parameters, out.skillLoader.argument.split('.'), skills) as JsonSchema;
    }
  }
  for (const hook of out.hooks) {
    hook.id = mapId(hooks, hook.id);
    if (hook.matcher) hook.matcher = hook.matcher.map((x) => mapId(tools, x));
    hook.checks = hook.checks.map((c): HookCheck => (c.type === 'require_tool' ? { ...c, tools: c.tools.map((x) => mapId(tools, x)) } : c));
    hook.feedback = t(hook.feedback);
    if (hook.description !== undefined) hook.description = t(hook.description);
  }
  return out;
}

/**
 * A distinctive identifier (with `_`, `-`, a digit or an inner capital: DESIGN "Leak scope") glued
 * at its end to a capitalised word, as a model's title names the tool it was made for (FastMCP
 * titles a tool's argument model `<tool name>Arguments`). A whole-token mention is the text
 * rewriter's; this finds the name inside such a longer identifier.
 */
export function gluedNamePattern(name: string): RegExp {
  return new RegExp(`(?<![A-Za-z0-9_-])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?=[A-Z])`, 'g');
}

/** Whether a name is distinctive (DESIGN "Leak scope"): `_`, `-`, a digit or an inner capital. */
export function distinctiveName(name: string): boolean {
  return /[_\-0-9]|[a-z][A-Z]/.test(name);
}

/** A rewrite of renamed distinctive tool names glued to a capitalised word (see gluedNamePattern), or undefined when no tool is renamed. */
function gluedToolNames(h: Harness, tools: IdMap): ((s: string) => string) | undefined {
  const names = Object.keys(tools).filter((n) => tools[n] !== n && distinctiveName(n) && h.tools.some((t) => t.name === n));
  if (names.length === 0) return undefined;
  // Longer names first, so a name inside a longer renamed one is not taken for it.
  const rules = names.sort((a, b) => b.length - a.length || (a < b ? -1 : 1)).map((n) => [n, gluedNamePattern(n), tools[n]!] as const);
  return (s) => {
    let out = s;
    // (A text without the name has nothing to match: most texts are looked at without a regexp.)
    for (const [name, re, to] of rules) if (out.includes(name)) out = out.replace(re, () => to);
    return out;
  };
}

/**
 * Renamed tools whose source name OpenAI does not allow (`plants.find_by_zone`, given the safe name
 * `plants_find_by_zone`): texts written for the source spell them that way, so that spelling is
 * renamed too (source name → new name).
 */
function sourceSpellings(h: Harness, tools: IdMap): Record<string, string> {
  const out = dict();
  // (A parameter rename renames no tool: no lookup of every tool's name in an empty map.)
  if (Object.keys(tools).length === 0) return out;
  for (const t of h.tools) {
    const to = tools[t.name];
    if (to !== undefined && t.sourceName !== t.name && !h.tools.some((o) => o.name === t.sourceName)) out[t.sourceName] = to;
  }
  return out;
}

/**
 * For parameter names (`text` keys of a rename): the names of the tools that have them in `h`,
 * plus any further spellings given (a tool's source name, when a rename already changed it).
 */
export function parameterOwners(h: Harness, params: readonly string[], extra?: Readonly<Record<string, readonly string[]>>): Map<string, Set<string>> {
  const owners = new Map<string, Set<string>>();
  for (const p of params) {
    const set = new Set<string>(extra?.[p] ?? []);
    for (const t of h.tools) if (schemaPropertyNames(t.parameters).includes(p)) set.add(t.name);
    owners.set(p, set);
  }
  return owners;
}

/** The loader argument's schema with skill names in `enum`/`const` renamed (same object when none are). */
function mapLoaderEnum(schema: unknown, path: string[], skills: IdMap): unknown {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const s = schema as Record<string, unknown>;
  if (path.length === 0) {
    let out: Record<string, unknown> | undefined;
    if (Array.isArray(s.enum)) out = { ...s, enum: s.enum.map((v) => (typeof v === 'string' ? mapId(skills, v) : v)) };
    if (typeof s.const === 'string') out = { ...(out ?? s), const: mapId(skills, s.const) };
    for (const key of ['anyOf', 'oneOf'] as const) {
      const list = s[key];
      if (Array.isArray(list)) out = { ...(out ?? s), [key]: list.map((b) => mapLoaderEnum(b, [], skills)) };
    }
    return out ?? schema;
  }
  const props = s.properties as Record<string, unknown> | undefined;
  const [head, ...rest] = path;
  if (!props || head === undefined || !(head in props)) return schema;
  const next = mapLoaderEnum(props[head], rest, skills);
  return next === props[head] ? schema : { ...s, properties: { ...props, [head]: next } };
}

/**
 * Rewrite `description`/`title` strings inside a JSON Schema (not keys, not enum values). Returns
 * the same object when nothing changed, so unchanged schemas stay shared between states (and stay
 * cached by identity in the schema compiler and the state hash).
 */
function rewriteSchemaText(schema: unknown, t: (s: string) => string, title: (s: string) => string = t): unknown {
  // Most renames leave a schema's texts as they are: then it is not walked at all.
  if (schema !== null && typeof schema === 'object' && schemaTexts(schema).every((s) => t(s) === s && (title === t || title(s) === s))) return schema;
  return rewriteSchemaNode(schema, t, title);
}

const SCHEMA_TEXTS = Symbol('hsa.schemaTexts');

/** The `description`/`title` strings rewriteSchemaText would rewrite (not in enum/const/default/examples), once per schema object. */
export function schemaTexts(schema: object): string[] {
  return schemaMemo(SCHEMA_TEXTS, schema, () => {
    const found: string[] = [];
    collectSchemaTexts(schema, found);
    return found;
  });
}

// (The leak check reads schema texts with a walk of its own, so a place this one missed would not go unseen there too.)
function collectSchemaTexts(s: unknown, found: string[]): void {
  if (s === null || typeof s !== 'object') return;
  if (Array.isArray(s)) {
    for (let i = 0; i < s.length; i++) collectSchemaTexts(s[i], found);
    return;
  }
  const o = s as Record<string, unknown>;
  for (const k in o) {
    if (!hasOwn.call(o, k)) continue;
    const v = o[k];
    if ((k === 'description' || k === 'title') && typeof v === 'string') found.push(v);
    else if (k !== 'enum' && k !== 'const' && k !== 'default' && k !== 'examples') collectSchemaTexts(v, found);
  }
}

function rewriteSchemaNode(schema: unknown, t: (s: string) => string, title: (s: string) => string): unknown {
  if (Array.isArray(schema)) {
    let changed = false;
    const out = schema.map((x) => {
      const y = rewriteSchemaNode(x, t, title);
      if (y !== x) changed = true;
      return y;
    });
    return changed ? out : schema;
  }
  if (schema === null || typeof schema !== 'object') return schema;
  let out: Record<string, unknown> | undefined;
  for (const k in schema) {
    if (!hasOwn.call(schema, k)) continue;
    const v = (schema as Record<string, unknown>)[k];
    let next = v;
    if (k === 'description' && typeof v === 'string') next = t(v);
    else if (k === 'title' && typeof v === 'string') next = title(v);
    else if (k !== 'enum' && k !== 'const' && k !== 'default' && k !== 'examples') next = rewriteSchemaNode(v, t, title);
    if (next !== v) {
      out ??= { ...(schema as Record<string, unknown>) };
      out[k] = next;
    }
  }
  return out ?? schema;
}

const IDENTIFIERS = Symbol('hsa.stateIdentifiers');

/** Every identifier a state declares: tool, parameter, skill, hook and section names (cached per state). */
export function stateIdentifiers(h: Harness): Set<string> {
  return ownMemo(IDENTIFIERS, h, () => {
    const out = new Set<string>();
    for (const t of h.tools) {
      out.add(t.name);
      for (const p of schemaPropertyNames(t.parameters)) out.add(p);
    }
    for (const s of h.skills) out.add(s.id);
    for (const k of h.hooks) out.add(k.id);
    for (const s of h.sections) out.add(s.id);
    return out;
  });
}

const PROPERTY_NAMES = Symbol('hsa.schemaPropertyNames');

/**
 * Property names declared anywhere in a schema (nested objects, array items, branches and the models of `$defs`/`definitions` included; kept by
 * schema object, see schemaMemo: a record's variants share most schema objects with their source).
 */
export function schemaPropertyNames(schema: unknown): string[] {
  if (schema === null || typeof schema !== 'object') return [];
  return schemaMemo(PROPERTY_NAMES, schema, () => {
    const out: string[] = [];
    collectPropertyNames(schema, out);
    return out;
  });
}

/** Where property names are nested below a schema, in the order they are listed. */
const NESTED = ['items', 'anyOf', 'oneOf', 'allOf', 'additionalProperties', '$defs', 'definitions'] as const;

function collectPropertyNames(s: unknown, out: string[]): void {
  if (s === null || typeof s !== 'object') return;
  if (Array.isArray(s)) {
    for (let i = 0; i < s.length; i++) collectPropertyNames(s[i], out);
    return;
  }
  const o = s as Record<string, unknown>;
  const props = o.properties;
  if (props && typeof props === 'object') {
    for (const k of Object.keys(props)) {
      out.push(k);
      collectPropertyNames((props as Record<string, unknown>)[k], out);
    }
  }
  for (let i = 0; i < NESTED.length; i++) {
    const key = NESTED[i]!;
    if (!(key in o)) continue;
    const v = o[key];
    // `$defs` and `definitions` map names to schemas (models a `$ref` points at): their schemas are read.
    if ((key === '$defs' || key === 'definitions') && v !== null && typeof v === 'object' && !Array.isArray(v))
      for (const id of Object.keys(v)) collectPropertyNames((v as Record<string, unknown>)[id], out);
    else collectPropertyNames(v, out);
  }
}
