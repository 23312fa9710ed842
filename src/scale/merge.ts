import type { RunConfig } from '../config/augment-config.js';
import { HsaError } from '../errors.js';
import { buildManifest, describedManifestConfig, writeManifest } from '../output/manifest.js';
import {
  checkMarker,
  META_DIR,
  readInputs,
  readRunRecord,
  readShardRecord,
  removeShardRecords,
  shardRecordNames,
  type PartMarker,
  type ShardRecord,
} from '../output/out-folder.js';
import type { Bucket } from '../output/shared.js';

/** A merge that cannot write the manifest yet (or ever): exit 1, nothing written. */
export class MergeError extends HsaError {
  constructor(message: string) {
    super('HSA_OUTPUT', message, 1);
    this.name = 'MergeError';
  }
}

export interface MergeResult {
  out: string;
  manifest: string;
  parts: number;
  /** Shard counts the finished shards reported (empty for a folder written by one whole run). */
  shards: number[];
}

/** Part or shard numbers as `1, 3, 5`. */
function list(ns: number[]): string {
  return ns.join(', ');
}

/**
 * `hsa merge OUT`: when every part of the run is done under the folder's fingerprint (whichever
 * shard wrote it), write the manifest a whole run would write, byte for byte; otherwise name the
 * missing, foreign and corrupt shards and parts and write nothing. Running it again is harmless.
 */
export async function mergeShards(out: string): Promise<MergeResult> {
  const run = await readRunRecord(out);
  if (!run) throw new MergeError(`${out}: no ${META_DIR}/run.json, so no hsa augment shard has started here`);
  const { fingerprint, descriptor } = run;
  const buckets: Bucket[] = [...(descriptor.config as { stages: RunConfig['stages'] }).stages, 'rejects'];
  const problems: string[] = [];

  // Finished shards and the shard counts they were started with.
  const finished: ShardRecord[] = [];
  for (const n of await shardRecordNames(out)) {
    const rec = await readShardRecord(out, n);
    if (!rec) problems.push(`${META_DIR}/shards/${n}: not valid JSON`);
    else if (rec.fingerprint !== fingerprint)
      problems.push(
        `foreign shard ${rec.shard} of ${rec.shards}: made with other inputs, config or seed (fingerprint ${rec.fingerprint.slice(0, 12)}…, this folder's is ${fingerprint.slice(0, 12)}…)`,
      );
    else finished.push(rec);
  }
  const counts = [...new Set(finished.map((r) => r.shards))].sort((a, b) => a - b);

  const inputs = await readInputs(out);
  if (!inputs || inputs.fingerprint !== fingerprint) {
    const expected = counts[0];
    const missing = expected === undefined ? [] : [...Array(expected).keys()].filter((i) => !finished.some((r) => r.shard === i && r.shards === expected));
    problems.push(`no shard has read all the inputs yet${missing.length ? `; missing shards: ${list(missing)} of ${expected}` : ''}`);
    throw new MergeError(`${out}: cannot merge, nothing written:\n  ${problems.join('\n  ')}`);
  }

  // Every part, whoever wrote it, must be done under this fingerprint with its files intact.
  const markers: PartMarker[] = [];
  const missing: number[] = [];
  for (let p = 0; p < inputs.parts; p++) {
    const checked = await checkMarker(out, p, fingerprint, buckets);
    if ('marker' in checked) markers.push(checked.marker);
    else if ('missing' in checked) missing.push(p);
    else if ('foreign' in checked)
      problems.push(`foreign part ${p}: done by a run with other inputs, config or seed (fingerprint ${checked.foreign.slice(0, 12)}…)`);
    else problems.push(`corrupt part ${p}: ${checked.corrupt} (rerun the shard that owns it)`);
  }
  if (missing.length > 0) {
    const perCount = counts.map(
      (m) => `shard${new Set(missing.map((p) => p % m)).size > 1 ? 's' : ''} ${list([...new Set(missing.map((p) => p % m))].sort((a, b) => a - b))} of ${m}`,
    );
    problems.unshift(`missing parts: ${list(missing)} of ${inputs.parts}${perCount.length ? ` (${perCount.join('; ')} not finished)` : ''}`);
  }
  if (counts.length > 1) problems.push(`note: shards were started with different counts (${list(counts)}); parts are checked one by one`);
  if (problems.some((p) => !p.startsWith('note:'))) throw new MergeError(`${out}: cannot merge, nothing written:\n  ${problems.join('\n  ')}`);

  const manifest = await writeManifest(
    out,
    buildManifest(descriptor, markers, buckets, describedManifestConfig(descriptor, inputs.tokenizer ?? null), inputs.records),
  );
  // The shard notes have served; the folder is now what one whole run leaves.
  await removeShardRecords(out);
  return { out, manifest, parts: inputs.parts, shards: counts };
}
