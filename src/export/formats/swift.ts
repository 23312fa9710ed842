import { argumentsValue, isSkip, toolsList, type SourceMessage } from '../messages.js';
import { defineFormat, PerPartFile, type ExportContext, type Skip } from '../types.js';

/** One record in ms-swift's agent format, or why it cannot be written. */
function agentRow(record: Record<string, unknown>, ctx: ExportContext): Record<string, unknown> | Skip {
  const messages = record.messages as SourceMessage[];
  if (!Array.isArray(messages)) return { kind: 'no messages', detail: 'messages: not a list' };
  const tools = toolsList(record.tools);
  if (isSkip(tools)) return tools;
  const out: { role: string; content: string }[] = [];
  const dropped: string[] = [];
  for (const [i, m] of messages.entries()) {
    const text = typeof m.content === 'string' ? m.content : m.content == null ? '' : null;
    if (text === null) return { kind: 'content not text', detail: `messages[${i}].content: not a string` };
    if (m.reasoning_content) return { kind: 'reasoning content', detail: `messages[${i}]: the agent format has no reasoning field` };
    if (m.name !== undefined) dropped.push('messages[].name');
    if (m.role === 'assistant' && m.tool_calls?.length) {
      // tool_call messages after an assistant text message belong to it when read back: an
      // assistant reply without calls directly before calls with no text would merge with them.
      const prev = messages[i - 1];
      if (text === '' && prev?.role === 'assistant' && !prev.tool_calls?.length) return { kind: 'ambiguous assistant turns', detail: `messages[${i}]: tool calls right after an assistant reply would read back as one message` };
      if (text !== '') out.push({ role: 'assistant', content: text });
      for (const c of m.tool_calls) {
        const args = argumentsValue(c.function.arguments);
        if (args === undefined) return { kind: 'arguments not JSON', detail: `messages[${i}]: arguments of ${c.function.name} are not JSON` };
        if (c.id !== undefined) dropped.push('tool_calls[].id');
        out.push({ role: 'tool_call', content: JSON.stringify({ name: c.function.name, arguments: args }) });
      }
    } else if (m.role === 'tool') {
      out.push({ role: 'tool_response', content: text });
    } else if (m.role === 'system' || m.role === 'user' || m.role === 'assistant') {
      out.push({ role: m.role, content: text });
    } else {
      return { kind: 'role not representable', detail: `messages[${i}].role: "${m.role}"` };
    }
  }
  for (const d of dropped) ctx.dropped(d);
  return { id: record.id, tools: JSON.stringify(tools), messages: out };
}

/** ms-swift agent JSONL: `tools` as JSON text, tool_call / tool_response messages; one file per source part. */
export default defineFormat({
  id: 'swift',
  description: "ms-swift agent JSONL: messages with tool_call/tool_response roles, tools as a JSON string",
  stages: ['sft', 'opd'],
  open(ctx) {
    const files = new PerPartFile(ctx, (file) => ctx.jsonl(file), (part) => `${ctx.stage}/${part}.jsonl`);
    return {
      add(record) {
        const row = agentRow(record, ctx);
        if (isSkip(row)) return row;
        files.get().write(row);
        return undefined;
      },
      endPart: (index) => files.end(index),
      async finish() {
        return {};
      },
    };
  },
});
