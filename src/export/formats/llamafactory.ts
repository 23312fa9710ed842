import { jinjaToJson, QWEN3_TEMPLATE_SHA256 } from '../../tokenize/qwen3-template.js';
import { argumentsValue, isSkip, toolsList, type SourceMessage } from '../messages.js';
import { defineFormat, PerPartFile, type ExportContext, type Skip } from '../types.js';

/**
 * Between two results of parallel calls: LLaMA-Factory wraps one observation in one
 * `<tool_response>…</tool_response>`, so joining the results with this renders exactly what the
 * Qwen-family templates write for consecutive tool messages.
 */
export const OBSERVATION_JOIN = '\n</tool_response>\n<tool_response>\n';

interface Turn {
  from: 'human' | 'gpt' | 'function_call' | 'observation';
  value: string;
}

/**
 * A function_call turn with text: `text + TEXT_BEFORE_CALLS + "<tool_call>" + calls JSON +
 * "</tool_call>"` (the line break is the one Qwen3's template writes between text and calls).
 */
export const TEXT_BEFORE_CALLS = '\n';
const TAGS = ['<tool_call>', '</tool_call>', '<think>', '</think>'];

/**
 * An assistant message's reasoning as the text before its content, in the qwen3 templates' thought
 * form (`<think>\n` + reasoning + `\n</think>\n\n`, the reasoning as written): LLaMA-Factory's
 * ReasoningTemplate then adds no empty thought and its FunctionFormatter keeps it before the calls;
 * ms-swift adds no non-thinking prefix to a response that starts with `<think>`. Read back: a
 * leading thought is the reasoning. Reasoning or text holding think tags could not be read back.
 */
export function thoughtOf(m: SourceMessage, i: number): string | Skip {
  if (m.reasoning_content === undefined || m.reasoning_content === null || m.reasoning_content === '') return '';
  if (typeof m.reasoning_content !== 'string') return { kind: 'reasoning content', detail: `messages[${i}].reasoning_content: not a string` };
  const text = typeof m.content === 'string' ? m.content : '';
  for (const t of ['<think>', '</think>']) {
    if (m.reasoning_content.includes(t) || text.includes(t))
      return { kind: 'reasoning content', detail: `messages[${i}]: ${t} inside the reasoning or the text; written as a thought it could not be read back` };
  }
  return `<think>\n${m.reasoning_content}\n</think>\n\n`;
}

/** Between two user turns joined by `--merge-turns`. */
export const TURN_JOIN = '\n\n';

/**
 * How to take a joined turn apart again (`--merge-turns`; also a later system message written
 * alone as a user turn): the turn's index in the written list,
 * the roles of the source messages it holds, in order, and each one's length in Unicode code
 * points (Python's `len`); the parts are separated by `TURN_JOIN`. Written on the row as
 * `hsa_joined` (trainers ignore the column), so a joined record maps back to its source exactly.
 */
export interface JoinedTurn {
  at: number;
  roles: string[];
  lengths: number[];
}

/** Length in Unicode code points, as Python's `len` counts a str. */
export const codePoints = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/**
 * Join `text` (a message of `role`) onto the joined turn at `at`, recording both parts (see
 * JoinedTurn); `first` is the turn's text before the join and `firstRole` its source role.
 */
export function recordJoin(joins: JoinedTurn[], at: number, firstRole: string, first: string, role: string, text: string): void {
  let j = joins[joins.length - 1];
  if (!j || j.at !== at) joins.push((j = { at, roles: [firstRole], lengths: [codePoints(first)] }));
  j.roles.push(role);
  j.lengths.push(codePoints(text));
}

/** What `--merge-turns` changed, for the export manifest. */
interface Merged {
  records: number;
  user_turns_joined: number;
  system_as_user: number;
}

/**
 * One record as a sharegpt row, or why LLaMA-Factory cannot hold it. LLaMA-Factory drops a
 * conversation whose turns do not alternate; with `--merge-turns` two things that break alternation
 * are written in a form it takes (counted in `merged`): consecutive user turns (a variant whose
 * prompt.placement moved a section into a user message, logs with two user messages in a row) are
 * one human turn, their texts joined with a blank line; a system message after the first (hook
 * feedback, a later instruction) is a human turn, joined the same way with a user turn next to it.
 */
function sharegpt(record: Record<string, unknown>, ctx: ExportContext, merged: Merged | null): SharegptRow | Skip {
  const messages = record.messages as SourceMessage[];
  if (!Array.isArray(messages)) return { kind: 'no messages', detail: 'messages: not a list' };
  const tools = toolsList(record.tools);
  if (isSkip(tools)) return tools;
  let system = '';
  const turns: Turn[] = [];
  let dropped = 0;
  let joined = 0;
  let systemAsUser = 0;
  const joins: JoinedTurn[] = [];
  const roles: string[] = [];
  const human = (value: string, role: string) => {
    const last = turns[turns.length - 1];
    if (ctx.mergeTurns && last?.from === 'human') {
      recordJoin(joins, turns.length - 1, roles[turns.length - 1]!, last.value, role, value);
      last.value += TURN_JOIN + value;
      joined++;
    } else {
      roles[turns.length] = role;
      // A later system message alone in its turn is recorded too: its role is not the turn's.
      if (role !== 'user') joins.push({ at: turns.length, roles: [role], lengths: [codePoints(value)] });
      turns.push({ from: 'human', value });
    }
  };
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    const text = typeof m.content === 'string' ? m.content : m.content == null ? '' : null;
    if (text === null) return { kind: 'content not text', detail: `messages[${i}].content: not a string` };
    const thought = m.role === 'assistant' ? thoughtOf(m, i) : '';
    if (isSkip(thought)) return thought;
    if (m.name !== undefined) dropped++;
    if (m.role === 'system' && i !== 0 && ctx.mergeTurns) {
      human(text, 'system');
      systemAsUser++;
    } else if (m.role === 'system') {
      if (i !== 0)
        return {
          kind: 'system message not first',
          detail: `messages[${i}]: sharegpt holds one system prompt, before the conversation (--merge-turns writes it as a user turn)`,
        };
      system = text;
    } else if (m.role === 'user') {
      human(text, 'user');
    } else if (m.role === 'assistant' && m.tool_calls?.length) {
      // The text goes before the calls: LLaMA-Factory's FunctionFormatter keeps what surrounds a
      // `<tool_call>…</tool_call>` in the value and formats the calls inside it, so the turn renders
      // as Qwen3's template writes text with calls ("text\n<tool_call>\n…"). Text holding those
      // tags, or think tags, would be read as calls or a thought.
      if (TAGS.some((t) => text.includes(t)))
        return {
          kind: 'assistant text alongside tool calls',
          detail: `messages[${i}]: the text before the calls contains ${TAGS.find((t) => text.includes(t))}, which LLaMA-Factory would read as markup`,
        };
      const calls = [];
      for (const c of m.tool_calls) {
        const args = argumentsValue(c.function.arguments);
        if (args === undefined) return { kind: 'arguments not JSON', detail: `messages[${i}]: arguments of ${c.function.name} are not JSON` };
        calls.push({ name: c.function.name, arguments: args });
      }
      const json = JSON.stringify(calls.length === 1 ? calls[0] : calls);
      turns.push({ from: 'function_call', value: thought + (text === '' ? json : `${text}${TEXT_BEFORE_CALLS}<tool_call>${json}</tool_call>`) });
    } else if (m.role === 'assistant') {
      turns.push({ from: 'gpt', value: thought + text });
    } else if (m.role === 'tool') {
      const results = [text];
      while (messages[i + 1]?.role === 'tool') {
        i++;
        const next = messages[i]!;
        if (typeof next.content !== 'string') return { kind: 'content not text', detail: `messages[${i}].content: not a string` };
        results.push(next.content);
      }
      if (results.length > 1 && results.some((r) => r.includes('</tool_response>')))
        return { kind: 'ambiguous parallel results', detail: `messages[${i}]: a tool result contains "</tool_response>", which joins parallel results` };
      turns.push({ from: 'observation', value: results.join(OBSERVATION_JOIN) });
    } else {
      return { kind: 'role not representable', detail: `messages[${i}].role: "${m.role}" has no sharegpt tag` };
    }
  }
  // LLaMA-Factory drops a conversation whose turns do not alternate (human/observation, then gpt/function_call).
  for (const [k, t] of turns.entries()) {
    const even = k % 2 === 0;
    if (even !== (t.from === 'human' || t.from === 'observation')) {
      const hint = !ctx.mergeTurns && t.from === 'human' && turns[k - 1]?.from === 'human' ? ' (--merge-turns joins consecutive user turns)' : '';
      return {
        kind: 'turns do not alternate',
        detail: `turn ${k} is "${t.from}" where LLaMA-Factory expects ${even ? 'human/observation' : 'gpt/function_call'}${hint}`,
      };
    }
  }
  if (turns.length % 2 !== 0) return { kind: 'does not end with the assistant', detail: 'the last turn must be gpt or function_call' };
  // Counting tokens converts the record too (merged: null): only writing it counts what it changed.
  if (!merged) return { id: record.id, conversations: turns, system, tools: JSON.stringify(bareTools(tools)) };
  if (joined + systemAsUser > 0) {
    merged.records++;
    merged.user_turns_joined += joined;
    merged.system_as_user += systemAsUser;
  }
  for (let n = 0; n < dropped; n++) ctx.dropped('messages[].name');
  for (const m of messages) for (const c of m.tool_calls ?? []) if (c.id !== undefined) ctx.dropped('tool_calls[].id');
  return { id: record.id, conversations: turns, system, tools: JSON.stringify(bareTools(tools)), ...(joins.length ? { hsa_joined: joins } : {}) };
}

/** Bare function objects; LLaMA-Factory wraps them in {"type":"function","function":…} itself. */
function bareTools(tools: unknown[]): unknown[] {
  return tools.map((t) => ((t as { type?: string; function?: unknown }).type === 'function' ? (t as { function: unknown }).function : t));
}

/** A row of the sharegpt file. */
interface SharegptRow {
  id: unknown;
  conversations: Turn[];
  system: string;
  tools: string;
  hsa_joined?: JoinedTurn[];
}

/** LLaMA-Factory sharegpt JSONL (one file per source part under `data/`) plus `dataset_info.json`. */
export default defineFormat({
  id: 'llamafactory',
  description: 'LLaMA-Factory sharegpt JSONL (human/gpt/function_call/observation, system, tools) and its dataset_info.json entry',
  stages: ['sft'],
  open(ctx) {
    const files = new PerPartFile(
      ctx,
      (file) => ctx.jsonl(file),
      (part) => `data/${part}.jsonl`,
    );
    const merged: Merged = { records: 0, user_turns_joined: 0, system_as_user: 0 };
    let tokensCounted = false;
    return {
      countTokens(record, counter) {
        // LLaMA-Factory's qwen3 template differs from Qwen3's chat template (think blocks on every
        // assistant turn); another tokenizer's template is counted as that template renders it.
        if (counter.info.template_sha256 !== QWEN3_TEMPLATE_SHA256) return undefined;
        const row = sharegpt(record, ctx, null);
        if (isSkip(row)) return null;
        tokensCounted = true;
        let n = 0;
        for (const e of lfQwen3Elements(row)) n += counter.countText(e);
        return n;
      },
      add(record) {
        const row = sharegpt(record, ctx, merged);
        if (isSkip(row)) return row;
        files.get().write(row);
        return undefined;
      },
      endPart: (index) => files.end(index),
      async finish() {
        const entry = {
          [ctx.name]: {
            file_name: 'data',
            formatting: 'sharegpt',
            columns: { messages: 'conversations', system: 'system', tools: 'tools' },
            tags: {
              role_tag: 'from',
              content_tag: 'value',
              user_tag: 'human',
              assistant_tag: 'gpt',
              observation_tag: 'observation',
              function_tag: 'function_call',
              system_tag: 'system',
            },
          },
        };
        await ctx.whole('dataset_info.json', `${JSON.stringify(entry, null, 2)}\n`);
        return {
          dataset_info: { file: 'dataset_info.json', name: ctx.name },
          ...(ctx.mergeTurns ? { merged_turns: merged } : {}),
          ...(tokensCounted ? { tokens_counted_as: LF_TOKENS_AS } : {}),
        };
      },
    };
  },
});

/**
 * `json.dumps(v, ensure_ascii=False)` as Python writes a value it read with `json.loads` from
 * JSON text JavaScript wrote: `, ` and `: ` separators, keys in order, an integer as written, a
 * float by Python's `repr` (`1e-07`, `1e+16`, `2.0`). LLaMA-Factory and ms-swift re-serialise
 * tools and call arguments this way before tokenising.
 */
export function pyJson(v: unknown): string {
  return jinjaToJson(v, 'python');
}

/** What `tokens` in the export manifest counts, when LLaMA-Factory's template is emulated. */
const LF_TOKENS_AS =
  "llamafactory template qwen3: each row's ids as LLaMA-Factory encodes them (an empty think block on every assistant turn), the length cutoff_len applies to";

/** LLaMA-Factory's empty thought (`ReasoningTemplate.add_thought()` with qwen3's thought_words). */
export const LF_EMPTY_THOUGHT = '<think>\n\n</think>\n\n';
const LF_TOOL_PROMPT_HEAD =
  '\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>';
const LF_TOOL_PROMPT_TAIL =
  '\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>';

/**
 * The strings LLaMA-Factory's `qwen3` template tokenises, one `tokenizer.encode` each, for a
 * sharegpt row as this format writes it (`Template._encode` and `ReasoningTemplate.
 * encode_multiturn` with the defaults enable_thinking=True, mask_history=False): the system
 * block with the tool prompt, each turn's slot, and before every gpt/function_call turn without
 * a think tag the empty thought `<think>\n\n</think>\n\n` — which Qwen3's own chat template writes
 * only on the last assistant turn. A record's LLaMA-Factory length is the sum of their counts.
 */
export function lfQwen3Elements(row: { conversations: Turn[]; system: string; tools: string }): string[] {
  const out: string[] = [];
  const tools = JSON.parse(row.tools) as Record<string, unknown>[];
  let toolText = '';
  if (tools.length) {
    toolText = LF_TOOL_PROMPT_HEAD;
    for (const t of tools) toolText += `\n${pyJson(t.type === 'function' ? t : { type: 'function', function: t })}`;
    toolText += LF_TOOL_PROMPT_TAIL;
  }
  row.conversations.forEach((t, i) => {
    if (i === 0 && (row.system || row.tools)) out.push(`<|im_start|>system\n${row.system + toolText}<|im_end|>\n`);
    if (t.from === 'human') out.push(slot('<|im_start|>user\n{{content}}<|im_end|>\n<|im_start|>assistant\n', t.value, String(Math.floor(i / 2))));
    else if (t.from === 'observation')
      out.push(slot('<|im_start|>user\n<tool_response>\n{{content}}\n</tool_response><|im_end|>\n<|im_start|>assistant\n', t.value));
    else {
      if (!t.value.includes('<think>') && !t.value.includes('</think>')) out.push(LF_EMPTY_THOUGHT);
      if (t.from === 'gpt') out.push(slot('{{content}}<|im_end|>\n', t.value));
      else {
        // FunctionFormatter.apply: calls inside the first <tool_call>…</tool_call> (the text around it kept), else the whole value.
        const m = /<tool_call>([\s\S]*?)<\/tool_call>/.exec(t.value);
        const thought = m ? null : /<think>\n([\s\S]*?)\n<\/think>\n\n/.exec(t.value);
        const before = m ? t.value.split(m[0]).join('') : thought ? thought[0] : '';
        const v = JSON.parse(m ? m[1]! : thought ? t.value.split(thought[0]).join('') : t.value) as
          { name: string; arguments: unknown } | { name: string; arguments: unknown }[];
        const calls = (Array.isArray(v) ? v : [v]).map((c) => `<tool_call>\n${pyJson({ name: c.name, arguments: c.arguments })}\n</tool_call>`);
        out.push(slot('{{content}}<|im_end|>\n', before + calls.join('\n')));
      }
    }
  });
  return out;
}

/** `StringFormatter.apply`: each placeholder replaced once, content first, then idx. */
function slot(template: string, content: string, idx?: string): string {
  const s = template.replace('{{content}}', () => content);
  return idx === undefined ? s : s.replace('{{idx}}', () => idx);
}
