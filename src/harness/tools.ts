import { createHash } from 'node:crypto';
import { mcpToolSchema, openAiToolSchema, describeIssue } from './schema.js';
import { OPENAI_TOOL_NAME, type Harness, type Tool } from './types.js';
import { hasOwn, isObject, jsonSchemaTypes } from './schema-spellings.js';

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
      const parsed = openAiToolSchema().safeParse(item, { reportInput: true });
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
    let t = quickMcpTool(item);
    if (t === undefined) {
      const parsed = mcpToolSchema().safeParse(item, { reportInput: true });
      if (!parsed.success) return { issues: parsed.error.issues.map(describeIssue) };
      t = parsed.data;
    }
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

type McpToolParsed = { name: string; title?: string; description?: string; inputSchema: Record<string, unknown>; annotations?: Record<string, unknown> };

/**
 * What `mcpToolSchema` parses an MCP tool to, for the shape JSON gives (the fields `normaliseTool`
 * reads, each of its type; records shallow copies, as zod's make), or undefined to let zod decide.
 * Harness folders of MCP tools load every tool through here, so zod stays unloaded.
 */
export function quickMcpTool(item: Record<string, unknown>): McpToolParsed | undefined {
  if (!plainRecord(item)) return undefined;
  const { name, title, description, inputSchema, outputSchema, annotations } = item;
  if (typeof name !== 'string' || name.length === 0) return undefined;
  if ((title !== undefined && typeof title !== 'string') || (description !== undefined && typeof description !== 'string')) return undefined;
  if (!plainRecord(inputSchema) || (outputSchema !== undefined && !plainRecord(outputSchema))) return undefined;
  if (annotations !== undefined && !plainRecord(annotations)) return undefined;
  const t: McpToolParsed = { name, inputSchema: { ...inputSchema } };
  if (title !== undefined) t.title = title;
  if (description !== undefined) t.description = description;
  if (annotations !== undefined) t.annotations = { ...annotations };
  return t;
}

/** A JSON object zod's `record(string, unknown)` takes as a plain copy (`__proto__` and `constructor` keys left to zod). */
function plainRecord(v: unknown): v is Record<string, unknown> {
  return plainWithKeys(v, null) && !hasOwn.call(v, '__proto__') && !hasOwn.call(v, 'constructor');
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
