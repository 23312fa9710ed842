import { describe, expect, it } from 'vitest';
import { diffValues, markChange, pathMatcher, formatChange } from '../../src/review/field-diff.js';
import { renameTables, shapeProblems } from '../../src/review/record-checks.js';
import { metaLeaks } from '../../src/review/meta-leaks.js';
import { sectionDiff, splitSections, wordDiff } from '../../src/review/text-diff.js';
import type { Trajectory } from '../../src/trajectory/types.js';
import { renameStyle } from '../../src/review/stats.js';

describe('--ignore path globs', () => {
  const ig = pathMatcher(['meta.source_file', 'messages.*.content', 'extra_info.**']);
  it.each([
    ['meta.source_file', true],
    ['meta.source_line', false],
    ['messages.3.content', true],
    ['messages.3.tool_calls.0.function.name', false],
    ['extra_info.env.tool_replay.0.result', true],
    ['extra_info', true],
    ['reward_model.ground_truth', false],
  ])('%s → %s', (p, want) => expect(ig(p)).toBe(want));
  it('a glob matches a path and everything under it', () => expect(pathMatcher(['meta'])('meta.transforms.0.params.renamed.a')).toBe(true));
});

describe('field-level differences', () => {
  it('marks the changed span with context and keeps one line', () => {
    expect(markChange('call get_item_detail now', 'call get_merch_xiangqing now')).toBe('call get_[-item_detail-]{+merch_xiangqing+} now');
    expect(markChange('a\nb', 'a\nc')).toBe('a⏎[-b-]{+c+}');
  });
  it('reports tools renamed (same definition but the name), added and removed, then field changes inside kept tools', () => {
    const tool = (name: string, desc = 'd') => ({ type: 'function', function: { name, description: desc, parameters: { type: 'object' } } });
    const changes = diffValues({ tools: [tool('a'), tool('b'), tool('c', 'x')] }, { tools: [tool('a2'), tool('c', 'y'), tool('z', 'new')] });
    const t = changes.find((c) => c.kind === 'tools')!;
    expect(t.renamed).toEqual([['a', 'a2']]);
    expect(t.removed).toEqual(['b']);
    expect(t.added).toEqual(['z']);
    expect(changes.map(formatChange)).toContain('tools.c.function.description: [-x-]{+y+}');
  });
  it('names message index and key path, added and removed keys, and skips ignored paths', () => {
    const a = {
      id: 'x',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'yo' },
      ],
      meta: { seed: '1', gone: true },
    };
    const b = {
      id: 'x',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'yo!' },
      ],
      meta: { seed: '2', added: 1 },
    };
    expect(diffValues(a, b).map(formatChange)).toEqual([
      'messages.1.content: yo{+!+}',
      'meta.added: added 1',
      'meta.gone: removed true',
      'meta.seed: [-1-]{+2+}',
    ]);
    expect(diffValues(a, b, pathMatcher(['meta.**'])).map((c) => c.path)).toEqual(['messages.1.content']);
  });
});

describe('record checks from the record alone', () => {
  const tools = [
    {
      type: 'function' as const,
      function: {
        name: 'lookup_item',
        description: 'Find an item; never call `get_item_detail`.',
        parameters: { type: 'object', properties: { item_ref: { type: 'string' } } },
      },
    },
  ];
  const applied = [
    { id: 'tools.rename', version: 1, class: 'exact', params: { renamed: { get_item_detail: 'lookup_item', search: 'find' } } },
    { id: 'tools.param-rename', version: 1, class: 'exact', params: { renamed: { item_id: 'item_ref' } } },
    { id: 'skills.rename', version: 1, class: 'exact', params: { renamed: { greet: 'welcome' } } },
  ];
  const rec = (assistant: string, args: string): Trajectory => ({
    id: 'r~v0',
    tools,
    messages: [
      { role: 'system', content: 'Use `lookup_item`. Greet people warmly.' },
      { role: 'user', content: 'what about get_item_detail?' },
      { role: 'assistant', content: assistant, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup_item', arguments: args } }] },
    ],
  });
  it('finds old names in text the model reads, in argument keys and skill loads', () => {
    const found = metaLeaks(rec('I will use get_item_detail and `search`.', '{"item_id":"greet"}'), renameTables(applied));
    expect(found).toEqual(
      expect.arrayContaining([
        { path: 'tools.0.function.description', message: 'mentions old name "get_item_detail"' },
        { path: 'messages.2.content', message: 'mentions old name "get_item_detail"' },
        { path: 'messages.2.content', message: 'mentions old name "search"' },
        { path: 'messages.2.tool_calls.0.function.arguments', message: 'old parameter "item_id"' },
        { path: 'messages.2.tool_calls.0.function.arguments', message: 'loads old skill name "greet"' },
      ]),
    );
    // User words are data; a plain word in prose ("Greet") is not a mention.
    expect(found.some((p) => p.path.startsWith('messages.1') || p.path.startsWith('messages.0'))).toBe(false);
  });
  it('a name that is current again (a swap) is not an old name', () => {
    const swap = renameTables([{ id: 'tools.rename', params: { renamed: { a_tool: 'b_tool', b_tool: 'a_tool' } } }]);
    const r: Trajectory = {
      id: 'x',
      tools: [
        { type: 'function', function: { name: 'a_tool', description: 'see b_tool', parameters: {} } },
        { type: 'function', function: { name: 'b_tool', description: '', parameters: {} } },
      ],
      messages: [],
    };
    expect(metaLeaks(r, swap)).toEqual([]);
  });
  it('shape problems name the key path', () => {
    expect(shapeProblems('sft', { id: 'x', messages: [{ role: 'assistant', content: null }], tools: [], meta: {} })).toEqual([
      { path: 'messages.0.content', message: 'must be a string' },
    ]);
    expect(
      shapeProblems('rl', {
        data_source: 'd',
        ability: 'a',
        prompt: [],
        reward_model: { ground_truth: '{' },
        extra_info: { id: 'x', index: 1, env: '{}' },
      }).map((p) => p.path),
    ).toEqual(['reward_model.ground_truth', 'extra_info.env.user_turns', 'extra_info.env.tool_replay', 'extra_info.env.tools']);
    expect(shapeProblems('rejects', { kind: 'input', id: null })).toEqual([{ path: 'reason', message: 'required: a reject carries its reason' }]);
  });
});

describe('prompt sections', () => {
  it('splits at headings of every style the prompt transforms write', () => {
    const text = '# Role\nYou host.\n\n<constraints>\n- a\n- b\n</constraints>\n\nOUTPUT FORMAT:\nshort\n\n[Skills]\nx\n\nRoom context:\nroom';
    expect(splitSections(text).map((s) => s.key)).toEqual(['role', 'constraints', 'output format', 'skills', 'room context']);
  });
  it('pairs sections by heading whatever the style, and tells restyled from changed, moved and preamble', () => {
    const source = '# Role\nYou host.\n\n# Constraints\n- a\n- b\n\n# Output format\nshort';
    const system = 'ROLE:\nYou host.\n\n<constraints>\n1. b\n2. a\n</constraints>';
    const d = sectionDiff(source, system, '## Output format\nshorter');
    expect(d.map((s) => [s.status, s.where])).toEqual([
      ['restyled', 'system'],
      ['restyled', 'system'],
      ['changed', 'preamble'],
    ]);
    expect(d[2]!.right!.filter((s) => s.changed).map((s) => s.text)).toEqual(['shorter']);
  });
  it('word diff marks only the changed words', () => {
    const { left, right } = wordDiff('call `get_item_detail` with `item_id`', 'call `lookup` with `item_id`');
    expect(left.filter((s) => s.changed).map((s) => s.text)).toEqual(['get_item_detail']);
    expect(right.filter((s) => s.changed).map((s) => s.text)).toEqual(['lookup']);
  });
});

describe('rename styles recognised by stats', () => {
  it.each([
    ['get_item_detail', 'getItemDetail', 'case'],
    ['get_item_detail', 'shop__get_item_detail', 'mcp'],
    ['switch_presentation_order', 'tool_86c9', 'opaque'],
    ['lookup_faq', 'lookup_faq_fn', 'affix'],
    ['refusal', 'decline', 'synonym'],
  ])('%s → %s is %s', (a, b, want) => expect(renameStyle(a, b)).toBe(want));
});
