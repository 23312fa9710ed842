import OpenAI, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  AuthenticationError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
} from 'openai';
import seedrandom from 'seedrandom';
import { TeacherCache } from './cache.js';
import { CacheMissError, TeacherFatalError, TeacherRequestError, TeacherUnavailableError, type TeacherCounters } from './errors.js';
import { endpointFetch } from './http-fetch.js';
import { RateLimiter, sleep } from './limiter.js';

/** One OpenAI-compatible endpoint, resolved: where, which model, the sampling parameters and the limits. */
export interface EndpointSettings {
  baseUrl: string;
  model: string;
  apiKeyEnv: string;
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  seed?: number;
  extraBody?: Record<string, unknown>;
  timeoutMs: number;
  maxRetries: number;
  rpm?: number;
  tpm?: number;
}

export interface ClientOptions extends EndpointLabels {
  /** Fail on a request missing from the cache instead of sending it. */
  requireCache: boolean;
  signal?: AbortSignal;
  counters: TeacherCounters;
}

/** Who the endpoint is in messages (default "teacher"), its key setting and flag (default teacher.api_key_env, --teacher-key-env; null: no flag). */
export interface EndpointLabels {
  who?: string;
  keySetting?: string;
  keyFlag?: string | null;
}

/** A tool call as the Chat Completions API sends it (arguments: the JSON text as sent). */
export interface CompletionToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** One answer read: the first choice's message, why it stopped, the token usage. */
export interface Completion {
  content: string | null;
  toolCalls: CompletionToolCall[];
  finishReason: string;
  usage: { prompt: number; completion: number };
  /** Served from the cache (no request made). */
  cached: boolean;
  /** The raw response body, for rejects. */
  raw?: unknown;
}

/**
 * The request body as sent (and hashed): the caller's fields (model, messages, tools…), then every
 * sampling parameter the settings name, then `extra_body`. Sample k > 0 sends `seed + k` when a
 * seed is set, so a seeded endpoint does not repeat a sample.
 */
export function requestBody(cfg: EndpointSettings, fields: Record<string, unknown>, sample = 0): Record<string, unknown> {
  const body: Record<string, unknown> = { ...fields };
  if (cfg.temperature !== undefined) body.temperature = cfg.temperature;
  if (cfg.topP !== undefined) body.top_p = cfg.topP;
  if (cfg.maxTokens !== undefined) body.max_tokens = cfg.maxTokens;
  if (cfg.seed !== undefined) body.seed = cfg.seed + sample;
  return { ...body, ...(cfg.extraBody ?? {}) };
}

/**
 * A client of any OpenAI-compatible Chat Completions endpoint (vLLM, SGLang, DeepSeek, OpenAI),
 * through the official `openai` SDK over our fetch. Every request is looked up in the cache
 * first; a miss is sent with bounded retries (exponential backoff with jitter, `Retry-After`
 * honoured) on 429, 5xx, timeouts and connection errors — decided by the error's class — and only
 * a successful, non-truncated answer is stored.
 */
export class EndpointClient {
  private readonly client: OpenAI;
  private readonly limiter: RateLimiter;
  private readonly who: string;

  constructor(
    readonly cfg: EndpointSettings,
    private readonly cache: TeacherCache,
    private readonly opts: ClientOptions,
  ) {
    this.who = opts.who ?? 'teacher';
    const apiKey = process.env[cfg.apiKeyEnv];
    // Local servers (vLLM, SGLang) often need no key; the client wants a non-empty string. A remote
    // endpoint without a key would answer 401 to every request: say so before the run starts
    // (runs that only read the cache need no key).
    if (!apiKey && !opts.requireCache && !isLoopback(cfg.baseUrl)) {
      throw new TeacherFatalError(
        `${opts.keySetting ?? 'teacher.api_key_env'}: the variable ${cfg.apiKeyEnv} is not set, and ${cfg.baseUrl} is not a loopback address, so a key is needed (set ${cfg.apiKeyEnv}${opts.keyFlag === null ? '' : `, or name another variable with ${opts.keyFlag ?? '--teacher-key-env'}`})`,
      );
    }
    this.client = new OpenAI({
      baseURL: cfg.baseUrl,
      apiKey: apiKey && apiKey !== '' ? apiKey : 'no-key',
      maxRetries: 0,
      timeout: cfg.timeoutMs,
      fetch: endpointFetch(),
    });
    this.limiter = new RateLimiter(cfg.rpm, cfg.tpm);
  }

  private readonly storing = new Set<Promise<void>>();
  private storeError: Error | undefined;

  /**
   * Store an answer in the cache without holding up the caller (the next request of a slot should
   * not wait for a file to be written); `settle` waits for the writes.
   */
  private store(key: string, response: unknown): void {
    const p: Promise<void> = this.cache.put(key, response).then(
      () => void this.storing.delete(p),
      (e: unknown) => {
        this.storing.delete(p);
        this.storeError ??= new TeacherRequestError(`cannot store a ${this.who} answer in the cache ${this.cache.dir}: ${firstLine((e as Error).message)}`);
      },
    );
    this.storing.add(p);
  }

  async settle(): Promise<void> {
    while (this.storing.size > 0) await Promise.all([...this.storing]);
    if (this.storeError) throw this.storeError;
  }

  /** Requests in flight by cache key: an identical request waits for the one already sent. */
  private readonly inFlight = new Map<string, Promise<Completion>>();

  /** Send `body` (built by requestBody) as sample `sample`, or read its answer from the cache. */
  async complete(body: Record<string, unknown>, sample = 0): Promise<Completion> {
    const key = TeacherCache.key(this.cfg.baseUrl, body, sample);
    const same = this.inFlight.get(key);
    if (same) {
      const reply = await same;
      this.opts.counters.cacheHits++;
      return { ...reply, cached: true };
    }
    const p = this.fetchReply(key, body);
    this.inFlight.set(key, p);
    try {
      return await p;
    } finally {
      this.inFlight.delete(key);
    }
  }

  /** Set by the first fatal answer: no request is sent after it (each would fail the same way). */
  private fatal: TeacherFatalError | undefined;

  private async fetchReply(key: string, body: Record<string, unknown>): Promise<Completion> {
    const c = this.opts.counters;
    const hit = await this.cache.get(key);
    if (hit !== undefined) {
      c.cacheHits++;
      return readCompletion(hit, true, this.who);
    }
    if (this.opts.requireCache) throw new CacheMissError(key, body);
    if (this.fatal) throw this.fatal;
    if (this.cfg.rpm || this.cfg.tpm) await this.limiter.acquire(this.cfg.tpm ? estimateTokens(body) : 0, this.opts.signal);
    // Jitter comes from a generator seeded by the request: timing only, reproducible in tests.
    // (seedrandom's quick() is the sequence of the transform engine's createRng('backoff', key).)
    const jitter = seedrandom(`backoff\u241f${key}`);
    for (let attempt = 0; ; attempt++) {
      c.inFlight++;
      // A per-request controller linked to the run's signal for the request's lifetime only: the
      // client adds listeners to the signal it gets, and a long-lived one would collect them all.
      const controller = new AbortController();
      const onAbort = () => controller.abort(this.opts.signal?.reason);
      this.opts.signal?.addEventListener('abort', onAbort, { once: true });
      try {
        const response = await this.client.chat.completions
          .create(body as unknown as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming, { signal: controller.signal, timeout: this.cfg.timeoutMs })
          .finally(() => this.opts.signal?.removeEventListener('abort', onAbort));
        c.inFlight--;
        c.done++;
        const reply = readCompletion(response, false, this.who);
        c.tokensIn += reply.usage.prompt;
        c.tokensOut += reply.usage.completion;
        if (reply.finishReason !== 'length' && isWellFormed(response)) this.store(key, response);
        return reply;
      } catch (e) {
        c.inFlight--;
        if (e instanceof APIUserAbortError || this.opts.signal?.aborted) throw e;
        const retryable =
          e instanceof RateLimitError ||
          e instanceof InternalServerError ||
          e instanceof APIConnectionTimeoutError ||
          e instanceof APIConnectionError ||
          (e instanceof APIError && (e.status ?? 0) >= 500);
        if (!retryable) {
          c.failures++;
          // Every request would get the same answer: the run stops, and resumes once fixed.
          const fatal = fatalError(e, this.cfg, this.who);
          if (fatal) throw (this.fatal ??= fatal);
          if (e instanceof APIError)
            throw new TeacherRequestError(`${this.who} refused the request: ${e.status ?? ''} ${e.constructor.name}: ${firstLine(e.message)}`);
          throw new TeacherRequestError(`${this.who} answer unusable: ${firstLine((e as Error).message)}`, 'unusable');
        }
        if (attempt >= this.cfg.maxRetries) {
          c.failures++;
          throw new TeacherUnavailableError(
            `${this.who} unavailable after ${attempt + 1} attempts: ${e.constructor.name}${e instanceof APIError && e.status ? ` ${e.status}` : ''}`,
          );
        }
        c.retries++;
        const retryAfter = e instanceof APIError ? retryAfterMs(e.headers) : undefined;
        const backoff = Math.min(30_000, 250 * 2 ** attempt) * (0.5 + jitter.quick());
        await sleep(retryAfter ?? backoff, this.opts.signal);
      }
    }
  }
}

function retryAfterMs(headers: unknown): number | undefined {
  const h = headers as { get?: (k: string) => string | null } | undefined;
  const v = h?.get?.('retry-after-ms') ?? null;
  if (v !== null && Number.isFinite(Number(v))) return Number(v);
  const s = h?.get?.('retry-after') ?? null;
  if (s === null) return undefined;
  if (Number.isFinite(Number(s))) return Number(s) * 1000;
  const at = Date.parse(s);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : undefined;
}

function estimateTokens(body: Record<string, unknown>): number {
  return Math.ceil(JSON.stringify(body).length / 4) + (typeof body.max_tokens === 'number' ? body.max_tokens : 0);
}

function isWellFormed(response: unknown): boolean {
  const r = response as { choices?: { message?: unknown }[] };
  return Array.isArray(r.choices) && r.choices.length > 0 && typeof r.choices[0]?.message === 'object';
}

/** A Chat Completions response → its first choice (tool-call arguments kept as sent). */
export function readCompletion(response: unknown, cached: boolean, who = 'teacher'): Completion {
  const r = response as {
    choices?: {
      message?: { content?: string | null; tool_calls?: { id: string; type?: string; function: { name: string; arguments: string } }[] };
      finish_reason?: string;
    }[];
    usage?: { prompt_tokens?: number; completion_tokens?: number };
  };
  const choice = r.choices?.[0];
  if (!choice?.message) throw new TeacherRequestError(`${who} answer has no message`, 'unusable');
  const toolCalls: CompletionToolCall[] = (choice.message.tool_calls ?? []).map((c) => ({
    id: c.id,
    type: 'function',
    function: {
      name: c.function?.name ?? '',
      arguments: typeof c.function?.arguments === 'string' ? c.function.arguments : JSON.stringify(c.function?.arguments ?? {}),
    },
  }));
  return {
    content: choice.message.content ?? null,
    toolCalls,
    finishReason: choice.finish_reason ?? 'stop',
    usage: { prompt: r.usage?.prompt_tokens ?? 0, completion: r.usage?.completion_tokens ?? 0 },
    cached,
    raw: response,
  };
}

/** The run-ending error for an answer that refuses every request alike: 401, 403, 404. */
function fatalError(e: unknown, cfg: EndpointSettings, who: string): TeacherFatalError | undefined {
  if (e instanceof AuthenticationError)
    return new TeacherFatalError(`${who} refused our credentials (401) at ${cfg.baseUrl}: check the key in ${cfg.apiKeyEnv}: ${firstLine(e.message)}`);
  if (e instanceof PermissionDeniedError)
    return new TeacherFatalError(`${who} denied permission (403) at ${cfg.baseUrl} for model ${cfg.model}: ${firstLine(e.message)}`);
  if (e instanceof NotFoundError)
    return new TeacherFatalError(`${who} answered 404 at ${cfg.baseUrl}: no model "${cfg.model}" there, or the base_url is wrong: ${firstLine(e.message)}`);
  return undefined;
}

/** 127.0.0.0/8, ::1 and localhost: endpoints on this machine, which may run without a key. */
export function isLoopback(baseUrl: string): boolean {
  let host: string;
  try {
    host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return false;
  }
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

function firstLine(s: string): string {
  return s.split('\n')[0] ?? s;
}
