import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { runHsaAsync, type HsaRun } from './hsa.js';
import { tempDir } from './tmp.js';

/**
 * `hsa augment` with only the transforms of `transforms` (lines of a `transforms:` map, e.g.
 * `tools.rename: { p: 1 }`) on `args` (inputs and flags), into a fresh output folder.
 */
export async function augmentWith(transforms: string | string[], args: readonly string[], prefix = 'hsa-one-transform-'): Promise<HsaRun & { out: string }> {
  const dir = tempDir(prefix);
  const config = path.join(dir, 'hsa.yaml');
  writeFileSync(
    config,
    `transforms:\n${[transforms]
      .flat()
      .map((t) => `  ${t}\n`)
      .join('')}`,
  );
  const out = path.join(dir, 'out');
  const r = await runHsaAsync(['augment', '--no-gzip', '-c', config, ...args, '-o', out, '-q']);
  return { ...r, out };
}
