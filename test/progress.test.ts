import { afterEach, describe, expect, it, vi } from 'vitest';
import { progressReporter } from '../src/cli/progress.js';

afterEach(() => {
  vi.useRealTimers();
});

const T = 1_700_000_000_000; // a real clock reading: the first update always prints
const at = (bytesRead: number, records: number) => ({ bytesRead, bytesTotal: 1000, records, outputs: records * 4, partsDone: 0, partsSkipped: 0 });

describe('progress', () => {
  it('gives no ETA from the first moments, then one from the rate so far', () => {
    vi.useFakeTimers();
    vi.setSystemTime(T);
    const lines: string[] = [];
    const p = progressReporter({ out: () => undefined, err: (t) => void lines.push(t), errIsTty: false }, false);
    vi.setSystemTime(T + 200);
    p.update(at(10, 1)); // 1% after 0.2 s: startup dominates, no estimate
    vi.setSystemTime(T + 10_000);
    p.update(at(500, 50)); // 50% after 10 s: about 10 s left
    expect(lines).toHaveLength(2);
    expect(lines[0]).not.toContain('ETA');
    expect(lines[0]).toContain('1%  1 records');
    expect(lines[1]).toContain('ETA 10s');
  });

  it('prints a plain line at most every few seconds when stderr is not a terminal, nothing when quiet', () => {
    vi.useFakeTimers();
    vi.setSystemTime(T);
    const lines: string[] = [];
    const p = progressReporter({ out: () => undefined, err: (t) => void lines.push(t), errIsTty: false }, false);
    for (let ms = 6_000; ms < 9_000; ms += 500) {
      vi.setSystemTime(T + ms);
      p.update(at(100, 10));
    }
    expect(lines).toHaveLength(1);
    const quiet: string[] = [];
    progressReporter({ out: () => undefined, err: (t) => void quiet.push(t), errIsTty: false }, true).update(at(100, 10));
    expect(quiet).toEqual([]);
  });
});
