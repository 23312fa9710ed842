import type { Message } from '../../trajectory/types.js';
import {
  argumentsString,
  CallTracker,
  ConvertError,
  defineImporter,
  isObj,
  parseJsonish,
  recordId,
  shareGptParts,
  shareGptTurn,
  sourceMeta,
  toolList,
  toolMessage,
  trajectory,
} from '../importer.js';

/**
 * LLaMA-Factory's ShareGPT format: `conversations` of `{from, value}` with `from` one of
 * system / human / gpt / function_call / observation (user, assistant, tool are accepted too),
 * an optional `system` field (a system turn overrides it) and `tools`, a JSON string (or list) of
 * function definitions. A `function_call` value is one `{"name","arguments"}` object or a JSON
 * list of them (parallel calls); each `observation` answers the open calls in order, and one
 * observation after N parallel calls whose value is a JSON list of N items answers all of them.
 */
export default defineImporter({
  id: 'sharegpt',
  description: 'LLaMA-Factory / ShareGPT: conversations [{from, value}] with function_call / observation turns, tools as a JSON string',
  convert(value, at) {
    if (!isObj(value)) throw new ConvertError('(record)', 'must be a JSON object');
    const id = recordId(value, at);
    const { turns, system } = shareGptParts(value);
    const tools = toolList(value.tools, 'tools');
    const messages: Message[] = [];
    if (system !== undefined && !(isObj(turns[0]) && speaker(turns[0].from) === 'system')) {
      messages.push({ role: 'system', content: system });
    }
    const calls = new CallTracker(id);
    turns.forEach((turn, i) => {
      const { p, role, text } = shareGptTurn(turn, i, speaker);
      if (role === 'observation') {
        answerObservation(messages, calls, text, `${p}.value`);
        return;
      }
      calls.close();
      if (role === 'function_call') {
        messages.push({ role: 'assistant', content: '', tool_calls: parseCalls(text, `${p}.value`, calls) });
        return;
      }
      messages.push({ role, content: text });
    });
    if (messages.length === 0) throw new ConvertError('conversations', 'no turns');
    return trajectory(id, messages, tools, sourceMeta(value, ['id', 'conversations', 'conversation', 'system', 'tools']));
  },
});

type Speaker = 'system' | 'user' | 'assistant' | 'function_call' | 'observation';

const SPEAKERS: Record<string, Speaker> = {
  system: 'system',
  human: 'user',
  user: 'user',
  gpt: 'assistant',
  assistant: 'assistant',
  function_call: 'function_call',
  observation: 'observation',
  tool: 'observation',
  function_response: 'observation',
};

function speaker(from: unknown): Speaker | undefined {
  return typeof from === 'string' ? SPEAKERS[from] : undefined;
}

function parseCalls(text: string, path: string, calls: CallTracker) {
  const parsed = parseJsonish(text);
  if (parsed === undefined) throw new ConvertError(path, 'function_call is not JSON');
  const list = Array.isArray(parsed) ? parsed : [parsed];
  if (list.length === 0) throw new ConvertError(path, 'function_call is an empty list');
  return list.map((c, k) => {
    const cp = Array.isArray(parsed) ? `${path}[${k}]` : path;
    if (!isObj(c)) throw new ConvertError(cp, 'a function call must be an object {"name", "arguments"}');
    const name = c.name;
    if (typeof name !== 'string' || name === '') throw new ConvertError(`${cp}.name`, 'function call has no name');
    const args = 'arguments' in c ? c.arguments : c.parameters;
    return calls.call(name, argumentsString(args, `${cp}.arguments`), typeof c.id === 'string' && c.id !== '' ? c.id : undefined);
  });
}

function answerObservation(messages: Message[], calls: CallTracker, text: string, path: string): void {
  if (calls.pending > 1) {
    const parsed = parseJsonish(text);
    if (Array.isArray(parsed) && parsed.length === calls.pending) {
      parsed.forEach((item, k) => {
        const call = calls.answer(`${path}[${k}]`);
        messages.push(toolMessage(call, typeof item === 'string' ? item : JSON.stringify(item)));
      });
      return;
    }
  }
  messages.push(toolMessage(calls.answer(path), text));
}
