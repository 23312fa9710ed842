import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnreadableInputError } from '../src/errors.js';
import { loadHarness } from '../src/harness/load.js';
import { renderSystemPrompt, renderTools } from '../src/harness/render.js';
import type { Harness } from '../src/harness/types.js';
import type { Problem } from '../src/problems.js';
import { checkTrajectory, shortDiff } from '../src/trajectory/check.js';
import { parseTrajectoryLine, readTrajectories, type ReadItem } from '../src/trajectory/read.js';
import type { Message, Trajectory } from '../src/trajectory/types.js';
import { readJsonlLines, type JsonlLine } from '../src/util/jsonl.js';
import { REPO } from './helpers/hsa.js';
import { makeTmp, writeTree } from './helpers/tmp.js';

let tmp: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  tmp = await makeTmp('hsa-jsonl-');
});
afterAll(async () => {
  await tmp.cleanup();
});

let n = 0;
async function file(content: string | Uint8Array): Promise<string> {
  const rel = `f${++n}.jsonl`;
  await writeTree(tmp.dir, { [rel]: content });
  return path.join(tmp.dir, rel);
}
async function lines(f: string): Promise<JsonlLine[]> {
  const out: JsonlLine[] = [];
  for await (const l of readJsonlLines(f)) out.push(l);
  return out;
}
async function items(f: string): Promise<ReadItem[]> {
  const out: ReadItem[] = [];
  for await (const it of readTrajectories(f)) out.push(it);
  return out;
}

describe('readJsonlLines', () => {
  it('splits on \\n, keeps 1-based line numbers and skips blank and whitespace-only lines', async () => {
    const f = await file('{"a":1}\n\n{"a":2}\n   \n\t\n{"a":3}\n');
    expect(await lines(f)).toEqual([
      { line: 1, text: '{"a":1}' },
      { line: 3, text: '{"a":2}' },
      { line: 6, text: '{"a":3}' },
    ]);
  });

  it('drops the \\r of CRLF line endings, including on blank lines', async () => {
    const f = await file('{"a":1}\r\n\r\n{"a":"x\\r"}\r\n{"a":3}');
    expect(await lines(f)).toEqual([
      { line: 1, text: '{"a":1}' },
      { line: 3, text: '{"a":"x\\r"}' },
      { line: 4, text: '{"a":3}' },
    ]);
  });

  it('drops a leading BOM (and only on the first line)', async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const f = await file(Buffer.concat([bom, Buffer.from('{"a":1}\n'), bom, Buffer.from('{"a":2}\n')]));
    const got = await lines(f);
    expect(got[0]).toEqual({ line: 1, text: '{"a":1}' });
    expect(JSON.parse(got[0]!.text)).toEqual({ a: 1 });
    expect(got[1]).toEqual({ line: 2, text: '\uFEFF{"a":2}' });
  });

  it('a BOM followed by CRLF lines', async () => {
    const f = await file(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}\r\n{"a":2}\r\n')]));
    expect(await lines(f)).toEqual([
      { line: 1, text: '{"a":1}' },
      { line: 2, text: '{"a":2}' },
    ]);
  });

  it('yields a last line without a newline', async () => {
    expect(await lines(await file('{"a":1}\n{"a":2}'))).toEqual([
      { line: 1, text: '{"a":1}' },
      { line: 2, text: '{"a":2}' },
    ]);
    expect(await lines(await file('{"only":true}'))).toEqual([{ line: 1, text: '{"only":true}' }]);
  });

  it('an empty file, or only blank lines, yields nothing', async () => {
    expect(await lines(await file(''))).toEqual([]);
    expect(await lines(await file('\n\r\n  \n'))).toEqual([]);
  });

  it('reads a 5 MB line whole, multi-byte characters across read chunks intact, and numbers the lines after it', async () => {
    // 3-byte characters: 1 MiB read chunks end in the middle of one.
    const big = JSON.stringify({ id: 'big', text: '中文'.repeat(900_000) });
    expect(Buffer.byteLength(big)).toBeGreaterThan(5_000_000);
    const f = await file(`{"id":"first"}\n${big}\n\n{"id":"after"}`);
    const got = await lines(f);
    expect(got.map((l) => l.line)).toEqual([1, 2, 4]);
    expect(got[1]!.text.length).toBe(big.length);
    expect(got[1]!.text).toBe(big);
    expect(got[2]).toEqual({ line: 4, text: '{"id":"after"}' });
  });

  it('a file that does not exist is UnreadableInputError (exit 2)', async () => {
    const missing = path.join(tmp.dir, 'missing.jsonl');
    await expect(lines(missing)).rejects.toBeInstanceOf(UnreadableInputError);
    await expect(lines(missing)).rejects.toMatchObject({ exitCode: 2, message: `${missing}: cannot read (no such file)` });
  });
});

describe('readTrajectories / parseTrajectoryLine', () => {
  const ok = (id: string) => JSON.stringify({ id, messages: [{ role: 'user', content: 'hi' }] });

  it('streams records with their line numbers; bad lines come back as problems, never as a throw', async () => {
    const f = await file(
      [
        ok('r1'), // 1
        '', // 2
        '{"id": "broken", ', // 3
        JSON.stringify({ id: 'r4', messages: [{ role: 'bot', content: 'x' }] }), // 4
        JSON.stringify({ id: 'r5' }), // 5
        JSON.stringify({ messages: [{ role: 'user', content: 'no id' }] }), // 6
        JSON.stringify({ id: 'r7', messages: [], extra: 1 }), // 7
        ok('r8'), // 8
      ].join('\r\n'),
    );
    const got = await items(f);
    expect(got.map((i) => [i.line, i.ok])).toEqual([
      [1, true],
      [3, false],
      [4, false],
      [5, false],
      [6, false],
      [7, false],
      [8, true],
    ]);
    const problems = (line: number): Problem[] => {
      const it = got.find((i) => i.line === line)!;
      return it.ok ? [] : it.problems;
    };
    expect(problems(3)).toEqual([{ file: f, line: 3, path: '(json)', message: expect.stringMatching(/^not valid JSON: /), severity: 'error' }]);
    expect(problems(4)).toEqual([
      { file: f, line: 4, id: 'r4', path: 'messages.0.role', message: 'role must be one of system, developer, user, assistant, tool', severity: 'error' },
    ]);
    expect(problems(5)).toEqual([{ file: f, line: 5, id: 'r5', path: 'messages', message: 'required (expected array)', severity: 'error' }]);
    expect(problems(6)).toEqual([{ file: f, line: 6, path: 'id', message: 'required (expected string)', severity: 'error' }]);
    expect(problems(7).map((p) => [p.id, p.path, p.message])).toEqual(
      expect.arrayContaining([
        ['r7', '(record)', 'unknown key: extra'],
        ['r7', 'messages', expect.stringMatching(/>=1 items/)],
      ]),
    );
    const first = got[0]!;
    expect(first.ok && first.record).toEqual({ id: 'r1', messages: [{ role: 'user', content: 'hi' }] });
    expect(first.text).toBe(ok('r1'));
  });

  it('keeps the record as parsed, keys in input order', () => {
    const text = '{"messages":[{"content":"hi","role":"user"}],"meta":{"z":1,"a":2},"id":"k"}';
    const r = parseTrajectoryLine('x.jsonl', 9, text);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(Object.keys(r.record)).toEqual(['messages', 'meta', 'id']);
    expect(Object.keys(r.record.meta!)).toEqual(['z', 'a']);
    expect(r.line).toBe(9);
  });

  it('reports a bad tool call shape with its full path', () => {
    const r = parseTrajectoryLine(
      'x.jsonl',
      2,
      JSON.stringify({
        id: 'a',
        messages: [{ role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: { a: 1 } } }] }],
      }),
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems.map((p) => [p.line, p.id, p.path])).toEqual([[2, 'a', 'messages.0.tool_calls.0.function.arguments']]);
    expect(r.problems[0]!.message).toMatch(/expected string/);
  });
});

describe('checkTrajectory', () => {
  let h: Harness;
  const ctx = { shop: { name: 'Acme' }, items: [{ id: 'a1', title: 'Mug' }] };
  let system: Message;
  const at = { file: 'data/t.jsonl', line: 12 };
  const call = (id: string, name: string, args: unknown) => ({
    id,
    type: 'function' as const,
    function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
  });
  const rec = (messages: Message[], extra: Partial<Trajectory> = {}): Trajectory => ({
    id: 'rec-1',
    context: ctx,
    messages: [system, { role: 'user', content: 'hi' }, ...messages],
    ...extra,
  });
  const check = (t: Trajectory) => checkTrajectory(t, h, at);
  const paths = (ps: Problem[]) => ps.map((p) => [p.severity, p.path, p.message]);

  beforeAll(async () => {
    const r = await loadHarness(path.join(REPO, 'fixtures/bad/_harness'));
    expect(r.problems).toEqual([]);
    h = r.harness!;
    system = { role: 'system', content: renderSystemPrompt(h, ctx) };
  });

  it('a valid record with a skill load, a tool call and hook feedback has no problems', () => {
    const t = rec(
      [
        { role: 'assistant', content: '', tool_calls: [call('c1', 'load_skill', { name: 'lookup' })] },
        { role: 'tool', tool_call_id: 'c1', content: 'body' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [call('c2', 'get_item', { item_id: 'a1', detail: 'full', count: 2 }), call('c3', 'get_item', { item_id: 'b2' })],
        },
        { role: 'tool', tool_call_id: 'c2', content: '{}' },
        { role: 'tool', tool_call_id: 'c3', content: [{ type: 'text', text: '{}' }] },
        { role: 'assistant', content: 'A very long reply that the stop gate will not like at all, because it goes on and on.' },
        { role: 'user', name: 'hook:stop_gate', content: '[stop_gate] reply is 85 chars, limit 80.' },
        { role: 'assistant', content: 'A mug.' },
      ],
      { harness: { name: 'bad-base', version: '1.0.0' }, tools: renderTools(h) },
    );
    expect(check(t)).toEqual([]);
  });

  it('every problem carries file, line, record id and a field path', () => {
    const t = rec([
      { role: 'assistant', content: '', tool_calls: [call('c1', 'get_item', { item_id: 5 }), call('c2', 'nope', {})] },
      { role: 'tool', tool_call_id: 'c1', content: '{}' },
      { role: 'assistant', content: 'done' },
    ]);
    const ps = check(t);
    expect(ps).toEqual([
      { file: 'data/t.jsonl', line: 12, id: 'rec-1', path: 'messages.2.tool_calls.0.function.arguments.item_id', message: 'must be string', severity: 'error' },
      {
        file: 'data/t.jsonl',
        line: 12,
        id: 'rec-1',
        path: 'messages.2.tool_calls.1.function.name',
        message: 'tool "nope" does not exist in harness bad-base',
        severity: 'error',
      },
      {
        file: 'data/t.jsonl',
        line: 12,
        id: 'rec-1',
        path: 'messages.2.tool_calls',
        message: 'tool call "c2" has no tool message answering it',
        severity: 'error',
      },
    ]);
  });

  it('argument problems: not JSON, not an object, wrong type, missing required, enum, unknown property', () => {
    const one = (args: unknown) =>
      paths(
        check(
          rec([
            { role: 'assistant', content: '', tool_calls: [call('c1', 'get_item', args)] },
            { role: 'tool', tool_call_id: 'c1', content: '' },
            { role: 'assistant', content: 'ok' },
          ]),
        ),
      );
    const p = 'messages.2.tool_calls.0.function.arguments';
    expect(one('{"item_id":')).toEqual([['error', p, expect.stringMatching(/^not valid JSON: /)]]);
    expect(one('["a1"]')).toEqual([['error', p, 'must be a JSON object']]);
    expect(one({ item_id: 'a1', count: 1.5 })).toEqual([['error', `${p}.count`, 'must be integer']]);
    expect(one({ item_id: 'a1', count: 0 })).toEqual([['error', `${p}.count`, 'must be >= 1']]);
    expect(one({})).toEqual([['error', p, 'missing required property "item_id"']]);
    expect(one({ item_id: 'a1', detail: 'long' })).toEqual([['error', `${p}.detail`, 'must be one of ["short","full"]']]);
    expect(one({ item_id: 'a1', colour: 'red' })).toEqual([['error', p, 'unknown property "colour"']]);
  });

  it('skill loads name existing skills', () => {
    const ps = check(
      rec([
        { role: 'assistant', content: '', tool_calls: [call('c1', 'load_skill', { name: 'haggle' })] },
        { role: 'tool', tool_call_id: 'c1', content: '' },
        { role: 'assistant', content: 'ok' },
      ]),
    );
    expect(paths(ps)).toEqual([['error', 'messages.2.tool_calls.0.function.arguments.name', 'skill "haggle" does not exist']]);
  });

  it('tool messages: answering nothing, answered twice, duplicate call ids', () => {
    expect(
      paths(
        check(
          rec([
            { role: 'tool', tool_call_id: 'zz', content: '' },
            { role: 'assistant', content: 'ok' },
          ]),
        ),
      ),
    ).toEqual([['error', 'messages.2.tool_call_id', 'no tool call "zz" before this tool message']]);
    expect(
      paths(
        check(
          rec([
            { role: 'assistant', content: '', tool_calls: [call('c1', 'get_item', { item_id: 'a' })] },
            { role: 'tool', tool_call_id: 'c1', content: '' },
            { role: 'tool', tool_call_id: 'c1', content: '' },
            { role: 'assistant', content: '', tool_calls: [call('c1', 'get_item', { item_id: 'b' })] },
            { role: 'tool', tool_call_id: 'c1', content: '' },
            { role: 'assistant', content: 'ok' },
          ]),
        ),
      ),
    ).toEqual([
      ['error', 'messages.4.tool_call_id', 'tool call "c1" is answered twice'],
      ['error', 'messages.5.tool_calls.0.id', 'duplicate tool call id "c1"'],
    ]);
  });

  it("hook feedback must name a real hook; a later system message that is not hook feedback is the record's own text", () => {
    const ps = check(
      rec([
        { role: 'assistant', content: 'x' },
        { role: 'system', name: 'hook:loop_guard', content: 'stop' },
        { role: 'system', content: 'sneaky' },
        { role: 'assistant', content: 'ok' },
      ]),
    );
    expect(paths(ps)).toEqual([['error', 'messages.3.name', 'hook feedback names hook "loop_guard", which does not exist']]);
  });

  it('the system message must equal the rendered harness; a missing variable names context.<path>', () => {
    const drift = rec([{ role: 'assistant', content: 'ok' }]);
    drift.messages[0] = { role: 'system', content: (system.content as string).replace('- a1: Mug', '- a1: Cup') };
    expect(paths(check(drift))).toEqual([
      ['error', 'messages.0.content', 'system message differs from the rendered harness: line 12: expected "- a1: Mug", got "- a1: Cup"'],
    ]);
    const missing = rec([{ role: 'assistant', content: 'ok' }], { context: { items: [] } });
    expect(paths(check(missing))).toEqual([['error', 'context', 'context.shop.name: missing template variable']]);
    // Content given as text parts is compared as its joined text.
    const parts = rec([{ role: 'assistant', content: 'ok' }]);
    const s = system.content as string;
    parts.messages[0] = {
      role: 'system',
      content: [
        { type: 'text', text: s.slice(0, 10) },
        { type: 'text', text: s.slice(10) },
      ],
    };
    expect(check(parts)).toEqual([]);
    // No system message: nothing to compare.
    expect(check({ id: 'x', messages: [{ role: 'user', content: 'hi' }] })).toEqual([]);
  });

  it('warnings: another harness, another version', () => {
    expect(paths(check(rec([{ role: 'assistant', content: 'ok' }], { harness: { name: 'other', version: '1.0.0' } })))).toEqual([
      ['warning', 'harness.name', 'record was made under harness "other", validating against "bad-base"'],
    ]);
    expect(paths(check(rec([{ role: 'assistant', content: 'ok' }], { harness: { name: 'bad-base', version: '0.9' } })))).toEqual([
      ['warning', 'harness.version', 'record was made under version 0.9, the harness is 1.0.0'],
    ]);
  });

  it('record tools: the same tools written another way are the harness tools; other tools are an error naming the first difference', () => {
    const all = renderTools(h);
    const conv: Message[] = [
      { role: 'assistant', content: '', tool_calls: [call('c1', 'get_item', { item_id: 'a' })] },
      { role: 'tool', tool_call_id: 'c1', content: '' },
      { role: 'assistant', content: 'ok' },
    ];
    const tail =
      'every variant carries the harness tools, so this record cannot be augmented under this harness; augment without --harness to make the tools and system message of each record its harness';
    // `strict` and key order are not differences: the record then shows the harness's own list.
    const same = rec(conv, { tools: all.map((t) => ({ function: { ...t.function, strict: true }, type: 'function' })) });
    expect(check(same)).toEqual([]);
    expect(same.tools).toBe(renderTools(h));
    const fewer = check(rec(conv, { tools: all.slice(0, 1) }));
    expect(paths(fewer)[0]).toEqual([
      'error',
      'tools',
      `differ from the tools of harness bad-base (1 of the ${all.length} harness tools listed, not "${all[1]!.function.name}"): ${tail}`,
    ]);
    expect(paths(fewer)).toContainEqual(['error', 'messages.2.tool_calls.0.function.name', 'tool "get_item" is not in the record\'s tools']);
    const described = all.map((t, i) => (i === 0 ? { ...t, function: { ...t.function, description: `${t.function.description} (older)` } } : t));
    expect(paths(check(rec(conv, { tools: described })))).toEqual([
      ['error', 'tools', `differ from the tools of harness bad-base ("${all[0]!.function.name}": another description): ${tail}`],
    ]);
    const reordered = [...all].reverse();
    expect(paths(check(rec(conv, { tools: reordered })))[0]![2]).toContain(`another order: tools.0 is "${reordered[0]!.function.name}"`);
    const extra = [...all, { type: 'function' as const, function: { name: 'not_here', description: '', parameters: { type: 'object', properties: {} } } }];
    expect(paths(check(rec(conv, { tools: extra })))[0]![2]).toContain('"not_here" is not a harness tool');
  });

  it('an assistant message with null content and no tool calls is an error', () => {
    expect(paths(check(rec([{ role: 'assistant', content: null }])))).toEqual([
      ['error', 'messages.2.content', 'an assistant message without tool calls needs content'],
    ]);
  });

  it('shortDiff names the first differing line', () => {
    expect(shortDiff('a\nb\nc', 'a\nB\nc')).toBe('line 2: expected "b", got "B"');
    expect(shortDiff('a\nb', 'a')).toBe('line 2: expected "b", got (end of text)');
    expect(shortDiff('a', 'a')).toBe('texts differ in line endings');
  });
});
