import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import OpenAI from 'openai';
import { transformWithOxc } from 'vite';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO } from './helpers/hsa.js';
import { makeTmp, openAiTool } from './helpers/tmp.js';
import { caught, client, closeServers, sleep, start, user, waitFor, type APIError } from './helpers/teacher-client.js';

afterEach(closeServers);

describe('teacher server through the openai client', () => {
  it('listens on 127.0.0.1 and answers a plain message', async () => {
    const s = await start(() => ({ kind: 'message', content: 'Hello there.' }));
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const r = await client(s).chat.completions.create({ model: 'teacher-1', messages: user('hi'), temperature: 0, seed: 7 });
    expect(r.object).toBe('chat.completion');
    expect(r.id).toBe('chatcmpl-0');
    expect(r.created).toBe(1_700_000_000);
    expect(r.model).toBe('teacher-1');
    expect(r.choices[0]!.message).toMatchObject({ role: 'assistant', content: 'Hello there.' });
    expect(r.choices[0]!.message.tool_calls).toBeUndefined();
    expect(r.choices[0]!.finish_reason).toBe('stop');
    expect(r.usage!.total_tokens).toBe(r.usage!.prompt_tokens + r.usage!.completion_tokens);
    expect(s.count()).toBe(1);
    expect(s.requests[0]).toMatchObject({ model: 'teacher-1', messages: [{ role: 'user', content: 'hi' }], temperature: 0, seed: 7 });
    expect(s.authHeaders).toEqual(['Bearer sk-test']);
  });

  it('round-trips a tool call (arguments stay a string) and records the follow-up', async () => {
    const s = await start((req, index) =>
      index === 0
        ? {
            kind: 'message',
            tool_calls: [
              { name: 'read_file', arguments: '{"path":"a.txt"}' },
              { id: 'call_given', name: 'ls', arguments: '{}' },
            ],
            usage: { prompt_tokens: 11, completion_tokens: 5 },
          }
        : { kind: 'message', content: `saw ${req.messages.length} messages` },
    );
    const c = client(s);
    const tools = [openAiTool('read_file', { path: { type: 'string' } }, ['path']), openAiTool('ls')] as unknown as OpenAI.ChatCompletionTool[];
    const r1 = await c.chat.completions.create({ model: 't', messages: user('read a.txt'), tools, tool_choice: 'auto' });
    const m = r1.choices[0]!.message;
    expect(r1.choices[0]!.finish_reason).toBe('tool_calls');
    expect(m.content).toBeNull();
    expect(r1.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 5, total_tokens: 16 });
    expect(m.tool_calls).toEqual([
      { id: 'call_0_0', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } },
      { id: 'call_given', type: 'function', function: { name: 'ls', arguments: '{}' } },
    ]);
    const tc = m.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(JSON.parse(tc.function.arguments)).toEqual({ path: 'a.txt' });

    const r2 = await c.chat.completions.create({
      model: 't',
      tools,
      messages: [
        ...user('read a.txt'),
        m,
        { role: 'tool', tool_call_id: 'call_0_0', content: 'contents' },
        { role: 'tool', tool_call_id: 'call_given', content: 'a.txt' },
      ],
    });
    expect(r2.choices[0]!.message.content).toBe('saw 4 messages');
    expect(s.requests[0]!.tools).toEqual(tools);
    expect(s.requests[0]!.tool_choice).toBe('auto');
    expect(s.requests[1]!.messages[1].tool_calls[0]).toEqual({
      id: 'call_0_0',
      type: 'function',
      function: { name: 'read_file', arguments: '{"path":"a.txt"}' },
    });
    expect(s.requests[1]!.messages[2]).toEqual({ role: 'tool', tool_call_id: 'call_0_0', content: 'contents' });
  });

  it('a 429 with Retry-After is a RateLimitError with the header readable', async () => {
    const s = await start(() => ({ kind: 'status', status: 429, retryAfter: 7 }));
    const e = await caught(client(s).chat.completions.create({ model: 't', messages: user('x') }));
    expect(e).toBeInstanceOf(OpenAI.RateLimitError);
    const err = e as InstanceType<typeof OpenAI.RateLimitError>;
    expect(err.status).toBe(429);
    expect(err.headers.get('retry-after')).toBe('7');
    expect(err.code).toBe('rate_limit_exceeded');
    expect(err.error).toMatchObject({ message: expect.any(String), type: expect.any(String), code: 'rate_limit_exceeded' });
    expect(s.count()).toBe(1);
  });

  it('a 500 is an InternalServerError, a 503 too, and a custom body is passed through', async () => {
    const s = await start((_req, i) =>
      i === 0
        ? { kind: 'status', status: 500 }
        : { kind: 'status', status: 503, body: { error: { message: 'overloaded', type: 'server_error', code: 'busy' } } },
    );
    const c = client(s);
    const e1 = await caught(c.chat.completions.create({ model: 't', messages: user('x') }));
    expect(e1).toBeInstanceOf(OpenAI.InternalServerError);
    expect((e1 as APIError).status).toBe(500);
    expect((e1 as APIError).headers!.get('retry-after')).toBeNull();
    const e2 = await caught(c.chat.completions.create({ model: 't', messages: user('x') }));
    expect(e2).toBeInstanceOf(OpenAI.InternalServerError);
    expect((e2 as APIError).status).toBe(503);
    expect((e2 as APIError).code).toBe('busy');
    expect((e2 as APIError).message).toContain('overloaded');
  });

  it('a hang becomes APIConnectionTimeoutError with a 500 ms timeout', async () => {
    const s = await start(() => ({ kind: 'hang' }));
    const t0 = Date.now();
    const e = await caught(client(s, { timeout: 500 }).chat.completions.create({ model: 't', messages: user('x') }));
    expect(e).toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
    expect(Date.now() - t0).toBeLessThan(1900);
    expect(s.count()).toBe(1);
  });

  it('delayMs delays the answer', async () => {
    const s = await start(() => ({ kind: 'message', content: 'late', delayMs: 300 }));
    const t0 = Date.now();
    const r = await client(s).chat.completions.create({ model: 't', messages: user('x') });
    expect(r.choices[0]!.message.content).toBe('late');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(280);
    const e = await caught(client(s, { timeout: 100 }).chat.completions.create({ model: 't', messages: user('x') }));
    expect(e).toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
  });

  it('a malformed body makes the client throw', async () => {
    const s = await start(() => ({ kind: 'malformed' }));
    const e = await caught(client(s).chat.completions.create({ model: 't', messages: user('x') }));
    expect(e).toBeInstanceOf(Error);
    expect(s.count()).toBe(1);
  });

  it('other paths are a 404 in the OpenAI error shape', async () => {
    const s = await start(() => ({ kind: 'message', content: 'x' }));
    const e = await caught(client(s).models.list());
    expect(e).toBeInstanceOf(OpenAI.NotFoundError);
    const res = await fetch(`${s.url}/completions`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(404);
    const body = await res.json();
    expect(body.error).toMatchObject({ message: expect.any(String), type: 'invalid_request_error', code: 'not_found' });
    expect(s.count()).toBe(0);
    const bad = await fetch(`${s.url}/chat/completions`, { method: 'POST', body: '{not json' });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.type).toBe('invalid_request_error');
  });

  it('serves stream: true as server-sent chunks', async () => {
    const s = await start(() => ({ kind: 'message', content: 'streamed', tool_calls: [{ name: 'ls', arguments: '{}' }] }));
    const stream = await client(s).chat.completions.create({ model: 't', messages: user('x'), stream: true, stream_options: { include_usage: true } });
    let text = '';
    const calls: unknown[] = [];
    let finish: string | null = null;
    let usage: unknown;
    for await (const ch of stream) {
      if (ch.usage) usage = ch.usage;
      const c = ch.choices[0];
      if (!c) continue;
      text += c.delta.content ?? '';
      if (c.delta.tool_calls) calls.push(...c.delta.tool_calls);
      if (c.finish_reason) finish = c.finish_reason;
    }
    expect(text).toBe('streamed');
    expect(calls).toEqual([{ index: 0, id: 'call_0_0', type: 'function', function: { name: 'ls', arguments: '{}' } }]);
    expect(finish).toBe('tool_calls');
    expect(usage).toMatchObject({ total_tokens: expect.any(Number) });
  });
});

describe('server lifetime', () => {
  it('closes by itself when idle', async () => {
    const s = await start(() => ({ kind: 'message', content: 'ok' }), { idleTimeoutMs: 200 });
    const c = client(s);
    // Requests keep it alive past the idle timeout...
    for (let i = 0; i < 3; i++) {
      await c.chat.completions.create({ model: 't', messages: user('x') });
      await sleep(120);
    }
    // ...and after 200 ms without one it is gone.
    await sleep(400);
    const e = await caught(client(s).chat.completions.create({ model: 't', messages: user('x') }));
    expect(e).toBeInstanceOf(OpenAI.APIConnectionError);
    expect(e).not.toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
    expect(s.count()).toBe(3);
    await s.close(); // still fine after an idle close
  });

  it('the idle close also ends a hanging request', async () => {
    const s = await start(() => ({ kind: 'hang' }), { idleTimeoutMs: 300 });
    const t0 = Date.now();
    const e = await caught(client(s, { timeout: 10_000 }).chat.completions.create({ model: 't', messages: user('x') }));
    expect(e).toBeInstanceOf(OpenAI.APIConnectionError);
    expect(e).not.toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
    expect(Date.now() - t0).toBeLessThan(3000);
  });

  it('close() ends hanging requests at once', async () => {
    const s = await start(() => ({ kind: 'hang' }));
    const c = client(s, { timeout: 10_000 });
    const pending = [
      caught(c.chat.completions.create({ model: 't', messages: user('a') })),
      caught(c.chat.completions.create({ model: 't', messages: user('b') })),
    ];
    await waitFor(() => s.count() === 2);
    const t0 = Date.now();
    await s.close();
    const errs = await Promise.all(pending);
    expect(Date.now() - t0).toBeLessThan(1000);
    for (const e of errs) {
      expect(e).toBeInstanceOf(OpenAI.APIConnectionError);
      expect(e).not.toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
    }
  });

  it('never keeps the process alive (server, sockets and timers are unref-d)', async () => {
    const { dir, cleanup } = await makeTmp();
    try {
      const src = await readFile(path.join(REPO, 'test/helpers/teacher-server.ts'), 'utf8');
      const js = await transformWithOxc(src, 'teacher-server.ts', { lang: 'ts' });
      await writeFile(path.join(dir, 'teacher-server.mjs'), js.code);
      // A default 60 s idle timeout, one answered request, one request still waiting on a delay,
      // and one hanging: the script must still exit as soon as its own work is done.
      await writeFile(
        path.join(dir, 'main.mjs'),
        `import { startTeacherServer } from './teacher-server.mjs';
         const s = await startTeacherServer((req, i) => i === 0 ? { kind: 'message', content: 'ok' } : i === 1 ? { kind: 'message', content: 'x', delayMs: 30000 } : { kind: 'hang' });
         const post = (signal) => fetch(s.url + '/chat/completions', { method: 'POST', body: JSON.stringify({ model: 'm', messages: [] }), signal });
         const r = await post(); console.log((await r.json()).choices[0].message.content);
         const ac = new AbortController();
         post(ac.signal).catch(() => {}); post(ac.signal).catch(() => {});
         while (s.count() < 3) await new Promise((r) => setTimeout(r, 10));
         ac.abort();
         console.log('done', s.count());\n`,
      );
      const t0 = Date.now();
      const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ['main.mjs'], { cwd: dir });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => (stdout += d));
        child.stderr.on('data', (d) => (stderr += d));
        const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.on('close', (code) => {
          clearTimeout(killer);
          resolve({ code, stdout, stderr });
        });
      });
      expect(out.stderr).toBe('');
      expect(out.stdout).toBe('ok\ndone 3\n');
      expect(out.code).toBe(0);
      expect(Date.now() - t0).toBeLessThan(10_000);
    } finally {
      await cleanup();
    }
  });
});
