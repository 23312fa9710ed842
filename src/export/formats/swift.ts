import { argumentsValue, isSkip, toolsList, type SourceMessage } from '../messages.js';
import { defineFormat, PerPartFile, type ExportContext, type Skip } from '../types.js';
import { QWEN3_TEMPLATE_SHA256 } from '../../tokenize/qwen3-template.js';
import { codePoints, pyJson, recordJoin, thoughtOf, TURN_JOIN, type JoinedTurn } from './llamafactory.js';

/**
 * Added after an assistant's text when calls follow it: ms-swift writes the text and its
 * `<tool_call>` blocks as one response with nothing between them, where Qwen3's template writes a
 * line break; the exported text carries that line break (read back: one trailing `\n` removed).
 */
export const TEXT_BEFORE_CALLS = '\n';

/** What `--merge-turns` changed, for the export manifest (the same counts as llamafactory's). */
interface Merged {
  records: number;
  user_turns_joined: number;
  system_as_user: number;
}

/**
 * One record in ms-swift's agent format, or why it cannot be written. What ms-swift would do
 * silently to a row is refused here with a counted reason, or (with `--merge-turns`) written in a
 * form it takes, recorded on the row as `hsa_joined` (see JoinedTurn):
 * - a system message after the first: ms-swift's encoder pairs query/response messages and
 *   asserts the query role is user or tool; with its default `strict=False` the row is deleted;
 * - consecutive user messages: ms-swift concatenates them with no separator ("…ids.how much…");
 * - consecutive assistant replies without calls between them: concatenated the same way;
 * - a user (or system) message right after tool results: paired as the response, the assert fails.
 */
function agentRow(record: Record<string, unknown>, ctx: ExportContext, merged: Merged | null): Record<string, unknown> | Skip {
  const messages = record.messages as SourceMessage[];
  if (!Array.isArray(messages)) return { kind: 'no messages', detail: 'messages: not a list' };
  const tools = toolsList(record.tools);
  if (isSkip(tools)) return tools;
  const out: { role: string; content: string }[] = [];
  /** The source role of each written user message (a later system message joined as user text). */
  const roles: string[] = [];
  const joins: JoinedTurn[] = [];
  let joined = 0;
  let systemAsUser = 0;
  const dropped: string[] = [];
  for (const [i, m] of messages.entries()) {
    const text = typeof m.content === 'string' ? m.content : m.content == null ? '' : null;
    if (text === null) return { kind: 'content not text', detail: `messages[${i}].content: not a string` };
    const thought = m.role === 'assistant' ? thoughtOf(m, i) : '';
    if (isSkip(thought)) return thought;
    if (m.name !== undefined) dropped.push('messages[].name');
    const prevOut = out[out.length - 1];
    if (m.role === 'assistant' && m.tool_calls?.length) {
      // tool_call messages after an assistant text message belong to it when read back: an
      // assistant reply without calls directly before calls with no text would merge with them.
      const prev = messages[i - 1];
      if (text === '' && prev?.role === 'assistant' && !prev.tool_calls?.length)
        return { kind: 'ambiguous assistant turns', detail: `messages[${i}]: tool calls right after an assistant reply would read back as one message` };
      // A thought alone before the calls gets no line break (Qwen3's template writes none after it).
      if (text !== '') out.push({ role: 'assistant', content: thought + text + TEXT_BEFORE_CALLS });
      else if (thought !== '') out.push({ role: 'assistant', content: thought });
      for (const c of m.tool_calls) {
        const args = argumentsValue(c.function.arguments);
        if (args === undefined) return { kind: 'arguments not JSON', detail: `messages[${i}]: arguments of ${c.function.name} are not JSON` };
        if (c.id !== undefined) dropped.push('tool_calls[].id');
        out.push({ role: 'tool_call', content: JSON.stringify({ name: c.function.name, arguments: args }) });
      }
    } else if (m.role === 'tool') {
      if (prevOut && prevOut.role !== 'tool_call' && prevOut.role !== 'tool_response')
        return {
          kind: 'tool result not after a call',
          detail: `messages[${i}]: ms-swift folds a tool result that follows a ${prevOut.role} message into that message`,
        };
      out.push({ role: 'tool_response', content: text });
    } else if (m.role === 'user' || (m.role === 'system' && i > 0)) {
      if (prevOut?.role === 'tool_response')
        return {
          kind: 'user turn after tool results',
          detail: `messages[${i}]: ms-swift pairs tool results with the next message as the model's response and asserts it is the assistant's; the row would be deleted`,
        };
      if (m.role === 'system' && !ctx.mergeTurns) {
        return {
          kind: 'system message not first',
          detail: `messages[${i}]: ms-swift's encoder asserts on a system message after the first and, with its default strict=False, deletes the row (--merge-turns writes it as a user turn)`,
        };
      }
      if (m.role === 'system') systemAsUser++;
      if (prevOut?.role === 'user') {
        if (!ctx.mergeTurns)
          return {
            kind: 'consecutive user turns',
            detail: `messages[${i}]: ms-swift concatenates consecutive user messages with no separator (--merge-turns joins them with a blank line)`,
          };
        recordJoin(joins, out.length - 1, roles[out.length - 1]!, prevOut.content, m.role, text);
        prevOut.content += TURN_JOIN + text;
        joined++;
      } else {
        roles[out.length] = m.role;
        // A later system message alone in its turn is recorded too: its role is not the turn's.
        if (m.role !== 'user') joins.push({ at: out.length, roles: [m.role], lengths: [codePoints(text)] });
        out.push({ role: 'user', content: text });
      }
    } else if (m.role === 'assistant') {
      if (prevOut?.role === 'assistant')
        return { kind: 'consecutive assistant turns', detail: `messages[${i}]: ms-swift concatenates consecutive assistant messages with no separator` };
      out.push({ role: 'assistant', content: thought + text });
    } else if (m.role === 'system') {
      out.push({ role: 'system', content: text });
    } else {
      return { kind: 'role not representable', detail: `messages[${i}].role: "${m.role}"` };
    }
  }
  // Counting tokens converts the record too (merged: null): only writing it counts what it changed.
  if (!merged) return { id: record.id, tools: JSON.stringify(tools), messages: out };
  for (const d of dropped) ctx.dropped(d);
  if (joined + systemAsUser > 0) {
    merged.records++;
    merged.user_turns_joined += joined;
    merged.system_as_user += systemAsUser;
  }
  return { id: record.id, tools: JSON.stringify(tools), messages: out, ...(joins.length ? { hsa_joined: joins } : {}) };
}

/** ms-swift agent JSONL: `tools` as JSON text, tool_call / tool_response messages; one file per source part. */
export default defineFormat({
  id: 'swift',
  description: 'ms-swift agent JSONL: messages with tool_call/tool_response roles, tools as a JSON string',
  stages: ['sft', 'opd'],
  open(ctx) {
    const files = new PerPartFile(
      ctx,
      (file) => ctx.jsonl(file),
      (part) => `${ctx.stage}/${part}.jsonl`,
    );
    const merged: Merged = { records: 0, user_turns_joined: 0, system_as_user: 0 };
    let tokensCounted = false;
    return {
      countTokens(record, counter) {
        // ms-swift's qwen3 template (SFT rows) differs from Qwen3's chat template by its think
        // prefixes; OPD prompts and other tokenizers' templates are counted as the template renders them.
        if (ctx.stage !== 'sft' || counter.info.template_sha256 !== QWEN3_TEMPLATE_SHA256) return undefined;
        const row = agentRow(record, ctx, null);
        if (isSkip(row)) return null;
        tokensCounted = true;
        return counter.countText(swiftQwen3Text(row as unknown as SwiftRow));
      },
      add(record) {
        const row = agentRow(record, ctx, merged);
        if (isSkip(row)) return row;
        files.get().write(row);
        return undefined;
      },
      endPart: (index) => files.end(index),
      async finish() {
        return { ...(ctx.mergeTurns ? { merged_turns: merged } : {}), ...(tokensCounted ? { tokens_counted_as: SWIFT_TOKENS_AS } : {}) };
      },
    };
  },
});

/** What `tokens` in the export manifest counts, when ms-swift's template is emulated. */
const SWIFT_TOKENS_AS =
  "ms-swift template qwen3 (hermes agent template): each row's ids as ms-swift encodes them (an empty think block on every assistant turn), the length --max_length applies to";

/** ms-swift's `non_thinking_prefix` of the qwen3 template. */
export const SWIFT_NON_THINKING = '<think>\n\n</think>\n\n';

/** A row of the swift file. */
interface SwiftRow {
  messages: { role: string; content: string }[];
  tools: string;
}

/**
 * The text ms-swift's `qwen3` template (hermes agent template, template_backend swift, training,
 * loss_scale default) builds for an SFT row as this format writes it: tool_call messages become
 * one assistant message of `<tool_call>` blocks, consecutive tool results one user block, each
 * assistant message gets the non-thinking prefix `<think>\n\n</think>\n\n` (Qwen3's own chat
 * template writes it on the last assistant turn only), tools and calls re-serialised by Python's
 * `json.dumps`. Its added tokens cut it wherever ms-swift's contexts meet, so counting the whole
 * text counts the ids ms-swift trains on. Rows this format skips never reach it.
 */
export function swiftQwen3Text(row: SwiftRow): string {
  const messages = row.messages.map((m) => ({ ...m }));
  const system = messages[0]?.role === 'system' ? messages.shift()!.content : null;
  const tools = JSON.parse(row.tools) as Record<string, unknown>[];
  // One assistant message per run of tool_call messages, then per run of tool results one query.
  type Msg = { role: string; content: string };
  const merged: Msg[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === 'tool_call') {
      const calls: string[] = [];
      for (; messages[i]?.role === 'tool_call'; i++) {
        const c = JSON.parse(messages[i]!.content) as { name: string; arguments: unknown };
        calls.push(
          `<tool_call>\n${pyJson({ name: c.name, arguments: typeof c.arguments === 'string' ? JSON.parse(c.arguments) : c.arguments })}\n</tool_call>`,
        );
      }
      i--;
      const prev = merged[merged.length - 1];
      // An assistant text before the calls: one response, the two contents joined as they are.
      if (prev?.role === 'assistant') prev.content += calls.join('\n');
      else merged.push({ role: 'assistant', content: calls.join('\n') });
    } else if (m.role === 'tool_response') {
      const results: string[] = [];
      for (; messages[i]?.role === 'tool_response'; i++) results.push(`<tool_response>\n${messages[i]!.content}\n</tool_response>`);
      i--;
      merged.push({ role: 'tool', content: results.join('\n') });
    } else merged.push({ ...m });
  }
  let text = '';
  let sys = system;
  if (tools.length) {
    sys = `${sys ?? ''}\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>\n${tools
      .map((t) => pyJson('type' in t || 'function' in t ? t : { type: 'function', function: t }))
      .join(
        '\n',
      )}\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>`;
  }
  if (sys) text += `<|im_start|>system\n${sys}<|im_end|>\n`;
  for (const m of merged) {
    if (m.role === 'user') text += `<|im_start|>user\n${m.content}<|im_end|>\n<|im_start|>assistant\n`;
    else if (m.role === 'tool') text += `<|im_start|>user\n${m.content}<|im_end|>\n<|im_start|>assistant\n`;
    else {
      const content = m.content.startsWith('<think>') ? m.content : SWIFT_NON_THINKING + m.content;
      // After a response: the next query's header follows, or (last) the suffix.
      text += `${content}<|im_end|>\n`;
    }
  }
  return text;
}
