import { randomUUID } from 'node:crypto';
import { Episode, type StepResult } from '../episode/episode.js';
import { DEFAULT_MAX_ROUNDS, type EpisodeOptions } from '../episode/options.js';
import { BadMessageError, readPolicyMessage } from '../episode/message.js';
import { scoreEpisode, type RewardConfig, type RewardResult, type ReplyJudge } from '../episode/reward.js';
import type { EpisodeRow } from '../episode/row.js';
import { RowRefError, type RowRef, type RowSet } from '../episode/rows.js';
import type { TokenCounter } from '../episode/tokens.js';

/**
 * The environment's session core, independent of any wire protocol: sessions hold one episode
 * each, keyed by an id (the server's or the client's, e.g. verl's request id), and expire after
 * `ttlMs` without a request. Errors are `EnvError`s carrying an HTTP-like status and the field
 * at fault, so every protocol adapter can answer them the same way.
 */
export class EnvError extends Error {
  constructor(
    readonly status: number,
    readonly code: 'bad_request' | 'not_found' | 'expired' | 'conflict' | 'done' | 'too_many',
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'EnvError';
  }
}

export interface SessionOptions {
  /** Non-JSON tool-call arguments: a 400 (default) or the policy's mistake (a tool error). */
  invalidArguments: 'error' | 'tool_error';
  maxStepsPerTurn: number;
}

export interface StoreOptions {
  ttlMs: number;
  maxSessions: number;
  reward: RewardConfig;
  counter: TokenCounter;
  judge?: ReplyJudge;
  /** Monotonic milliseconds (tests pass their own clock). */
  now?: () => number;
}

export interface Session {
  readonly id: string;
  readonly episode: Episode;
  readonly options: SessionOptions;
  lastSeen: number;
  reward?: RewardResult;
}

export interface StepAnswer extends StepResult {
  /** Set once the episode is done. */
  reward?: RewardResult;
}

const EXPIRED_MEMORY = 10_000;

export class SessionStore {
  private readonly sessions = new Map<string, Session>();
  /** Ids that expired recently, so a late request hears "expired" rather than "unknown". */
  private readonly expired = new Set<string>();
  private readonly now: () => number;
  started = 0;
  finished = 0;

  constructor(
    readonly rows: RowSet,
    readonly options: StoreOptions,
  ) {
    this.now = options.now ?? (() => performance.now());
  }

  get active(): number {
    return this.sessions.size;
  }

  /** Resolve a row reference to a row, or a 4xx naming the field. */
  resolveRow(ref: RowRef, field = 'task'): EpisodeRow {
    try {
      return this.rows.resolve(ref, field);
    } catch (e) {
      if (e instanceof RowRefError) throw new EnvError(e.missing ? 404 : 400, e.missing ? 'not_found' : 'bad_request', e.message, e.field);
      throw e;
    }
  }

  /** Start a session for a row; `id` is the client's key (a new UUID when absent). */
  start(row: EpisodeRow, options: Partial<SessionOptions> = {}, id?: string): Session {
    this.sweep();
    if (id !== undefined && this.sessions.has(id)) throw new EnvError(409, 'conflict', `session ${JSON.stringify(id)} already exists`, 'session_id');
    if (this.sessions.size >= this.options.maxSessions)
      throw new EnvError(
        429,
        'too_many',
        `${this.sessions.size} sessions are open (the limit is ${this.options.maxSessions}); close some or wait for them to expire`,
      );
    const opts: SessionOptions = { invalidArguments: options.invalidArguments ?? 'error', maxStepsPerTurn: options.maxStepsPerTurn ?? DEFAULT_MAX_ROUNDS };
    const episodeOptions: EpisodeOptions = { maxRoundsPerTurn: opts.maxStepsPerTurn };
    const sid = id ?? randomUUID();
    const session: Session = { id: sid, episode: new Episode(row, episodeOptions), options: opts, lastSeen: this.now() };
    this.expired.delete(sid);
    this.sessions.set(sid, session);
    this.started++;
    return session;
  }

  /** The live session with this id (its expiry clock restarts), or 404 / 410. */
  get(id: string): Session {
    this.sweep();
    const s = this.sessions.get(id);
    if (!s) {
      if (this.expired.has(id))
        throw new EnvError(
          410,
          'expired',
          `session ${JSON.stringify(id)} expired after ${Math.round(this.options.ttlMs / 1000)} s without a request`,
          'session_id',
        );
      throw new EnvError(404, 'not_found', `no session ${JSON.stringify(id)}`, 'session_id');
    }
    s.lastSeen = this.now();
    // Most recently used last: the sweep stops at the first session that is not due.
    this.sessions.delete(id);
    this.sessions.set(id, s);
    return s;
  }

  /** Apply the policy's assistant message (`field` names it in errors). */
  async step(id: string, message: unknown, field = 'message'): Promise<StepAnswer> {
    return this.stepIn(this.get(id), message, field);
  }

  /** `step` for a session already looked up (with `get`). */
  async stepIn(s: Session, message: unknown, field = 'message'): Promise<StepAnswer> {
    const id = s.id;
    if (s.episode.done) throw new EnvError(409, 'done', `session ${JSON.stringify(id)}: the episode is over; start another session`, 'session_id');
    let m;
    try {
      m = readPolicyMessage(message, field, s.options.invalidArguments);
    } catch (e) {
      if (e instanceof BadMessageError) throw new EnvError(400, 'bad_request', e.message, e.field);
      throw e;
    }
    const result = s.episode.step(m);
    // The message's reasoning is counted with its own step, not all at once by the final reward.
    s.episode.reasoningTokens(this.options.counter);
    if (!result.done) return result;
    return { ...result, reward: await this.rewardOf(s) };
  }

  /** The session's reward: final once the episode is done, else the score of the episode so far. */
  async rewardOf(s: Session): Promise<RewardResult> {
    if (s.reward) return s.reward;
    const r = await scoreEpisode(s.episode, this.options.reward, this.options.counter, this.options.judge);
    if (s.episode.done) {
      s.reward = r;
      this.finished++;
    }
    return r;
  }

  delete(id: string): boolean {
    return this.sessions.delete(id);
  }

  /** Drop sessions idle longer than the TTL (called on every request; cheap when none are due). */
  sweep(): void {
    const limit = this.now() - this.options.ttlMs;
    for (const [id, s] of this.sessions) {
      if (s.lastSeen > limit) break;
      this.sessions.delete(id);
      if (this.expired.size >= EXPIRED_MEMORY) this.expired.clear();
      this.expired.add(id);
    }
  }

  /** Close every session (server shutdown). */
  clear(): void {
    this.sessions.clear();
  }
}
