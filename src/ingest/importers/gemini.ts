import type { JsonSchema, OpenAiTool } from '../../harness/types.js';
import type { Message, ToolCall } from '../../trajectory/types.js';
import {
  CallTracker,
  ConvertError,
  defineImporter,
  isObj,
  loggedCall,
  openAiToolOf,
  recordId,
  sourceMeta,
  toolMessage,
  trajectory,
  uniqueTools,
  type Obj,
} from '../importer.js';

/**
 * Google Gemini / Vertex AI `generateContent` logs: `{request: {systemInstruction, contents,
 * tools}, response: {candidates: [{content}]}}` (either side may be wrapped in `body`), or a bare
 * request. Field names are read in both spellings the API takes (`functionCall` and
 * `function_call`). `systemInstruction` is the first system message; each content is a turn:
 * `model` parts are the assistant's text, its `functionCall`s (ids `<record id>:c<k>` unless the
 * part has an `id`) and its `thought` text (`reasoning_content`); `functionResponse` parts answer
 * the open call of their id, else their name, each `response` written as JSON text (a lone
 * `output`/`result` string as itself); other user parts are the user's text. The response's first
 * candidate follows the request's contents. Tools are `functionDeclarations` with `parameters`
 * (OpenAPI-style: `STRING`, `nullable`), `parametersJsonSchema` (JSON Schema, kept) or none.
 * Thought signatures are dropped. Built-in tools (`googleSearch`, `codeExecution`, `fileSearch`),
 * inline or file data, executable code and server tool calls are refused, naming what.
 */
export default defineImporter({
  id: 'gemini',
  description:
    'Google Gemini / Vertex generateContent logs: {request: {systemInstruction, contents, tools}, response: {candidates}} with functionCall / functionResponse parts',
  convert(value, at) {
    if (!isObj(value)) throw new ConvertError('(record)', 'must be a JSON object');
    const { hasRequest, req, rp, res, resp } = loggedCall(value);
    const id = recordId({ ...value, response_id: field(res ?? {}, 'responseId') }, at, ['id', 'custom_id', 'request_id', 'response_id']);
    const contents = req.contents;
    if (!Array.isArray(contents)) throw new ConvertError(`${rp}contents`, contents === undefined ? 'missing' : 'must be a list');
    const turns: { content: unknown; path: string }[] = contents.map((c, i) => ({ content: c, path: `${rp}contents.${i}` }));
    if (value.response !== undefined || hasRequest) {
      if (!res) throw new ConvertError('response', value.response === undefined ? 'missing' : 'must be an object');
      if (isObj(res.error))
        throw new ConvertError(`${resp}.error`, `the call failed (${String(res.error.status ?? res.error.code ?? 'error')}): no reply to import`);
      const cands = res.candidates;
      if (!Array.isArray(cands) || cands.length === 0)
        throw new ConvertError(`${resp}.candidates`, cands === undefined ? 'missing (a blocked prompt has none)' : 'has no candidate');
      const first = cands[0];
      if (!isObj(first) || !isObj(first.content))
        throw new ConvertError(
          `${resp}.candidates.0.content`,
          `missing (finish reason ${String(isObj(first) ? (field(first, 'finishReason') ?? 'none') : 'none')})`,
        );
      turns.push({ content: { role: 'model', ...first.content }, path: `${resp}.candidates.0.content` });
    }
    const tools = toolsOf(field(req, 'tools'), `${rp}tools`);
    const messages: Message[] = [];
    const sys = field(req, 'systemInstruction');
    if (sys !== undefined && sys !== null) messages.push({ role: 'system', content: systemText(sys, `${rp}systemInstruction`) });
    const calls = new CallTracker(id);
    for (const { content, path } of turns) turn(content, path, messages, calls);
    if (messages.length === 0) throw new ConvertError(`${rp}contents`, 'no turns');
    return trajectory(
      id,
      messages,
      tools,
      sourceMeta(value, ['id', 'custom_id', 'request_id', 'request', 'response', 'contents', 'systemInstruction', 'system_instruction', 'tools']),
    );
  },
});

/** A field in the API's camelCase spelling or its snake_case one (`functionCall` / `function_call`). */
function field(o: Obj, camel: string): unknown {
  if (o[camel] !== undefined) return o[camel];
  return o[camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)];
}

const PART_KINDS = ['text', 'functionCall', 'functionResponse', 'inlineData', 'fileData', 'executableCode', 'codeExecutionResult', 'toolCall', 'toolResponse'];

function kindOf(part: Obj, path: string): string {
  const kind = PART_KINDS.find((k) => field(part, k) !== undefined);
  if (kind === undefined) throw new ConvertError(path, 'a part needs text, functionCall or functionResponse');
  if (kind !== 'text' && kind !== 'functionCall' && kind !== 'functionResponse')
    throw new ConvertError(path, `"${kind}" parts cannot be imported (only text, function calls and their responses)`);
  return kind;
}

function turn(content: unknown, path: string, messages: Message[], calls: CallTracker): void {
  if (!isObj(content)) throw new ConvertError(path, 'a content must be an object {role, parts}');
  const parts = content.parts;
  if (!Array.isArray(parts)) throw new ConvertError(`${path}.parts`, parts === undefined ? 'missing' : 'must be a list');
  const role = content.role ?? 'user';
  if (role === 'model') {
    calls.close();
    let text = '';
    let thought = '';
    const toolCalls: ToolCall[] = [];
    parts.forEach((p, k) => {
      const pp = `${path}.parts.${k}`;
      if (!isObj(p)) throw new ConvertError(pp, 'a part must be an object');
      const kind = kindOf(p, pp);
      if (kind === 'functionResponse') throw new ConvertError(pp, 'a function response in a model turn');
      if (kind === 'text') {
        if (typeof p.text !== 'string') throw new ConvertError(`${pp}.text`, 'must be a string');
        if (p.thought === true) thought += p.text;
        else text += p.text;
        return;
      }
      const fc = field(p, 'functionCall') as Obj;
      if (!isObj(fc) || typeof fc.name !== 'string' || fc.name === '') throw new ConvertError(`${pp}.functionCall.name`, 'missing');
      if (fc.args !== undefined && fc.args !== null && !isObj(fc.args)) throw new ConvertError(`${pp}.functionCall.args`, 'must be an object');
      toolCalls.push(calls.call(fc.name, JSON.stringify(fc.args ?? {}), typeof fc.id === 'string' && fc.id !== '' ? fc.id : undefined));
    });
    const msg: Message = { role: 'assistant', content: toolCalls.length > 0 && text === '' ? null : text };
    if (toolCalls.length > 0) msg.tool_calls = toolCalls;
    if (thought !== '') msg.reasoning_content = thought;
    messages.push(msg);
    return;
  }
  if (role !== 'user' && role !== 'function' && role !== 'tool') throw new ConvertError(`${path}.role`, `unknown role "${String(role)}"`);
  const texts: { type: 'text'; text: string }[] = [];
  parts.forEach((p, k) => {
    const pp = `${path}.parts.${k}`;
    if (!isObj(p)) throw new ConvertError(pp, 'a part must be an object');
    const kind = kindOf(p, pp);
    if (kind === 'functionCall') throw new ConvertError(pp, 'a function call in a user turn');
    if (kind === 'text') {
      if (typeof p.text !== 'string') throw new ConvertError(`${pp}.text`, 'must be a string');
      texts.push({ type: 'text', text: p.text });
      return;
    }
    const fr = field(p, 'functionResponse') as Obj;
    if (!isObj(fr) || typeof fr.name !== 'string') throw new ConvertError(`${pp}.functionResponse.name`, 'missing');
    const by = typeof fr.id === 'string' && fr.id !== '' ? { id: fr.id } : { name: fr.name };
    messages.push(toolMessage(calls.answer(pp, by), responseText(fr.response)));
  });
  if (texts.length === 0) return;
  calls.close();
  messages.push({ role: 'user', content: texts.length === 1 ? texts[0]!.text : texts });
}

/** A function response as the model reads it: a lone `output`/`result`/`content` string as itself, else the JSON. */
function responseText(r: unknown): string {
  if (r === undefined || r === null) return '';
  if (typeof r === 'string') return r;
  if (isObj(r)) {
    const keys = Object.keys(r);
    if (keys.length === 1 && ['output', 'result', 'content'].includes(keys[0]!) && typeof r[keys[0]!] === 'string') return r[keys[0]!] as string;
  }
  return JSON.stringify(r);
}

function systemText(v: unknown, path: string): string {
  if (typeof v === 'string') return v;
  if (!isObj(v) || !Array.isArray(v.parts)) throw new ConvertError(path, 'must be a string or {parts: [{text}]}');
  return v.parts
    .map((p, k) => {
      if (!isObj(p) || typeof p.text !== 'string') throw new ConvertError(`${path}.parts.${k}`, 'a system part needs a string `text`');
      return p.text;
    })
    .join('\n');
}

function toolsOf(v: unknown, path: string): OpenAiTool[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw new ConvertError(path, 'must be a list');
  const out: OpenAiTool[] = [];
  v.forEach((t, i) => {
    const tp = `${path}.${i}`;
    if (!isObj(t)) throw new ConvertError(tp, 'a tool must be an object');
    const decls = field(t, 'functionDeclarations');
    if (decls === undefined) {
      throw new ConvertError(tp, `"${Object.keys(t)[0] ?? '(empty)'}" is a server tool, not a function tool; only function declarations can be imported`);
    }
    if (!Array.isArray(decls)) throw new ConvertError(`${tp}.functionDeclarations`, 'must be a list');
    decls.forEach((d, k) => {
      const dp = `${tp}.functionDeclarations.${k}`;
      if (!isObj(d)) throw new ConvertError(dp, 'a declaration must be an object');
      const json = field(d, 'parametersJsonSchema');
      const params = json ?? (d.parameters === undefined || d.parameters === null ? undefined : openApiSchema(d.parameters, `${dp}.parameters`));
      out.push(openAiToolOf({ name: d.name, description: d.description, parameters: params }, dp));
    });
  });
  return out.length === 0 ? undefined : uniqueTools(out, path);
}

const OPENAPI_TYPES: Record<string, string> = {
  STRING: 'string',
  NUMBER: 'number',
  INTEGER: 'integer',
  BOOLEAN: 'boolean',
  ARRAY: 'array',
  OBJECT: 'object',
  NULL: 'null',
};

/**
 * Gemini's OpenAPI-style `parameters` as JSON Schema: its upper-case type names (`STRING`) in
 * lower case, `nullable: true` as a `"null"` type, `TYPE_UNSPECIFIED` as no type; every other
 * keyword kept, at every level.
 */
function openApiSchema(s: unknown, path: string): JsonSchema {
  if (!isObj(s)) throw new ConvertError(path, 'must be a schema object');
  const out: Obj = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'type' && typeof v === 'string') {
      if (v !== 'TYPE_UNSPECIFIED') out.type = OPENAPI_TYPES[v] ?? v;
    } else if (k === 'nullable') continue;
    else if ((k === 'properties' || k === '$defs' || k === 'definitions') && isObj(v))
      out[k] = Object.fromEntries(Object.entries(v).map(([n, sub]) => [n, openApiSchema(sub, `${path}.${k}.${n}`)]));
    else if ((k === 'items' || k === 'additionalProperties') && isObj(v)) out[k] = openApiSchema(v, `${path}.${k}`);
    else if ((k === 'anyOf' || k === 'oneOf' || k === 'allOf') && Array.isArray(v)) out[k] = v.map((sub, j) => openApiSchema(sub, `${path}.${k}.${j}`));
    else out[k] = v;
  }
  if (s.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  return out;
}
