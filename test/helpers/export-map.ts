import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

/**
 * Reading trainer formats back into OpenAI messages, written for the tests from the formats'
 * documentation (not from the exporters' code), so a test compares two independent readings.
 */

export interface Msg {
  role: string;
  content: string;
  /** An assistant's reasoning (`reasoning_content`), when it has any. */
  reasoning?: string;
  tool_calls?: { name: string; arguments: unknown }[];
}

/** What a chat template renders of a message: role, text, calls by name with parsed arguments. */
export function renderedView(messages: readonly Record<string, unknown>[]): Msg[] {
  return messages.map((m) => {
    const calls = m.tool_calls as { function: { name: string; arguments: unknown } }[] | null | undefined;
    return {
      role: String(m.role),
      content: typeof m.content === 'string' ? m.content : '',
      ...(typeof m.reasoning_content === 'string' && m.reasoning_content !== '' ? { reasoning: m.reasoning_content } : {}),
      ...(calls && calls.length ? { tool_calls: calls.map((c) => ({ name: c.function.name, arguments: parseArgs(c.function.arguments) })) } : {}),
    };
  });
}

function parseArgs(a: unknown): unknown {
  return typeof a === 'string' ? JSON.parse(a) : a;
}

/** Messages in the Chat Completions shape the chat template takes, from a rendered view. */
export function asChat(view: Msg[]): Record<string, unknown>[] {
  return view.map((m) => ({
    role: m.role,
    content: m.content,
    ...(m.reasoning !== undefined ? { reasoning_content: m.reasoning } : {}),
    ...(m.tool_calls ? { tool_calls: m.tool_calls.map((c) => ({ type: 'function', function: { name: c.name, arguments: c.arguments } })) } : {}),
  }));
}

/** A leading thought (`<think>\n…\n</think>\n\n`, docs/export.md) read back as the reasoning. */
function splitThought(value: string): { reasoning?: string; rest: string } {
  const m = /^<think>\n([\s\S]*?)\n<\/think>\n\n/.exec(value);
  return m ? { reasoning: m[1]!, rest: value.slice(m[0].length) } : { rest: value };
}

/** A LLaMA-Factory sharegpt row read back: system, then human/gpt/function_call/observation. */
export function fromSharegpt(row: { conversations: { from: string; value: string }[]; system?: string; tools?: string }): {
  messages: Msg[];
  tools: unknown[];
} {
  const out: Msg[] = [];
  if (row.system) out.push({ role: 'system', content: row.system });
  for (const t of row.conversations) {
    if (t.from === 'human') out.push({ role: 'user', content: t.value });
    else if (t.from === 'gpt') {
      const { reasoning, rest } = splitThought(t.value);
      out.push({ role: 'assistant', content: rest, ...(reasoning !== undefined ? { reasoning } : {}) });
    } else if (t.from === 'function_call') {
      // Text before the calls: "text\n<tool_call>CALLS JSON</tool_call>" (docs/export.md), after the thought if any.
      const { reasoning, rest } = splitThought(t.value);
      const m = /^([\s\S]*)\n<tool_call>([\s\S]*)<\/tool_call>$/.exec(rest);
      const v = JSON.parse(m ? m[2]! : rest) as { name: string; arguments: unknown } | { name: string; arguments: unknown }[];
      out.push({
        role: 'assistant',
        content: m ? m[1]! : '',
        ...(reasoning !== undefined ? { reasoning } : {}),
        tool_calls: (Array.isArray(v) ? v : [v]).map((c) => ({ name: c.name, arguments: c.arguments })),
      });
    } else if (t.from === 'observation') {
      // Parallel results are joined inside one <tool_response> block (the Qwen layout).
      for (const part of t.value.split('\n</tool_response>\n<tool_response>\n')) out.push({ role: 'tool', content: part });
    } else throw new Error(`unknown sharegpt tag ${t.from}`);
  }
  const tools = (JSON.parse(row.tools ?? '[]') as Record<string, unknown>[]).map((f) => ({ type: 'function', function: f }));
  return { messages: out, tools };
}

/**
 * An ms-swift agent row read back: tool_call messages join the assistant turn before them, whose
 * text carries one added line break before its calls (docs/export.md).
 */
export function fromSwift(row: { messages: { role: string; content: string }[]; tools: string }): { messages: Msg[]; tools: unknown[] } {
  const out: Msg[] = [];
  for (const [i, m] of row.messages.entries()) {
    if (m.role === 'assistant') {
      const { reasoning, rest } = splitThought(m.content);
      let content = rest;
      if (row.messages[i + 1]?.role === 'tool_call' && rest !== '') {
        if (!rest.endsWith('\n')) throw new Error(`messages[${i}]: text before calls without its line break`);
        content = rest.slice(0, -1);
      }
      out.push({ role: 'assistant', content, ...(reasoning !== undefined ? { reasoning } : {}) });
    } else if (m.role === 'tool_call') {
      const call = JSON.parse(m.content) as { name: string; arguments: unknown };
      const last = out[out.length - 1];
      if (last && last.role === 'assistant') (last.tool_calls ??= []).push(call);
      else out.push({ role: 'assistant', content: '', tool_calls: [call] });
    } else if (m.role === 'tool_response') out.push({ role: 'tool', content: m.content });
    else out.push({ role: m.role, content: m.content });
  }
  return { messages: out, tools: JSON.parse(row.tools) as unknown[] };
}

/** Every file under `dir` with this extension, relative, sorted. */
export function filesUnder(dir: string, ext: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(dir, rel)).sort()) {
      const r = rel ? `${rel}/${name}` : name;
      if (statSync(path.join(dir, r)).isDirectory()) walk(r);
      else if (r.endsWith(ext)) out.push(r);
    }
  };
  walk('');
  return out;
}

/** Rows of a parquet file as DuckDB reads them, each column as JSON (an engine independent of the writer). */
export async function duckRows(file: string): Promise<Record<string, unknown>[]> {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    const cols = (await c.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${file.replace(/'/g, "''")}')`))
      .getRowObjects()
      .map((r) => String(r.column_name));
    const sql = `SELECT ${cols.map((n) => `to_json("${n}")::VARCHAR AS "${n}"`).join(', ')} FROM read_parquet('${file.replace(/'/g, "''")}')`;
    const rows = (await c.runAndReadAll(sql)).getRowObjects();
    return rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === null ? null : JSON.parse(String(v))])));
  } finally {
    c.closeSync();
    db.closeSync();
  }
}

/** Drop null members (a parquet struct has every field; the JSONL record only those it uses). */
export function withoutNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutNulls);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v)
        .filter(([, x]) => x !== null)
        .map(([k, x]) => [k, withoutNulls(x)]),
    );
  return v;
}

/** Source records of a stage, in manifest order, with where they are. */
export function sourceRecords(out: string, stage: string): { file: string; line: number; record: Record<string, unknown> }[] {
  const manifest = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8')) as { stages: Record<string, { files: { file: string }[] }> };
  const res: { file: string; line: number; record: Record<string, unknown> }[] = [];
  for (const f of manifest.stages[stage]!.files) {
    const lines = readFileSync(path.join(out, f.file), 'utf8').split('\n');
    lines.forEach((l, i) => {
      if (l.trim()) res.push({ file: f.file, line: i + 1, record: JSON.parse(l) as Record<string, unknown> });
    });
  }
  return res;
}
