#!/usr/bin/env node
// Synthetic benchmark data for `npm run bench`:
//   bench-data/harness/        a folder-form harness: ~20 KB of mixed Chinese/English prompt rules,
//                              12 OpenAI function tools (load_skill included), 8 skills, a stop hook
//   bench-data/<name>.jsonl    trajectories of 25–40 KB each, in Chat Completions shape, whose
//                              system message is rendered by the engine (dist/ must be built)
//
// Every random choice comes from seedrandom (one generator per harness and one per record, so a
// smaller file is a prefix of a larger one with the same seed); nothing reads Math.random or the
// clock. Generation is skipped when the output exists with the same parameters (a params file
// next to it records them, plus a hash of this script and its parts in scripts/bench-gen/).
//
// Standalone use:  node scripts/bench-gen.mjs [--mb N | --gb N] [--out bench-data] [--name input]
//                                             [--seed S] [--force]

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT, DEFAULT_SEED } from './bench-gen/common.mjs';
import { ensureHarness } from './bench-gen/harness.mjs';
import { ensureInput } from './bench-gen/records.mjs';

// What scripts/bench.mjs uses; the generator's parts are in scripts/bench-gen/.
export { DEFAULT_SEED, ensureHarness, ensureInput };

// ---------------------------------------------------------------------------------------------
// CLI

export function sizeFromArgs(argv, defaultMb = 64) {
  const i = argv.indexOf('--gb');
  if (i >= 0) return Math.round(Number(argv[i + 1]) * 2 ** 30);
  const j = argv.indexOf('--mb');
  if (j >= 0) return Math.round(Number(argv[j + 1]) * 2 ** 20);
  return defaultMb * 2 ** 20;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  const opt = (name, dflt) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : dflt;
  };
  const out = path.resolve(ROOT, opt('--out', 'bench-data'));
  const seed = opt('--seed', DEFAULT_SEED);
  const force = argv.includes('--force');
  const hd = ensureHarness(path.join(out, 'harness'), { seed, force });
  console.error(`harness: ${hd.generated ? 'written' : 'up to date'} (${path.relative(ROOT, hd.dir)})`);
  const file = path.join(out, `${opt('--name', 'input')}.jsonl`);
  const r = await ensureInput(file, hd.dir, { targetBytes: sizeFromArgs(argv), seed, force, log: (s) => console.error(s) });
  console.error(
    `input: ${r.generated ? `written in ${r.seconds.toFixed(1)} s` : 'up to date'}: ${path.relative(ROOT, file)}, ${r.records} records, ${(r.bytes / 2 ** 20).toFixed(1)} MB`,
  );
}
