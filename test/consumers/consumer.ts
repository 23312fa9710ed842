import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO } from '../helpers/hsa.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * Helpers for the consumer tests: run a trainer's loading path (re-implemented in Python under
 * test/consumers/) on exported files, and wrap a fixture of SFT records as an hsa output folder.
 */

/** Debian's python3 (with python3-jinja2 and python3-numpy, installed by .ci/run), else the one on PATH. */
export const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

/** Run `test/consumers/<script>` and parse its JSON lines. */
export function runConsumer<T = Record<string, unknown>>(script: string, args: readonly string[]): T[] {
  const r = spawnSync(PYTHON, [path.join(REPO, 'test', 'consumers', script), ...args], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`${script} exited ${r.status}: ${r.stderr}`);
  return r.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as T);
}

/**
 * An hsa output folder holding `file` (SFT records, one per line) as its only SFT part, with the
 * manifest `hsa export` reads (stages.sft.files with records and sha256).
 */
export function sftFolder(file: string): string {
  const dir = tempDir('hsa-consumer-src-');
  mkdirSync(path.join(dir, 'sft'), { recursive: true });
  const part = path.join(dir, 'sft', 'part-00000.jsonl');
  copyFileSync(file, part);
  const bytes = readFileSync(part);
  const records = bytes
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '').length;
  const manifest = { stages: { sft: { files: [{ file: 'sft/part-00000.jsonl', records, sha256: createHash('sha256').update(bytes).digest('hex') }] } } };
  writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
  return dir;
}

/** The odd-shapes fixture: two domains (a clinic desk, freight), parallel calls, reasoning, later system messages, consecutive user turns, a long tool result, float and non-ASCII arguments. */
export const ODD_SHAPES = path.join(REPO, 'test', 'fixtures', 'export-trainers', 'sft.jsonl');

/** Nearest-rank summary, as the export manifest states token statistics. */
export function summary(counts: number[]): { records: number; min: number; p50: number; p95: number; max: number } {
  const s = [...counts].sort((a, b) => a - b);
  const at = (p: number) => s[Math.max(1, Math.ceil((p / 100) * s.length)) - 1]!;
  return { records: s.length, min: s[0]!, p50: at(50), p95: at(95), max: s[s.length - 1]! };
}

/** A joined turn as the export documents it (`hsa_joined` on a row). */
export interface Joined {
  at: number;
  roles: string[];
  lengths: number[];
}

/**
 * Take joined turns apart again, from the documented rule alone (parts of the given lengths in
 * Unicode code points, separated by a blank line): `turns[at]` becomes one message per part, with
 * its source role. `make(role, text)` builds a message of the list's own shape.
 */
export function unjoin<T>(turns: readonly T[], joins: readonly Joined[] | undefined, text: (t: T) => string, make: (role: string, text: string) => T): T[] {
  if (!joins?.length) return [...turns];
  const at = new Map(joins.map((j) => [j.at, j]));
  const out: T[] = [];
  turns.forEach((t, i) => {
    const j = at.get(i);
    if (!j) return out.push(t);
    const chars = [...text(t)];
    let k = 0;
    j.lengths.forEach((n, p) => {
      if (p > 0) {
        if (chars.slice(k, k + 2).join('') !== '\n\n') throw new Error(`turn ${i}: part ${p} is not preceded by a blank line`);
        k += 2;
      }
      out.push(make(j.roles[p]!, chars.slice(k, k + n).join('')));
      k += n;
    });
    if (k !== chars.length) throw new Error(`turn ${i}: ${chars.length - k} characters after the last part`);
    return undefined;
  });
  return out;
}
