import path from 'node:path';
import { readConfigFile, resolveRunConfig, type AugmentFlags } from '../config/augment-config.js';
import { defaultCacheDir } from '../llm/cache.js';
import { exportMissing, importResults } from '../output/batch.js';
import type { Io } from './io.js';

/** `hsa teacher export`: the requests missing from the cache, as OpenAI Batch JSONL. */
export async function teacherExportCommand(flags: AugmentFlags & { batchDir: string }, io: Io): Promise<number> {
  const cfg = await resolveRunConfig({ ...flags, teacher: 'openai', out: flags.out ?? '-' });
  const s = await exportMissing(cfg, flags.batchDir, (line) => io.err(`${line}\n`));
  if (flags.json) io.out(`${JSON.stringify(s, null, 2)}\n`);
  else {
    io.err(`${s.variants} variants: ${s.complete} complete from the cache, ${s.requests} requests missing\n`);
    for (const f of s.files) io.out(`${f}\n`);
    if (s.requests === 0) io.err('nothing missing: run hsa augment --teacher openai --require-cache\n');
  }
  return 0;
}

/** `hsa teacher import`: Batch API result files into the cache (--cache, else the config's, else the default). */
export async function teacherImportCommand(flags: { config?: string; cache?: string; json?: boolean; results: string[] }, io: Io): Promise<number> {
  const file = flags.config ? await readConfigFile(flags.config) : undefined;
  const cache = flags.cache ?? (file?.cache !== undefined && flags.config ? path.join(path.dirname(flags.config), file.cache) : defaultCacheDir());
  const s = await importResults(cache, flags.results);
  for (const k of s.skipped) io.err(`${k.file}:${k.line}: ${k.custom_id ?? '(no custom_id)'}: ${k.reason}\n`);
  if (flags.json) io.out(`${JSON.stringify(s, null, 2)}\n`);
  else io.err(`imported ${s.imported} answers into ${cache}; skipped ${s.skipped.length}\n`);
  return s.skipped.length > 0 ? 1 : 0;
}
