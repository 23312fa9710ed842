import fg from 'fast-glob';
import { stat } from 'node:fs/promises';
import { UnreadableInputError, UsageError } from '../errors.js';
import { cmp } from '../problems.js';

/**
 * Expand file arguments that may be globs into a sorted, de-duplicated list of files. A literal
 * path that does not exist is unreadable input; a glob that matches nothing is a usage error.
 */
export async function expandInputs(patterns: readonly string[], what: string): Promise<string[]> {
  const out = new Set<string>();
  for (const pattern of patterns) {
    if (!fg.isDynamicPattern(pattern)) {
      try {
        const s = await stat(pattern);
        if (!s.isFile()) throw new UnreadableInputError(`${pattern}: not a file`);
      } catch (e) {
        if (e instanceof UnreadableInputError) throw e;
        throw new UnreadableInputError(`${pattern}: no such file`);
      }
      out.add(pattern);
      continue;
    }
    const found = await fg(pattern, { onlyFiles: true, dot: false });
    if (found.length === 0) throw new UsageError(`${what}: no file matches ${pattern}`);
    for (const f of found) out.add(f);
  }
  return [...out].sort(cmp);
}
