/**
 * Requests-per-minute and tokens-per-minute limits over a sliding one-minute window. `acquire`
 * waits until a request of `tokens` estimated tokens fits. Timing only: nothing here reaches output.
 */
export class RateLimiter {
  private readonly events: { at: number; tokens: number }[] = [];

  constructor(
    private readonly rpm: number | undefined,
    private readonly tpm: number | undefined,
    private readonly now: () => number = () => Date.now(),
  ) {}

  async acquire(tokens: number, signal?: AbortSignal): Promise<void> {
    if (!this.rpm && !this.tpm) return;
    for (;;) {
      const t = this.now();
      while (this.events.length && this.events[0]!.at <= t - 60_000) this.events.shift();
      const used = this.events.reduce((n, e) => n + e.tokens, 0);
      const okRpm = !this.rpm || this.events.length < this.rpm;
      const okTpm = !this.tpm || used + tokens <= this.tpm || this.events.length === 0;
      if (okRpm && okTpm) {
        this.events.push({ at: t, tokens });
        return;
      }
      const wait = Math.max(10, this.events[0]!.at + 60_000 - t);
      await sleep(wait, signal);
    }
  }
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
