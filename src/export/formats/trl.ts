import { canonicalJson } from '../../util/canonical-json.js';
import { argumentsValue, isSkip, toolsList, type SourceMessage } from '../messages.js';
import { defineFormat, PerPartFile, type ExportContext, type Skip } from '../types.js';
import { pyJson } from './llamafactory.js';

const MESSAGE_KEYS = new Set(['role', 'content', 'name', 'tool_call_id', 'reasoning_content', 'tool_calls']);

/**
 * One record as TRL's `SFTTrainer` reads it through `datasets.load_dataset("json")`: Arrow gives a
 * column one type for the whole file, so objects whose keys differ from row to row (tool schemas
 * of different harness states, the arguments of different calls, `meta`) come back with every
 * other row's keys set to null — the template would then render `"query": null` in a schema or a
 * call that never had it — or do not load at all when one key holds an int here and a string
 * there. Those fields are JSON text: `tools` (TRL runs `json.loads` on a string column before
 * `apply_chat_template`), each call's `arguments` (Qwen-family templates write a string argument
 * as it is; it is written with Python's `json.dumps` spacing, so the rendered prompt is byte for
 * byte the one `tojson` renders for the object), `meta`.
 */
function trlRow(record: Record<string, unknown>): Record<string, unknown> | Skip {
  const messages = record.messages as SourceMessage[];
  if (!Array.isArray(messages)) return { kind: 'no messages', detail: 'messages: not a list' };
  const tools = toolsList(record.tools);
  if (isSkip(tools)) return tools;
  const out: Record<string, unknown>[] = [];
  for (const [i, m] of messages.entries()) {
    const extra = Object.keys(m).filter((k) => !MESSAGE_KEYS.has(k));
    if (extra.length)
      return { kind: 'message field not representable', detail: `messages[${i}]: field ${extra.map((k) => `"${k}"`).join(', ')} has no column` };
    if (m.content !== undefined && m.content !== null && typeof m.content !== 'string')
      return { kind: 'content not text', detail: `messages[${i}].content: not a string` };
    const msg: Record<string, unknown> = { role: m.role, content: m.content ?? '' };
    if (m.reasoning_content !== undefined) msg.reasoning_content = m.reasoning_content;
    if (m.name !== undefined) msg.name = m.name;
    if (m.tool_call_id !== undefined) msg.tool_call_id = m.tool_call_id;
    if (m.tool_calls?.length) {
      const calls = [];
      for (const c of m.tool_calls) {
        const args = argumentsValue(c.function.arguments);
        if (args === undefined) return { kind: 'arguments not JSON', detail: `messages[${i}]: arguments of ${c.function.name} are not JSON` };
        calls.push({ ...(c.id !== undefined ? { id: c.id } : {}), type: c.type ?? 'function', function: { name: c.function.name, arguments: pyJson(args) } });
      }
      msg.tool_calls = calls;
    }
    out.push(msg);
  }
  return { id: String(record.id), messages: out, tools: JSON.stringify(tools), meta: record.meta === undefined ? null : canonicalJson(record.meta) };
}

/** TRL SFTTrainer JSONL (conversational with tools): one file per source part. */
export default defineFormat({
  id: 'trl',
  description: "TRL SFTTrainer JSONL: messages (arguments as JSON text), tools and meta as JSON text, so datasets' Arrow loader cannot null-pad them",
  stages: ['sft'],
  open(ctx: ExportContext) {
    const files = new PerPartFile(
      ctx,
      (file) => ctx.jsonl(file),
      (part) => `${ctx.stage}/${part}.jsonl`,
    );
    return {
      countTokens(record, counter) {
        // The row as written: its argument text (Python's number forms, `1e-05`) is what TRL renders.
        const row = trlRow(record);
        if (isSkip(row)) return null;
        return counter.count(row.messages as unknown[], JSON.parse(row.tools as string) as unknown[], false);
      },
      add(record) {
        const row = trlRow(record);
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
