import { createHash } from 'node:crypto';
import { mcpToolSchema, openAiToolSchema, describeIssue } from './schema.js';
import { OPENAI_TOOL_NAME, type JsonSchema, type Tool } from './types.js';

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
    const parsed = openAiToolSchema.safeParse(item, { reportInput: true });
    if (!parsed.success) return { issues: parsed.error.issues.map(describeIssue) };
    const f = parsed.data.function;
    if (!OPENAI_TOOL_NAME.test(f.name)) {
      return { issues: [{ path: ['function', 'name'], message: `"${f.name}" is not a valid OpenAI tool name (^[a-zA-Z0-9_-]{1,64}$)` }] };
    }
    return {
      tool: {
        name: f.name,
        description: f.description ?? '',
        parameters: (f.parameters as JsonSchema | undefined) ?? { type: 'object', properties: {} },
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
      parameters: t.inputSchema as JsonSchema,
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

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
