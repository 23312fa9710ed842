import type { Message, ToolCall } from '../../trajectory/types.js';
import { argumentsString, CallTracker, ConvertError, defineImporter, isObj, recordId, sourceMeta, toolList, trajectory, type Obj } from '../importer.js';

/**
 * OpenAI Chat Completions request/response pairs as API proxies and loggers store them:
 * `{request: {messages, tools}, response: {choices: [{message}]}}` (either side may be wrapped in
 * `body`, as Batch files and Helicone-style logs do). The conversation is the request's messages
 * plus the response's first choice. Keys outside the Chat Completions message shape (`annotations`,
 * `audio`, a tool message's `name`) are dropped; legacy `function_call` / `functions` / role
 * `function` are turned into tool calls with ids `<record id>:c<k>`. A tool result logged as the
 * tool's JSON value (an object or array, not text) is written as JSON text. A bare `{messages, tools}`
 * record (no response) — a Chat Completions conversation, or an hsa trajectory whose `context`
 * and `harness` are kept — is normalised the same way (tools get `description` and `parameters`,
 * lose `strict`). The record id is the line's `id`, `custom_id` or
 * `request_id`, else the response's `id`, else `<file basename>:<line>`.
 */
export default defineImporter({
  id: 'openai-log',
  description: 'OpenAI request/response log pairs: {request: {messages, tools}, response: {choices: [{message}]}}',
  convert(value, at) {
    if (!isObj(value)) throw new ConvertError('(record)', 'must be a JSON object');
    const responseId = isObj(value.response) ? (isObj(value.response.body) ? value.response.body.id : value.response.id) : undefined;
    const id = recordId({ ...value, response_id: responseId }, at, ['id', 'custom_id', 'request_id', 'response_id']);
    const hasRequest = isObj(value.request);
    const req = hasRequest ? (isObj((value.request as Obj).body) ? ((value.request as Obj).body as Obj) : (value.request as Obj)) : value;
    const rp = !hasRequest ? '' : req === value.request ? 'request.' : 'request.body.';
    if (!Array.isArray(req.messages)) throw new ConvertError(`${rp}messages`, req.messages === undefined ? 'missing' : 'must be a list');
    const convo: { m: unknown; path: string }[] = req.messages.map((m, i) => ({ m, path: `${rp}messages.${i}` }));
    if (value.response !== undefined || hasRequest) {
      const wrapped = isObj(value.response) && isObj(value.response.body);
      const res = wrapped ? ((value.response as Obj).body as Obj) : value.response;
      const resp = wrapped ? 'response.body' : 'response';
      if (!isObj(res)) throw new ConvertError(resp, res === undefined ? 'missing' : 'must be an object');
      if (!Array.isArray(res.choices) || res.choices.length === 0)
        throw new ConvertError(`${resp}.choices`, res.choices === undefined ? 'missing' : 'has no choice');
      const choice = res.choices[0];
      if (!isObj(choice) || !isObj(choice.message)) throw new ConvertError(`${resp}.choices.0.message`, 'missing');
      convo.push({ m: { role: 'assistant', ...choice.message }, path: `${resp}.choices.0.message` });
    }
    const legacy = Array.isArray(req.functions) ? req.functions.map((f) => ({ type: 'function', function: f })) : undefined;
    const tools = toolList(req.tools ?? legacy, req.tools === undefined && legacy ? `${rp}functions` : `${rp}tools`);
    const calls = new CallTracker(id);
    const messages = convo.map(({ m, path }) => message(m, path, calls));
    if (messages.length === 0) throw new ConvertError(`${rp}messages`, 'no messages');
    const rec = trajectory(
      id,
      messages,
      tools,
      sourceMeta(value, ['id', 'custom_id', 'request_id', 'messages', 'tools', 'functions', 'request', 'response', 'context', 'harness']),
    );
    // A bare record may be an hsa trajectory already: its template context and harness stay what they are.
    if (isObj(value.context)) rec.context = value.context;
    if (
      isObj(value.harness) &&
      typeof value.harness.name === 'string' &&
      (typeof value.harness.version === 'string' || typeof value.harness.version === 'number')
    ) {
      rec.harness = { name: value.harness.name, version: value.harness.version };
    }
    return rec;
  },
});

function message(m: unknown, path: string, calls: CallTracker): Message {
  if (!isObj(m)) throw new ConvertError(path, 'a message must be an object');
  const role = m.role;
  if (role === 'tool' || role === 'function') {
    const by = role === 'tool' ? { id: typeof m.tool_call_id === 'string' ? m.tool_call_id : '' } : { name: typeof m.name === 'string' ? m.name : '' };
    if (role === 'tool' && by.id === '') throw new ConvertError(`${path}.tool_call_id`, 'missing');
    const call = calls.answer(path, by);
    return { role: 'tool', tool_call_id: call.id, content: toolContent(m.content ?? '', `${path}.content`) };
  }
  calls.close();
  const name = typeof m.name === 'string' && m.name !== '' ? { name: m.name } : {};
  if (role === 'system' || role === 'developer' || role === 'user') {
    return { role, content: content(m.content, `${path}.content`), ...name };
  }
  if (role !== 'assistant') throw new ConvertError(`${path}.role`, role === undefined ? 'missing' : `unknown role "${String(role)}"`);
  const toolCalls: ToolCall[] = [];
  if (Array.isArray(m.tool_calls)) {
    m.tool_calls.forEach((c, k) => {
      const cp = `${path}.tool_calls.${k}`;
      if (!isObj(c) || !isObj(c.function)) throw new ConvertError(`${cp}.function`, 'missing');
      if (c.type !== undefined && c.type !== 'function') throw new ConvertError(`${cp}.type`, `"${String(c.type)}" tool calls cannot be imported`);
      const fname = c.function.name;
      if (typeof fname !== 'string' || fname === '') throw new ConvertError(`${cp}.function.name`, 'missing');
      toolCalls.push(
        calls.call(fname, argumentsString(c.function.arguments, `${cp}.function.arguments`), typeof c.id === 'string' && c.id !== '' ? c.id : undefined),
      );
    });
  } else if (m.tool_calls !== undefined && m.tool_calls !== null) throw new ConvertError(`${path}.tool_calls`, 'must be a list');
  // SDK dumps of a reply write an empty legacy call beside the real ones (`{"name": "", "arguments": ""}`): no call.
  if (isObj(m.function_call) && !(m.function_call.name === '' && (m.function_call.arguments ?? '') === '')) {
    const fname = m.function_call.name;
    if (typeof fname !== 'string' || fname === '') throw new ConvertError(`${path}.function_call.name`, 'missing');
    toolCalls.push(calls.call(fname, argumentsString(m.function_call.arguments, `${path}.function_call.arguments`)));
  }
  const { parts, thinking } = thinkingParts(m.content, `${path}.content`);
  const text = parts === undefined || parts === null ? (toolCalls.length > 0 ? null : '') : content(parts, `${path}.content`);
  const out: Message = { role: 'assistant', content: text, ...name };
  if (toolCalls.length > 0) out.tool_calls = toolCalls;
  if (typeof m.reasoning_content === 'string') out.reasoning_content = m.reasoning_content;
  else if (thinking !== null) out.reasoning_content = thinking;
  if (typeof m.refusal === 'string' && m.refusal !== '') out.refusal = m.refusal;
  return out;
}

/**
 * An assistant content list with `thinking` parts, as Mistral's reasoning models write replies
 * (`{"type": "thinking", "thinking": [{"type": "text", "text": …}]}`): the other parts, and the
 * thinking text (parts joined by a blank line) that becomes `reasoning_content`.
 */
function thinkingParts(v: unknown, path: string): { parts: unknown; thinking: string | null } {
  if (!Array.isArray(v) || !v.some((p) => isObj(p) && p.type === 'thinking')) return { parts: v, thinking: null };
  const texts: string[] = [];
  const rest = v.filter((p, k) => {
    if (!isObj(p) || p.type !== 'thinking') {
      // Checked here, where the source's index still names it.
      textPart(p, `${path}.${k}`);
      return true;
    }
    const inner = typeof p.thinking === 'string' ? [{ type: 'text', text: p.thinking }] : p.thinking;
    if (!Array.isArray(inner)) throw new ConvertError(`${path}.${k}.thinking`, 'must be a string or a list of text parts');
    for (const [j, q] of inner.entries()) {
      if (!isObj(q) || typeof q.text !== 'string') throw new ConvertError(`${path}.${k}.thinking.${j}`, 'a thinking part needs a string `text`');
      texts.push(q.text);
    }
    return false;
  });
  return { parts: rest.length === 0 ? '' : rest, thinking: texts.join('\n\n') };
}

/**
 * A tool result as logs hold it: text (a string or text parts), or the tool's JSON value itself (an
 * object, array, number or boolean, as some loggers and example sets store results), which is what
 * the model reads as JSON text: written as JSON.
 */
function toolContent(v: unknown, path: string): string | { type: 'text'; text: string }[] {
  const textParts = Array.isArray(v) && v.length > 0 && v.every((p) => isObj(p) && p.type === 'text');
  if (typeof v === 'string' || textParts) return content(v, path);
  return JSON.stringify(v);
}

function content(v: unknown, path: string): string | { type: 'text'; text: string }[] {
  if (typeof v === 'string') return v;
  if (!Array.isArray(v)) throw new ConvertError(path, v === undefined ? 'missing' : 'must be a string or a list of text parts');
  return v.map((p, k) => textPart(p, `${path}.${k}`));
}

function textPart(p: unknown, path: string): { type: 'text'; text: string } {
  if (!isObj(p) || p.type !== 'text' || typeof p.text !== 'string') {
    throw new ConvertError(
      path,
      isObj(p) && p.type !== 'text' ? `"${String(p.type)}" parts cannot be imported (only text)` : 'a text part needs a string `text`',
    );
  }
  return { type: 'text', text: p.text };
}
