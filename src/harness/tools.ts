import { createHash } from 'node:crypto';
import { mcpToolSchema, openAiToolSchema, describeIssue } from './schema.js';
import { OPENAI_TOOL_NAME, type Harness, type JsonSchema, type Tool } from './types.js';

export interface RawToolIssue {
  path: (string | number)[];
  message: string;
}

/**
 * Recognise the tool format of one parsed file and normalise every tool in it. Accepts an OpenAI
 * function tool, an MCP tool, an array of either, an MCP `tools/list` result, or that result in a
 * JSON-RPC envelope. Returns tools with the path each came from, and problems.
 */
export function normaliseToolFile(value: unknown): {
  tools: { tool: Tool; path: (string | number)[] }[];
  issues: RawToolIssue[];
} {
  const tools: { tool: Tool; path: (string | number)[] }[] = [];
  const issues: RawToolIssue[] = [];
  let items: unknown[];
  let base: (string | number)[];
  if (Array.isArray(value)) {
    items = value;
    base = [];
  } else if (isObject(value) && Array.isArray(value.tools)) {
    items = value.tools;
    base = ['tools'];
  } else if (isObject(value) && isObject(value.result) && Array.isArray(value.result.tools)) {
    items = value.result.tools;
    base = ['result', 'tools'];
  } else if (isObject(value)) {
    items = [value];
    base = [];
  } else {
    return { tools, issues: [{ path: [], message: 'expected a tool, an array of tools or an MCP tools/list result' }] };
  }
  items.forEach((item, i) => {
    const path = Array.isArray(value) || base.length > 0 ? [...base, i] : [];
    const one = normaliseTool(item);
    if ('tool' in one) tools.push({ tool: one.tool, path });
    else for (const issue of one.issues) issues.push({ path: [...path, ...issue.path], message: issue.message });
  });
  return { tools, issues };
}

/** One tool object in either format → the internal form. */
export function normaliseTool(item: unknown): { tool: Tool } | { issues: RawToolIssue[] } {
  if (isObject(item) && item.type === 'function' && 'function' in item) {
    let f = quickOpenAiFunction(item);
    if (f === undefined) {
      const parsed = openAiToolSchema.safeParse(item, { reportInput: true });
      if (!parsed.success) return { issues: parsed.error.issues.map(describeIssue) };
      f = parsed.data.function;
    }
    if (!OPENAI_TOOL_NAME.test(f.name) && !NAMESPACED_NAME.test(f.name) && !WRITTEN_NAME.test(f.name)) {
      return {
        issues: [
          {
            path: ['function', 'name'],
            message: `"${f.name}" is not a usable tool name (^[a-zA-Z0-9_-]{1,64}$ as OpenAI accepts, or letters, digits and the characters space _ - . : / ( ) ' & , + as published sets write names, no space at either end)`,
          },
        ],
      };
    }
    // Published function-calling sets name tools with dots (`math.factorial`), as MCP does, or with
    // spaces (`Get Weather`, API-Bank/ToolACE style): the tool gets the same OpenAI-safe name an MCP
    // tool would, and calls under the logged name follow it.
    return {
      tool: {
        name: openAiSafeName(f.name),
        description: f.description ?? '',
        parameters: f.parameters === undefined ? { type: 'object', properties: {} } : jsonSchemaTypes(f.parameters),
        sourceName: f.name,
        sourceFormat: 'openai',
      },
    };
  }
  if (isObject(item) && 'inputSchema' in item) {
    const parsed = mcpToolSchema.safeParse(item, { reportInput: true });
    if (!parsed.success) return { issues: parsed.error.issues.map(describeIssue) };
    const t = parsed.data;
    const tool: Tool = {
      name: openAiSafeName(t.name),
      description: t.description ?? '',
      parameters: jsonSchemaTypes(t.inputSchema),
      sourceName: t.name,
      sourceFormat: 'mcp',
    };
    if (t.title !== undefined) tool.title = t.title;
    if (t.annotations !== undefined) tool.annotations = t.annotations;
    return { tool };
  }
  if (isObject(item) && 'name' in item && 'parameters' in item) {
    return { issues: [{ path: [], message: 'looks like a bare function; wrap it as {"type":"function","function":{...}}' }] };
  }
  if (isObject(item) && typeof item.name === 'string' && item.type === undefined) {
    // A named tool that is not an OpenAI function tool: an MCP tool without its argument schema.
    return { issues: [{ path: ['inputSchema'], message: 'required: an MCP tool needs inputSchema (a JSON Schema of its arguments)' }] };
  }
  return {
    issues: [{ path: [], message: 'not a tool: expected {"type":"function","function":{...}} or an MCP tool with inputSchema' }],
  };
}

const OPENAI_TOOL_KEYS = new Set(['type', 'function']);
const OPENAI_FUNCTION_KEYS = new Set(['name', 'description', 'parameters', 'strict']);

/**
 * What `openAiToolSchema` parses an OpenAI tool to, for the shape JSON gives (plain objects, the
 * schema's keys only, each of its type; `parameters` a shallow copy, as zod's record makes), or
 * undefined to let zod decide and name the problem. Per-record tools run every tool of every record
 * through here, and zod's parse was most of deriving a harness.
 */
export function quickOpenAiFunction(item: Record<string, unknown>): { name: string; description?: string; parameters?: Record<string, unknown> } | undefined {
  if (!plainWithKeys(item, OPENAI_TOOL_KEYS) || item.type !== 'function') return undefined;
  const f = item.function;
  if (!plainWithKeys(f, OPENAI_FUNCTION_KEYS)) return undefined;
  const { name, description, parameters, strict } = f;
  if (typeof name !== 'string' || name.length === 0) return undefined;
  if (description !== undefined && typeof description !== 'string') return undefined;
  if (strict !== undefined && strict !== null && typeof strict !== 'boolean') return undefined;
  if (parameters === undefined) return description === undefined ? { name } : { name, description };
  // (A `__proto__` or `constructor` key, or symbol keys, are left to zod's own rules.)
  if (!plainWithKeys(parameters, null) || hasOwn.call(parameters, '__proto__') || hasOwn.call(parameters, 'constructor')) return undefined;
  const copy = { ...parameters };
  return description === undefined ? { name, parameters: copy } : { name, description, parameters: copy };
}

/** A plain object (JSON's kind) with no symbol keys, whose keys are all in `allowed` (any, for null). */
function plainWithKeys(v: unknown, allowed: ReadonlySet<string> | null): v is Record<string, unknown> {
  if (!isObject(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  if ((proto !== Object.prototype && proto !== null) || Object.getOwnPropertySymbols(v).length > 0) return false;
  if (allowed) for (const k in v) if (hasOwn.call(v, k) && !allowed.has(k)) return false;
  return true;
}

/**
 * An OpenAI-allowed name for an MCP tool name. Invalid characters become `_`; names longer than 64
 * characters are cut and get an 8-hex hash suffix so different long names stay different. Two MCP
 * names that map to the same name are reported as duplicates by the harness validator. The mapping
 * is reversible through `Tool.sourceName`.
 */
export function openAiSafeName(name: string): string {
  if (OPENAI_TOOL_NAME.test(name)) return name;
  const cleaned = name.replace(/[^a-zA-Z0-9_-]/g, '_') || '_';
  if (cleaned.length <= 64) return cleaned;
  const suffix = createHash('sha256').update(name).digest('hex').slice(0, 8);
  return `${cleaned.slice(0, 64 - 9)}_${suffix}`;
}

/**
 * How a harness's texts spell its tools: each tool's name as its source wrote it (`Get Weather
 * Forecast`). A rewriter of texts reads them so that a renamed shorter name is never found inside
 * a longer one that stays (see TextRewriter).
 */
export function toolSpellings(h: Harness): string[] {
  return h.tools.map((t) => t.sourceName);
}

/** A namespaced tool name (`math.factorial`, `github:search`): OpenAI-name parts joined by `.`, `:` or `/`. */
const NAMESPACED_NAME = /^[A-Za-z0-9_-]+(?:[.:/][A-Za-z0-9_-]+)*$/;

/**
 * A tool name as public function-calling sets write it for people (`Get Weather`, `Get Prices (v2)`,
 * `Player's Stats`): letters, digits and ` _-.:/()'&,+`, with a letter or digit, no space at either
 * end. Other characters (quotes, `!`, non-ASCII letters) are still refused: a JSON string or code
 * span could not hold the name, or its OpenAI-safe name would be mostly `_`.
 */
const WRITTEN_NAME = /^(?=.*[A-Za-z0-9])[\w\-.:/()'&,+](?:[\w \-.:/()'&,+]*[\w\-.:/()'&,+])?$/;

/**
 * Type names that are not JSON Schema's but that published tool sets write in their schemas, and
 * the JSON Schema type each means — the mapping those sets' own harnesses apply before a schema
 * reaches a model. Looked up without regard to case, so each spelling's capitalised and upper-case
 * forms are read too (`Integer`, `INTEGER`):
 * - the Berkeley leaderboard's Python, Java and JavaScript names (`dict`, `tuple`, `HashMap`,
 *   `ArrayList`, `long`, `Bigint`, `char`…);
 * - RapidAPI's (ToolBench: `STRING`, `NUMBER`, `BOOLEAN`, `ENUM`, `OBJECT`, `ARRAY`, and
 *   `DATE (YYYY-MM-DD)`, `TIME (24-hour HH:MM)`, `GEOPOINT (latitude, longitude)`, which are text);
 * - JavaScript's and TypeScript's (`Number`, `Object`, `String`…) and fixed-width names (`int32`,
 *   `float64`).
 * `NUMBER` is `number`: ToolBench's converter writes `integer` for it, which refuses a call
 * `{"price": 9.5}` the API takes. `any` means no type constraint: the keyword is dropped. `enum`
 * is handled by enumType (its values decide the type).
 */
const TYPE_ALIASES: Readonly<Record<string, string | null>> = {
  dict: 'object',
  hashmap: 'object',
  hashtable: 'object',
  map: 'object',
  record: 'object',
  json: 'object',
  float: 'number',
  double: 'number',
  float32: 'number',
  float64: 'number',
  int: 'integer',
  long: 'integer',
  short: 'integer',
  byte: 'integer',
  bigint: 'integer',
  int8: 'integer',
  int16: 'integer',
  int32: 'integer',
  int64: 'integer',
  uint: 'integer',
  uint32: 'integer',
  uint64: 'integer',
  bool: 'boolean',
  str: 'string',
  char: 'string',
  text: 'string',
  date: 'string',
  time: 'string',
  datetime: 'string',
  geopoint: 'string',
  tuple: 'array',
  list: 'array',
  arraylist: 'array',
  queue: 'array',
  stack: 'array',
  set: 'array',
  any: null,
};
/** RapidAPI's type names with a note of the text's form: `DATE (YYYY-MM-DD)`. */
const NOTED_TYPE = /^([A-Za-z]+) \([^()]*\)$/;
/** Where a set gives an enum's values when not under `enum`. */
const ENUM_VALUE_KEYS = ['values', 'options', 'choices'] as const;

/** The JSON Schema type a type name means (`null`: no constraint), or undefined for a name hsa does not know. */
function aliasOf(name: string): string | null | undefined {
  const lower = (NOTED_TYPE.exec(name)?.[1] ?? name).toLowerCase();
  if (JSON_TYPES.has(lower)) return lower;
  return Object.hasOwn(TYPE_ALIASES, lower) ? TYPE_ALIASES[lower] : undefined;
}

/** An enum type name (`Enum`, `ENUM`) in any case. */
function isEnumName(v: unknown): boolean {
  return typeof v === 'string' && v.toLowerCase() === 'enum';
}

/**
 * What a node typed `enum` becomes: its values under `enum` (taken from `values`, `options` or
 * `choices` when the set put them there), and the type they share (`string` when none are given,
 * as the set's own converters read it; none when they mix types).
 */
function enumType(s: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...s };
  let values = Array.isArray(s.enum) ? s.enum : undefined;
  if (values === undefined) {
    for (const k of ENUM_VALUE_KEYS) {
      const v = s[k];
      if (Array.isArray(v) && v.length > 0 && v.every((x) => x === null || typeof x !== 'object')) {
        values = v;
        delete out[k];
        out.enum = v;
        break;
      }
    }
  }
  const kinds = new Set((values ?? ['']).map((x) => (x === null ? 'null' : typeof x === 'number' ? (Number.isInteger(x) ? 'integer' : 'number') : typeof x)));
  if (kinds.has('integer') && kinds.has('number')) kinds.delete('integer');
  const only = kinds.size === 1 ? [...kinds][0]! : undefined;
  if (only !== undefined && JSON_TYPES.has(only)) out.type = only;
  else delete out.type;
  return out;
}

/** Whether a `type` value names something other than JSON Schema's own types. */
function isAliased(v: unknown): boolean {
  if (typeof v === 'string') return !JSON_TYPES.has(v) && aliasOf(v) !== undefined;
  return Array.isArray(v) && v.some((x) => typeof x === 'string' && !JSON_TYPES.has(x) && aliasOf(x) !== undefined);
}

const JSON_TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);
/**
 * How each subschema keyword holds its subschemas: one, a list (`items` either), or a map by name.
 * Looked up per key a schema node has: a node has a few keys, and probing each keyword of the
 * table on it (most absent) cost more than walking them.
 */
const SUB_KINDS: ReadonlyMap<string, 'one' | 'list' | 'one-or-list' | 'map'> = new Map([
  ...['additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties', 'additionalItems'].map(
    (k) => [k, 'one'] as const,
  ),
  ...['anyOf', 'oneOf', 'allOf', 'prefixItems'].map((k) => [k, 'list'] as const),
  ['items', 'one-or-list'] as const,
  ...['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'].map((k) => [k, 'map'] as const),
]);
const hasOwn = Object.prototype.hasOwnProperty;

/**
 * A schema with every aliased type name (see TYPE_ALIASES) replaced by its JSON Schema type, at
 * every schema position; the same object when nothing is aliased (the usual case), so schemas
 * that are already JSON Schema are never copied. Unknown type names are left for the schema check
 * to report.
 */
export function jsonSchemaTypes(schema: JsonSchema): JsonSchema {
  return mapSchema(schema) as JsonSchema;
}

function mapSchema(s: unknown): unknown {
  if (!isObject(s)) return s;
  if (isEnumName(s.type)) return mapSchema(enumType(s));
  let out: Record<string, unknown> | null = null;
  const set = (k: string, v: unknown) => {
    if (v === s[k]) return;
    out ??= { ...s };
    if (v === undefined) delete out[k];
    else out[k] = v;
  };
  for (const k in s) {
    if (!hasOwn.call(s, k)) continue;
    const v = s[k];
    if (k === 'type') {
      if (!isAliased(v)) continue;
      if (typeof v === 'string') set('type', aliasOf(v) ?? undefined);
      else if (Array.isArray(v)) {
        const mapped = v.map((x) => (typeof x === 'string' && aliasOf(x) !== undefined ? aliasOf(x) : x));
        set('type', mapped.includes(null) ? undefined : [...new Set(mapped)]);
      }
      continue;
    }
    const kind = SUB_KINDS.get(k);
    if (kind === undefined) continue;
    if (kind !== 'list' && kind !== 'map' && isObject(v)) set(k, mapSchema(v));
    else if ((kind === 'list' || kind === 'one-or-list') && Array.isArray(v)) {
      let m: unknown[] | null = null;
      for (let i = 0; i < v.length; i++) {
        const x = mapSchema(v[i]);
        if (x !== v[i]) (m ??= v.slice(0, i)).push(x);
        else if (m) m.push(x);
      }
      if (m) set(k, m);
    } else if (kind === 'map' && isObject(v)) {
      let m: Record<string, unknown> | null = null;
      for (const name in v) {
        if (!hasOwn.call(v, name)) continue;
        const sub = v[name];
        const x = mapSchema(sub);
        if (x !== sub && m === null) {
          // The names before this one, unchanged, in their order.
          m = {};
          for (const before in v) {
            if (before === name) break;
            if (hasOwn.call(v, before)) m[before] = v[before];
          }
        }
        if (m) m[name] = x;
      }
      if (m) set(k, m);
    }
  }
  return out ?? s;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** JSON Schema's keywords (2020-12, 2019-09, draft-07) and OpenAPI's: a key of a schema that is none of them is a vendor keyword or a slip. */
const SCHEMA_KEYWORDS = new Set([
  '$schema',
  '$id',
  '$ref',
  '$defs',
  '$anchor',
  '$dynamicRef',
  '$dynamicAnchor',
  '$vocabulary',
  '$comment',
  '$recursiveRef',
  '$recursiveAnchor',
  'definitions',
  'type',
  'enum',
  'const',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxContains',
  'minContains',
  'maxProperties',
  'minProperties',
  'required',
  'dependentRequired',
  'dependencies',
  'properties',
  'patternProperties',
  'additionalProperties',
  'propertyNames',
  'unevaluatedProperties',
  'items',
  'prefixItems',
  'additionalItems',
  'contains',
  'unevaluatedItems',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'dependentSchemas',
  'format',
  'contentEncoding',
  'contentMediaType',
  'contentSchema',
  'title',
  'description',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
  'examples',
  'nullable',
  'example',
  'discriminator',
  'xml',
  'externalDocs',
]);
const SUB_SCHEMA = [
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'additionalItems',
  'contentSchema',
];
const SUB_SCHEMA_LIST = ['anyOf', 'oneOf', 'allOf', 'prefixItems', 'items'];
const SUB_SCHEMA_MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];

/**
 * Keys of a tool schema that read as a slip, not a keyword (where each stands, and why): a key
 * that is no keyword and has no value (`null`), or that holds a space. An unquoted comma in a YAML
 * flow mapping makes one — `{ type: string, description: City name, optionally with its country. }`
 * gives a description "City name" and a key "optionally with its country." — and JSON Schema
 * ignores unknown keywords, so no validator notices the text cut short. A vendor keyword
 * (`x-order: 2`, `nullable`) has a value and no space, and is never reported.
 */
export function suspectSchemaKeys(schema: unknown, at: (string | number)[] = []): { path: (string | number)[]; key: string; message: string }[] {
  const out: { path: (string | number)[]; key: string; message: string }[] = [];
  if (!isObject(schema)) return out;
  for (const [k, v] of Object.entries(schema)) {
    if (SCHEMA_KEYWORDS.has(k) || k.startsWith('x-')) continue;
    if (v === null)
      out.push({
        path: [...at, k],
        key: k,
        message: `"${k}" is no JSON Schema keyword and has no value: in a YAML flow mapping ({ … }) an unquoted comma ends the text before it; quote that text`,
      });
    else if (/\s/.test(k))
      out.push({ path: [...at, k], key: k, message: `"${k}" is no JSON Schema keyword (keywords have no spaces): text cut off from the value before it?` });
  }
  for (const k of SUB_SCHEMA) if (isObject(schema[k])) out.push(...suspectSchemaKeys(schema[k], [...at, k]));
  for (const k of SUB_SCHEMA_LIST) {
    const v = schema[k];
    if (Array.isArray(v)) v.forEach((sub, i) => out.push(...suspectSchemaKeys(sub, [...at, k, i])));
  }
  for (const k of SUB_SCHEMA_MAP) {
    const v = schema[k];
    if (isObject(v)) for (const [name, sub] of Object.entries(v)) out.push(...suspectSchemaKeys(sub, [...at, k, name]));
  }
  return out;
}

/**
 * Every `type` in a schema (after jsonSchemaTypes) that names no type: JSON Schema's own or a
 * spelling hsa reads. Each with the path of its `type` keyword below `at` and a message that names
 * the value, so a tool set's own word (`Decimal`) is reported as such rather than as ajv's list of
 * schema paths.
 */
export function unknownTypes(schema: unknown, at: (string | number)[] = []): { path: (string | number)[]; message: string }[] {
  const out: { path: (string | number)[]; message: string }[] = [];
  const walk = (s: unknown, p: (string | number)[]) => {
    if (!isObject(s)) return;
    const t = s.type;
    const names = typeof t === 'string' ? [t] : Array.isArray(t) ? t : [];
    for (const name of names) {
      if (typeof name === 'string' && !JSON_TYPES.has(name)) out.push({ path: [...p, 'type'], message: unknownTypeMessage(name) });
    }
    for (const k in s) {
      if (!hasOwn.call(s, k)) continue;
      const kind = SUB_KINDS.get(k);
      const v = s[k];
      if (kind === undefined) continue;
      if (kind !== 'list' && kind !== 'map' && isObject(v)) walk(v, [...p, k]);
      else if ((kind === 'list' || kind === 'one-or-list') && Array.isArray(v)) v.forEach((x, i) => walk(x, [...p, k, i]));
      else if (kind === 'map' && isObject(v)) for (const name in v) if (hasOwn.call(v, name)) walk(v[name], [...p, k, name]);
    }
  };
  walk(schema, at);
  return out;
}

function unknownTypeMessage(name: string): string {
  return `"${name}" is not a type hsa knows (JSON Schema's object, array, string, number, integer, boolean, null; or a spelling tool sets write, in any case: dict, list, tuple, str, int, long, float, double, bool, Number, Object, Array, HashMap, STRING, NUMBER, ENUM, DATE (…), any; see docs/harness-format.md)`;
}
