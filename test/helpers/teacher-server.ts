/**
 * A real OpenAI-compatible Chat Completions HTTP server for tests (the teacher re-run calls the
 * teacher through the official `openai` client). It listens on 127.0.0.1 on an ephemeral port,
 * records every request, and answers each with a scripted `Behaviour`: a chat.completion (text
 * and/or tool calls), an HTTP error status in the OpenAI error shape, a hang, or a malformed body.
 *
 * The server never keeps the test process alive (the server, its sockets and its timers are all
 * unref'd) and closes itself after `idleTimeoutMs` without a request.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface ChatRequest {
  model: string;
  messages: any[];
  tools?: any[];
  tool_choice?: unknown;
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  seed?: number;
  [k: string]: unknown;
}

export type Behaviour =
  | {
      kind: 'message';
      content?: string | null;
      tool_calls?: { id?: string; name: string; arguments: string }[];
      finish_reason?: 'stop' | 'tool_calls' | 'length';
      delayMs?: number;
      usage?: { prompt_tokens: number; completion_tokens: number };
    }
  | { kind: 'status'; status: number; retryAfter?: number; body?: unknown; delayMs?: number } // e.g. 429 with Retry-After seconds, 500, 503
  | { kind: 'hang' } // accept the request and never answer (until close())
  | { kind: 'malformed' }; // 200 with a body that is not valid JSON

export type Respond = (req: ChatRequest, index: number) => Behaviour | Promise<Behaviour>;

export interface TeacherServer {
  url: string; // base URL for the openai client, e.g. http://127.0.0.1:PORT/v1
  requests: ChatRequest[]; // every request body received, in arrival order
  authHeaders: string[]; // the Authorization header of each request ('' when absent), same order as `requests`
  count(): number;
  close(): Promise<void>; // closes the server and every hanging connection
}

/** The fixed `created` timestamp of every completion (deterministic output). */
export const FIXED_CREATED = 1_700_000_000;

export const CHAT_PATH = '/v1/chat/completions';

// ---------------------------------------------------------------------------------------------
// Response bodies
// ---------------------------------------------------------------------------------------------

export type MessageBehaviour = Extract<Behaviour, { kind: 'message' }>;

function toolCallsOf(b: MessageBehaviour, index: number) {
  return (b.tool_calls ?? []).map((tc, i) => ({
    id: tc.id ?? `call_${index}_${i}`,
    type: 'function' as const,
    function: { name: tc.name, arguments: tc.arguments },
  }));
}

export function textOfContent(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((p) => (p && typeof p === 'object' && typeof p.text === 'string' ? p.text : '')).join('');
  }
  return '';
}

/** A rough, deterministic token estimate (4 characters a token) for when a behaviour gives no usage. */
function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function usageOf(b: MessageBehaviour, req: ChatRequest) {
  if (b.usage) return { ...b.usage, total_tokens: b.usage.prompt_tokens + b.usage.completion_tokens };
  const promptText = (Array.isArray(req.messages) ? req.messages : []).map((m) => textOfContent(m?.content)).join('\n');
  const completionText = (b.content ?? '') + (b.tool_calls ?? []).map((t) => t.name + t.arguments).join('');
  const prompt_tokens = estimateTokens(promptText);
  const completion_tokens = estimateTokens(completionText);
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}

/** The standard `chat.completion` object for a message behaviour. */
export function chatCompletion(req: ChatRequest, b: MessageBehaviour, index: number, idPrefix = 'chatcmpl-'): Record<string, unknown> {
  const toolCalls = toolCallsOf(b, index);
  const content = b.content !== undefined ? b.content : toolCalls.length ? null : '';
  const message: Record<string, unknown> = { role: 'assistant', content, refusal: null };
  if (toolCalls.length) message.tool_calls = toolCalls;
  return {
    id: `${idPrefix}${index}`,
    object: 'chat.completion',
    created: FIXED_CREATED,
    model: typeof req.model === 'string' ? req.model : 'unknown',
    choices: [{ index: 0, message, logprobs: null, finish_reason: b.finish_reason ?? (toolCalls.length ? 'tool_calls' : 'stop') }],
    usage: usageOf(b, req),
    system_fingerprint: 'fp_teacher_test',
  };
}

function errorTypeFor(status: number): { type: string; code: string | null } {
  if (status === 400) return { type: 'invalid_request_error', code: 'invalid_request' };
  if (status === 401) return { type: 'invalid_request_error', code: 'invalid_api_key' };
  if (status === 403) return { type: 'invalid_request_error', code: 'permission_denied' };
  if (status === 404) return { type: 'invalid_request_error', code: 'not_found' };
  if (status === 429) return { type: 'requests', code: 'rate_limit_exceeded' };
  if (status === 503) return { type: 'server_error', code: 'service_unavailable' };
  if (status >= 500) return { type: 'server_error', code: 'server_error' };
  return { type: 'invalid_request_error', code: null };
}

/** The OpenAI error JSON shape `{"error":{"message","type","code","param"}}`. */
export function errorBody(status: number, message?: string): { error: { message: string; type: string; code: string | null; param: null } } {
  const { type, code } = errorTypeFor(status);
  return { error: { message: message ?? `Simulated teacher error (HTTP ${status})`, type, code, param: null } };
}

// ---------------------------------------------------------------------------------------------
// The server
// ---------------------------------------------------------------------------------------------

export function startTeacherServer(respond: Respond, opts: { idleTimeoutMs?: number } = {}): Promise<TeacherServer> {
  const idleTimeoutMs = opts.idleTimeoutMs ?? 60_000;
  const requests: ChatRequest[] = [];
  const authHeaders: string[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let closing: Promise<void> | undefined;
  let idleTimer: NodeJS.Timeout | undefined;

  const server = createServer((req, res) => {
    resetIdle();
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent && !res.destroyed) sendJson(res, 500, errorBody(500, `teacher-server: ${String((err as Error)?.message ?? err)}`));
    });
  });
  server.keepAliveTimeout = 1_000;

  server.on('connection', (socket) => {
    socket.unref();
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  function later(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      t.unref();
      timers.add(t);
    });
  }

  function resetIdle(): void {
    if (idleTimer) clearTimeout(idleTimer);
    if (closing) return;
    idleTimer = setTimeout(() => void close(), idleTimeoutMs);
    idleTimer.unref();
  }

  function close(): Promise<void> {
    if (!closing) {
      closing = new Promise<void>((resolve) => {
        if (idleTimer) clearTimeout(idleTimer);
        for (const t of timers) clearTimeout(t);
        timers.clear();
        if (!server.listening) return resolve();
        server.close(() => resolve());
        server.closeAllConnections();
        for (const s of sockets) s.destroy();
      });
    }
    return closing;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    const raw = await readBody(req);
    if (req.method !== 'POST' || path !== CHAT_PATH) {
      sendJson(res, 404, errorBody(404, `Unknown request URL: ${req.method} ${path}. This test server only serves POST ${CHAT_PATH}.`));
      return;
    }
    let body: ChatRequest;
    try {
      body = JSON.parse(raw) as ChatRequest;
      if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error('not an object');
    } catch {
      sendJson(res, 400, errorBody(400, 'We could not parse the JSON body of your request.'));
      return;
    }
    const index = requests.length;
    requests.push(body);
    const auth = req.headers.authorization;
    authHeaders.push(typeof auth === 'string' ? auth : '');

    const b = await respond(body, index);
    if (closing || res.destroyed) return;
    if ('delayMs' in b && b.delayMs && b.delayMs > 0) {
      await later(b.delayMs);
      if (closing || res.destroyed) return;
    }
    const headers = { 'x-request-id': `req_${index}` };
    switch (b.kind) {
      case 'message': {
        if (body.stream === true) sendStream(res, body, b, index, headers);
        else sendJson(res, 200, chatCompletion(body, b, index), headers);
        return;
      }
      case 'status': {
        const h: Record<string, string> = { ...headers };
        if (b.retryAfter !== undefined) h['retry-after'] = String(b.retryAfter);
        const payload = b.body === undefined ? errorBody(b.status) : b.body;
        if (typeof payload === 'string') sendRaw(res, b.status, payload, h);
        else sendJson(res, b.status, payload, h);
        return;
      }
      case 'hang':
        // Never answer; close() (or the idle timeout) destroys the socket.
        return;
      case 'malformed':
        sendRaw(res, 200, `{"id":"chatcmpl-${index}","object":"chat.completion","choices":[{"index":0,"message":{"role":"assist`, headers);
        return;
      default:
        throw new Error(`unknown behaviour ${JSON.stringify(b)}`);
    }
  }

  return new Promise<TeacherServer>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      server.unref();
      resetIdle();
      const addr = server.address();
      if (!addr || typeof addr === 'string') return reject(new Error('teacher-server: no TCP address'));
      resolve({
        url: `http://127.0.0.1:${addr.port}/v1`,
        requests,
        authHeaders,
        count: () => requests.length,
        close,
      });
    });
  });
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendRaw(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}, contentType = 'application/json'): void {
  if (res.destroyed || res.socket?.destroyed) return;
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  sendRaw(res, status, JSON.stringify(value), headers);
}

/** `stream: true` requests get the same answer as server-sent `chat.completion.chunk` events. */
function sendStream(res: ServerResponse, req: ChatRequest, b: MessageBehaviour, index: number, headers: Record<string, string>): void {
  const full = chatCompletion(req, b, index) as any;
  const choice = full.choices[0];
  const base = { id: full.id, object: 'chat.completion.chunk', created: full.created, model: full.model, system_fingerprint: full.system_fingerprint };
  const events: unknown[] = [];
  events.push({
    ...base,
    choices: [{ index: 0, delta: { role: 'assistant', content: choice.message.content === null ? null : '' }, logprobs: null, finish_reason: null }],
  });
  if (typeof choice.message.content === 'string' && choice.message.content !== '') {
    events.push({ ...base, choices: [{ index: 0, delta: { content: choice.message.content }, logprobs: null, finish_reason: null }] });
  }
  (choice.message.tool_calls ?? []).forEach((tc: any, i: number) => {
    events.push({
      ...base,
      choices: [
        {
          index: 0,
          delta: { tool_calls: [{ index: i, id: tc.id, type: 'function', function: { name: tc.function.name, arguments: tc.function.arguments } }] },
          logprobs: null,
          finish_reason: null,
        },
      ],
    });
  });
  events.push({ ...base, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: choice.finish_reason }] });
  if ((req.stream_options as any)?.include_usage) events.push({ ...base, choices: [], usage: full.usage });
  const text = events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('') + 'data: [DONE]\n\n';
  sendRaw(res, 200, text, headers, 'text/event-stream');
}
