import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EnvRequest, EnvResponse, Protocol } from './protocol.js';
import { UsageError } from '../errors.js';
import { EnvError, type SessionStore } from './sessions.js';

export interface EnvServerOptions {
  host: string;
  port: number;
  protocols: Protocol[];
  store: SessionStore;
  /** Largest request body accepted (bytes). */
  maxBodyBytes: number;
  /** Lines for the operator (never request bodies). */
  log: (line: string) => void;
  /**
   * Called for every request after it is answered, with the time from its body read to its answer
   * written (and the request's headers, e.g. for a benchmark to tell its steps apart).
   */
  onRequest?: (path: string, status: number, ms: number, headers: IncomingMessage['headers']) => void;
}

export interface RunningServer {
  url: string;
  host: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

class BodyError extends EnvError {}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      // A body that goes on far past the limit is cut off after all.
      if (over) return void (size > 8 * limit && req.destroy());
      if (size > limit) {
        // The rest of the body is read and dropped, not refused by destroying the socket: a client
        // that is still sending would get a reset instead of the 413 answer (which says `connection:
        // close`, so the socket ends once the answer is written).
        over = true;
        chunks.length = 0;
        reject(new BodyError(413, 'bad_request', `body: larger than ${limit} bytes`, 'body'));
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, r: EnvResponse, close = false): void {
  if ('json' in r) {
    const text = JSON.stringify(r.json);
    res.writeHead(r.status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
      ...(close ? { connection: 'close' } : {}),
    });
    res.end(text);
    return;
  }
  let out = '';
  for (const e of r.events)
    out += `event: ${e.event}\n${
      e.data.includes('\n')
        ? e.data
            .split('\n')
            .map((d) => `data: ${d}`)
            .join('\n')
        : `data: ${e.data}`
    }\n\n`;
  // The whole stream is known, so it goes with a length in one write instead of chunked pieces.
  res.writeHead(r.status, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
    'content-length': Buffer.byteLength(out),
  });
  res.end(out);
}

/** A request target's path and query; plain paths (the routes') skip the URL parser, which costs more than the step. */
function target(raw: string): { pathname: string; query: URLSearchParams } {
  const q = raw.indexOf('?');
  const p = q === -1 ? raw : raw.slice(0, q);
  if (PLAIN_PATH.test(p)) return { pathname: p, query: new URLSearchParams(q === -1 ? '' : raw.slice(q + 1)) };
  const url = new URL(raw, 'http://localhost');
  return { pathname: url.pathname, query: url.searchParams };
}

/** Paths the URL parser leaves as they are: no dot segments, escapes or characters it would encode. */
const PLAIN_PATH = /^(?:\/[A-Za-z0-9_-]+)+$|^\/$/;

function errorResponse(e: EnvError): EnvResponse {
  // `detail` is what ORS clients (FastAPI servers) read; `error` is the structured form.
  return { status: e.status, json: { detail: e.message, error: { code: e.code, message: e.message, ...(e.field ? { field: e.field } : {}) } } };
}

/**
 * The environment's HTTP server (node:http): reads and parses each request, asks each protocol in
 * turn, writes JSON or SSE. A request it cannot take gets a 4xx with a JSON error naming the
 * field; an unexpected failure a 500 without details — the server itself keeps serving.
 */
export function startEnvServer(o: EnvServerOptions): Promise<RunningServer> {
  // The handler answers every failure itself (a 4xx naming the field, or a 500), so nothing it returns is left to reject.
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- see above
  const server = createServer(async (req, res) => {
    let start = performance.now();
    const url = target(req.url ?? '/');
    let r: EnvResponse;
    try {
      const raw = req.method === 'GET' || req.method === 'HEAD' ? Buffer.alloc(0) : await readBody(req, o.maxBodyBytes);
      // The server's own work is timed from here: waiting for the body is the client's time.
      start = performance.now();
      let body: unknown;
      if (raw.length > 0) {
        try {
          body = JSON.parse(raw.toString('utf8'));
        } catch (e) {
          throw new EnvError(400, 'bad_request', `body: not valid JSON (${(e as Error).message})`, 'body');
        }
      }
      const headers: Record<string, string | undefined> = {};
      for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v[0] : v;
      const request: EnvRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.query, headers, body };
      let answer: EnvResponse | undefined;
      for (const p of o.protocols) {
        answer = await p.handle(request, o.store);
        if (answer) break;
      }
      r = answer ?? {
        status: 404,
        json: { detail: `no route ${request.method} ${request.path}`, error: { code: 'not_found', message: `no route ${request.method} ${request.path}` } },
      };
    } catch (e) {
      if (e instanceof EnvError) r = errorResponse(e);
      else {
        o.log(`hsa env: internal error on ${req.method} ${url.pathname}: ${(e as Error).stack ?? String(e)}`);
        r = { status: 500, json: { detail: 'internal error', error: { code: 'internal', message: 'internal error' } } };
      }
    }
    if (!res.headersSent && !res.destroyed) send(res, r, r.status === 413);
    o.onRequest?.(url.pathname, r.status, performance.now() - start, req.headers);
  });
  server.keepAliveTimeout = 60_000;
  server.on('clientError', (_e, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
  });
  return new Promise((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => {
      const why = e.code === 'EADDRINUSE' ? 'is in use' : e.code === 'EACCES' ? 'needs privileges' : `cannot be bound (${e.code ?? e.message})`;
      reject(new UsageError(`--host/--port: ${o.host}:${o.port} ${why}`));
    });
    server.listen(o.port, o.host, () => {
      const addr = server.address() as AddressInfo;
      const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
      resolve({
        url: `http://${host}:${addr.port}`,
        host: addr.address,
        port: addr.port,
        server,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
