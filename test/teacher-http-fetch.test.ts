import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { endpointFetch } from '../src/llm/http-fetch.js';

// The teacher's fetch against a real server on 127.0.0.1: what the openai client reads of a
// response, a kept-alive connection the server dropped, and the client's abort (its timeout).
let server: http.Server | undefined;

function serve(handler: http.RequestListener): Promise<string> {
  server = http.createServer(handler);
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) =>
    server!.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server!.address() as AddressInfo).port}/v1/chat/completions`)),
  );
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

describe('endpointFetch', () => {
  it('sends the body with its length and headers, and reads status, headers and a gzip body', async () => {
    const seen: { body: string; length?: string; type?: string; auth?: string }[] = [];
    const url = await serve((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        seen.push({ body, length: req.headers['content-length'], type: req.headers['content-type'], auth: req.headers.authorization });
        res.writeHead(429, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'retry-after': '2', 'x-request-id': 'r1' });
        res.end(gzipSync(JSON.stringify({ error: { message: 'slow down, 慢一点' } })));
      });
    });
    const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: '你好' }] });
    const r = await endpointFetch()(url, { method: 'POST', headers: new Headers({ 'content-type': 'application/json', authorization: 'Bearer k' }), body });
    expect(seen).toEqual([{ body, length: String(Buffer.byteLength(body)), type: 'application/json', auth: 'Bearer k' }]);
    expect(r.status).toBe(429);
    expect(r.ok).toBe(false);
    expect(r.headers.get('Retry-After')).toBe('2');
    expect(r.headers.get('x-request-id')).toBe('r1');
    expect(await r.json()).toEqual({ error: { message: 'slow down, 慢一点' } });
  });

  it('sends a request once more on a new connection when the kept-alive one was dropped unanswered', async () => {
    const sockets = new Set<unknown>();
    let requests = 0;
    const url = await serve((req, res) => {
      requests++;
      const reused = sockets.has(req.socket);
      sockets.add(req.socket);
      req.resume();
      // The second request arrives on the first one's connection: drop it, as a server whose
      // keep-alive timeout just ran out would.
      if (reused) return void req.socket.destroy();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ n: requests }));
      });
    });
    const f = endpointFetch();
    const send = () => f(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(await (await send()).json()).toEqual({ n: 1 });
    expect(await (await send()).json()).toEqual({ n: 3 });
    expect(requests).toBe(3);
  });

  it('rejects with an AbortError when the signal aborts (the client timeout), and does not retry a fresh connection', async () => {
    let requests = 0;
    const url = await serve((req) => {
      requests++;
      req.resume(); // never answers
    });
    const controller = new AbortController();
    const pending = endpointFetch()(url, { method: 'POST', body: '{}', signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(requests).toBe(1);
    server!.closeAllConnections();
    await expect(endpointFetch()(url.replace(/:\d+\//, ':1/'), { method: 'POST', body: '{}' })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
