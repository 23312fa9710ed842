import { HsaError } from '../errors.js';
import type { OpenAiTool } from '../harness/types.js';
import type { Message, ToolCall, Trajectory } from '../trajectory/types.js';
import { parseLoose } from './loose-json.js';

/**
 * What an importer is: one module per source format (`src/ingest/importers/<id>.ts`), listed by
 * hand in `importers/index.ts`. `convert` turns one parsed source record into an hsa trajectory
 * or throws ConvertError naming the source field and the reason.
 */
export interface Importer {
  id: string;
  description: string;
  convert(value: unknown, at: SourceRecord): Trajectory;
}

/** Where a source record came from; `defaultId` is `<file basename>:<line>`. */
export interface SourceRecord {
  file: string;
  line: number;
  defaultId: string;
}

/** Typed identity: lets each importer module state its shape once (like defineTransform). */
export function defineImporter<T extends Importer>(importer: T): T {
  return importer;
}

/** A source record that cannot be converted: `path` is the field in the source record. */
export class ConvertError extends HsaError {
  readonly path: string;
  constructor(path: string, reason: string) {
    super('HSA_BAD_RECORD', `${path}: ${reason}`, 1);
    this.name = 'ConvertError';
    this.path = path;
  }
}

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The record id: the source's own `id` (a string or a number) when it has one, else `<basename>:<line>`. */
export function recordId(rec: Obj, at: SourceRecord, keys: readonly string[] = ['id']): string {
  for (const k of keys) {
    const v = rec[k];
    if (typeof v === 'string' && v !== '') return v;
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  }
  return at.defaultId;
}

/**
 * A ShareGPT-style record's parts: its `conversations` (or `conversation`) list and its optional
 * `system` string (undefined when absent, null or empty).
 */
export function shareGptParts(rec: Obj): { turns: unknown[]; system: string | undefined } {
  const turns = rec.conversations ?? rec.conversation;
  if (!Array.isArray(turns)) throw new ConvertError('conversations', turns === undefined ? 'missing' : 'must be a list');
  const system = rec.system;
  if (system !== undefined && system !== null && typeof system !== 'string') throw new ConvertError('system', 'must be a string');
  return { turns, system: typeof system === 'string' && system !== '' ? system : undefined };
}

/**
 * One ShareGPT-style turn (`{from, value}`, or `{role, content}`): its path, its speaker mapped by
 * `roleOf` and its text, or the ConvertError that names what is wrong with it.
 */
export function shareGptTurn<R>(turn: unknown, i: number, roleOf: (from: unknown) => R | undefined): { p: string; role: R; text: string } {
  const p = `conversations.${i}`;
  if (!isObj(turn)) throw new ConvertError(p, 'a turn must be an object');
  const role = roleOf(turn.from ?? turn.role);
  if (role === undefined) throw new ConvertError(`${p}.from`, turn.from === undefined ? 'missing' : `unknown speaker "${String(turn.from)}"`);
  return { p, role, text: str(turn.value ?? turn.content, `${p}.value`) };
}

/** A logged API call's two sides: `req`/`res` (unwrapped from `body`) and the paths that name them in the source (`rp` ends with a dot). */
export interface LoggedCall {
  hasRequest: boolean;
  req: Obj;
  rp: string;
  res: Obj | undefined;
  resp: string;
}

/**
 * `{request, response}` as API proxies and recorders log a call, either side possibly wrapped in
 * `body` (Batch files); a record without `request` is the request itself.
 */
export function loggedCall(value: Obj): LoggedCall {
  const hasRequest = isObj(value.request);
  const inner = (o: Obj): Obj => (isObj(o.body) ? o.body : o);
  const req = hasRequest ? inner(value.request as Obj) : value;
  const res = isObj(value.response) ? inner(value.response) : undefined;
  return {
    hasRequest,
    req,
    rp: !hasRequest ? '' : req === value.request ? 'request.' : 'request.body.',
    res,
    resp: res === undefined ? '' : res === value.response ? 'response' : 'response.body',
  };
}

/** A required string field. */
export function str(v: unknown, path: string, what = 'a string'): string {
  if (typeof v !== 'string') throw new ConvertError(path, v === undefined ? 'missing' : `must be ${what}`);
  return v;
}

/**
 * Tool-call arguments as a JSON string: an object is serialised (compact, its key order kept); a
 * string must be JSON text of an object and is kept exactly as written.
 */
export function argumentsString(v: unknown, path: string): string {
  if (v === undefined || v === null) return '{}';
  if (typeof v === 'string') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(v);
    } catch {
      throw new ConvertError(path, 'arguments are not JSON');
    }
    if (!isObj(parsed)) throw new ConvertError(path, 'arguments must be a JSON object');
    return v;
  }
  if (!isObj(v)) throw new ConvertError(path, 'arguments must be a JSON object');
  return JSON.stringify(v);
}

/**
 * Text that holds JSON, as written by Python as often as by JSON writers: JSON first, then a
 * Python literal (single quotes, True/False/None). Undefined when it is neither.
 */
export function parseJsonish(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return parseLoose(text);
  }
}

/**
 * One tool definition in any shape the sources use — OpenAI `{type:"function",function:{…}}`, a
 * bare function `{name, description, parameters}`, or Anthropic/MCP `{name, description,
 * input_schema|inputSchema}` — as an OpenAI tool with `name`, `description` (`""` when absent) and
 * `parameters` (an empty object schema when absent; `"type": "object"` added to an untyped one),
 * in that order; anything else (`strict`, `cache_control`) is dropped.
 */
export function openAiToolOf(v: unknown, path: string): OpenAiTool {
  if (!isObj(v)) throw new ConvertError(path, 'a tool must be an object');
  // Mistral's API takes `{"function": {…}}` without the `type` (function is the default).
  const f = (v.type === 'function' || (v.type === undefined && v.name === undefined)) && isObj(v.function) ? v.function : v;
  const fp = f === v ? path : `${path}.function`;
  const name = f.name;
  // A provider's own tool (`{"type": "openrouter:advisor", "parameters": {…}}`) has no name: say what it is.
  if (name === undefined && f === v && typeof v.type === 'string' && v.type !== 'function' && v.type !== 'custom') {
    throw new ConvertError(`${path}.type`, `"${v.type}" is a server tool, not a function tool; only function tools can be imported`);
  }
  if (typeof name !== 'string' || name === '') throw new ConvertError(`${fp}.name`, name === undefined ? 'missing' : 'must be a non-empty string');
  if (f.description !== undefined && f.description !== null && typeof f.description !== 'string')
    throw new ConvertError(`${fp}.description`, 'must be a string');
  const params = f.parameters ?? f.input_schema ?? f.inputSchema;
  if (params !== undefined && params !== null && !isObj(params)) throw new ConvertError(`${fp}.parameters`, 'must be a JSON Schema object');
  if (params === undefined && v.type !== undefined && v.type !== 'function' && v.type !== 'custom') {
    throw new ConvertError(`${path}.type`, `"${String(v.type)}" is a server tool with no input schema; only function tools can be imported`);
  }
  // Arguments are always an object: an untyped schema says so (harness tools must be object schemas).
  const schema =
    params === undefined || params === null ? { type: 'object', properties: {} } : params.type === undefined ? { type: 'object', ...params } : params;
  const fn: OpenAiTool['function'] = { name, description: typeof f.description === 'string' ? f.description : '', parameters: schema };
  return { type: 'function', function: fn };
}

/** A tool list field: an array, or a JSON string of one (LLaMA-Factory writes it as a string). */
export function toolList(v: unknown, path: string): OpenAiTool[] | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  let list: unknown = v;
  if (typeof v === 'string') {
    list = parseJsonish(v);
    if (list === undefined) throw new ConvertError(path, 'tools is not JSON');
  }
  if (isObj(list) && Array.isArray(list.tools)) list = list.tools;
  if (!Array.isArray(list)) throw new ConvertError(path, 'tools must be a list');
  return uniqueTools(
    list.map((t, i) => openAiToolOf(t, `${path}.${i}`)),
    path,
  );
}

/** The tools as given; throws ConvertError at `<path>.<i>` for a name listed a second time. */
export function uniqueTools(tools: OpenAiTool[], path: string): OpenAiTool[] {
  const seen = new Set<string>();
  tools.forEach((t, i) => {
    if (seen.has(t.function.name)) throw new ConvertError(`${path}.${i}`, `tool "${t.function.name}" is listed twice`);
    seen.add(t.function.name);
  });
  return tools;
}

/**
 * Pairs tool results with calls the way a conversation does: a result answers an open call of the
 * assistant turn just before it (by id when the source has ids, else by name, else the first open
 * one); any other message closes the turn. Calls without ids get `<record id>:c<k>` (k counts the
 * record's calls from 1), so ids are deterministic and unique within the record.
 */
export class CallTracker {
  private open: ToolCall[] = [];
  private made = 0;
  constructor(private readonly rid: string) {}

  /** A call of the current assistant turn; `id` undefined when the source has none. */
  call(name: string, args: string, id?: string): ToolCall {
    this.made++;
    const call: ToolCall = { id: id ?? `${this.rid}:c${this.made}`, type: 'function', function: { name, arguments: args } };
    this.open.push(call);
    return call;
  }

  /** The call a result answers; throws ConvertError at `path` when there is none. */
  answer(path: string, by: { id?: string; name?: string } = {}, what = ''): ToolCall {
    let i = 0;
    if (by.id !== undefined) i = this.open.findIndex((c) => c.id === by.id);
    else if (by.name !== undefined) {
      i = this.open.findIndex((c) => c.function.name === by.name);
      if (i < 0) i = 0;
    }
    const call = i >= 0 ? this.open[i] : undefined;
    if (!call) {
      throw new ConvertError(path, `${what}a tool result with no call${by.id !== undefined ? ` (tool call id "${by.id}")` : ''}`);
    }
    this.open.splice(i, 1);
    return call;
  }

  /** Calls of the current turn not yet answered. */
  get pending(): number {
    return this.open.length;
  }

  /** A message that is not a tool result: the assistant turn is over. */
  close(): void {
    this.open = [];
  }
}

/** A tool message in Chat Completions shape. */
export function toolMessage(call: ToolCall, content: string | { type: 'text'; text: string }[]): Message {
  return { role: 'tool', tool_call_id: call.id, content };
}

/** Builds a record with keys in one order: id, messages, tools, meta. */
export function trajectory(id: string, messages: Message[], tools: OpenAiTool[] | undefined, meta?: Obj): Trajectory {
  const rec: Trajectory = { id, messages };
  if (tools) rec.tools = tools;
  if (meta && Object.keys(meta).length > 0) rec.meta = meta;
  return rec;
}

/**
 * What a source record carries besides the conversation: its `meta`/`metadata` object, and every
 * other top-level field not in `used` (a dataset's `category`, a log's `timestamp`…) under its own
 * name, so nothing of a record is dropped. Keys in code-point order.
 */
export function sourceMeta(rec: Obj, used: readonly string[]): Obj {
  const out: Obj = {};
  const m = rec.meta ?? rec.metadata;
  if (isObj(m)) Object.assign(out, m);
  for (const k of Object.keys(rec).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (k === 'meta' || k === 'metadata' || used.includes(k) || k in out) continue;
    out[k] = rec[k];
  }
  return out;
}

/**
 * Top-level `{…}` texts one after another, each JSON or a Python literal (tool lists written into
 * system prompts one object after another); throws ConvertError at `path` when there is none.
 */
export function jsonObjectsIn(body: string, path: string): unknown[] {
  const out: unknown[] = [];
  let depth = 0;
  let start = -1;
  let quote = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '{') {
      if (depth++ === 0) start = i;
    } else if (c === '}' && --depth === 0) {
      const v = parseJsonish(body.slice(start, i + 1));
      if (v === undefined) throw new ConvertError(path, `tool ${out.length + 1} is not JSON`);
      out.push(v);
    }
  }
  if (out.length === 0 || depth !== 0) throw new ConvertError(path, 'the tool list is not JSON');
  return out;
}
