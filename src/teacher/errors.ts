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

/** The teacher refused the request itself (4xx other than 429): the variant fails, nothing is retried. */
export class TeacherRequestError extends HsaError {
  constructor(message: string) {
    super('HSA_TEACHER_REQUEST', message, 1);
    this.name = 'TeacherRequestError';
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

