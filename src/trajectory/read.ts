import { describeIssue } from '../harness/schema.js';
import { normaliseTool } from '../harness/tools.js';
import type { OpenAiTool } from '../harness/types.js';
import type { Problem } from '../problems.js';
import { readLineSpans } from '../util/jsonl.js';
import { isTrajectoryShape, trajectorySchema } from './schema.js';
import { textOf, type Trajectory } from './types.js';

export type ReadItem =
  | {
      ok: true;
      file: string;
      line: number;
      record: Trajectory;
      text: string;
      /** What was made of the record as read: reused tool-call ids made unique (one warning each). */
      warnings: Problem[];
    }
  | { ok: false; file: string; line: number; text: string; problems: Problem[] };

/**
 * Stream the records of one JSONL file, each parsed and shape-checked. A bad line comes back as a
 * problem list (with file, line, id when known, and field), never as a throw. The record is the
 * parsed JSON itself, so keys keep their input order.
 */
export async function* readTrajectories(file: string): AsyncGenerator<ReadItem> {
  // Lines come a read chunk at a time (one async step per chunk, not per line); each is decoded and parsed when asked for.
  for await (const { buf, spans } of readLineSpans(file)) {
    for (let i = 0; i < spans.length; i += 3) yield parseTrajectoryLine(file, spans[i]!, buf.toString('utf8', spans[i + 1], spans[i + 2]));
  }
}

export function parseTrajectoryLine(file: string, line: number, text: string): ReadItem {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, file, line, text, problems: [{ file, line, path: '(json)', message: `not valid JSON: ${(e as Error).message}`, severity: 'error' }] };
  }
  if (isTrajectoryShape(value)) return accepted(file, line, value as Trajectory, text);
  const r = trajectorySchema().safeParse(value, { reportInput: true });
  if (!r.success) {
    const id = value !== null && typeof value === 'object' && typeof (value as { id?: unknown }).id === 'string' ? (value as { id: string }).id : undefined;
    const problems = r.error.issues.map((issue): Problem => {
      const d = describeIssue(issue);
      return { file, line, ...(id !== undefined ? { id } : {}), path: d.path.join('.') || '(record)', message: roleHint(d.message, issue), severity: 'error' };
    });
    return { ok: false, file, line, text, problems };
  }
  return accepted(file, line, value as Trajectory, text);
}

const NONE: Problem[] = [];

function accepted(file: string, line: number, record: Trajectory, text: string): ReadItem {
  if (record.tools?.some((t) => !('function' in t))) {
    const names = new Map<string, string>();
    record.tools = record.tools.map((t) => {
      const o = openAiShape(t);
      const source = (t as unknown as { name?: unknown }).name;
      if (!('function' in t) && typeof source === 'string' && source !== o.function.name) names.set(source, o.function.name);
      return o;
    });
    renameCalls(record, names);
  }
  const messages = record.messages;
  const first = messages[0];
  // A system message is re-rendered in every variant (as a string): text parts are joined on read,
  // so the source and its variants compare alike.
  if (first?.role === 'system' && Array.isArray(first.content)) messages[0] = { ...first, content: textOf(first.content) };
  // One walk over the messages: SDK dumps tidied, tool-call ids gathered (most records reuse none).
  let ids: Set<string> | undefined;
  let reused = false;
  for (let i = 0; i < messages.length; i++) {
    let m = messages[i]!;
    if (m.role !== 'assistant') continue;
    if (m.tool_calls === null || 'function_call' in m) {
      // An SDK's dump of a text reply (`tool_calls: null`, `function_call: null`): nothing to keep.
      const { function_call: _unused, ...rest } = m as typeof m & { function_call?: null };
      if (rest.tool_calls === null) delete rest.tool_calls;
      messages[i] = m = rest;
    }
    if (!m.tool_calls) continue;
    for (const c of m.tool_calls) {
      if ((ids ??= new Set()).has(c.id)) reused = true;
      ids.add(c.id);
    }
  }
  const warnings = reused ? renameReusedIds(record, ids!, file, line) : NONE;
  return { ok: true, file, line, record, text, warnings };
}

/**
 * Calls (and tool results that name their tool) under an MCP tool name that OpenAI does not allow
 * (`github.create_issue`) follow the OpenAI-safe name the tool is given (`github_create_issue`), as
 * the tool list does, so that they stay the calls of that tool. A name that some tool of the record
 * really has is left alone.
 */
export function renameCalls(rec: Trajectory, names: ReadonlyMap<string, string>): void {
  if (names.size === 0) return;
  const own = new Set((rec.tools ?? []).map((t) => ('function' in t ? t.function.name : '')));
  const to = (n: string) => (own.has(n) ? undefined : names.get(n));
  rec.messages.forEach((m, i) => {
    if (m.role === 'assistant' && m.tool_calls?.some((c) => to(c.function.name) !== undefined)) {
      rec.messages[i] = {
        ...m,
        tool_calls: m.tool_calls.map((c) => (to(c.function.name) === undefined ? c : { ...c, function: { ...c.function, name: to(c.function.name)! } })),
      };
    } else if (m.role === 'tool' && typeof m.name === 'string' && to(m.name) !== undefined) {
      rec.messages[i] = { ...m, name: to(m.name)! };
    }
  });
}

/** An MCP tool of a record in the OpenAI shape every other part reads (names made OpenAI-safe as in a harness). */
function openAiShape(t: OpenAiTool | Record<string, unknown>): OpenAiTool {
  if ('function' in t) return t as OpenAiTool;
  const n = normaliseTool(t);
  if (!('tool' in n)) return t as unknown as OpenAiTool; // the shape check accepted it: cannot happen
  const f: OpenAiTool['function'] = { name: n.tool.name, description: n.tool.description, parameters: n.tool.parameters };
  if (typeof t.description !== 'string') delete (f as { description?: string }).description;
  return { type: 'function', function: f };
}

/**
 * Tool-call ids as the conversation pairs them. Real logs reuse ids across turns (each call
 * answered right after it), so a tool result answers the nearest open call with its id: the open
 * call of the latest assistant message that has one with that id (the first of them when one message
 * repeats an id, as parallel calls are answered in order). Every use of an id after the first is
 * renamed `ID~2`, `ID~3`… (the next suffix not already an id of the record), in the call and in the
 * result that answers it, and reported as a warning; the runtime, rewrites and checks then see
 * unique ids. A result that answers no open call is left as it is (the record check reports it).
 */
export function uniqueCallIds(rec: Trajectory, file: string, line: number): Problem[] {
  const ids = new Set<string>();
  let reused = false;
  for (const m of rec.messages) {
    if (m.role !== 'assistant' || !m.tool_calls) continue;
    for (const c of m.tool_calls) {
      if (ids.has(c.id)) reused = true;
      ids.add(c.id);
    }
  }
  return reused ? renameReusedIds(rec, ids, file, line) : NONE;
}

/** uniqueCallIds once a reused id is known: `ids` holds every call id of the record (ids made here are added). */
function renameReusedIds(rec: Trajectory, ids: Set<string>, file: string, line: number): Problem[] {
  const warnings: Problem[] = [];
  const uses = new Map<string, { n: number; first: string }>();
  const open: { original: string; id: string; message: number }[] = [];
  rec.messages.forEach((m, i) => {
    if (m.role === 'assistant' && m.tool_calls) {
      let changed = false;
      const calls = m.tool_calls.map((c, k) => {
        const use = uses.get(c.id);
        let id = c.id;
        if (use === undefined) uses.set(c.id, { n: 1, first: `messages.${i}.tool_calls.${k}` });
        else {
          let n = ++use.n;
          while (ids.has((id = `${c.id}~${n}`))) n++;
          ids.add(id);
          changed = true;
          warnings.push({
            file,
            line,
            id: rec.id,
            path: `messages.${i}.tool_calls.${k}.id`,
            message: `tool call id "${c.id}" is used again (first at ${use.first}); written as "${id}"`,
            severity: 'warning',
          });
        }
        open.push({ original: c.id, id, message: i });
        return id === c.id ? c : { ...c, id };
      });
      if (changed) rec.messages[i] = { ...m, tool_calls: calls };
    } else if (m.role === 'tool') {
      let best = -1;
      for (let j = open.length - 1; j >= 0; j--) {
        if (open[j]!.original !== m.tool_call_id) continue;
        if (best !== -1 && open[j]!.message !== open[best]!.message) break;
        best = j;
      }
      if (best === -1) return;
      const call = open.splice(best, 1)[0]!;
      if (call.id !== m.tool_call_id) rec.messages[i] = { ...m, tool_call_id: call.id };
    }
  });
  return warnings;
}

function roleHint(message: string, issue: { code: string; path: PropertyKey[] }): string {
  if (issue.code === 'invalid_union' && issue.path[issue.path.length - 1] === 'role') {
    return 'role must be one of system, developer, user, assistant, tool';
  }
  return message;
}
