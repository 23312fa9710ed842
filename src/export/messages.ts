import type { SchemaElement } from './sinks.js';
import type { Skip } from './types.js';

/** A message as hsa's SFT/OPD/RL records hold it (Chat Completions shape, trainer-normalised). */
export interface SourceMessage {
  role: string;
  content?: unknown;
  name?: string;
  tool_call_id?: string;
  reasoning_content?: string;
  tool_calls?: { id?: string; type?: string; function: { name: string; arguments: unknown } }[];
}

/** A message in the parquet layout: every field present (null when absent), arguments as JSON text. */
export interface ParquetMessage {
  role: string;
  content: string | null;
  name: string | null;
  tool_call_id: string | null;
  reasoning_content: string | null;
  tool_calls: { id: string | null; type: string | null; function: { name: string; arguments: string } }[] | null;
}

const MESSAGE_KEYS = new Set(['role', 'content', 'name', 'tool_call_id', 'reasoning_content', 'tool_calls']);

const str = (name: string): SchemaElement => ({ name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' });

/** A column of strings. */
export const stringColumn = str;

/**
 * A `list<struct>` column of messages with one fixed struct: role, content, name, tool_call_id,
 * reasoning_content, tool_calls (list of {id, type, function {name, arguments}}). Tool-call
 * arguments are JSON text, so differently shaped arguments never share (and null-pad) a struct —
 * the Qwen-family templates write a string argument as it is (`{%- if tool_call.arguments is
 * string %}`), so the rendered prompt is unchanged.
 */
export function messagesColumn(name: string): SchemaElement[] {
  return [
    { name, repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
    { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
    { name: 'element', repetition_type: 'OPTIONAL', num_children: 6 },
    str('role'),
    str('content'),
    str('name'),
    str('tool_call_id'),
    str('reasoning_content'),
    { name: 'tool_calls', repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
    { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
    { name: 'element', repetition_type: 'OPTIONAL', num_children: 3 },
    str('id'),
    str('type'),
    { name: 'function', repetition_type: 'OPTIONAL', num_children: 2 },
    str('name'),
    str('arguments'),
  ];
}

/** Messages in the parquet layout, or why they cannot be. */
export function parquetMessages(messages: unknown): ParquetMessage[] | Skip {
  if (!Array.isArray(messages)) return { kind: 'no messages', detail: 'messages: not a list' };
  const out: ParquetMessage[] = [];
  for (const [i, raw] of messages.entries()) {
    const m = raw as SourceMessage;
    const extra = Object.keys(m).filter((k) => !MESSAGE_KEYS.has(k));
    if (extra.length)
      return { kind: 'message field not representable', detail: `messages[${i}]: field ${extra.map((k) => `"${k}"`).join(', ')} has no column` };
    if (m.content !== undefined && m.content !== null && typeof m.content !== 'string')
      return { kind: 'content not text', detail: `messages[${i}].content: not a string` };
    out.push({
      role: m.role,
      content: (m.content as string | undefined) ?? null,
      name: m.name ?? null,
      tool_call_id: m.tool_call_id ?? null,
      reasoning_content: m.reasoning_content ?? null,
      tool_calls: m.tool_calls
        ? m.tool_calls.map((c) => ({
            id: c.id ?? null,
            type: c.type ?? null,
            function: { name: c.function.name, arguments: argumentsText(c.function.arguments) },
          }))
        : null,
    });
  }
  return out;
}

/** Tool-call arguments as JSON text (a string stays as it is). */
export function argumentsText(args: unknown): string {
  return typeof args === 'string' ? args : JSON.stringify(args);
}

/** Tool-call arguments as a value: parsed when a JSON string, else `undefined` for text that is not JSON. */
export function argumentsValue(args: unknown): unknown {
  if (typeof args !== 'string') return args;
  try {
    return JSON.parse(args);
  } catch {
    return undefined;
  }
}

/** A record's tools as a list (hsa writes a list, or one JSON string with `--tools-format json-string`). */
export function toolsList(tools: unknown): unknown[] | Skip {
  if (tools === undefined || tools === null) return [];
  if (Array.isArray(tools)) return tools;
  if (typeof tools === 'string') {
    try {
      const v = JSON.parse(tools);
      if (Array.isArray(v)) return v;
    } catch {
      // reported below
    }
  }
  return { kind: 'tools not a list', detail: 'tools: neither a list nor a JSON string of a list' };
}

export function isSkip(v: unknown): v is Skip {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && 'kind' in v && 'detail' in v && Object.keys(v).length === 2;
}
