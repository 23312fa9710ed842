import type { JsonSchema, OpenAiTool } from '../../harness/types.js';
import type { Message } from '../../trajectory/types.js';
import {
  argumentsString,
  CallTracker,
  ConvertError,
  defineImporter,
  isObj,
  openAiToolOf,
  parseJsonish,
  recordId,
  sourceMeta,
  str,
  toolMessage,
  trajectory,
  uniqueTools,
  type Obj,
} from '../importer.js';

/**
 * Salesforce xLAM / APIGen single-turn function calling (xlam-function-calling-60k and the sets
 * built like it): `query` (the user's message), `tools` and `answers`, each a JSON string (or
 * already a list). A record becomes the user turn and one assistant turn whose calls are the
 * answers, in order, left unanswered (the calls are the target). Tool `parameters` are written
 * `{param: {type, description, default}}` with Python type names (`str`, `List[int]`,
 * `str, optional`, `Optional[Dict[str, Any]]`); each becomes a JSON Schema property (see
 * `pythonTypeSchema`). Which are required: a tool-level `required` list (Seal-Tools) when there is
 * one; else, where a tool's parameters say `required: true/false` (ToolAlpaca), those saying
 * true; else, where the record marks optional parameters at all (`, optional`, `Optional[…]`, a
 * `default` — the xLAM convention), every unmarked one; else none, since nothing says (API-Bank
 * writes only type and description, and its calls leave parameters out). Parameters
 * that are JSON Schema already (`{"type": "object", "properties": …}`) are kept as written.
 */
export default defineImporter({
  id: 'xlam',
  description: 'Salesforce xLAM / APIGen: query, tools and answers as JSON strings; parameters as {name: {type, description, default}} with Python types',
  convert(value, at) {
    if (!isObj(value)) throw new ConvertError('(record)', 'must be a JSON object');
    const id = recordId(value, at);
    const calls = new CallTracker(id);
    const history = queryMessages(value.query, calls);
    const toolItems = jsonList(value.tools, 'tools');
    const marksOptional = toolItems.some(
      (t) =>
        isObj(t) &&
        isObj(t.parameters) &&
        Object.values(t.parameters).some((p) => isObj(p) && ('default' in p || (typeof p.type === 'string' && pythonTypeSchema(p.type).optional))),
    );
    const tools = uniqueTools(
      toolItems.map((t, i) => xlamTool(t, `tools.${i}`, marksOptional)),
      'tools',
    );
    const answers = jsonList(value.answers, 'answers');
    if (answers.length === 0) throw new ConvertError('answers', 'empty: the record has no call and no text to learn from');
    calls.close();
    const toolCalls = answers.map((a, k) => {
      const p = `answers.${k}`;
      if (!isObj(a)) throw new ConvertError(p, 'an answer must be an object {"name", "arguments"}');
      // Seal-Tools (as sets built like xLAM publish it) names the call `tool` and its arguments `parameters`.
      const nameKey = a.name === undefined && a.tool !== undefined ? 'tool' : 'name';
      const name = a[nameKey];
      if (typeof name !== 'string' || name === '') throw new ConvertError(`${p}.${nameKey}`, name === undefined ? 'missing' : 'must be a non-empty string');
      return calls.call(
        name,
        argumentsString(a.arguments ?? a.parameters, `${p}.${a.arguments === undefined && a.parameters !== undefined ? 'parameters' : 'arguments'}`),
      );
    });
    // A conversation that ends with the agent's words ("…Generate API Request:") ends with its calls.
    const last = history[history.length - 1]!;
    const merge = last.role === 'assistant' && !last.tool_calls;
    const messages: Message[] = merge
      ? [...history.slice(0, -1), { role: 'assistant', content: last.content, tool_calls: toolCalls }]
      : [...history, { role: 'assistant', content: null, tool_calls: toolCalls }];
    return trajectory(id, messages, tools, sourceMeta(value, ['id', 'query', 'tools', 'answers']));
  },
});

const QUERY_ROLES: Record<string, 'system' | 'user' | 'assistant' | 'tool'> = {
  system: 'system',
  user: 'user',
  human: 'user',
  assistant: 'assistant',
  agent: 'assistant',
  gpt: 'assistant',
  tool: 'tool',
  observation: 'tool',
};

/**
 * `query`: the user's message, or (API-Bank as the Hammer suite publishes it) the conversation so
 * far as `[{role, content}]` — `agent` is the assistant, an assistant message that is only a JSON
 * list of `{"name", "arguments"}` (in a code fence or not) is that turn's calls, and a `tool`
 * message answers the open call.
 */
function queryMessages(q: unknown, calls: CallTracker): Message[] {
  if (!Array.isArray(q)) return [{ role: 'user', content: str(q, 'query') }];
  if (q.length === 0) throw new ConvertError('query', 'is an empty conversation');
  return q.map((m, i): Message => {
    const p = `query.${i}`;
    if (!isObj(m)) throw new ConvertError(p, 'a message must be an object {role, content}');
    const role = QUERY_ROLES[String(m.role)];
    if (role === undefined) throw new ConvertError(`${p}.role`, m.role === undefined ? 'missing' : `unknown role "${String(m.role)}"`);
    const content = str(m.content, `${p}.content`);
    if (role === 'tool') return toolMessage(calls.answer(p), content);
    calls.close();
    const listed = role === 'assistant' ? callList(content) : undefined;
    if (!listed) return { role, content };
    return {
      role: 'assistant',
      content: '',
      tool_calls: listed.map((c, k) => calls.call(c.name, argumentsString(c.arguments, `${p}.content[${k}].arguments`))),
    };
  });
}

/** An assistant text that is only a JSON list of calls, in a code fence or not; undefined otherwise. */
function callList(text: string): { name: string; arguments: unknown }[] | undefined {
  const body = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/.exec(text)?.[1] ?? text;
  if (!body.trim().startsWith('[')) return undefined;
  const v = parseJsonish(body.trim());
  if (!Array.isArray(v) || v.length === 0 || !v.every((c) => isObj(c) && typeof c.name === 'string' && c.name !== '')) return undefined;
  return v as { name: string; arguments: unknown }[];
}

/** A list field written as a JSON string (or a Python literal), or a list already. */
function jsonList(v: unknown, path: string): unknown[] {
  if (v === undefined || v === null) throw new ConvertError(path, 'missing');
  const list = typeof v === 'string' ? parseJsonish(v) : v;
  if (typeof v === 'string' && list === undefined) throw new ConvertError(path, 'is not JSON');
  if (!Array.isArray(list)) throw new ConvertError(path, 'must be a list');
  return list;
}

function xlamTool(t: unknown, path: string, marksOptional: boolean): OpenAiTool {
  if (!isObj(t)) throw new ConvertError(path, 'a tool must be an object');
  const params = t.parameters;
  const isSchema = isObj(params) && (params.type === 'object' || params.type === 'dict') && (isObj(params.properties) || params.properties === undefined);
  if (params === undefined || params === null || isSchema || isObj(t.function) || t.input_schema !== undefined || t.inputSchema !== undefined)
    return openAiToolOf(t, path);
  if (!isObj(params)) throw new ConvertError(`${path}.parameters`, 'must be an object {param: {type, description}}');
  const properties: Obj = {};
  const required: string[] = [];
  // A tool-level `required` list (Seal-Tools) says which parameters are required; else each parameter does.
  const listed = Array.isArray(t.required) ? t.required : undefined;
  if (listed && !listed.every((r) => typeof r === 'string')) throw new ConvertError(`${path}.required`, 'must be a list of parameter names');
  const flagged = Object.values(params).some((p) => isObj(p) && (typeof p.required === 'boolean' || typeof p.optional === 'boolean'));
  for (const [name, spec] of Object.entries(params)) {
    const pp = `${path}.parameters.${name}`;
    // `{"isbn": "str"}`: a parameter given by its type name alone.
    if (typeof spec === 'string') {
      properties[name] = pythonTypeSchema(spec).schema;
      if (!listed && !flagged && marksOptional && !pythonTypeSchema(spec).optional) required.push(name);
      continue;
    }
    if (!isObj(spec)) throw new ConvertError(pp, 'must be an object {type, description, default} or a type name');
    if (spec.type !== undefined && typeof spec.type !== 'string') throw new ConvertError(`${pp}.type`, 'must be a string (a Python type name)');
    const { schema, optional } = pythonTypeSchema(typeof spec.type === 'string' ? spec.type : '');
    const prop: Obj = { ...schema };
    for (const [k, v] of Object.entries(spec)) if (k !== 'type' && k !== 'required' && k !== 'optional') prop[k] = v;
    properties[name] = prop;
    const isRequired = flagged ? spec.required === true || spec.optional === false : marksOptional && !optional && !('default' in spec);
    if (!listed && isRequired) required.push(name);
  }
  for (const r of listed ?? []) {
    if (!Object.hasOwn(properties, r)) throw new ConvertError(`${path}.required`, `"${String(r)}" is not a parameter`);
    required.push(r);
  }
  const schema: JsonSchema = { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
  return openAiToolOf({ name: t.name, description: t.description, parameters: schema }, path);
}

const SIMPLE: Readonly<Record<string, JsonSchema>> = {
  str: { type: 'string' },
  string: { type: 'string' },
  char: { type: 'string' },
  int: { type: 'integer' },
  integer: { type: 'integer' },
  long: { type: 'integer' },
  float: { type: 'number' },
  number: { type: 'number' },
  double: { type: 'number' },
  decimal: { type: 'number' },
  bool: { type: 'boolean' },
  boolean: { type: 'boolean' },
  list: { type: 'array' },
  array: { type: 'array' },
  tuple: { type: 'array' },
  set: { type: 'array' },
  sequence: { type: 'array' },
  iterable: { type: 'array' },
  frozenset: { type: 'array' },
  dict: { type: 'object' },
  object: { type: 'object' },
  mapping: { type: 'object' },
  map: { type: 'object' },
  none: { type: 'null' },
  nonetype: { type: 'null' },
  null: { type: 'null' },
};
const ARRAYS = new Set(['list', 'array', 'set', 'sequence', 'iterable', 'frozenset']);

/**
 * A Python type annotation as a JSON Schema: `str`/`int`/`float`/`bool` and their JSON names, a
 * list-like with one item type (`List[int]` → array of integers; `Tuple[…]`, `Set` and the
 * unparameterised forms → array), `Dict[…]` → object, `Union[A, B]` → the types when each is
 * simple, `Literal['a', 'b']` → an enum, `Optional[X]` and a `, optional` note after the type →
 * X, optional (other notes, `default 'en'`, are ignored). Anything else (`Any`,
 * `Callable[[float], float]`, a class name, an empty type) constrains nothing: `{}`.
 */
export function pythonTypeSchema(text: string): { schema: JsonSchema; optional: boolean } {
  // `List[int], optional` and `str, optional, default 'en'`: the type, then notes after top-level commas.
  const [head = '', ...notes] = splitArgs(text);
  let t = head;
  let optional = notes.some((n) => /^optional\b/i.test(n));
  const opt = /^Optional\[(.*)\]$/.exec(t);
  if (opt) {
    optional = true;
    t = opt[1]!.trim();
  }
  return { schema: typeSchema(t), optional };
}

function typeSchema(t: string): JsonSchema {
  // `List[int]`, and `list(str)` as API-Bank writes it.
  const g = /^([A-Za-z_][\w.]*)\s*(?:\[(.*)\]|\((.*)\))$/s.exec(t);
  const base = (g ? g[1]! : t).replace(/^(typing|builtins)\./, '').toLowerCase();
  if (!g) return SIMPLE[base] ? { ...SIMPLE[base] } : {};
  const args = splitArgs(g[2] ?? g[3]!);
  if (base === 'optional' && args.length === 1) return typeSchema(args[0]!);
  if (base === 'literal') {
    const values = args.map((a) => parseJsonish(a));
    return values.length > 0 && values.every((v) => v !== undefined) ? { enum: values } : {};
  }
  if (base === 'union') {
    const parts = args.map((a) => typeSchema(a));
    const types = parts.map((p) => (Object.keys(p).length === 1 && typeof p.type === 'string' ? p.type : undefined));
    if (types.some((x) => x === undefined)) return {};
    const unique = [...new Set(types as string[])];
    return { type: unique.length === 1 ? unique[0]! : unique };
  }
  if (ARRAYS.has(base) && args.length === 1) {
    const items = typeSchema(args[0]!);
    return Object.keys(items).length > 0 ? { type: 'array', items } : { type: 'array' };
  }
  return SIMPLE[base] ? { ...SIMPLE[base] } : {};
}

/** The comma-separated arguments of a generic, split outside brackets. */
function splitArgs(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '[' || c === '(') depth++;
    else if (c === ']' || c === ')') depth--;
    else if (c === ',' && depth === 0) {
      out.push(s.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(s.slice(start).trim());
  return out.filter((a) => a !== '');
}
