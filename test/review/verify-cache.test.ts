import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import type { OpenAiTool } from '../../src/harness/types.js';
import { renameTables } from '../../src/review/record-checks.js';
import { LeakScanCache, metaLeaks } from '../../src/review/meta-leaks.js';
import { TextRewriter } from '../../src/transform/text-rewriter.js';
import type { Trajectory } from '../../src/trajectory/types.js';

// The old names of these tests' rename tables (distinctive and plain ones).
const RENAMED = { get_item_detail: 'lookup_item', search: 'find', flag_comment: 'mark_note', item_id: 'itemRef' };
const applied = [
  { id: 'tools.rename', version: 2, class: 'exact', params: { renamed: { get_item_detail: 'lookup_item', search: 'find', flag_comment: 'mark_note' } } },
  { id: 'tools.param-rename', version: 2, class: 'exact', params: { renamed: { item_id: 'itemRef' } } },
];
const tables = renameTables(applied);
const tool = (name: string, description: string, param = 'itemRef'): OpenAiTool => ({
  type: 'function',
  function: { name, description, parameters: { type: 'object', properties: { [param]: { type: 'string', description: `The ${param}.` } }, required: [param] } },
});
const stateTools = () => [tool('lookup_item', 'Details of one item.'), tool('find', 'Search the catalogue.'), tool('mark_note', 'Flag a comment.')];

// A prompt as a state renders it: static sections (every record of the state) and a room context (per record).
const STATIC = [
  '# Role\nYou are the host of a live-stream shop. Answer in short spoken sentences. 你是直播间的 AI 主播。',
  `# Tools\n${'- Call `lookup_item` before quoting a price; `find` when the viewer names no item.\n'.repeat(6)}`,
  `# Rules\n${'- Never promise delivery dates; say you are checking and call `mark_note` first.\n'.repeat(6)}`,
];
const prompt = (room: number, leak?: { section: number; text: string }) =>
  [
    ...STATIC.map((s, i) => (leak?.section === i ? s.replace('\n', `\n${leak.text}\n`) : s)),
    `# Room context\nRoom ${room}: items i-${room}1, i-${room}2.`,
  ].join('\n\n');
const record = (id: string, system: string, tools = stateTools()): Trajectory => ({
  id,
  tools,
  messages: [
    { role: 'system', content: system },
    { role: 'user', content: 'how much is it?' },
    {
      role: 'assistant',
      content: 'Let me check.',
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup_item', arguments: '{"itemRef":"i-1"}' } }],
    },
  ],
});

describe('verify: the leak scan cache never hides a leak', () => {
  it('a record whose system prompt differs from its state-mates by one old name is found, and only it', () => {
    const cache = new LeakScanCache();
    const found = (r: Trajectory) => metaLeaks(r, tables, 'hook:', cache);
    // State-mates first, so every static section is in the cache before the leaky record comes.
    for (let i = 0; i < 5; i++) expect(found(record(`s${i}~v0`, prompt(i)))).toEqual([]);
    // A distinctive old name in prose, and a plain one in a code span, inside cached sections.
    expect(found(record('leak~v0', prompt(7, { section: 0, text: 'Use get_item_detail for prices.' })))).toEqual([
      { path: 'messages.0.content', message: 'mentions old name "get_item_detail"' },
    ]);
    expect(found(record('leak~v1', prompt(8, { section: 2, text: 'Or `search` again.' })))).toEqual([
      { path: 'messages.0.content', message: 'mentions old name "search"' },
    ]);
    // A plain old word in prose is no mention, as in the engine's rule.
    expect(found(record('prose~v0', prompt(9, { section: 1, text: 'Search the shelf.' })))).toEqual([]);
    // The next state-mate is clean again: the leaky text did not change what the cache holds for the others.
    expect(found(record('s9~v0', prompt(9)))).toEqual([]);
  });

  it('a tool list that differs from its state-mates by one description is scanned on its own', () => {
    const cache = new LeakScanCache();
    const shared = (tools: OpenAiTool[]) => cache.sharedTools(tools, 'state-a');
    const first = shared(stateTools());
    const second = shared(stateTools());
    const third = shared(stateTools());
    // Remembered at the second sighting, shared from the third on.
    expect(second).not.toBe(first);
    expect(third).toBe(second);
    expect(metaLeaks(record('a~v0', prompt(1), third), tables, 'hook:', cache)).toEqual([]);
    const odd = stateTools();
    odd[1]!.function.description = 'Search the catalogue; formerly `get_item_detail`.';
    const got = shared(odd);
    expect(got).toBe(odd);
    expect(metaLeaks(record('a~v1', prompt(2), got), tables, 'hook:', cache)).toEqual([
      { path: 'tools.1.function.description', message: 'mentions old name "get_item_detail"' },
    ]);
    // An old parameter named in one record's schema descriptions (its state-mates' say the new one).
    const param = stateTools();
    (param[0]!.function.parameters as { properties: Record<string, { description: string }> }).properties.itemRef!.description = 'The `item_id`.';
    expect(metaLeaks(record('a~v2', prompt(3), shared(param)), tables, 'hook:', cache)).toEqual([
      { path: 'tools.0.function.parameters', message: 'mentions old name "item_id"' },
    ]);
    // The shared list is still the clean one.
    expect(shared(stateTools())).toBe(second);
  });

  it('the same findings with one cache over many records as with a fresh cache per record', () => {
    const rng = seedrandom('verify-cache-records');
    const cache = new LeakScanCache();
    const olds = Object.keys(RENAMED);
    for (let i = 0; i < 200; i++) {
      const leak =
        rng() < 0.3
          ? { section: Math.floor(rng() * STATIC.length), text: `x ${rng() < 0.5 ? '`' : ''}${olds[Math.floor(rng() * olds.length)]}\` y` }
          : undefined;
      const r = record(`r${i}`, prompt(Math.floor(rng() * 4), leak));
      expect(metaLeaks(r, tables, 'hook:', cache)).toEqual(metaLeaks(r, tables));
    }
  });

  it('paragraph pieces find exactly the names TextRewriter.mentions finds in the whole text', () => {
    // Texts made of the constructs whose reach decides where a text may be cut: code spans, JSON
    // keys (also with the colon after a blank line), "name": values, required lists across lines,
    // template slots, blank lines before space, ':' or '"', Chinese, and the old names themselves.
    const names = ['get_item_detail', 'search', 'flag_comment', 'item_id', 'query'];
    const pieces = [
      ...names,
      ...names.map((n) => `\`${n}\``),
      ...names.map((n) => `"${n}"`),
      ...names.map((n) => `{{${n}}}`),
      '"name": ',
      '"name":\n\n',
      '"required": [',
      ']',
      ':',
      '`',
      '"',
      ' ',
      '\n',
      '\n\n',
      '\n\n:',
      '\n\n"',
      '\n\n ',
      '\n\n\n',
      'prose words ',
      '直播间 ',
      '# Heading\n',
      '- item\n',
      'x'.repeat(200),
    ];
    const rng = seedrandom('verify-cache-chunks');
    const all = new Map(names.slice(0, 4).map((n) => [n, '']));
    const finder = new TextRewriter(all);
    const cache = new LeakScanCache();
    const old = cache.oldNames(
      { tools: { get_item_detail: 'a_1', search: 'b', flag_comment: 'c_1' }, params: { item_id: 'd_1' }, skills: {}, hooks: {} },
      cache.toolFacts([]),
    );
    let cut = 0;
    for (let i = 0; i < 3000; i++) {
      let text = '';
      const n = 20 + Math.floor(rng() * 120);
      for (let k = 0; k < n; k++) text += pieces[Math.floor(rng() * pieces.length)]!;
      if (text.length >= 512 && !text.includes('"required"') && /\n\n[^\s:"]/.test(text)) cut++;
      expect(cache.mentions(old, text), JSON.stringify(text)).toEqual(finder.mentions(text, 'record'));
    }
    // The generator made texts that are cut into pieces (else the test proves nothing).
    expect(cut).toBeGreaterThan(300);
  });
});
