import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrsProtocol } from '../src/env/ors.js';
import { startEnvServer, type RunningServer } from '../src/env/server.js';
import { SessionStore } from '../src/env/sessions.js';
import { DEFAULT_REWARD_CONFIG } from '../src/episode/reward.js';
import { RowSet } from '../src/episode/rows.js';
import { estimateCounter } from '../src/episode/tokens.js';

// docs/env.md (Errors): a body over the limit is answered 413 with the JSON error, like every other
// refused request. Tried with real clients on 127.0.0.1: node:http streaming the body in pieces
// (the client is still writing when the server has read enough) and fetch with the whole body.

const LIMIT = 64 * 1024;
let server: RunningServer;

beforeAll(async () => {
  const store = new SessionStore(await RowSet.load([]), {
    ttlMs: 60_000,
    maxSessions: 10,
    reward: { ...DEFAULT_REWARD_CONFIG, tokenizer: 'estimate' },
    counter: estimateCounter,
  });
  server = await startEnvServer({ host: '127.0.0.1', port: 0, protocols: [createOrsProtocol()], store, maxBodyBytes: LIMIT, log: () => undefined });
});
afterAll(async () => server?.close());

/** POST `pieces` chunks of `size` bytes each (a JSON string body), written one by one; the answer. */
function streamed(pieces: number, size: number): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { hostname, port, path: '/create', method: 'POST', headers: { 'content-type': 'application/json', 'content-length': pieces * size } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    let i = 0;
    const next = () => {
      while (i < pieces) {
        const chunk = Buffer.alloc(size, i === 0 ? '"' : 'a');
        if (i === pieces - 1) chunk[size - 1] = 0x22;
        i++;
        if (!req.write(chunk)) return void req.once('drain', next);
      }
      req.end();
    };
    next();
  });
}

describe('hsa env serve: a request body over the limit', () => {
  it('gets the documented 413 JSON error from a streaming node:http client, and the server keeps serving', async () => {
    const r = await streamed(64, 16 * 1024);
    expect(r.status).toBe(413);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(r.text)).toEqual({
      detail: `body: larger than ${LIMIT} bytes`,
      error: { code: 'bad_request', message: `body: larger than ${LIMIT} bytes`, field: 'body' },
    });
    const health = await fetch(`${server.url}/health`);
    expect(await health.json()).toEqual({ status: 'ok' });
  });

  it('gets the same answer through fetch with the whole body at once', async () => {
    const res = await fetch(`${server.url}/create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pad: 'x'.repeat(LIMIT * 3) }),
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('bad_request');
  });

  it('still answers a body just under the limit as a normal request (no 413)', async () => {
    const res = await fetch(`${server.url}/create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pad: 'x'.repeat(LIMIT - 100) }),
    });
    expect(res.status).not.toBe(413);
  });
});
