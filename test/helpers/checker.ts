import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO } from './hsa.js';

const CHECKER = path.join(REPO, 'scripts/audit/check-output.mjs');

export interface CheckerRun {
  code: number | null;
  failures: Record<string, { count: number; examples: string[] }>;
}

/** Run the independent checker (scripts/audit/check-output.mjs) on an output folder. */
export function runChecker(out: string, sources: readonly string[], harness?: string): CheckerRun {
  const args = [CHECKER, '--out', out, '--sources', ...sources, '--json', ...(harness ? ['--harness', harness] : [])];
  const r = spawnSync(process.execPath, args, { encoding: 'utf8' });
  return { code: r.status, failures: (JSON.parse(r.stdout) as { failures: CheckerRun['failures'] }).failures };
}

/**
 * A copy of an output folder's manifest and first SFT part in `to`, with the part's line `k`
 * (0-based) replaced by `line`: a tampered output the checker must report.
 */
export function tamperedCopy(out: string, to: string, k: number, line: string): string {
  const lines = readFileSync(path.join(out, 'sft/part-00000.jsonl'), 'utf8').trim().split('\n');
  lines[k] = line;
  mkdirSync(path.join(to, 'sft'), { recursive: true });
  writeFileSync(path.join(to, 'manifest.json'), readFileSync(path.join(out, 'manifest.json')));
  writeFileSync(path.join(to, 'sft/part-00000.jsonl'), lines.join('\n') + '\n');
  return to;
}
