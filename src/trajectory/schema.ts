import { mcpToolSchema, openAiToolSchema } from '../harness/schema.js';
import { zod } from '../util/zod.js';

// Built for the first record the hand check below does not take (zod loads then, not with this module).
function buildTrajectorySchema() {
  const { z } = zod();
  const textContent = z.union([z.string(), z.array(z.strictObject({ type: z.literal('text'), text: z.string() }))]);

  const toolCall = z.strictObject({
    id: z.string().min(1),
    type: z.literal('function'),
    function: z.strictObject({ name: z.string().min(1), arguments: z.string() }),
  });

  const messageSchema = z.discriminatedUnion('role', [
    z.strictObject({ role: z.literal('system'), content: textContent, name: z.string().optional() }),
    z.strictObject({ role: z.literal('developer'), content: textContent, name: z.string().optional() }),
    z.strictObject({ role: z.literal('user'), content: textContent, name: z.string().optional() }),
    z.strictObject({
      role: z.literal('assistant'),
      content: textContent.nullable(),
      name: z.string().optional(),
      // `null` tool calls and function_call are what SDKs dump for a text reply (read.ts drops them).
      tool_calls: z.array(toolCall).nullable().optional(),
      function_call: z.null().optional(),
      reasoning_content: z.string().optional(),
      refusal: z.string().nullable().optional(),
    }),
    z.strictObject({ role: z.literal('tool'), tool_call_id: z.string().min(1), content: textContent, name: z.string().optional() }),
  ]);

  return z.strictObject({
    id: z.string().min(1),
    harness: z.strictObject({ name: z.string(), version: z.union([z.string(), z.number()]) }).optional(),
    context: z.record(z.string(), z.unknown()).optional(),
    messages: z.array(messageSchema).min(1),
    // A record's own tools: OpenAI function tools or MCP tools (read.ts turns MCP ones into OpenAI shape).
    tools: z.array(z.union([openAiToolSchema(), mcpToolSchema()])).optional(),
    meta: z.record(z.string(), z.unknown()).optional(),
  });
}

let trajectory: ReturnType<typeof buildTrajectorySchema> | undefined;
/** A trajectory record's schema (built on first use). */
export const trajectorySchema = () => (trajectory ??= buildTrajectorySchema());

// ---------------------------------------------------------------------------------------------
// The same shape, checked by hand: `trajectorySchema` costs about as much as parsing the line, and
// almost every record is valid. A record this accepts is one the schema accepts (a test compares
// both on valid records and on mutations of them); one it refuses goes to the schema, which says
// what is wrong.

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const isNonEmpty = (v: unknown): boolean => typeof v === 'string' && v.length > 0;

function onlyKeys(o: Obj, allowed: ReadonlySet<string>): boolean {
  for (const k in o) if (!allowed.has(k)) return false;
  return true;
}

function isTextContent(v: unknown): boolean {
  if (typeof v === 'string') return true;
  if (!Array.isArray(v)) return false;
  for (const p of v) if (!isObj(p) || !onlyKeys(p, TEXT_PART_KEYS) || p.type !== 'text' || typeof p.text !== 'string') return false;
  return true;
}

const TEXT_PART_KEYS = new Set(['type', 'text']);
const PLAIN_KEYS = new Set(['role', 'content', 'name']);
const ASSISTANT_KEYS = new Set(['role', 'content', 'name', 'tool_calls', 'function_call', 'reasoning_content', 'refusal']);
const TOOL_MESSAGE_KEYS = new Set(['role', 'tool_call_id', 'content', 'name']);
const CALL_KEYS = new Set(['id', 'type', 'function']);
const CALL_FUNCTION_KEYS = new Set(['name', 'arguments']);
const TOOL_KEYS = new Set(['type', 'function']);
const TOOL_FUNCTION_KEYS = new Set(['name', 'description', 'parameters', 'strict']);
const HARNESS_KEYS = new Set(['name', 'version']);
const RECORD_KEYS = new Set(['id', 'harness', 'context', 'messages', 'tools', 'meta']);

function isMessage(m: unknown): boolean {
  if (!isObj(m)) return false;
  switch (m.role) {
    case 'system':
    case 'developer':
    case 'user':
      return onlyKeys(m, PLAIN_KEYS) && isTextContent(m.content) && (m.name === undefined || typeof m.name === 'string');
    case 'assistant': {
      if (!onlyKeys(m, ASSISTANT_KEYS) || !(m.content === null || isTextContent(m.content))) return false;
      if (m.name !== undefined && typeof m.name !== 'string') return false;
      if (m.reasoning_content !== undefined && typeof m.reasoning_content !== 'string') return false;
      if (m.refusal !== undefined && m.refusal !== null && typeof m.refusal !== 'string') return false;
      if (m.function_call !== undefined && m.function_call !== null) return false;
      if (m.tool_calls === undefined || m.tool_calls === null) return true;
      if (!Array.isArray(m.tool_calls)) return false;
      for (const c of m.tool_calls) {
        if (!isObj(c) || !onlyKeys(c, CALL_KEYS) || !isNonEmpty(c.id) || c.type !== 'function') return false;
        const f = c.function;
        if (!isObj(f) || !onlyKeys(f, CALL_FUNCTION_KEYS) || !isNonEmpty(f.name) || typeof f.arguments !== 'string') return false;
      }
      return true;
    }
    case 'tool':
      return onlyKeys(m, TOOL_MESSAGE_KEYS) && isNonEmpty(m.tool_call_id) && isTextContent(m.content) && (m.name === undefined || typeof m.name === 'string');
    default:
      return false;
  }
}

function isTool(t: unknown): boolean {
  if (isObj(t) && t.type === undefined && 'inputSchema' in t) return isMcpTool(t);
  if (!isObj(t) || !onlyKeys(t, TOOL_KEYS) || t.type !== 'function') return false;
  const f = t.function;
  if (!isObj(f) || !onlyKeys(f, TOOL_FUNCTION_KEYS) || !isNonEmpty(f.name)) return false;
  if (f.description !== undefined && typeof f.description !== 'string') return false;
  if (f.parameters !== undefined && !isObj(f.parameters)) return false;
  return f.strict === undefined || f.strict === null || typeof f.strict === 'boolean';
}

function isMcpTool(t: Obj): boolean {
  if (!isNonEmpty(t.name) || !isObj(t.inputSchema)) return false;
  if (t.title !== undefined && typeof t.title !== 'string') return false;
  if (t.description !== undefined && typeof t.description !== 'string') return false;
  if (t.outputSchema !== undefined && !isObj(t.outputSchema)) return false;
  return t.annotations === undefined || isObj(t.annotations);
}

/** True when `trajectorySchema` certainly accepts `v` (false: ask the schema, which explains). */
export function isTrajectoryShape(v: unknown): boolean {
  if (!isObj(v) || !onlyKeys(v, RECORD_KEYS) || !isNonEmpty(v.id)) return false;
  if (v.harness !== undefined) {
    const h = v.harness;
    if (!isObj(h) || !onlyKeys(h, HARNESS_KEYS) || typeof h.name !== 'string' || !(typeof h.version === 'string' || typeof h.version === 'number'))
      return false;
  }
  if (v.context !== undefined && !isObj(v.context)) return false;
  if (v.meta !== undefined && !isObj(v.meta)) return false;
  if (!Array.isArray(v.messages) || v.messages.length === 0) return false;
  for (const m of v.messages) if (!isMessage(m)) return false;
  if (v.tools !== undefined) {
    if (!Array.isArray(v.tools)) return false;
    for (const t of v.tools) if (!isTool(t)) return false;
  }
  return true;
}
