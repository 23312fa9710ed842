// A minimal OpenAI-compatible Chat Completions server for the teacher throughput benchmark: it
// answers every request after a fixed delay with a short reply, on 127.0.0.1 only, counts requests,
// and stops by itself after `idleMs` without requests. It records when each request arrived, so
// the benchmark can tell the sustained rate (between the 10th and 90th percentile arrivals) from
// the whole-run rate (which includes process start, state sampling and the tail of the run).
import http from 'node:http';

export function startLatencyServer({ delayMs = 200, idleMs = 30_000 } = {}) {
  let count = 0;
  const arrivals = [];
  let idle;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      count++;
      arrivals.push(performance.now());
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
        res.end(
          JSON.stringify({
            id: `chatcmpl-${count}`,
            object: 'chat.completion',
            created: 1700000000,
            model,
            choices: [{ index: 0, message: { role: 'assistant', content: 'OK!' }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 100, completion_tokens: 2 },
          }),
        );
      }, delayMs);
    });
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      server.unref();
      resolve({
        url: `http://127.0.0.1:${server.address().port}/v1`,
        count: () => count,
        /** Requests per second between the 10th and the 90th percentile arrival. */
        sustained: () => {
          if (arrivals.length < 20) return null;
          const a = Math.floor(arrivals.length * 0.1);
          const b = Math.floor(arrivals.length * 0.9);
          return (b - a) / ((arrivals[b] - arrivals[a]) / 1000);
        },
        close: () => new Promise((r) => server.close(() => r())),
      });
    });
  });
}
