import http from 'node:http';
import https from 'node:https';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';

/**
 * The `fetch` the endpoint client's `openai` SDK sends with: node:http(s) over a keep-alive agent, the
 * response read whole. Node's built-in fetch (undici with web streams, a Response and AbortSignal
 * plumbing per request) cost the main thread about twice as much per request (measured: ~2.1 ms
 * against ~1.1 ms for a 30 KB chat request), and 64 episodes at 200 ms latency leave it ~3.9 ms
 * per request in all. Only what the client sends is handled here — a string body (the JSON of a
 * request); anything else goes to the built-in fetch. The client's timeout and abort arrive as
 * the signal and reject with an `AbortError`, as fetch does, so the client's error classes (and
 * the retry decisions made on them) stay the same.
 */
export function endpointFetch(): typeof fetch {
  const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };
  const send = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = typeof input === 'string' ? new URL(input) : input instanceof URL ? input : undefined;
    const body = init?.body;
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || (body != null && typeof body !== 'string')) return fetch(input, init);
    return request(url, init!, body == null ? undefined : Buffer.from(body), agents[url.protocol], true);
  };
  return send;
}

function abortError(): Error {
  const e = new Error('This operation was aborted');
  e.name = 'AbortError';
  return e;
}

function request(url: URL, init: RequestInit, body: Buffer | undefined, agent: http.Agent, mayRetry: boolean): Promise<Response> {
  const signal = init.signal ?? undefined;
  return new Promise<Response>((resolve, reject) => {
    if (signal?.aborted) return reject(abortError());
    const headers: Record<string, string> = {};
    // The client passes a Headers object: read as it is, not copied.
    (init.headers instanceof Headers ? init.headers : new Headers(init.headers)).forEach((v, k) => (headers[k] = v));
    if (body) headers['content-length'] = String(body.length);
    let answered = false;
    const req = (url.protocol === 'https:' ? https : http).request(url, { method: init.method ?? 'GET', headers, agent }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', fail);
      res.on('end', () => {
        signal?.removeEventListener('abort', onAbort);
        try {
          resolve(response(url, res, decoded(Buffer.concat(chunks), res.headers['content-encoding'])));
        } catch (e) {
          reject(e);
        }
      });
    });
    const onAbort = () => {
      req.destroy();
      reject(abortError());
    };
    function fail(e: Error): void {
      signal?.removeEventListener('abort', onAbort);
      if (signal?.aborted) return reject(abortError());
      // A kept-alive socket the server closed meanwhile fails before any answer: the request never
      // reached it, so it is sent once more on a new connection (as Node's docs advise).
      const code = (e as NodeJS.ErrnoException).code;
      if (mayRetry && !answered && req.reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE'))
        return void request(url, init, body, agent, false).then(resolve, reject);
      reject(e);
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', fail);
    req.end(body);
  });
}

function decoded(buf: Buffer, encoding: string | undefined): Buffer {
  // The client asks for no compression; a server that compresses anyway is still read.
  if (encoding === 'gzip' || encoding === 'x-gzip') return gunzipSync(buf);
  if (encoding === 'deflate') return inflateSync(buf);
  if (encoding === 'br') return brotliDecompressSync(buf);
  return buf;
}

/** What the client reads of a Response: status, headers, and the body as text or JSON. */
function response(url: URL, res: http.IncomingMessage, buf: Buffer): Response {
  const headers = new Headers();
  const raw = res.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  const status = res.statusCode ?? 0;
  const text = async () => buf.toString('utf8');
  return {
    status,
    statusText: res.statusMessage ?? '',
    ok: status >= 200 && status < 300,
    url: url.href,
    headers,
    redirected: false,
    type: 'basic',
    body: null,
    bodyUsed: false,
    text,
    json: async () => JSON.parse(buf.toString('utf8')) as unknown,
    arrayBuffer: async () => buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length),
  } as unknown as Response;
}
