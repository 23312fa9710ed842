import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from './helpers/hsa.js';
import { ConvertError } from '../src/ingest/importer.js';
import { importers } from '../src/ingest/importers/index.js';
import { parseLoose } from '../src/ingest/loose-json.js';
import { splitPrompt } from '../src/ingest/prompt-split.js';
import { arrayElements } from '../src/ingest/read-source.js';
import { problemKind, type Problem } from '../src/problems.js';

const at = { file: 'x.jsonl', line: 3, defaultId: 'x.jsonl:3' };
const convert = (format: keyof typeof importers, value: unknown) => importers[format].convert(value, at);
const failure = (format: keyof typeof importers, value: unknown): string => {
  try {
    convert(format, value);
  } catch (e) {
    if (e instanceof ConvertError) return e.message;
    throw e;
  }
  throw new Error('converted');
};

describe('splitPrompt', () => {
  const cases: { name: string; text: string; ids: string[]; separator?: string }[] = [
    { name: 'one section', text: 'You are a helpful assistant.', ids: ['intro'] },
    { name: 'headings of one level', text: '# Role\nYou help.\n\n# Rules\n- a\n- b\n\n# Style\nShort.', ids: ['role', 'rules', 'style'] },
    {
      name: 'a title with subsections',
      text: '# Policy\n\nIntro.\n\n## Orders\n- x\n\n## Refunds\n- y\n\n### Detail\nz',
      ids: ['policy', 'orders', 'refunds'],
    },
    { name: 'text before the first heading', text: 'Preamble line.\n\n## A\nx\n\n## B\ny', ids: ['intro', 'a', 'b'] },
    {
      name: 'xml blocks with text between',
      text: '<instructions>\nDo x.\n\n# not a cut\n</instructions>\n\nBetween.\n\n<policy>\np\n</policy>',
      ids: ['instructions', 'text', 'policy'],
    },
    { name: 'a code fence holding a heading', text: '# A\n```md\n# not a heading\n```\n\n# B\nb', ids: ['a', 'b'] },
    { name: 'another separator', text: '# A\na\n\n\n# B\nb\n\n\n# C\nc', ids: ['a', 'b', 'c'], separator: '\n\n\n' },
    { name: 'mixed gaps: only the common one cuts', text: '# A\na\n\n# B\nb\n# C\nc\n\n# D\nd', ids: ['a', 'b', 'd'] },
    { name: 'duplicate titles', text: '# Notes\na\n\n# Notes\nb', ids: ['notes', 'notes_2'] },
    { name: 'an xml tag mentioned inline is not a block', text: 'Tools are given within <tools></tools> tags.\n\n# Rules\nr', ids: ['intro', 'rules'] },
  ];
  it.each(cases)('$name: joins back to the text byte for byte', ({ text, ids, separator }) => {
    const s = splitPrompt(text);
    expect(s.sections.map((x) => x.id)).toEqual(ids);
    expect(s.separator).toBe(separator ?? '\n\n');
    expect(s.sections.map((x) => x.text).join(s.separator)).toBe(text);
    for (const x of s.sections) expect(x.text).toBe(x.text.trim());
  });
});

describe('problemKind', () => {
  const p = (path: string, message: string, severity: Problem['severity'] = 'error'): Problem => ({ file: 'f', line: 1, path, message, severity });
  it('replaces indices, quoted names and numbers, so one mistake in many records is one kind', () => {
    expect(problemKind(p('messages.3.tool_calls.0.function.name', 'tool "a_b" does not exist in harness x'))).toBe(
      problemKind(p('messages.12.tool_calls.4.function.name', 'tool "zz" does not exist in harness x')),
    );
    expect(problemKind(p('messages.0.content', 'system message differs from the rendered harness: line 82: expected (end of text), got ""'))).toBe(
      'messages.*.content: system message differs from the rendered harness: line N: expected (end of text), got "…"',
    );
    expect(problemKind(p('id', 'duplicate id (first at a.jsonl:3)'))).toBe(problemKind(p('id', 'duplicate id (first at b.jsonl:97)')));
  });
  it('keeps different messages, paths and severities apart', () => {
    expect(problemKind(p('tools', 'differ', 'warning'))).not.toBe(problemKind(p('tools', 'differ')));
    expect(problemKind(p('messages.1.content', 'x'))).not.toBe(problemKind(p('messages.1.name', 'x')));
    expect(problemKind(p('a', 'must be a string'))).not.toBe(problemKind(p('a', 'must be a list')));
  });
});

describe('parseLoose (Python literals)', () => {
  it('reads dicts, lists, tuples, both quotes, escapes, True/False/None', () => {
    expect(parseLoose(`{'name': 'get', 'arguments': {'q': "it's", 'n': -1.5e2, 'ok': True, 'x': None, 't': (1, 2), 'e': 'a\\nb\\'c'}}`)).toEqual({
      name: 'get',
      arguments: { q: "it's", n: -150, ok: true, x: null, t: [1, 2], e: "a\nb'c" },
    });
  });
  it('refuses what is not a literal', () => {
    for (const bad of ['lookup(order="x")', "{'a': 1", "{'a' 1}", '[1, 2] extra', '']) expect(parseLoose(bad)).toBeUndefined();
  });
});

describe('arrayElements', () => {
  it('splits a JSON array into its elements with the line each starts on, strings with brackets and commas included', () => {
    const text = '[\n  {"a": "x,]}"},\n  {"b": [1, {"c": 2}]},\n\n  {"bad": }\n]\n';
    expect([...arrayElements(text)]).toEqual([
      { line: 2, text: '{"a": "x,]}"}' },
      { line: 3, text: '{"b": [1, {"c": 2}]}' },
      { line: 5, text: '{"bad": }' },
    ]);
  });
});

describe('importer registry', () => {
  it('lists every importer under the id its module declares, each with a description and a fixture', () => {
    expect(Object.keys(importers)).toEqual(['sharegpt', 'hermes', 'anthropic', 'openai-log', 'responses', 'xlam', 'toolace', 'glaive', 'gemini']);
    for (const [id, imp] of Object.entries(importers)) {
      expect(imp.id).toBe(id);
      expect(imp.description.length).toBeGreaterThan(20);
      expect(existsSync(path.join(REPO, 'src', 'ingest', 'importers', `${id}.ts`))).toBe(true);
      expect(existsSync(path.join(REPO, 'fixtures', 'import', id))).toBe(true);
    }
  });
});

describe('importers', () => {
  it('sharegpt: parallel calls get deterministic ids and a JSON-list observation answers them in order', () => {
    const rec = convert('sharegpt', {
      conversations: [
        { from: 'human', value: 'two orders' },
        { from: 'function_call', value: '[{"name": "f", "arguments": {"id": 1}}, {"name": "f", "arguments": "{\\"id\\": 2}"}]' },
        { from: 'observation', value: '[{"ok": 1}, "plain"]' },
        { from: 'gpt', value: 'done' },
      ],
      system: 'S',
      tools: '[{"name": "f", "description": "F", "parameters": {"type": "object", "properties": {"id": {"type": "integer"}}}}]',
    });
    expect(rec).toEqual({
      id: 'x.jsonl:3',
      messages: [
        { role: 'system', content: 'S' },
        { role: 'user', content: 'two orders' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [
            { id: 'x.jsonl:3:c1', type: 'function', function: { name: 'f', arguments: '{"id":1}' } },
            { id: 'x.jsonl:3:c2', type: 'function', function: { name: 'f', arguments: '{"id": 2}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'x.jsonl:3:c1', content: '{"ok":1}' },
        { role: 'tool', tool_call_id: 'x.jsonl:3:c2', content: 'plain' },
        { role: 'assistant', content: 'done' },
      ],
      tools: [{ type: 'function', function: { name: 'f', description: 'F', parameters: { type: 'object', properties: { id: { type: 'integer' } } } } }],
    });
  });

  it('sharegpt: a result after a user turn has no call', () => {
    expect(
      failure('sharegpt', {
        conversations: [
          { from: 'function_call', value: '{"name": "f", "arguments": {}}' },
          { from: 'human', value: 'hm' },
          { from: 'observation', value: '{}' },
        ],
      }),
    ).toBe('conversations.2.value: a tool result with no call');
  });

  it('anthropic: several tool_result blocks become several tool messages, then the text of the same user message', () => {
    const rec = convert('anthropic', {
      id: 'a1',
      system: [
        { type: 'text', text: 'S1' },
        { type: 'text', text: 'S2' },
      ],
      tools: [{ name: 'f', description: 'F', input_schema: { type: 'object', properties: {} } }],
      messages: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: 's' },
            { type: 'text', text: 'Checking.' },
            { type: 'tool_use', id: 't1', name: 'f', input: { a: 1 } },
            { type: 'tool_use', id: 't2', name: 'f', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't2', content: [{ type: 'text', text: 'two' }] },
            { type: 'tool_result', tool_use_id: 't1', content: 'one', is_error: true },
            { type: 'text', text: 'thanks' },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'a' },
            { type: 'text', text: 'b' },
          ],
        },
      ],
    });
    expect(rec.messages).toEqual([
      {
        role: 'system',
        content: [
          { type: 'text', text: 'S1' },
          { type: 'text', text: 'S2' },
        ],
      },
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          { id: 't1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } },
          { id: 't2', type: 'function', function: { name: 'f', arguments: '{}' } },
        ],
        reasoning_content: 'hmm',
      },
      { role: 'tool', tool_call_id: 't2', content: 'two' },
      { role: 'tool', tool_call_id: 't1', content: 'one' },
      { role: 'user', content: 'thanks' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
    ]);
    expect(rec.meta).toEqual({ tool_result_errors: ['t1'] });
    expect(rec.tools).toEqual([{ type: 'function', function: { name: 'f', description: 'F', parameters: { type: 'object', properties: {} } } }]);
  });

  it('anthropic: a server tool without an input schema cannot be imported', () => {
    expect(failure('anthropic', { tools: [{ type: 'web_search_20250305', name: 'web_search' }], messages: [{ role: 'user', content: 'x' }] })).toContain(
      'tools.0.type: "web_search_20250305" is a server tool',
    );
  });

  it('hermes: Python-literal calls, a tool list one object a line, responses paired by name, text around calls kept', () => {
    const rec = convert('hermes', {
      id: 'h1',
      conversations: [
        {
          from: 'system',
          value: 'Use <tools></tools>. <tools>\n{"name": "f", "parameters": {"type": "object"}}\n{"type": "function", "function": {"name": "g"}}\n</tools>',
        },
        { from: 'human', value: 'q' },
        {
          from: 'gpt',
          value: "Sure.\n<tool_call>\n{'name': 'f', 'arguments': {'x': True}}\n</tool_call>\n<tool_call>\n{\"name\": \"g\", \"arguments\": {}}\n</tool_call>",
        },
        { from: 'tool', value: '<tool_response>\n{"name": "g", "content": {"v": 2}}\n</tool_response>\n<tool_response>\nplain text\n</tool_response>' },
      ],
    });
    expect(rec.tools!.map((t) => t.function.name)).toEqual(['f', 'g']);
    expect(rec.messages.slice(2)).toEqual([
      {
        role: 'assistant',
        content: 'Sure.',
        tool_calls: [
          { id: 'h1:c1', type: 'function', function: { name: 'f', arguments: '{"x":true}' } },
          { id: 'h1:c2', type: 'function', function: { name: 'g', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'h1:c2', content: '{"v":2}' },
      { role: 'tool', tool_call_id: 'h1:c1', content: 'plain text' },
    ]);
  });

  it('openai-log: the response is appended, legacy function calls become tool calls, extra keys are dropped', () => {
    const rec = convert('openai-log', {
      request: {
        body: {
          messages: [
            { role: 'user', content: [{ type: 'text', text: 'hi' }] },
            { role: 'assistant', content: null, function_call: { name: 'f', arguments: '{}' } },
            { role: 'function', name: 'f', content: 'r' },
          ],
          functions: [{ name: 'f', parameters: { type: 'object' } }],
        },
      },
      response: { body: { id: 'chatcmpl-9', choices: [{ message: { role: 'assistant', content: 'ok', refusal: null, annotations: [] } }] } },
    });
    expect(rec).toEqual({
      id: 'chatcmpl-9',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        { role: 'assistant', content: null, tool_calls: [{ id: 'chatcmpl-9:c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'chatcmpl-9:c1', content: 'r' },
        { role: 'assistant', content: 'ok' },
      ],
      tools: [{ type: 'function', function: { name: 'f', description: '', parameters: { type: 'object' } } }],
    });
    expect(
      failure('openai-log', {
        request: { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'x' } }] }] },
        response: { choices: [{ message: { content: 'x' } }] },
      }),
    ).toBe('request.messages.0.content.0: "image_url" parts cannot be imported (only text)');
  });
});
