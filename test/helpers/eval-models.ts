/**
 * Scripted "models" for `hsa eval` tests, answered through a real OpenAI-compatible server
 * (test/helpers/teacher-server.ts). Both know every row's ground truth; they differ in what they
 * can see of it:
 * - `memorising`: recognises a conversation by its first user message only and answers with the
 *   source row's calls and replies — the names of the harness it was trained on — whatever tools
 *   and prompt the request carries;
 * - `reading`: recognises the conversation by the harness it is given (system prompt, tool list)
 *   and the user message, and answers with that row's own calls — it reads the harness.
 * A conversation neither recognises gets a plain reply.
 */
import { readFileSync } from 'node:fs';
import type { Behaviour, ChatRequest, Respond } from './teacher-server.js';

interface Row {
  id: string;
  sourceId: string;
  isSource: boolean;
  userTurns: string[];
  turns: { calls: { name: string; arguments: unknown }[]; reply: string }[];
  system: string;
  tools: string;
}

function rowsOf(files: string[]): Row[] {
  const out: Row[] = [];
  for (const f of files) {
    for (const line of readFileSync(f, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const r = JSON.parse(line);
      const env = JSON.parse(r.extra_info.env);
      const gt = JSON.parse(r.reward_model.ground_truth);
      out.push({
        id: r.extra_info.id,
        sourceId: r.extra_info.source_id,
        isSource: r.extra_info.variant === 'src',
        userTurns: env.user_turns,
        turns: gt.turns.map((t: any) => ({ calls: t.calls, reply: t.reply })),
        system: r.prompt[0]?.role === 'system' ? r.prompt[0].content : '',
        tools: JSON.stringify(env.tools.map((t: any) => t.function.name)),
      });
    }
  }
  return out;
}

const text = (c: unknown) => (typeof c === 'string' ? c : Array.isArray(c) ? c.map((p: any) => p?.text ?? '').join('') : '');

/** Which user turn the conversation is in, and whether the model already called tools in it. */
function position(req: ChatRequest, row: Row): { turn: number; called: boolean } {
  let turn = -1;
  let called = false;
  for (const m of req.messages) {
    if (m.role === 'user' && m.name === undefined && text(m.content) === row.userTurns[turn + 1]) {
      turn++;
      called = false;
    } else if (m.role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.length) called = true;
  }
  return { turn: Math.max(0, turn), called };
}

function answer(req: ChatRequest, row: Row | undefined, index: number): Behaviour {
  if (!row) return { kind: 'message', content: 'Sorry, I am not sure.' };
  const { turn, called } = position(req, row);
  const t = row.turns[turn];
  if (!t) return { kind: 'message', content: 'Sorry, I am not sure.' };
  if (!called && t.calls.length && req.tool_choice !== 'none') {
    return {
      kind: 'message',
      content: null,
      tool_calls: t.calls.map((c, i) => ({ id: `call_${index}_${i}`, name: c.name, arguments: JSON.stringify(c.arguments) })),
      finish_reason: 'tool_calls',
    };
  }
  return { kind: 'message', content: t.reply };
}

function firstUser(req: ChatRequest, rows: Row[]): string | undefined {
  const firsts = new Set(rows.map((r) => r.userTurns[0]));
  return req.messages.map((m) => (m.role === 'user' ? text(m.content) : undefined)).find((c) => c !== undefined && firsts.has(c));
}

/** Answers with the source row's names, found by the first user message (ambiguous ones get a plain reply). */
export function memorising(files: string[]): Respond {
  const rows = rowsOf(files).filter((r) => r.isSource);
  const byFirst = new Map<string, Row | null>();
  for (const r of rows) byFirst.set(r.userTurns[0]!, byFirst.has(r.userTurns[0]!) ? null : r);
  return (req, i) => {
    const first = firstUser(req, rows);
    return answer(req, first === undefined ? undefined : (byFirst.get(first) ?? undefined), i);
  };
}

/** Answers with the row of the harness it is given (system prompt, tool names, first user message). */
export function reading(files: string[]): Respond {
  const rows = rowsOf(files);
  const key = (system: string, tools: string, first: string) => `${system}\u0000${tools}\u0000${first}`;
  const byKey = new Map<string, Row>();
  for (const r of rows) byKey.set(key(r.system, r.tools, r.userTurns[0]!), r);
  return (req, i) => {
    const system = req.messages[0]?.role === 'system' ? text(req.messages[0].content) : '';
    const tools = JSON.stringify((req.tools ?? []).map((t: any) => t.function.name));
    const first = firstUser(req, rows) ?? '';
    return answer(req, byKey.get(key(system, tools, first)), i);
  };
}
