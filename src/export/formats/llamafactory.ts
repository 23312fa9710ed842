import { argumentsValue, isSkip, toolsList, type SourceMessage } from '../messages.js';
import { defineFormat, PerPartFile, type ExportContext, type Skip } from '../types.js';

/**
 * Between two results of parallel calls: LLaMA-Factory wraps one observation in one
 * `<tool_response>…</tool_response>`, so joining the results with this renders exactly what the
 * Qwen-family templates write for consecutive tool messages.
 */
export const OBSERVATION_JOIN = '\n</tool_response>\n<tool_response>\n';

interface Turn {
  from: 'human' | 'gpt' | 'function_call' | 'observation';
  value: string;
}

/** Between two user turns joined by `--merge-turns`. */
export const TURN_JOIN = '\n\n';

/** What `--merge-turns` changed, for the export manifest. */
interface Merged {
  records: number;
  user_turns_joined: number;
  system_as_user: number;
}

/**
 * One record as a sharegpt row, or why LLaMA-Factory cannot hold it. LLaMA-Factory drops a
 * conversation whose turns do not alternate; with `--merge-turns` two things that break alternation
 * are written in a form it takes (counted in `merged`): consecutive user turns (a variant whose
 * prompt.placement moved a section into a user message, logs with two user messages in a row) are
 * one human turn, their texts joined with a blank line; a system message after the first (hook
 * feedback, a later instruction) is a human turn, joined the same way with a user turn next to it.
 */
function sharegpt(record: Record<string, unknown>, ctx: ExportContext, merged: Merged): Record<string, unknown> | Skip {
  const messages = record.messages as SourceMessage[];
  if (!Array.isArray(messages)) return { kind: 'no messages', detail: 'messages: not a list' };
  const tools = toolsList(record.tools);
  if (isSkip(tools)) return tools;
  let system = '';
  const turns: Turn[] = [];
  let dropped = 0;
  let joined = 0;
  let systemAsUser = 0;
  const human = (value: string) => {
    const last = turns[turns.length - 1];
    if (ctx.mergeTurns && last?.from === 'human') {
      last.value += TURN_JOIN + value;
      joined++;
    } else turns.push({ from: 'human', value });
  };
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    const text = typeof m.content === 'string' ? m.content : m.content == null ? '' : null;
    if (text === null) return { kind: 'content not text', detail: `messages[${i}].content: not a string` };
    if (m.reasoning_content) return { kind: 'reasoning content', detail: `messages[${i}]: sharegpt has no reasoning field` };
    if (m.name !== undefined) dropped++;
    if (m.role === 'system' && i !== 0 && ctx.mergeTurns) {
      human(text);
      systemAsUser++;
    } else if (m.role === 'system') {
      if (i !== 0) return { kind: 'system message not first', detail: `messages[${i}]: sharegpt holds one system prompt, before the conversation (--merge-turns writes it as a user turn)` };
      system = text;
    } else if (m.role === 'user') {
      human(text);
    } else if (m.role === 'assistant' && m.tool_calls?.length) {
      if (text !== '') return { kind: 'assistant text alongside tool calls', detail: `messages[${i}]: a function_call turn has no place for the text before the calls` };
      const calls = [];
      for (const c of m.tool_calls) {
        const args = argumentsValue(c.function.arguments);
        if (args === undefined) return { kind: 'arguments not JSON', detail: `messages[${i}]: arguments of ${c.function.name} are not JSON` };
        calls.push({ name: c.function.name, arguments: args });
      }
      turns.push({ from: 'function_call', value: JSON.stringify(calls.length === 1 ? calls[0] : calls) });
    } else if (m.role === 'assistant') {
      turns.push({ from: 'gpt', value: text });
    } else if (m.role === 'tool') {
      const results = [text];
      while (messages[i + 1]?.role === 'tool') {
        i++;
        const next = messages[i]!;
        if (typeof next.content !== 'string') return { kind: 'content not text', detail: `messages[${i}].content: not a string` };
        results.push(next.content);
      }
      if (results.length > 1 && results.some((r) => r.includes('</tool_response>'))) return { kind: 'ambiguous parallel results', detail: `messages[${i}]: a tool result contains "</tool_response>", which joins parallel results` };
      turns.push({ from: 'observation', value: results.join(OBSERVATION_JOIN) });
    } else {
      return { kind: 'role not representable', detail: `messages[${i}].role: "${m.role}" has no sharegpt tag` };
    }
  }
  // LLaMA-Factory drops a conversation whose turns do not alternate (human/observation, then gpt/function_call).
  for (const [k, t] of turns.entries()) {
    const even = k % 2 === 0;
    if (even !== (t.from === 'human' || t.from === 'observation')) {
      const hint = !ctx.mergeTurns && t.from === 'human' && turns[k - 1]?.from === 'human' ? ' (--merge-turns joins consecutive user turns)' : '';
      return { kind: 'turns do not alternate', detail: `turn ${k} is "${t.from}" where LLaMA-Factory expects ${even ? 'human/observation' : 'gpt/function_call'}${hint}` };
    }
  }
  if (turns.length % 2 !== 0) return { kind: 'does not end with the assistant', detail: 'the last turn must be gpt or function_call' };
  if (joined + systemAsUser > 0) {
    merged.records++;
    merged.user_turns_joined += joined;
    merged.system_as_user += systemAsUser;
  }
  for (let n = 0; n < dropped; n++) ctx.dropped('messages[].name');
  for (const m of messages) for (const c of m.tool_calls ?? []) if (c.id !== undefined) ctx.dropped('tool_calls[].id');
  // Bare function objects; LLaMA-Factory wraps them in {"type":"function","function":…} itself.
  const bare = tools.map((t) => ((t as { type?: string; function?: unknown }).type === 'function' ? (t as { function: unknown }).function : t));
  return { id: record.id, conversations: turns, system, tools: JSON.stringify(bare) };
}

/** LLaMA-Factory sharegpt JSONL (one file per source part under `data/`) plus `dataset_info.json`. */
export default defineFormat({
  id: 'llamafactory',
  description: 'LLaMA-Factory sharegpt JSONL (human/gpt/function_call/observation, system, tools) and its dataset_info.json entry',
  stages: ['sft'],
  open(ctx) {
    const files = new PerPartFile(ctx, (file) => ctx.jsonl(file), (part) => `data/${part}.jsonl`);
    const merged: Merged = { records: 0, user_turns_joined: 0, system_as_user: 0 };
    return {
      add(record) {
        const row = sharegpt(record, ctx, merged);
        if (isSkip(row)) return row;
        files.get().write(row);
        return undefined;
      },
      endPart: (index) => files.end(index),
      async finish() {
        const entry = {
          [ctx.name]: {
            file_name: 'data',
            formatting: 'sharegpt',
            columns: { messages: 'conversations', system: 'system', tools: 'tools' },
            tags: { role_tag: 'from', content_tag: 'value', user_tag: 'human', assistant_tag: 'gpt', observation_tag: 'observation', function_tag: 'function_call', system_tag: 'system' },
          },
        };
        await ctx.whole('dataset_info.json', `${JSON.stringify(entry, null, 2)}\n`);
        return { dataset_info: { file: 'dataset_info.json', name: ctx.name }, ...(ctx.mergeTurns ? { merged_turns: merged } : {}) };
      },
    };
  },
});
