/**
 * Scripted teachers for the test server (test/helpers/teacher-server.ts): `faults()` wraps a
 * respond function with seeded HTTP and call faults, `shorteningModel()` answers hook feedback
 * with a shorter reply, `batchResults()` answers a Batch API input file.
 */
import { createHash } from 'node:crypto';
import {
  CHAT_PATH,
  chatCompletion,
  errorBody,
  textOfContent,
  type Behaviour,
  type ChatRequest,
  type MessageBehaviour,
  type Respond,
} from './teacher-server.js';

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
    if (outcome === '429')
      return log(outcome, opts.retryAfter === undefined ? { kind: 'status', status: 429 } : { kind: 'status', status: 429, retryAfter: opts.retryAfter });
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
function spoilCall(
  kind: 'bad_json' | 'old_name' | 'missing_arg',
  b: MessageBehaviour,
  req: ChatRequest,
  oldNames: readonly string[],
  u: number,
): MessageBehaviour | undefined {
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
  return { ...b, tool_calls: calls.map((x, j) => (j === i ? spoilt : x)) };
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
