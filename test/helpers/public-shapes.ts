import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO } from './hsa.js';

// Shared by the public-dataset-*.e2e.test.ts files: tool and call builders, the independent checker
// `scripts/audit/check-output.mjs` run on written output, and a JSONL reader.

export const CHECKER = path.join(REPO, 'scripts/audit/check-output.mjs');

export type Json = Record<string, unknown>;
export const fn = (name: string, parameters: Json, description?: string, extra: Json = {}) => ({
  type: 'function',
  function: { name, ...(description === undefined ? {} : { description }), parameters, ...extra },
});
export const call = (id: string, name: string, args: Json) => ({ id, type: 'function', function: { name, arguments: JSON.stringify(args) } });

export function checker(
  out: string,
  sources: string,
  harness?: string,
): { code: number; report: { failures: Record<string, { count: number; examples: string[] }>; checked: { records: number } } } {
  const args = [CHECKER, '--out', out, '--sources', sources, '--json', ...(harness ? ['--harness', harness] : [])];
  const r = spawnSync(process.execPath, args, { encoding: 'utf8' });
  return { code: r.status ?? -1, report: JSON.parse(r.stdout) };
}

export const readJsonl = (f: string) =>
  readFileSync(f, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Json);
