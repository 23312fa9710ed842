import type { Message, TextContent, ToolCall } from '../../trajectory/types.js';
import {
  argumentsString,
  CallTracker,
  ConvertError,
  defineImporter,
  isObj,
  loggedCall,
  recordId,
  sourceMeta,
  toolList,
  toolMessage,
  trajectory,
  type Obj,
} from '../importer.js';

/**
 * OpenAI Responses API logs: `{request: {instructions, input, tools}, response: {output}}` as
 * proxies and recorders store a call (either side may be wrapped in `body`), or a bare request
 * `{instructions, input, tools}`. `instructions` is the first system message; `input` is a string
 * (one user message) or a list of items — messages (`input_text` / `output_text` parts, or a
 * string), `function_call` (`call_id`, `name`, `arguments`) and `function_call_output`
 * (`call_id`, `output`) — and the response's `output` items follow them. Consecutive assistant
 * items (a message, its calls) are one assistant turn; a `reasoning` item's summary texts become
 * that turn's `reasoning_content` (its encrypted content is dropped; reasoning after a tool's
 * output that no reply follows goes to `meta.reasoning_without_reply`); a `refusal` part is the
 * turn's refusal. Tools are written flat (`{type: "function", name, parameters}`); a built-in tool
 * (`web_search`, `file_search`…) or an item of another kind (`web_search_call`, `computer_call`,
 * an image part, an `item_reference`) cannot be imported and is reported naming its type. The
 * record id is the line's `id`, `custom_id` or `request_id`, else the response's `id`.
 */
export default defineImporter({
  id: 'responses',
  description: 'OpenAI Responses API logs: {request: {instructions, input, tools}, response: {output}} with function_call / function_call_output items',
  convert(value, at) {
    if (!isObj(value)) throw new ConvertError('(record)', 'must be a JSON object');
    const { hasRequest, req, rp, res, resp } = loggedCall(value);
    const id = recordId({ ...value, response_id: res?.id }, at, ['id', 'custom_id', 'request_id', 'response_id']);
    const items: { item: unknown; path: string }[] = [];
    if (typeof req.input === 'string') items.push({ item: { role: 'user', content: req.input }, path: `${rp}input` });
    else if (Array.isArray(req.input)) req.input.forEach((item, i) => items.push({ item, path: `${rp}input.${i}` }));
    else throw new ConvertError(`${rp}input`, req.input === undefined ? 'missing' : 'must be a string or a list of items');
    if (value.response !== undefined || hasRequest) {
      if (!res) throw new ConvertError('response', value.response === undefined ? 'missing' : 'must be an object');
      if (res.output === undefined && isObj(res.error)) {
        throw new ConvertError(`${resp}.error`, `the call failed (${String(res.error.code ?? res.error.type ?? 'error')}): no reply to import`);
      }
      if (!Array.isArray(res.output)) throw new ConvertError(`${resp}.output`, res.output === undefined ? 'missing' : 'must be a list');
      if (res.output.length === 0) throw new ConvertError(`${resp}.output`, 'is empty (no reply)');
      res.output.forEach((item, i) => items.push({ item, path: `${resp}.output.${i}` }));
    }
    const tools = toolList(req.tools, `${rp}tools`);
    const messages: Message[] = [];
    if (req.instructions !== undefined && req.instructions !== null) {
      if (typeof req.instructions !== 'string') throw new ConvertError(`${rp}instructions`, 'must be a string');
      if (req.instructions !== '') messages.push({ role: 'system', content: req.instructions });
    }
    const calls = new CallTracker(id);
    let turn: AssistantTurn | undefined;
    let reasoning: string[] = [];
    const unplaced: string[] = [];
    for (const { item, path } of items) {
      if (!isObj(item)) throw new ConvertError(path, 'an item must be an object');
      const type = item.type ?? (item.role !== undefined ? 'message' : undefined);
      if (type === 'reasoning') {
        reasoning.push(...summaryTexts(item, path));
        continue;
      }
      if (type === 'function_call_output') {
        turn = undefined;
        const callId = item.call_id;
        if (typeof callId !== 'string' || callId === '') throw new ConvertError(`${path}.call_id`, 'missing');
        // A request chained by previous_response_id holds only the new items: its results answer calls the log does not hold.
        const chained =
          typeof req.previous_response_id === 'string'
            ? `request continues previous_response_id "${req.previous_response_id}", whose items this line does not hold: `
            : '';
        messages.push(toolMessage(calls.answer(path, { id: callId }, chained), output(item.output, `${path}.output`)));
        continue;
      }
      if (type === 'function_call') {
        const name = item.name;
        if (typeof name !== 'string' || name === '') throw new ConvertError(`${path}.name`, 'missing');
        const callId = typeof item.call_id === 'string' && item.call_id !== '' ? item.call_id : undefined;
        turn ??= openTurn(messages, calls);
        (turn.msg.tool_calls ??= []).push(calls.call(name, argumentsString(item.arguments, `${path}.arguments`), callId));
        if (turn.msg.content === '') turn.msg.content = null;
        turn = attachReasoning(turn, reasoning);
        reasoning = [];
        continue;
      }
      if (type !== 'message')
        throw new ConvertError(
          `${path}.type`,
          item.type === undefined ? 'missing' : `"${String(item.type)}" items cannot be imported (only messages, function calls and their outputs)`,
        );
      const role = item.role;
      if (role === 'assistant') {
        const { text, refusal } = assistantContent(item.content, `${path}.content`);
        // Text logged after the turn's calls (before their outputs) is still that turn's: its calls stay open.
        if (!turn || turn.hasText) turn = openTurn(messages, calls);
        turn.msg.content = turn.msg.tool_calls ? (text === '' ? null : text) : text;
        turn.hasText = true;
        if (refusal !== undefined) turn.msg.refusal = refusal;
        turn = attachReasoning(turn, reasoning);
        reasoning = [];
        continue;
      }
      if (reasoning.length > 0) {
        // Reasoning the model did after a tool's output but answered nothing to has no turn of its
        // own in a chat: kept in `meta.reasoning_without_reply`, not moved before what it read.
        if (turn) attachReasoning(turn, reasoning);
        else unplaced.push(...reasoning);
        reasoning = [];
      }
      turn = undefined;
      calls.close();
      if (role !== 'user' && role !== 'system' && role !== 'developer')
        throw new ConvertError(`${path}.role`, role === undefined ? 'missing' : `unknown role "${String(role)}"`);
      messages.push({ role, content: inputContent(item.content, `${path}.content`) });
    }
    if (reasoning.length > 0) {
      // Reasoning with nothing after it (a reply cut short) still belongs to the model's turn.
      attachReasoning(turn ?? openTurn(messages, calls), reasoning);
    }
    if (messages.length === 0) throw new ConvertError(`${rp}input`, 'no messages');
    const meta = sourceMeta(value, ['id', 'custom_id', 'request_id', 'request', 'response', 'input', 'instructions', 'tools']);
    if (unplaced.length > 0) meta.reasoning_without_reply = unplaced;
    return trajectory(id, messages, tools, meta);
  },
});

type AssistantMessage = Extract<Message, { role: 'assistant' }>;
interface AssistantTurn {
  msg: AssistantMessage & { tool_calls?: ToolCall[] };
  hasText: boolean;
}

function openTurn(messages: Message[], calls: CallTracker): AssistantTurn {
  calls.close();
  const msg: AssistantMessage = { role: 'assistant', content: '' };
  messages.push(msg);
  return { msg, hasText: false };
}

function attachReasoning(turn: AssistantTurn, texts: string[]): AssistantTurn {
  if (texts.length > 0) turn.msg.reasoning_content = [turn.msg.reasoning_content, ...texts].filter((t) => t !== undefined && t !== '').join('\n\n');
  return turn;
}

function summaryTexts(item: Obj, path: string): string[] {
  const parts = [...(Array.isArray(item.summary) ? item.summary : []), ...(Array.isArray(item.content) ? item.content : [])];
  return parts.map((p, k) => {
    if (!isObj(p) || typeof p.text !== 'string') throw new ConvertError(`${path}.summary.${k}`, 'a reasoning summary part needs a string `text`');
    return p.text;
  });
}

const TEXT_PARTS = new Set(['input_text', 'output_text', 'text']);

function parts(v: unknown, path: string): { texts: { type: 'text'; text: string }[]; refusal?: string } {
  if (!Array.isArray(v)) throw new ConvertError(path, v === undefined ? 'missing' : 'must be a string or a list of content parts');
  const texts: { type: 'text'; text: string }[] = [];
  let refusal: string | undefined;
  v.forEach((p, k) => {
    if (isObj(p) && p.type === 'refusal' && typeof p.refusal === 'string') {
      refusal = refusal === undefined ? p.refusal : refusal + p.refusal;
      return;
    }
    if (!isObj(p) || !TEXT_PARTS.has(String(p.type)) || typeof p.text !== 'string') {
      throw new ConvertError(
        `${path}.${k}`,
        isObj(p) && typeof p.type === 'string' && !TEXT_PARTS.has(p.type)
          ? `"${p.type}" parts cannot be imported (only text)`
          : 'a text part needs a string `text`',
      );
    }
    texts.push({ type: 'text', text: p.text });
  });
  return refusal === undefined ? { texts } : { texts, refusal };
}

function inputContent(v: unknown, path: string): TextContent {
  if (typeof v === 'string') return v;
  return parts(v, path).texts;
}

/** An assistant message's text (its parts joined: the model wrote one reply) and refusal. */
function assistantContent(v: unknown, path: string): { text: string; refusal?: string } {
  if (typeof v === 'string') return { text: v };
  const { texts, refusal } = parts(v, path);
  const text = texts.map((t) => t.text).join('');
  return refusal === undefined ? { text } : { text, refusal };
}

/** A function_call_output's `output`: text, text parts, or a JSON value written as JSON text. */
function output(v: unknown, path: string): TextContent {
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.length > 0 && v.every((p) => isObj(p))) return parts(v, path).texts;
  if (v === undefined || v === null) return '';
  return JSON.stringify(v);
}
