/**
 * A real OpenAI-compatible Chat Completions HTTP server for tests (the teacher re-run calls the
 * teacher through the official `openai` client). It listens on 127.0.0.1 on an ephemeral port,
 * records every request, and answers each with a scripted `Behaviour`: a chat.completion (text
 * and/or tool calls), an HTTP error status in the OpenAI error shape, a hang, or a malformed body.
 *
 * The server never keeps the test process alive (the server, its sockets and its timers are all
 * unref'd) and closes itself after `idleTimeoutMs` without a request.
 */
import { createHash } from 'node:crypto';
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

const CHAT_PATH = '/v1/chat/completions';

// ---------------------------------------------------------------------------------------------
// Response bodies
// ---------------------------------------------------------------------------------------------

type MessageBehaviour = Extract<Behaviour, { kind: 'message' }>;

function toolCallsOf(b: MessageBehaviour, index: number) {
  return (b.tool_calls ?? []).map((tc, i) => ({
    id: tc.id ?? `call_${index}_${i}`,
    type: 'function' as const,
    function: { name: tc.name, arguments: tc.arguments },
  }));
}

function textOfContent(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((p) => (p && typeof p === 'object' && typeof (p as any).text === 'string' ? (p as any).text : '')).join('');
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
  events.push({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: choice.message.content === null ? null : '' }, logprobs: null, finish_reason: null }] });
  if (typeof choice.message.content === 'string' && choice.message.content !== '') {
    events.push({ ...base, choices: [{ index: 0, delta: { content: choice.message.content }, logprobs: null, finish_reason: null }] });
  }
  (choice.message.tool_calls ?? []).forEach((tc: any, i: number) => {
    events.push({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: i, id: tc.id, type: 'function', function: { name: tc.function.name, arguments: tc.function.arguments } }] }, logprobs: null, finish_reason: null }] });
  });
  events.push({ ...base, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: choice.finish_reason }] });
  if ((req.stream_options as any)?.include_usage) events.push({ ...base, choices: [], usage: full.usage });
  const text = events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('') + 'data: [DONE]\n\n';
  sendRaw(res, 200, text, headers, 'text/event-stream');
}

// ---------------------------------------------------------------------------------------------
// faults()
// ---------------------------------------------------------------------------------------------

/** JSON with object keys sorted at every level (so equal bodies give equal text). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** A number in [0, 1) from the SHA-256 of `text`. */
function unitHash(text: string): number {
  const h = createHash('sha256').update(text).digest();
  return h.readUInt32BE(0) / 2 ** 32;
}

export type FaultOutcome = '429' | '500' | 'hang' | 'ok' | 'bad_json' | 'old_name' | 'missing_arg';

export interface FaultOptions {
  rate429?: number;
  rate500?: number;
  rateHang?: number;
  /** Of answers with tool calls: one call's arguments are cut so they are not JSON. */
  rateBadJson?: number;
  /** Of answers with tool calls: one call names a tool of `oldNames` missing from the request's tools (a pre-rename name). */
  rateOldName?: number;
  /** Of answers with tool calls: one call loses a required argument (from the request's tool schema). */
  rateMissingArg?: number;
  /** Tool names of the source harness (before renames), for `rateOldName`. */
  oldNames?: readonly string[];
  seed?: number | string;
  /** Retry-After seconds sent with injected 429s (omitted by default). */
  retryAfter?: number;
}

/**
 * The request without the per-call retries at its end: hsa answers an invalid call with tool
 * messages starting `error: ` and asks again; a model that takes the hint answers as it would
 * have without the failed exchange, so `base` sees the conversation without it.
 */
export function withoutCallRetries(req: ChatRequest): ChatRequest {
  const messages = [...req.messages];
  for (;;) {
    let i = messages.length;
    while (i > 0 && messages[i - 1]?.role === 'tool' && typeof messages[i - 1].content === 'string' && messages[i - 1].content.startsWith('error: ')) i--;
    if (i === messages.length || i === 0 || messages[i - 1]?.role !== 'assistant' || !messages[i - 1].tool_calls?.length) break;
    messages.length = i - 1;
  }
  return messages.length === req.messages.length ? req : { ...req, messages };
}

/**
 * Wrap `base` so some requests fail: for each request, a number in [0, 1) is hashed from
 * (seed, canonical JSON of the body, how many times this exact body was seen before) and picks
 * 429 (below rate429), 500 (next rate500), hang (next rateHang), or `base`'s answer. A retry of an
 * identical body is a new attempt and so may get a different outcome; two wrappers with the same
 * seed fed the same request sequence decide identically. An answer with tool calls may then be
 * spoilt (a second hashed number): arguments that are not JSON, a pre-rename tool name, a
 * missing required argument. `base` sees the request without hsa's per-call retries at its end
 * (`withoutCallRetries`). `outcomes` logs each decision in order.
 */
export function faults(base: Respond, opts: FaultOptions = {}): Respond & { outcomes: FaultOutcome[] } {
  const rate429 = opts.rate429 ?? 0;
  const rate500 = opts.rate500 ?? 0;
  const rateHang = opts.rateHang ?? 0;
  const spoil = [
    ['bad_json', opts.rateBadJson ?? 0],
    ['old_name', opts.rateOldName ?? 0],
    ['missing_arg', opts.rateMissingArg ?? 0],
  ] as const;
  const seed = String(opts.seed ?? 0);
  const seen = new Map<string, number>();
  const outcomes: FaultOutcome[] = [];
  const fn = async (req: ChatRequest, index: number): Promise<Behaviour> => {
    const key = canonicalJson(req);
    const attempt = seen.get(key) ?? 0;
    seen.set(key, attempt + 1);
    const u = unitHash(`${seed}\u0000${attempt}\u0000${key}`);
    let outcome: FaultOutcome = 'ok';
    if (u < rate429) outcome = '429';
    else if (u < rate429 + rate500) outcome = '500';
    else if (u < rate429 + rate500 + rateHang) outcome = 'hang';
    if (outcome === '429') return log(outcome, opts.retryAfter === undefined ? { kind: 'status', status: 429 } : { kind: 'status', status: 429, retryAfter: opts.retryAfter });
    if (outcome === '500') return log(outcome, { kind: 'status', status: 500 });
    if (outcome === 'hang') return log(outcome, { kind: 'hang' });
    const b = await base(withoutCallRetries(req), index);
    if (b.kind !== 'message' || !b.tool_calls?.length) return log('ok', b);
    let v = unitHash(`${seed}\u0001${attempt}\u0001${key}`);
    for (const [kind, rate] of spoil) {
      if (v < rate) {
        const spoilt = spoilCall(kind, b, req, opts.oldNames ?? [], unitHash(`${seed}\u0002${key}`));
        if (spoilt) return log(kind, spoilt);
        break;
      }
      v -= rate;
    }
    return log('ok', b);
  };
  const log = (o: FaultOutcome, b: Behaviour): Behaviour => {
    outcomes.push(o);
    return b;
  };
  return Object.assign(fn, { outcomes });
}

/** `b` with one of its calls spoilt in the way `kind` says (undefined when that is not possible here). */
function spoilCall(kind: 'bad_json' | 'old_name' | 'missing_arg', b: MessageBehaviour, req: ChatRequest, oldNames: readonly string[], u: number): MessageBehaviour | undefined {
  const calls = b.tool_calls!;
  const i = Math.floor(u * calls.length);
  const c = calls[i]!;
  let spoilt: { id?: string; name: string; arguments: string } | undefined;
  if (kind === 'bad_json') spoilt = { ...c, arguments: c.arguments.slice(0, Math.max(1, c.arguments.length - 2)) };
  if (kind === 'old_name') {
    const current = new Set((req.tools ?? []).map((t: any) => t?.function?.name));
    const old = oldNames.filter((n) => !current.has(n));
    if (old.length) spoilt = { ...c, name: old[Math.floor(u * old.length)]! };
  }
  if (kind === 'missing_arg') {
    const schema = (req.tools ?? []).find((t: any) => t?.function?.name === c.name)?.function?.parameters;
    let args: Record<string, unknown> | undefined;
    try {
      args = JSON.parse(c.arguments);
    } catch {
      args = undefined;
    }
    const required = Array.isArray(schema?.required) ? (schema.required as string[]).filter((k) => args && k in args) : [];
    if (args && required.length) {
      const { [required[0]!]: _, ...rest } = args;
      spoilt = { ...c, arguments: JSON.stringify(rest) };
    }
  }
  if (!spoilt) return undefined;
  return { ...b, tool_calls: calls.map((x, j) => (j === i ? spoilt! : x)) };
}

// ---------------------------------------------------------------------------------------------
// shorteningModel()
// ---------------------------------------------------------------------------------------------

export const DEFAULT_LONG_REPLY =
  'Here is a thorough and rather long answer that goes on for quite a while, explaining every step in detail, ' +
  'restating the question, listing the caveats, and finally arriving at the conclusion that the task is done.';

export interface ShorteningModelOptions {
  /** The reply when there is no hook feedback (default: DEFAULT_LONG_REPLY, 200+ characters). */
  longReply?: string;
  /** The text cut to the limit when asked to shorten (default: the long reply). */
  shortReply?: string;
  /** The limit when the feedback names none (default 40). */
  defaultLimit?: number;
  /** The message-name prefix that marks hook feedback (default 'hook:'). */
  hookPrefix?: string;
}

/** The first number after the word "limit" in `text`, or undefined. */
export function limitFromFeedback(text: string): number | undefined {
  const m = /limit\D*?(\d+)/i.exec(text);
  return m ? Number(m[1]) : undefined;
}

/**
 * A respond function for a simple "model": when the last message is a user/system message whose
 * `name` starts with 'hook:' (hook feedback asking to shorten), it answers with at most N
 * characters (N is the first number after "limit" in the feedback, else 40); otherwise it answers
 * with a fixed long reply. Never makes tool calls.
 */
export function shorteningModel(opts: ShorteningModelOptions = {}): Respond {
  const longReply = opts.longReply ?? DEFAULT_LONG_REPLY;
  const shortSource = opts.shortReply ?? longReply;
  const defaultLimit = opts.defaultLimit ?? 40;
  const prefix = opts.hookPrefix ?? 'hook:';
  return (req) => {
    const msgs = Array.isArray(req.messages) ? req.messages : [];
    const last = msgs[msgs.length - 1];
    const isHook = !!last && (last.role === 'user' || last.role === 'system') && typeof last.name === 'string' && last.name.startsWith(prefix);
    if (!isHook) return { kind: 'message', content: longReply, finish_reason: 'stop' };
    const n = limitFromFeedback(textOfContent(last.content)) ?? defaultLimit;
    return { kind: 'message', content: shortSource.slice(0, Math.max(0, n)).trimEnd(), finish_reason: 'stop' };
  };
}

// ---------------------------------------------------------------------------------------------
// batchResults()
// ---------------------------------------------------------------------------------------------

/**
 * The OpenAI Batch API output file for `inputJsonl` (lines of
 * `{"custom_id","method":"POST","url":"/v1/chat/completions","body":{...}}`), answered by
 * `respond` (index = the request's position in the input), in input order, as JSONL text ending in
 * a newline. Message → status 200 with a chat.completion body; status behaviour → that status with
 * an error body; hang → `error: {code: "batch_expired"}`; malformed → `error: {code: "server_error"}`.
 * Ids are deterministic: `batch_req_<i>`, `req_<i>`, `chatcmpl-batch-<i>`. Bad input lines throw.
 */
export async function batchResults(inputJsonl: string, respond: Respond): Promise<string> {
  const out: string[] = [];
  const ids = new Set<string>();
  const lines = inputJsonl.split(/\r?\n/);
  let i = 0;
  for (let ln = 0; ln < lines.length; ln++) {
    const line = lines[ln]!.trim();
    if (line === '') continue;
    let item: any;
    try {
      item = JSON.parse(line);
    } catch {
      throw new Error(`batchResults: line ${ln + 1} is not valid JSON`);
    }
    if (!item || typeof item.custom_id !== 'string' || item.custom_id === '') throw new Error(`batchResults: line ${ln + 1} has no custom_id`);
    if (ids.has(item.custom_id)) throw new Error(`batchResults: line ${ln + 1} repeats custom_id ${item.custom_id}`);
    ids.add(item.custom_id);
    if (item.method !== 'POST' || item.url !== CHAT_PATH) throw new Error(`batchResults: line ${ln + 1} is not POST ${CHAT_PATH}`);
    if (!item.body || typeof item.body !== 'object') throw new Error(`batchResults: line ${ln + 1} has no body`);
    const body = item.body as ChatRequest;
    const b = await respond(body, i);
    let response: unknown = null;
    let error: unknown = null;
    if (b.kind === 'message') response = { status_code: 200, request_id: `req_${i}`, body: chatCompletion(body, b, i, 'chatcmpl-batch-') };
    else if (b.kind === 'status') response = { status_code: b.status, request_id: `req_${i}`, body: b.body === undefined ? errorBody(b.status) : b.body };
    else if (b.kind === 'hang') error = { code: 'batch_expired', message: 'This request could not be executed before the completion window expired.' };
    else error = { code: 'server_error', message: 'The model returned a malformed response.' };
    out.push(JSON.stringify({ id: `batch_req_${i}`, custom_id: item.custom_id, response, error }));
    i++;
  }
  return out.length ? out.join('\n') + '\n' : '';
}
