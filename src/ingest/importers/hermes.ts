import type { OpenAiTool } from '../../harness/types.js';
import type { Message, ToolCall } from '../../trajectory/types.js';
import {
  argumentsString,
  CallTracker,
  ConvertError,
  defineImporter,
  isObj,
  jsonObjectsIn,
  openAiToolOf,
  parseJsonish,
  recordId,
  sourceMeta,
  str,
  toolList,
  toolMessage,
  trajectory,
} from '../importer.js';

/**
 * Hermes-style function calling (NousResearch): tools as `<tools>…</tools>` in the system prompt
 * (a JSON or Python-literal list, or one object a line), calls as `<tool_call>{"name",
 * "arguments"}</tool_call>` inside assistant text, results as `<tool_response>…</tool_response>`
 * in tool turns (or user turns). Carried as `conversations` of `{from, value}` (system / human /
 * gpt / tool) or `messages` of `{role, content}`. The system message is kept as written (tools
 * and all); the assistant's text is what remains around its tool calls, trimmed.
 */
export default defineImporter({
  id: 'hermes',
  description: 'Hermes function calling: <tools> in the system prompt, <tool_call> in assistant text, <tool_response> in tool turns',
  convert(value, at) {
    if (!isObj(value)) throw new ConvertError('(record)', 'must be a JSON object');
    const id = recordId(value, at);
    const carrier = Array.isArray(value.conversations) ? 'conversations' : Array.isArray(value.messages) ? 'messages' : undefined;
    if (!carrier) throw new ConvertError('conversations', 'missing (neither conversations nor messages is a list)');
    const turns = value[carrier] as unknown[];
    let tools = toolList(value.tools, 'tools');
    const messages: Message[] = [];
    const calls = new CallTracker(id);
    turns.forEach((turn, i) => {
      const p = `${carrier}.${i}`;
      if (!isObj(turn)) throw new ConvertError(p, 'a turn must be an object');
      const roleKey = carrier === 'conversations' ? 'from' : 'role';
      const textKey = carrier === 'conversations' ? 'value' : 'content';
      const role = ROLES[String(turn[roleKey])];
      if (role === undefined) throw new ConvertError(`${p}.${roleKey}`, turn[roleKey] === undefined ? 'missing' : `unknown speaker "${String(turn[roleKey])}"`);
      const text = str(turn[textKey], `${p}.${textKey}`);
      const tp = `${p}.${textKey}`;
      if (role === 'system') {
        calls.close();
        if (!tools && i === 0) tools = toolsInPrompt(text, tp);
        messages.push({ role: 'system', content: text });
      } else if (role === 'assistant') {
        calls.close();
        messages.push(assistantTurn(text, tp, calls));
      } else {
        const { responses, rest } = blocks(text, 'tool_response');
        if (role === 'tool' && responses.length === 0) responses.push(text.trim());
        responses.forEach((r, k) => {
          const { call, content } = answer(r, tp, `tool_response ${k + 1}: `, calls);
          messages.push(toolMessage(call, content));
        });
        if (role === 'user' && (responses.length === 0 || rest.trim() !== '')) {
          calls.close();
          messages.push({ role: 'user', content: responses.length === 0 ? text : rest.trim() });
        }
      }
    });
    if (messages.length === 0) throw new ConvertError(carrier, 'no turns');
    return trajectory(id, messages, tools, sourceMeta(value, ['id', 'conversations', 'messages', 'tools']));
  },
});

const ROLES: Record<string, 'system' | 'user' | 'assistant' | 'tool'> = {
  system: 'system',
  human: 'user',
  user: 'user',
  gpt: 'assistant',
  assistant: 'assistant',
  tool: 'tool',
  observation: 'tool',
  function_response: 'tool',
};

/** The inner texts of `<tag>…</tag>` blocks (an unclosed last one runs to the end) and the text outside them. */
function blocks(text: string, tag: string): { responses: string[]; rest: string } {
  const open = `<${tag}>`;
  const close = `</${tag}>`;
  const inner: string[] = [];
  let rest = '';
  let i = 0;
  for (;;) {
    const s = text.indexOf(open, i);
    if (s < 0) break;
    rest += text.slice(i, s);
    const e = text.indexOf(close, s + open.length);
    inner.push(text.slice(s + open.length, e < 0 ? text.length : e).trim());
    i = e < 0 ? text.length : e + close.length;
  }
  rest += text.slice(i);
  return { responses: inner, rest };
}

function assistantTurn(text: string, path: string, calls: CallTracker): Message {
  const { responses: bodies, rest } = blocks(text, 'tool_call');
  if (bodies.length === 0) return { role: 'assistant', content: text };
  const toolCalls: ToolCall[] = [];
  bodies.forEach((body, k) => {
    const parsed = parseJsonish(body);
    if (parsed === undefined) throw new ConvertError(path, `tool_call ${k + 1} is not JSON`);
    for (const c of Array.isArray(parsed) ? parsed : [parsed]) {
      if (!isObj(c) || typeof c.name !== 'string' || c.name === '') throw new ConvertError(path, `tool_call ${k + 1} has no name`);
      let args: string;
      try {
        args = argumentsString(c.arguments ?? c.parameters, path);
      } catch (e) {
        throw e instanceof ConvertError ? new ConvertError(path, `tool_call ${k + 1}: ${e.message.slice(path.length + 2)}`) : e;
      }
      toolCalls.push(calls.call(c.name, args, typeof c.id === 'string' && c.id !== '' ? c.id : undefined));
    }
  });
  return { role: 'assistant', content: rest.trim(), tool_calls: toolCalls };
}

/**
 * The call a `<tool_response>` answers (by its `tool_call_id`, else its `name`, else the first open
 * call) and the tool message content: a `{"name", "content"}` wrapper — how Hermes templates
 * frame a tool's output — is unwrapped to its content (a string as it is, anything else as JSON);
 * any other text is kept as written.
 */
function answer(response: string, path: string, what: string, calls: CallTracker): { call: ToolCall; content: string } {
  const parsed = parseJsonish(response);
  const name = isObj(parsed) && typeof parsed.name === 'string' ? parsed.name : undefined;
  const id = isObj(parsed) && typeof parsed.tool_call_id === 'string' ? parsed.tool_call_id : undefined;
  const call = calls.answer(path, id !== undefined ? { id } : name !== undefined ? { name } : {}, what);
  const wrapper = isObj(parsed) && 'content' in parsed && Object.keys(parsed).every((k) => k === 'name' || k === 'content' || k === 'tool_call_id');
  const inner = wrapper ? parsed.content : undefined;
  return { call, content: !wrapper ? response : typeof inner === 'string' ? inner : JSON.stringify(inner) };
}

/** The tools listed in `<tools>…</tools>` of a system prompt: a list, or objects one after another. */
function toolsInPrompt(system: string, path: string): OpenAiTool[] | undefined {
  // Prompts often mention the tags first ("within <tools></tools> XML tags"): the first non-empty block is the list.
  const body = blocks(system, 'tools').responses.find((b) => b !== '');
  if (body === undefined) return undefined;
  const where = `${path}.<tools>`;
  const whole = parseJsonish(body);
  const items = whole !== undefined ? (Array.isArray(whole) ? whole : [whole]) : jsonObjectsIn(body, where);
  const tools = items.map((t, k) => openAiToolOf(t, `${where}.${k}`));
  return tools;
}
