import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunConfig } from '../config/augment-config.js';
import { runAugment } from '../output/run.js';
import { runDiff, type DiffReport } from './diff.js';
import { readManifest } from './folder.js';

/**
 * `hsa augment --check OUT`: regenerate the run into a temporary folder and compare it with OUT as
 * `hsa diff` does. OUT is only read (never resumed, rewritten or touched); the temporary folder is
 * removed afterwards, whatever happens.
 */
export async function runCheck(cfg: RunConfig, target: string, opts: { warn?: (line: string) => void; limit?: number } = {}): Promise<DiffReport> {
  await readManifest(target);
  const tmp = await mkdtemp(path.join(tmpdir(), 'hsa-check-'));
  try {
    const fresh = path.join(tmp, 'out');
    await runAugment({ ...cfg, out: fresh }, { force: true, ...(opts.warn ? { warn: opts.warn } : {}) });
    const report = await runDiff({ a: target, b: fresh, limit: opts.limit ?? 5 });
    return { ...report, b: '(a fresh run)' };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
