import { HsaError } from '../errors.js';

/** Counters of a teacher run, for progress and the summary (they vary between runs). */
export interface TeacherCounters {
  inFlight: number;
  done: number;
  cacheHits: number;
  retries: number;
  failures: number;
  tokensIn: number;
  tokensOut: number;
}

export function newCounters(): TeacherCounters {
  return { inFlight: 0, done: 0, cacheHits: 0, retries: 0, failures: 0, tokensIn: 0, tokensOut: 0 };
}

/** The teacher stayed unreachable (429, 5xx, timeouts, connection errors) through every retry. */
export class TeacherUnavailableError extends HsaError {
  constructor(message: string) {
    super('HSA_TEACHER_UNAVAILABLE', message, 1);
    this.name = 'TeacherUnavailableError';
  }
}

/**
 * The teacher refused one request (a 4xx other than 401/403/404/429) or sent an answer hsa cannot
 * use: that variant's episode fails, nothing is retried. `unusable` answers (a body that is not a
 * completion) may come out differently on another sample; a refused request would not.
 */
export class TeacherRequestError extends HsaError {
  constructor(
    message: string,
    readonly refusal: 'refused' | 'unusable' = 'refused',
  ) {
    super('HSA_TEACHER_REQUEST', message, 1);
    this.name = 'TeacherRequestError';
  }
}

/**
 * The endpoint refuses the run itself: bad credentials (401), no permission (403), no such model
 * or path (404), or no key for a remote endpoint. Every request would fail the same way, so the run
 * stops (exit 1) without finishing its part; fixed and rerun, it resumes.
 */
export class TeacherFatalError extends HsaError {
  constructor(message: string) {
    super('HSA_TEACHER_FATAL', message, 1);
    this.name = 'TeacherFatalError';
  }
}

/** A request missing from the cache under --require-cache (or collected by `hsa teacher export`). */
export class CacheMissError extends HsaError {
  constructor(
    readonly key: string,
    readonly body: Record<string, unknown>,
  ) {
    super('HSA_CACHE_MISS', `teacher request ${key.slice(0, 12)} is not in the cache (--require-cache)`, 1);
    this.name = 'CacheMissError';
  }
}
