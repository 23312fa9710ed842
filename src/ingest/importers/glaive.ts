import type { OpenAiTool } from '../../harness/types.js';
import type { Message } from '../../trajectory/types.js';
import { canonicalJson } from '../../util/canonical-json.js';
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
  toolMessage,
  trajectory,
} from '../importer.js';

/**
 * Glaive function calling as published (glaiveai/glaive-function-calling-v2): `system` is
 * `SYSTEM: <instructions> -` followed by the tools as JSON objects one after another, `chat` the
 * conversation as text, each turn starting a line with `USER:`, `ASSISTANT:` or `FUNCTION
 * RESPONSE:` (or right after an `<|endoftext|>` on the same line). An assistant turn `<functioncall> {"name": …, "arguments": '{…}'}` (arguments as a
 * JSON string in single quotes, or an object) is a call, the text before it the turn's content;
 * a `FUNCTION RESPONSE:` answers the open call. `<|endoftext|>` end markers and the blank lines
 * between turns are dropped; the system message is the text after `SYSTEM: `, tools and all.
 */
export default defineImporter({
  id: 'glaive',
  description: 'Glaive function calling v2: SYSTEM: text with JSON tools, chat text with USER: / ASSISTANT: <functioncall> / FUNCTION RESPONSE: turns',
  convert(value, at) {
    if (!isObj(value)) throw new ConvertError('(record)', 'must be a JSON object');
    const id = recordId(value, at);
    const chat = str(value.chat, 'chat');
    const messages: Message[] = [];
    let tools: OpenAiTool[] | undefined;
    if (value.system !== undefined && value.system !== null) {
      const system = str(value.system, 'system')
        .replace(/^\s*SYSTEM:\s?/, '')
        .trimEnd();
      if (system !== '') {
        tools = toolsIn(system);
        messages.push({ role: 'system', content: system });
      }
    }
    const calls = new CallTracker(id);
    const turns = [...chat.matchAll(TURN)];
    if (turns.length === 0 || chat.slice(0, turns[0]!.index).trim() !== '')
      throw new ConvertError('chat', 'does not start with a USER:, ASSISTANT: or FUNCTION RESPONSE: turn');
    turns.forEach((m, k) => {
      const p = `chat.turns.${k}`;
      const end = k + 1 < turns.length ? turns[k + 1]!.index : chat.length;
      const text = chat
        .slice(m.index + m[0].length, end)
        .replace(END, '')
        .trim();
      const who = m[1]!;
      if (who === 'FUNCTION RESPONSE') {
        // A response that opens as JSON but does not parse was cut by a turn marker inside it (rows hold such damage).
        if (/^[[{]/.test(text) && parseJsonish(text) === undefined)
          throw new ConvertError(p, 'the function response opens as JSON but is not JSON (cut short, or a turn marker inside it)');
        messages.push(toolMessage(calls.answer(p), text));
        return;
      }
      calls.close();
      if (who === 'USER') {
        messages.push({ role: 'user', content: text });
        return;
      }
      const at = text.indexOf('<functioncall>');
      if (at < 0) {
        messages.push({ role: 'assistant', content: text });
        return;
      }
      const body = text.slice(at + '<functioncall>'.length).trim();
      const call = parseJsonish(body) ?? quotedArguments(body);
      if (!isObj(call)) throw new ConvertError(`${p}.<functioncall>`, 'is not a JSON object {"name", "arguments"}');
      if (typeof call.name !== 'string' || call.name === '')
        throw new ConvertError(`${p}.<functioncall>.name`, call.name === undefined ? 'missing' : 'must be a non-empty string');
      // Some rows write `parameters` where the others write `arguments`.
      const argKey = call.arguments === undefined && call.parameters !== undefined ? 'parameters' : 'arguments';
      const args = argumentsString(call[argKey], `${p}.<functioncall>.${argKey}`);
      messages.push({ role: 'assistant', content: text.slice(0, at).trim(), tool_calls: [calls.call(call.name, args)] });
    });
    return trajectory(id, messages, tools, sourceMeta(value, ['id', 'system', 'chat']));
  },
});

/**
 * `{"name": "f", "arguments": '{"note": "Let's go"}'}`: glaive quotes the arguments' JSON in single
 * quotes without escaping the apostrophes inside, which no literal parser reads. The quoted text
 * runs to the last `'` before the closing brace; undefined unless it is then JSON.
 */
function quotedArguments(body: string): { name: string; arguments: string } | undefined {
  const m = /^\{\s*"name"\s*:\s*"([^"\\]+)"\s*,\s*"arguments"\s*:\s*'([\s\S]*)'\s*\}$/.exec(body);
  if (!m) return undefined;
  try {
    JSON.parse(m[2]!);
  } catch {
    return undefined;
  }
  return { name: m[1]!, arguments: m[2]! };
}

/** A turn marker at the start of a line, or right after an end marker on the same line (some rows lose their newlines). */
const TURN = /(?:^|\n|(?<=<\|endoftext\|>))[ \t]*(USER|ASSISTANT|FUNCTION RESPONSE):[ \t]?/g;
/** The end-of-turn marker glaive writes after assistant text, with the space before it. */
const END = /\s*<\|endoftext\|>\s*$/;

/**
 * The JSON tool objects of a glaive system prompt (none when it has no `{`). A definition written
 * twice, identically, is one tool; one name with two different definitions is refused (a call
 * could be held to either).
 */
function toolsIn(system: string): OpenAiTool[] | undefined {
  const start = system.indexOf('{');
  if (start < 0) return undefined;
  const byName = new Map<string, string>();
  const tools: OpenAiTool[] = [];
  jsonObjectsIn(system.slice(start), 'system').forEach((t, i) => {
    const tool = openAiToolOf(t, `system.<tools>.${i}`);
    const key = canonicalJson(tool);
    const prior = byName.get(tool.function.name);
    if (prior === key) return;
    if (prior !== undefined) throw new ConvertError(`system.<tools>.${i}`, `tool "${tool.function.name}" is defined twice, differently`);
    byName.set(tool.function.name, key);
    tools.push(tool);
  });
  return tools;
}
