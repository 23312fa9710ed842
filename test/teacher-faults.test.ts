import { describe, expect, it } from 'vitest';
import { faults, withoutCallRetries } from './helpers/teacher-behaviours.js';
import { type Behaviour, type ChatRequest, type Respond } from './helpers/teacher-server.js';

// The fault kinds that spoil a model's tool calls (the fault profile of the recovery tests).
const tools = [
  {
    type: 'function',
    function: {
      name: 'get_item_v2',
      parameters: { type: 'object', properties: { item_id: { type: 'string' }, n: { type: 'integer' } }, required: ['item_id'] },
    },
  },
];
const answer: Behaviour = { kind: 'message', content: '', tool_calls: [{ id: 'c1', name: 'get_item_v2', arguments: '{"item_id":"i-1","n":2}' }] };
const base: Respond = () => answer;
const req = (n: number): ChatRequest => ({ model: 't', tools, messages: [{ role: 'user', content: `q${n}` }] });

describe('faults() on tool calls', () => {
  it.each([
    ['rateBadJson', 'bad_json', (args: string) => expect(() => JSON.parse(args)).toThrow()],
    ['rateMissingArg', 'missing_arg', (args: string) => expect(JSON.parse(args)).toEqual({ n: 2 })],
  ] as const)('%s spoils one call as %s', async (rate, outcome, check) => {
    const f = faults(base, { [rate]: 1, seed: 2 });
    const b = (await f(req(0), 0)) as Extract<Behaviour, { kind: 'message' }>;
    expect(f.outcomes).toEqual([outcome]);
    check(b.tool_calls![0]!.arguments);
  });

  it('rateOldName names a source tool missing from the request, and passes when there is none', async () => {
    const f = faults(base, { rateOldName: 1, oldNames: ['get_item_v2', 'get_item'], seed: 2 });
    const b = (await f(req(0), 0)) as Extract<Behaviour, { kind: 'message' }>;
    expect(b.tool_calls![0]!.name).toBe('get_item');
    const none = faults(base, { rateOldName: 1, oldNames: ['get_item_v2'], seed: 2 });
    expect(await none(req(0), 0)).toEqual(answer);
    expect(none.outcomes).toEqual(['ok']);
  });

  it('about the configured share of answers is spoilt, deterministically', async () => {
    const run = async () => {
      const f = faults(base, { rateBadJson: 0.05, rateOldName: 0.1, rateMissingArg: 0.05, oldNames: ['get_item'], seed: 4 });
      for (let i = 0; i < 2000; i++) await f(req(i), i);
      return f.outcomes;
    };
    const a = await run();
    expect(await run()).toEqual(a);
    const share = (o: string) => a.filter((x) => x === o).length / a.length;
    expect(share('bad_json')).toBeGreaterThan(0.03);
    expect(share('bad_json')).toBeLessThan(0.07);
    expect(share('old_name')).toBeGreaterThan(0.07);
    expect(share('old_name')).toBeLessThan(0.13);
    expect(share('missing_arg')).toBeGreaterThan(0.03);
    expect(share('missing_arg')).toBeLessThan(0.07);
  });

  it('base sees the request without hsa per-call retries at its end', () => {
    const user = { role: 'user', content: 'q' };
    const ok = { role: 'assistant', content: '', tool_calls: [{ id: 'a', function: { name: 't', arguments: '{}' } }] };
    const result = { role: 'tool', tool_call_id: 'a', content: 'data' };
    const bad = { role: 'assistant', content: '', tool_calls: [{ id: 'b', function: { name: 't', arguments: '{}' } }] };
    const err = { role: 'tool', tool_call_id: 'b', content: 'error: tool "t" does not exist; available tools: u' };
    const r = { model: 'm', messages: [user, ok, result, bad, err, bad, err] };
    expect(withoutCallRetries(r).messages).toEqual([user, ok, result]);
    const clean = { model: 'm', messages: [user, ok, result] };
    expect(withoutCallRetries(clean)).toBe(clean);
  });
});
