import type { OpenAiTool } from '../../harness/types.js';
import type { Message } from '../../trajectory/types.js';
import {
  CallTracker,
  ConvertError,
  defineImporter,
  isObj,
  openAiToolOf,
  parseJsonish,
  recordId,
  shareGptParts,
  shareGptTurn,
  sourceMeta,
  toolList,
  toolMessage,
  trajectory,
  uniqueTools,
} from '../importer.js';
import { parsePythonCalls, type PythonCall } from '../loose-json.js';

/**
 * ToolACE-style function calling (Team-ACE/ToolACE and the sets written like it): `system` (a
 * prompt holding the tool list as a JSON list, after a line such as "Here is a list of functions
 * in JSON format that you can invoke."), `conversations` of `{from, value}` with `from` user /
 * assistant / tool (human / gpt accepted). An assistant turn that is a Python call list —
 * `[Get Weather(city="Oslo"), Get Joke()]`, keyword arguments as Python literals — is that turn's
 * tool calls (ids `<record id>:c<k>`); any other assistant text is kept as text. A tool turn is a
 * JSON list of `{"name", "results"}` items, each answering the open call of that name (its
 * `results` as the tool message: a string as it is, anything else as JSON); any other tool text
 * answers the one open call. The system message is kept as written, tool list and all.
 */
export default defineImporter({
  id: 'toolace',
  description: 'ToolACE: tools as a JSON list in the system prompt, assistant calls as Python call text [f(a=1)], tool turns as [{name, results}]',
  convert(value, at) {
    if (!isObj(value)) throw new ConvertError('(record)', 'must be a JSON object');
    const id = recordId(value, at);
    const { turns, system } = shareGptParts(value);
    let tools = toolList(value.tools, 'tools');
    const messages: Message[] = [];
    if (system !== undefined) {
      tools ??= toolsInText(system, 'system');
      messages.push({ role: 'system', content: system });
    }
    const calls = new CallTracker(id);
    turns.forEach((turn, i) => {
      const { p, role, text } = shareGptTurn(turn, i, (from) => ROLES[String(from)]);
      if (role === 'tool') {
        answerTool(messages, calls, text, `${p}.value`);
        return;
      }
      calls.close();
      if (role === 'system') {
        tools ??= toolsInText(text, `${p}.value`);
        messages.push({ role, content: text });
        return;
      }
      const parsed = role === 'assistant' && text.trim().startsWith('[') ? parsePythonCalls(text) : undefined;
      if (!parsed) {
        // Text that opens like a call list (`[name(`) but is not one would lose its calls as text.
        if (role === 'assistant' && /^\s*\[\s*[^\s[\](){}"'][^[\](){}"'\n]*\(/.test(text)) {
          throw new ConvertError(
            `${p}.value`,
            'looks like a Python call list but cannot be read as one (a value that is not a Python literal, or unbalanced brackets)',
          );
        }
        messages.push({ role, content: text });
        return;
      }
      const toolCalls = parsed.map((c, k) => calls.call(c.name, JSON.stringify(namedArgs(c, tools, `${p}.value[${k}]`))));
      messages.push({ role: 'assistant', content: '', tool_calls: toolCalls });
    });
    if (messages.length === 0) throw new ConvertError('conversations', 'no turns');
    return trajectory(id, messages, tools, sourceMeta(value, ['id', 'conversations', 'conversation', 'system', 'tools']));
  },
});

/**
 * A call's arguments by name: positional arguments (`sort('report.pdf')`, as some sets write a
 * one-argument call) take the names of the tool's parameters in their written order.
 */
function namedArgs(c: PythonCall, tools: OpenAiTool[] | undefined, path: string): Record<string, unknown> {
  if (c.positional.length === 0) return c.args;
  const tool = tools?.find((t) => t.function.name === c.name);
  const props = tool && isObj(tool.function.parameters.properties) ? Object.keys(tool.function.parameters.properties) : undefined;
  if (!props) throw new ConvertError(path, `${c.positional.length} positional argument(s) to "${c.name}", which the record's tools do not describe`);
  if (c.positional.length > props.length)
    throw new ConvertError(path, `${c.positional.length} positional arguments to "${c.name}", which has ${props.length} parameter(s)`);
  const out: Record<string, unknown> = {};
  c.positional.forEach((v, k) => {
    if (Object.hasOwn(c.args, props[k]!)) throw new ConvertError(path, `"${props[k]}" given twice to "${c.name}"`);
    out[props[k]!] = v;
  });
  return { ...out, ...c.args };
}

const ROLES: Record<string, 'system' | 'user' | 'assistant' | 'tool'> = {
  system: 'system',
  user: 'user',
  human: 'user',
  assistant: 'assistant',
  gpt: 'assistant',
  tool: 'tool',
  observation: 'tool',
  function: 'tool',
};

/** The first JSON list of function objects (each with a `name`) in a prompt, as tools. */
function toolsInText(text: string, path: string): OpenAiTool[] | undefined {
  for (let s = text.indexOf('['); s >= 0; s = text.indexOf('[', s + 1)) {
    if (!/^\[\s*\{/.test(text.slice(s, s + 64))) continue;
    const e = closingBracket(text, s);
    if (e < 0) continue;
    const list = parseJsonish(text.slice(s, e + 1));
    if (!Array.isArray(list) || list.length === 0 || !list.every((t) => isObj(t) && typeof t.name === 'string')) continue;
    return uniqueTools(
      list.map((t, k) => openAiToolOf(t, `${path}.<tools>.${k}`)),
      `${path}.<tools>`,
    );
  }
  return undefined;
}

/** The index of the `]` closing the `[` at `start`, outside strings (JSON's, or a Python literal's in either quote); -1 when there is none. */
function closingBracket(text: string, start: number): number {
  let depth = 0;
  let quote = '';
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[') depth++;
    else if (c === ']' && --depth === 0) return i;
  }
  return -1;
}

function answerTool(messages: Message[], calls: CallTracker, text: string, path: string): void {
  const parsed = parseJsonish(text);
  const items =
    Array.isArray(parsed) && parsed.length > 0 && parsed.every((r) => isObj(r) && typeof r.name === 'string' && 'results' in r)
      ? (parsed as { name: string; results: unknown }[])
      : undefined;
  if (!items) {
    if (calls.pending > 1) throw new ConvertError(path, `one tool result for ${calls.pending} open calls, and it is not a list of {"name", "results"} items`);
    messages.push(toolMessage(calls.answer(path), text));
    return;
  }
  items.forEach((r, k) => {
    const call = calls.answer(`${path}[${k}]`, { name: r.name }, `"${r.name}": `);
    messages.push(toolMessage(call, typeof r.results === 'string' ? r.results : JSON.stringify(r.results)));
  });
}
