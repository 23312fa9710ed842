import { describe, expect, it } from 'vitest';
import type { RunConfig } from '../src/config/augment-config.js';
import { opdRecords, opdShownMessages, rlRecord, sftRecord, trainerMessages, type StageInput } from '../src/output/stages.js';
import { callArgs, NOT_JSON, withArgs } from '../src/util/call-args.js';
import type { Message } from '../src/trajectory/types.js';
import { renderTools } from '../src/harness/render.js';
import { lineText, messagesWriter, recordLine } from '../src/util/json-out.js';
import { baseHarness } from './helpers/state.js';

const call = (id: string, name: string, args: string) => ({ id, type: 'function' as const, function: { name, arguments: args } });

const messages: Message[] = [
  { role: 'user', content: 'hi' },
  { role: 'assistant', content: null, tool_calls: [call('c1', 'search', '{"q":"零食","n":2}'), call('c2', 'search', '{"q": oops')] },
  { role: 'tool', tool_call_id: 'c1', content: '[]' },
  { role: 'tool', tool_call_id: 'c2', content: 'error' },
  { role: 'assistant', content: 'done' },
];

describe('stage records and call arguments', () => {
  it('SFT messages carry arguments as objects, or as the text when it is not JSON', () => {
    const out = trainerMessages(messages, 'object') as { tool_calls?: { function: { arguments: unknown } }[] }[];
    expect(out[1]!.tool_calls!.map((c) => c.function.arguments)).toEqual([{ q: '零食', n: 2 }, '{"q": oops']);
    const strings = trainerMessages(messages, 'string') as { tool_calls?: { function: { arguments: unknown } }[] }[];
    expect(strings[1]!.tool_calls!.map((c) => c.function.arguments)).toEqual(['{"q":"零食","n":2}', '{"q": oops']);
    expect(out[0]).toBe(messages[0]); // a message already in trainer shape is the same object
  });

  it('RL ground truth and replay table keep arguments that are not JSON as their text', () => {
    const x: StageInput = {
      id: 'r~v0',
      record: { id: 'r', messages },
      state: baseHarness(),
      provenance: {
        source_id: 'r',
        source_file: 'f',
        source_line: 1,
        variant: 0,
        transforms: [],
        harness: { name: 't', version: '1', state_hash: 'h' },
        seed: 's',
      },
      ordinal: 0,
    };
    const row = rlRecord(x, { rl: { dataSource: '', ability: 'agent' } } as unknown as RunConfig);
    const truth = JSON.parse((row.reward_model as { ground_truth: string }).ground_truth) as { expected_calls: { arguments: unknown }[] };
    expect(truth.expected_calls.map((c) => c.arguments)).toEqual([{ q: '零食', n: 2 }, '{"q": oops']);
    const env = JSON.parse((row.extra_info as { env: string }).env) as { tool_replay: { arguments: unknown }[] };
    expect(env.tool_replay.map((r) => r.arguments)).toEqual([{ q: '零食', n: 2 }, '{"q": oops']);
  });

  it('RL env and transforms are the JSON of their objects, whether or not an SFT line of the state encoded them first', () => {
    const tool = (name: string, description: string) => ({
      name,
      description,
      parameters: { type: 'object', properties: { q: { type: 'string', description: 'Texte «libre» 零食 😀 "q" \\ \u2028' } }, required: ['q'] },
      sourceName: name,
      sourceFormat: 'openai' as const,
    });
    const rows = [false, true].map((encodedFirst) => {
      const state = baseHarness({
        tools: [tool('search', 'Find ☕ things.'), tool('get', 'Read one.')],
        hooks: [
          {
            id: 'h',
            event: 'stop',
            checks: [{ type: 'require_tool', tools: ['search'], intents: ['find'] }],
            action: 'retry',
            channel: 'user',
            feedback: 'use search',
            maxRounds: 1,
          },
        ],
      });
      const transforms = [
        { id: 'tools.rename', version: '1', class: 'exact', params: { search: 'lookup' } },
      ] as unknown as StageInput['provenance']['transforms'];
      const x: StageInput = {
        id: 'r~v0',
        record: { id: 'r', messages, meta: { intent: 'find' } },
        state,
        provenance: {
          source_id: 'r',
          source_file: 'f',
          source_line: 1,
          variant: 0,
          transforms,
          harness: { name: 't', version: '1', state_hash: 'h' },
          seed: 's',
        },
        ordinal: 0,
      };
      if (encodedFirst)
        expect(
          lineText(
            recordLine({ tools: renderTools(state), meta: { transforms } }, ['tools'], {
              meta: (v) => [lineText(recordLine(v as Record<string, unknown>, ['transforms']))],
            }),
          ),
        ).toContain('lookup');
      const row = rlRecord(x, { rl: { dataSource: '', ability: 'agent' } } as unknown as RunConfig);
      const extra = row.extra_info as { env: string; transforms: string };
      const want = {
        user_turns: ['hi'],
        tool_replay: (JSON.parse(extra.env) as { tool_replay: unknown }).tool_replay,
        tools: renderTools(state),
        hooks: state.hooks,
        hook_message_prefix: 'hook:',
        skill_loader: null,
        intent: 'find',
      };
      expect(extra.env).toBe(JSON.stringify(want));
      expect(extra.transforms).toBe(JSON.stringify(transforms));
      return JSON.stringify(row);
    });
    expect(rows[1]).toBe(rows[0]);
  });

  it('SFT and OPD records of one output show the same converted messages, and their lines are JSON.stringify of the records', () => {
    const cfg = { arguments: 'object', toolsFormat: 'objects', opd: { turns: 'all', prompts: 'all', generalRatio: 0 } } as unknown as RunConfig;
    const input = (id: string, msgs: Message[]): StageInput => ({
      id,
      record: { id, messages: msgs },
      state: baseHarness(),
      provenance: {
        source_id: id,
        source_file: 'f',
        source_line: 1,
        variant: 0,
        transforms: [],
        harness: { name: 't', version: '1', state_hash: 'h' },
        seed: 's',
      },
      ordinal: 0,
    });
    const x = input('a', messages);
    const sft = sftRecord(x, cfg);
    const opd = opdRecords(x, cfg, []);
    expect(opd.map((r) => (r.messages as unknown[]).length)).toEqual([1, 4]);
    const shown = opdShownMessages(x, cfg);
    expect(shown.size).toBe(4);
    // The assistant turn with calls (converted: arguments as objects) is one object in both.
    expect((opd[1]!.messages as unknown[])[1]).toBe((sft.messages as unknown[])[1]);
    expect(shown.has((sft.messages as object[])[1]!)).toBe(true);
    expect(shown.has((sft.messages as object[])[4]!)).toBe(false);
    const writers = {
      messages: messagesWriter(
        () => undefined,
        (m) => shown.has(m),
      ),
    };
    for (const r of [sft, ...opd]) expect(lineText(recordLine(r, ['tools'], writers))).toBe(JSON.stringify(r));
    // Another record (another messages array) is converted anew, never given the last one's.
    const other: Message[] = [
      { role: 'user', content: 'yo' },
      { role: 'assistant', content: null, tool_calls: [call('d1', 'get', '{"id":7}')] },
    ];
    const y = sftRecord(input('b', other), cfg);
    expect(JSON.stringify(y.messages)).toBe(JSON.stringify(trainerMessages(other, 'object')));
    expect(JSON.stringify(sftRecord(x, { ...cfg, arguments: 'string' }).messages)).toBe(JSON.stringify(trainerMessages(messages, 'string')));
  });

  it('a call parses once, keeps what made it, and notices a replaced text', () => {
    const fn = { name: 'f', arguments: '{"a":[1]}' };
    const v = callArgs(fn);
    expect(v).toEqual({ a: [1] });
    expect(callArgs(fn)).toBe(v);
    expect(Object.keys(fn)).toEqual(['name', 'arguments']);
    expect(JSON.stringify(fn)).toBe('{"name":"f","arguments":"{\\"a\\":[1]}"}');
    expect(callArgs({ ...fn })).not.toBe(v); // a copy parses again (nothing is copied along)
    fn.arguments = '{"a":[2]}';
    expect(callArgs(fn)).toEqual({ a: [2] });
    const made = { b: 1 };
    const fnG = { name: 'g', arguments: JSON.stringify(made) };
    const g = withArgs(fnG, made);
    expect(callArgs(g)).toBe(made);
    expect(callArgs({ arguments: '{' })).toBe(NOT_JSON);
    expect(callArgs(Object.freeze({ name: 'h', arguments: '[3]' }))).toEqual([3]);
  });
});
