import { mergeShards } from '../scale/merge.js';
import type { Io } from './io.js';

export interface MergeOptions {
  json?: boolean;
  quiet?: boolean;
}

/** `hsa merge OUT`: write the manifest once every shard's parts are done (exit 1 naming what is missing). */
export async function mergeCommand(out: string, opts: MergeOptions, io: Io): Promise<number> {
  const r = await mergeShards(out);
  if (opts.json) io.out(`${JSON.stringify({ ok: true, ...r }, null, 2)}\n`);
  else if (!opts.quiet) io.err(`merged: ${r.parts} parts${r.shards.length ? ` from ${r.shards.join(', ')} shards` : ''} → ${r.manifest}\n`);
  return 0;
}
