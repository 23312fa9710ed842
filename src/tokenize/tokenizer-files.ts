import { readFile } from 'node:fs/promises';
import { Template } from '@huggingface/jinja';
import { UnreadableInputError } from '../errors.js';

// Reading a Hugging Face tokenizer folder: required files, JSON, the chat template, and whether
// the tokenizer's pre-tokenizer lets the counter cut at line starts.

/**
 * The Split regex of the byte-level BPE tokenizers (Qwen2/2.5/3) under which a line break followed
 * by a non-space character is always a pre-token boundary — none of its alternatives runs from a
 * `\n` into a following non-space character, and what precedes the break tokenises the same
 * whatever follows (the alternatives that end in newlines are greedy either way).
 */
const LINE_SAFE_SPLITS = new Set([
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
]);

/** Whether a line break followed by a non-space character is always a pre-token boundary under this tokenizer. */
export function lineSafe(t: { pre_tokenizer?: unknown; normalizer?: unknown; model?: { type?: string } }): boolean {
  const normaliser = t.normalizer as { type?: string } | null | undefined;
  if (normaliser && normaliser.type !== 'NFC') return false;
  if (t.model?.type !== 'BPE') return false;
  const pre = t.pre_tokenizer as
    { type?: string; pretokenizers?: { type?: string; pattern?: { Regex?: string }; behavior?: string; invert?: boolean; use_regex?: boolean }[] } | undefined;
  if (pre?.type !== 'Sequence' || pre.pretokenizers?.length !== 2) return false;
  const [split, bytes] = pre.pretokenizers;
  return (
    split?.type === 'Split' &&
    split.behavior === 'Isolated' &&
    split.invert === false &&
    LINE_SAFE_SPLITS.has(split.pattern?.Regex ?? '') &&
    bytes?.type === 'ByteLevel' &&
    bytes.use_regex === false
  );
}

/** Special-token strings a template may use (`bos_token`, `eos_token`…), as plain strings. */
export function templateVariables(config: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of ['bos_token', 'eos_token', 'pad_token', 'unk_token']) {
    const v = config[k];
    if (typeof v === 'string') out[k] = v;
    else if (v && typeof v === 'object' && typeof (v as { content?: unknown }).content === 'string') out[k] = (v as { content: string }).content;
  }
  return out;
}

/** `chat_template` is a string, or a list of named templates (the `default` one is used). */
export function pickTemplate(v: unknown, file: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) {
    const d = v.find((x) => x && typeof x === 'object' && (x as { name?: unknown }).name === 'default') as { template?: unknown } | undefined;
    if (d && typeof d.template === 'string') return d.template;
  }
  throw new UnreadableInputError(`${file}: chat_template: must be a string or a list with a "default" template`);
}

export async function readRequired(file: string, spec: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    throw new UnreadableInputError(`${file}: cannot read (--tokenizer ${spec} needs tokenizer.json and tokenizer_config.json as Hugging Face writes them)`);
  }
}

export function parseJson(file: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UnreadableInputError(`${file}: not valid JSON (${(e as Error).message})`);
  }
}

/** The chat template parsed by @huggingface/jinja; a template it cannot parse is an error naming the config file. */
export function parseTemplate(configFile: string, text: string): Template {
  try {
    return new Template(text);
  } catch (e) {
    throw new UnreadableInputError(`${configFile}: chat_template: cannot be parsed as Jinja (${(e as Error).message})`);
  }
}
