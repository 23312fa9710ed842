// A minimal OpenAI-compatible Chat Completions server for the teacher throughput benchmark: it
// answers every request after a fixed delay with a short reply, on 127.0.0.1 only, counts requests,
// and stops by itself after `idleMs` without requests.
import http from 'node:http';

export function startLatencyServer({ delayMs = 200, idleMs = 30_000 } = {}) {
  let count = 0;
  let idle;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      count++;
      clearTimeout(idle);
      idle = setTimeout(() => server.close(), idleMs).unref();
      const model = (() => {
        try {
          return JSON.parse(body).model;
        } catch {
          return 'bench';
        }
      })();
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: `chatcmpl-${count}`, object: 'chat.completion', created: 1700000000, model, choices: [{ index: 0, message: { role: 'assistant', content: 'OK!' }, finish_reason: 'stop' }], usage: { prompt_tokens: 100, completion_tokens: 2 } }));
      }, delayMs);
    });
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      server.unref();
      resolve({ url: `http://127.0.0.1:${server.address().port}/v1`, count: () => count, close: () => new Promise((r) => server.close(() => r())) });
    });
  });
}
