import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import type { LoadResult } from '../../src/harness/load.js';
import type { Harness } from '../../src/harness/types.js';
import { formatProblem, type Problem } from '../../src/problems.js';
import { makeTmp, writeTree } from './tmp.js';

/**
 * A temp folder for the calling test file (made before its tests, removed after) and
 * `harnessDir(files)`, which writes a harness into a fresh sub-folder of it and returns that folder.
 */
export function useHarnessDirs(prefix = 'hsa-load-'): { root: () => string; harnessDir: (files: Record<string, string>) => Promise<string> } {
  let tmp: { dir: string; cleanup: () => Promise<void> };
  beforeAll(async () => {
    tmp = await makeTmp(prefix);
  });
  afterAll(async () => {
    await tmp.cleanup();
  });
  let counter = 0;
  return {
    root: () => tmp.dir,
    harnessDir: async (files) => {
      const dir = path.join(tmp.dir, `h${++counter}`);
      await writeTree(dir, files);
      return dir;
    },
  };
}

export const errorsOf = (r: LoadResult): Problem[] => r.problems.filter((p) => p.severity === 'error');
export const warningsOf = (r: LoadResult): Problem[] => r.problems.filter((p) => p.severity === 'warning');
/** The loaded harness, after checking the load reported no error. */
export function loaded(r: LoadResult): Harness {
  expect(errorsOf(r).map(formatProblem)).toEqual([]);
  expect(r.harness).toBeDefined();
  return r.harness!;
}
