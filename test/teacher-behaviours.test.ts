import { afterEach, describe, expect, it } from 'vitest';
import { batchResults, canonicalJson, faults, limitFromFeedback, shorteningModel } from './helpers/teacher-behaviours.js';
import { type Behaviour, type ChatRequest, type Respond } from './helpers/teacher-server.js';
import { client, closeServers, start, user } from './helpers/teacher-client.js';

afterEach(closeServers);

describe('faults()', () => {
  const ok: Respond = () => ({ kind: 'message', content: 'fine' });
  const body = (n: number): ChatRequest => ({ model: 't', messages: [{ role: 'user', content: `q${n}` }] });

  it('is deterministic for the same seed and sequence, and varies between attempts of one body', async () => {
    // A sequence with repeats: each identical body is a new attempt.
    const seq = [0, 1, 2, 0, 0, 3, 1, 0, 4, 5, 0, 0, 2, 6, 7, 0, 0, 0, 8, 9].map(body);
    const run = async (seed: number) => {
      const f = faults(ok, { rate429: 0.3, rate500: 0.2, rateHang: 0.1, seed });
      const kinds: string[] = [];
      for (const [i, r] of seq.entries()) {
        const b = await f(r, i);
        kinds.push(b.kind === 'status' ? String(b.status) : b.kind);
      }
      return { kinds, outcomes: f.outcomes };
    };
    const a = await run(42);
    const b = await run(42);
    expect(a).toEqual(b);
    expect(a.outcomes).toHaveLength(seq.length);
    expect(a.kinds).toEqual(a.outcomes.map((o) => (o === 'ok' ? 'message' : o)));
    // Attempts at the identical body q0 (10 of them) do not all get one outcome.
    const q0 = seq.flatMap((r, i) => (r.messages[0].content === 'q0' ? [a.outcomes[i]] : []));
    expect(new Set(q0).size).toBeGreaterThan(1);
    // Another seed decides differently somewhere.
    const c = await run(43);
    expect(c.outcomes).not.toEqual(a.outcomes);
  });

  it('keys on the canonical body (key order does not matter) and passes through at rate 0', async () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"x":1,"y":2}]},"b":1}');
    const f1 = faults(ok, { rate429: 0.5, seed: 1 });
    const f2 = faults(ok, { rate429: 0.5, seed: 1 });
    for (let i = 0; i < 10; i++) {
      await f1({ model: 't', messages: [{ role: 'user', content: 'z' }], temperature: 0 }, i);
      await f2({ temperature: 0, messages: [{ content: 'z', role: 'user' }], model: 't' }, i);
    }
    expect(f1.outcomes).toEqual(f2.outcomes);
    const none = faults(ok, { seed: 5 });
    for (let i = 0; i < 20; i++) expect(await none(body(i), i)).toEqual({ kind: 'message', content: 'fine' });
    const all = faults(ok, { rate429: 1, retryAfter: 3, seed: 5 });
    expect(await all(body(0), 0)).toEqual({ kind: 'status', status: 429, retryAfter: 3 });
  });

  it('a retrying client gets through, the same way for the same seed', async () => {
    const runOnce = async () => {
      const f = faults(ok, { rate429: 0.4, rate500: 0.2, retryAfter: 0.01, seed: 9 });
      const s = await start(f);
      const c = client(s, { maxRetries: 20 });
      const answers: string[] = [];
      for (let i = 0; i < 5; i++) answers.push((await c.chat.completions.create({ model: 't', messages: user(`q${i}`) })).choices[0]!.message.content!);
      await s.close();
      return { answers, count: s.count(), outcomes: f.outcomes };
    };
    const a = await runOnce();
    const b = await runOnce();
    expect(a.answers).toEqual(Array(5).fill('fine'));
    expect(a.count).toBe(a.outcomes.length);
    expect(a.outcomes.filter((o) => o === 'ok')).toHaveLength(5);
    expect(a.outcomes.some((o) => o !== 'ok')).toBe(true);
    expect(b).toEqual(a);
  });
});

describe('shorteningModel()', () => {
  it('answers long, then within the limit named in hook feedback', async () => {
    const s = await start(shorteningModel());
    const c = client(s);
    const first = await c.chat.completions.create({ model: 't', messages: user('Summarise the file.') });
    const long = first.choices[0]!.message.content!;
    expect(long.length).toBeGreaterThan(120);
    expect(first.choices[0]!.message.tool_calls).toBeUndefined();

    const ask = (feedback: string, name = 'hook:max-length', role: 'user' | 'system' = 'user') =>
      c.chat.completions.create({
        model: 't',
        messages: [...user('Summarise the file.'), { role: 'assistant', content: long }, { role, name, content: feedback }],
      });
    const r25 = (await ask('Your reply is too long: the limit is 25 characters.')).choices[0]!.message.content!;
    expect(r25.length).toBeLessThanOrEqual(25);
    expect(r25.length).toBeGreaterThan(0);
    const rDefault = (await ask('Please be much shorter.', 'hook:short', 'system')).choices[0]!.message.content!;
    expect(rDefault.length).toBeLessThanOrEqual(40);
    expect(rDefault.length).toBeGreaterThan(25);
    // Not hook feedback (name without the prefix, or an ordinary user turn): the long reply again.
    expect((await ask('limit 10', 'someone')).choices[0]!.message.content).toBe(long);
  });

  it('is configurable and parses the first number after "limit"', async () => {
    const m = shorteningModel({ longReply: 'L'.repeat(500), shortReply: 'short answer here, fine', defaultLimit: 12 });
    const hook = (content: unknown): ChatRequest => ({
      model: 't',
      messages: [
        { role: 'user', content: 'q' },
        { role: 'user', name: 'hook:len', content },
      ],
    });
    expect(await m({ model: 't', messages: [{ role: 'user', content: 'q' }] }, 0)).toEqual({
      kind: 'message',
      content: 'L'.repeat(500),
      finish_reason: 'stop',
    });
    expect(((await m(hook('3 errors; limit: 5 chars (was 500)'), 1)) as any).content).toBe('short');
    expect(((await m(hook('too long'), 2)) as any).content).toBe('short answer');
    expect(((await m(hook([{ type: 'text', text: 'Limit = 8' }]), 3)) as any).content).toBe('short an');
    expect(limitFromFeedback('Reply has 300 chars, over the limit of 120 (hard limit 200)')).toBe(120);
    expect(limitFromFeedback('no number here')).toBeUndefined();
  });
});

describe('batchResults()', () => {
  const line = (custom_id: string, content: string) =>
    JSON.stringify({ custom_id, method: 'POST', url: '/v1/chat/completions', body: { model: 'teacher-1', messages: [{ role: 'user', content }] } });

  it('gives one well-formed, deterministic output line per input line', async () => {
    const input = [line('a', 'one'), '', line('b', 'two'), line('c', 'three'), line('d', 'four')].join('\n') + '\n';
    const respond: Respond = (req, i): Behaviour => {
      const q = req.messages[0].content as string;
      if (q === 'two') return { kind: 'message', tool_calls: [{ name: 'ls', arguments: '{"dir":"."}' }] };
      if (q === 'three') return { kind: 'status', status: 429, retryAfter: 1 };
      if (q === 'four') return { kind: 'hang' };
      return { kind: 'message', content: `answer ${i}` };
    };
    const out = await batchResults(input, respond);
    expect(out.endsWith('\n')).toBe(true);
    const rows = out
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.map((r) => r.custom_id)).toEqual(['a', 'b', 'c', 'd']);
    expect(rows.map((r) => r.id)).toEqual(['batch_req_0', 'batch_req_1', 'batch_req_2', 'batch_req_3']);
    expect(rows[0]).toEqual({
      id: 'batch_req_0',
      custom_id: 'a',
      response: {
        status_code: 200,
        request_id: 'req_0',
        body: expect.objectContaining({
          id: 'chatcmpl-batch-0',
          object: 'chat.completion',
          created: 1_700_000_000,
          model: 'teacher-1',
          choices: [expect.objectContaining({ index: 0, message: expect.objectContaining({ role: 'assistant', content: 'answer 0' }), finish_reason: 'stop' })],
          usage: expect.objectContaining({ prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) }),
        }),
      },
      error: null,
    });
    expect(rows[1].response.body.choices[0].message.tool_calls).toEqual([
      { id: 'call_1_0', type: 'function', function: { name: 'ls', arguments: '{"dir":"."}' } },
    ]);
    expect(rows[1].response.body.choices[0].finish_reason).toBe('tool_calls');
    expect(rows[2].response).toMatchObject({ status_code: 429, request_id: 'req_2', body: { error: { code: 'rate_limit_exceeded' } } });
    expect(rows[2].error).toBeNull();
    expect(rows[3]).toMatchObject({ response: null, error: { code: 'batch_expired' } });
    expect(await batchResults(input, respond)).toBe(out);
  });

  it('rejects bad input lines', async () => {
    const r: Respond = () => ({ kind: 'message', content: 'x' });
    await expect(batchResults('{oops', r)).rejects.toThrow(/line 1/);
    await expect(batchResults([line('a', 'x'), line('a', 'y')].join('\n'), r)).rejects.toThrow(/repeats custom_id/);
    await expect(batchResults(JSON.stringify({ custom_id: 'a', method: 'POST', url: '/v1/embeddings', body: {} }), r)).rejects.toThrow(/not POST/);
    expect(await batchResults('\n\n', r)).toBe('');
  });
});
