import { describe, expect, it } from 'vitest';
import type { RunConfig } from '../src/config/augment-config.js';
import { Episode } from '../src/episode/episode.js';
import { readPolicyMessage } from '../src/episode/message.js';
import { parseRow } from '../src/episode/row.js';
import type { Hook } from '../src/harness/types.js';
import { rlRecord, type StageInput } from '../src/output/stages.js';
import type { Message } from '../src/trajectory/types.js';
import { baseHarness } from './helpers/state.js';

// An RL row as rlRecord writes it, read back by the episode core: the row alone runs the episode.

const call = (id: string, name: string, args: unknown) => ({ id, type: 'function' as const, function: { name, arguments: JSON.stringify(args) } });
const messages: Message[] = [
  { role: 'system', content: 'You help with orders.' },
  { role: 'user', content: 'any discount?' },
  { role: 'assistant', content: '', tool_calls: [call('c1', 'promo', { item: 'i-1' })] },
  { role: 'tool', tool_call_id: 'c1', content: '{"price":9}' },
  { role: 'assistant', content: 'It is 9 today.' },
];
const gate: Hook = {
  id: 'cite',
  event: 'stop',
  checks: [{ type: 'require_tool', tools: ['promo'], intents: ['discount'] }],
  action: 'retry',
  channel: 'user',
  feedback: '[cite] {{reason}}',
  maxRounds: 2,
};
const tool = {
  name: 'promo',
  description: 'Promotions.',
  parameters: { type: 'object', properties: { item: { type: 'string' } } },
  sourceName: 'promo',
  sourceFormat: 'openai' as const,
};

function row(hooks: Hook[], intent = 'discount') {
  const x: StageInput = {
    id: 'o~v0',
    record: { id: 'o', messages, meta: { intent } },
    state: baseHarness({ hooks, tools: [tool] }),
    provenance: {
      source_id: 'o',
      source_file: 'f',
      source_line: 1,
      variant: 0,
      transforms: [],
      harness: { name: 't', version: '1', state_hash: 'h' },
      seed: 's',
    },
    ordinal: 4,
  };
  return rlRecord(x, { rl: { dataSource: '', ability: 'agent' } } as unknown as RunConfig);
}

const reply = (content: string) => readPolicyMessage({ role: 'assistant', content }, 'm', 'error');

describe('RL rows run as episodes', () => {
  it("carries the record's intent whenever it has one (hsa eval groups by it), and the episode applies a require_tool check on it", () => {
    // No hook reads the intent: the row still carries it, and parseRow gives it to eval's per-intent gap.
    const plain = row([]);
    expect(JSON.parse((plain.extra_info as { env: string }).env).intent).toBe('discount');
    expect(parseRow(plain, 0).intent).toBe('discount');
    // A record without an intent: no key, not an empty one.
    const none = rlRecord(
      {
        id: 'n~v0',
        record: { id: 'n', messages },
        state: baseHarness({ tools: [tool] }),
        provenance: {
          source_id: 'n',
          source_file: 'f',
          source_line: 1,
          variant: 0,
          transforms: [],
          harness: { name: 't', version: '1', state_hash: 'h' },
          seed: 's',
        },
        ordinal: 0,
      },
      { rl: { dataSource: '', ability: 'agent' } } as unknown as RunConfig,
    );
    expect(JSON.parse((none.extra_info as { env: string }).env)).not.toHaveProperty('intent');
    const withGate = row([gate]);
    expect(JSON.parse((withGate.extra_info as { env: string }).env).intent).toBe('discount');
    const ep = new Episode(parseRow(withGate, 0));
    const r = ep.step(reply('It is 9 today.'));
    expect(r.done).toBe(false);
    expect(r.messages).toEqual([{ role: 'user', name: 'hook:cite', content: '[cite] reply needs one of promo first' }]);
    // Another intent: the gate does not apply.
    const other = new Episode(parseRow(row([gate], 'chat'), 0));
    expect(other.step(reply('Hello!')).done).toBe(true);
  });

  it("starts from the row's prompt and answers from its replay table", () => {
    const ep = new Episode(parseRow(row([]), 0));
    expect(ep.initialMessages).toEqual([messages[0], messages[1]]);
    const r = ep.step(readPolicyMessage({ role: 'assistant', content: '', tool_calls: [call('k', 'promo', { item: 'i-1' })] }, 'm', 'error'));
    expect(r.messages).toEqual([{ role: 'tool', tool_call_id: 'k', content: '{"price":9}' }]);
    expect(ep.step(reply('It is 9 today.')).done).toBe(true);
  });
});
