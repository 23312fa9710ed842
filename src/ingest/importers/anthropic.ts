import type { Message, ToolCall } from '../../trajectory/types.js';
import { CallTracker, ConvertError, defineImporter, isObj, recordId, sourceMeta, toolList, trajectory, type Obj } from '../importer.js';

type Part = { type: 'text'; text: string };

/**
 * Anthropic Messages API conversations: `{system?, tools?, messages}` as sent to the API (or a
 * logged `{request, response}` pair, whose conversation is the request's messages plus the
 * response). `system` is a string or text blocks; `tools` have `name`, `description`,
 * `input_schema`; message content is a string or blocks: `text`, `tool_use` (→ a tool call with
 * its id), `tool_result` (→ one `tool` message each, in order; text blocks of the same user
 * message follow as a user message), `thinking` (→ `reasoning_content`); consecutive assistant
 * messages are one turn, as the API joins them; a `system` message between turns (text blocks) is
 * a later system message. Several text blocks stay
 * several text parts. `is_error` results are listed in `meta.tool_result_errors`; redacted thinking
 * is counted in `meta.redacted_thinking`. Images and documents cannot be imported.
 */
export default defineImporter({
  id: 'anthropic',
  description: 'Anthropic Messages: system, tools (input_schema), messages with text / tool_use / tool_result blocks',
  convert(value, at) {
    if (!isObj(value)) throw new ConvertError('(record)', 'must be a JSON object');
    const id = recordId(value, at);
    const req = isObj(value.request) ? value.request : value;
    const rp = req === value ? '' : 'request.';
    if (!Array.isArray(req.messages)) throw new ConvertError(`${rp}messages`, req.messages === undefined ? 'missing' : 'must be a list');
    const convo: { m: unknown; path: string }[] = req.messages.map((m, i) => ({ m, path: `${rp}messages.${i}` }));
    if (req !== value) {
      const res = isObj(value.response) && isObj(value.response.body) ? value.response.body : value.response;
      if (!isObj(res)) throw new ConvertError('response', res === undefined ? 'missing' : 'must be an object');
      convo.push({ m: { role: res.role ?? 'assistant', content: res.content }, path: 'response' });
    }
    const tools = toolList(req.tools, `${rp}tools`);
    const messages: Message[] = [];
    const meta: Obj = sourceMeta(value, ['id', 'system', 'tools', 'messages', 'request', 'response']);
    const errors: string[] = [];
    let redacted = 0;
    if (req.system !== undefined && req.system !== null && req.system !== '') {
      const parts = textBlocks(req.system, `${rp}system`);
      messages.push({ role: 'system', content: parts.length === 1 ? parts[0]!.text : parts });
    }
    const calls = new CallTracker(id);
    // The Messages API joins consecutive messages of one role into one turn (an agent framework
    // logs an assistant turn in pieces; a response continues a prefilled assistant message): so
    // does the import, or the results of the first piece's calls would find them closed.
    let turn: { texts: Part[]; toolCalls: ToolCall[]; thinking: string[] } | null = null;
    for (const { m, path } of convo) {
      if (!isObj(m)) throw new ConvertError(path, 'a message must be an object');
      if (m.role === 'system') {
        // The API (beta) takes system text between turns: a later system message, as OpenAI logs have.
        const parts = textBlocks(m.content, `${path}.content`);
        calls.close();
        turn = null;
        messages.push({ role: 'system', content: parts.length === 1 ? parts[0]!.text : parts });
        continue;
      }
      if (m.role !== 'user' && m.role !== 'assistant')
        throw new ConvertError(`${path}.role`, m.role === undefined ? 'missing' : `must be user, assistant or system, not "${String(m.role)}"`);
      const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
      if (!Array.isArray(blocks)) throw new ConvertError(`${path}.content`, m.content === undefined ? 'missing' : 'must be a string or a list of blocks');
      if (m.role === 'assistant') {
        const joined = turn !== null;
        if (!joined) calls.close();
        else messages.pop();
        turn ??= { texts: [], toolCalls: [], thinking: [] };
        const { texts, toolCalls, thinking } = turn;
        blocks.forEach((b, k) => {
          const bp = `${path}.content.${k}`;
          if (!isObj(b)) throw new ConvertError(bp, 'a block must be an object');
          if (b.type === 'text') texts.push({ type: 'text', text: text(b.text, `${bp}.text`) });
          else if (b.type === 'tool_use') {
            if (typeof b.id !== 'string' || b.id === '') throw new ConvertError(`${bp}.id`, 'missing');
            if (typeof b.name !== 'string' || b.name === '') throw new ConvertError(`${bp}.name`, 'missing');
            const input = b.input ?? {};
            if (!isObj(input)) throw new ConvertError(`${bp}.input`, 'must be an object');
            toolCalls.push(calls.call(b.name, JSON.stringify(input), b.id));
          } else if (b.type === 'thinking') thinking.push(text(b.thinking, `${bp}.thinking`));
          else if (b.type === 'redacted_thinking') redacted++;
          else throw new ConvertError(`${bp}.type`, unsupported(b.type));
        });
        const msg: Message = { role: 'assistant', content: texts.length === 0 ? '' : texts.length === 1 ? texts[0]!.text : texts };
        if (toolCalls.length > 0) msg.tool_calls = toolCalls;
        if (thinking.length > 0) msg.reasoning_content = thinking.join('\n\n');
        messages.push(msg);
        continue;
      }
      turn = null;
      let texts: Part[] = [];
      const flush = () => {
        if (texts.length === 0) return;
        calls.close();
        messages.push({ role: 'user', content: texts.length === 1 ? texts[0]!.text : texts });
        texts = [];
      };
      blocks.forEach((b, k) => {
        const bp = `${path}.content.${k}`;
        if (!isObj(b)) throw new ConvertError(bp, 'a block must be an object');
        if (b.type === 'text') texts.push({ type: 'text', text: text(b.text, `${bp}.text`) });
        else if (b.type === 'tool_result') {
          flush();
          if (typeof b.tool_use_id !== 'string' || b.tool_use_id === '') throw new ConvertError(`${bp}.tool_use_id`, 'missing');
          const call = calls.answer(bp, { id: b.tool_use_id });
          const content = b.content === undefined || b.content === null ? '' : b.content;
          const parts = typeof content === 'string' ? content : textBlocks(content, `${bp}.content`);
          messages.push({ role: 'tool', tool_call_id: call.id, content: typeof parts === 'string' ? parts : parts.length === 1 ? parts[0]!.text : parts });
          if (b.is_error === true) errors.push(call.id);
        } else throw new ConvertError(`${bp}.type`, unsupported(b.type));
      });
      flush();
    }
    if (messages.length === 0) throw new ConvertError(`${rp}messages`, 'no messages');
    if (errors.length > 0) meta.tool_result_errors = errors;
    if (redacted > 0) meta.redacted_thinking = redacted;
    return trajectory(id, messages, tools, meta);
  },
});

function text(v: unknown, path: string): string {
  if (typeof v !== 'string') throw new ConvertError(path, v === undefined ? 'missing' : 'must be a string');
  return v;
}

function textBlocks(v: unknown, path: string): Part[] {
  if (typeof v === 'string') return [{ type: 'text', text: v }];
  if (!Array.isArray(v)) throw new ConvertError(path, 'must be a string or a list of text blocks');
  return v.map((b, k) => {
    if (!isObj(b) || b.type !== 'text') throw new ConvertError(`${path}.${k}`, isObj(b) ? unsupported(b.type) : 'a block must be an object');
    return { type: 'text', text: text(b.text, `${path}.${k}.text`) };
  });
}

function unsupported(type: unknown): string {
  return type === undefined ? 'block has no type' : `"${String(type)}" blocks cannot be imported (only text, tool_use, tool_result, thinking)`;
}
