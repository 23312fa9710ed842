import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { UnreadableInputError, UsageError } from '../errors.js';
import { cmp } from '../problems.js';

// fast-glob costs a run ~0.05-0.1 s of CPU to load; it is loaded only for a pattern the fast path
// below cannot answer exactly.
const fastGlob = async () => (await import('fast-glob')).default;

/**
 * Expand file arguments that may be globs into a sorted, de-duplicated list of files. A literal
 * path that does not exist is unreadable input; a glob that matches nothing is a usage error.
 */
export async function expandInputs(patterns: readonly string[], what: string): Promise<string[]> {
  const out = new Set<string>();
  for (const pattern of patterns) {
    // No glob character at all: literal for fast-glob too, without loading it.
    if (!GLOB_CHARS.test(pattern) || !(await fastGlob()).isDynamicPattern(pattern)) {
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
    const found = await globFiles([pattern]);
    if (found.length === 0) throw new UsageError(`${what}: no file matches ${pattern}`);
    for (const f of found) out.add(f);
  }
  return [...out].sort(cmp);
}

const GLOB_CHARS = /[*?[\]{}()!+@\\]/;
/** `dir/sub/*.ext`: plain folder names (none starting with a dot), then `*` and a plain extension. */
const SIMPLE = /^((?:[A-Za-z0-9_-][A-Za-z0-9_.-]*\/)*)\*(\.[A-Za-z0-9_-]+)$/;
/** `dir/file.ext`: plain names only (none starting with a dot, no glob character): a path, not a pattern. */
const LITERAL = /^(?:[A-Za-z0-9_-][A-Za-z0-9_.-]*\/)*[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;

/**
 * The files matching any of `patterns` (relative to `cwd`), as fast-glob's `onlyFiles`, `dot: false`
 * gives them (its paths, deduplicated; order unspecified). The harness's default `tools/*.json`
 * kind of pattern is answered with one readdir, a plain path (`tools/tools.yaml`) with one stat;
 * any other pattern goes to fast-glob.
 */
export async function globFiles(patterns: readonly string[], cwd?: string): Promise<string[]> {
  if (!patterns.every((p) => SIMPLE.test(p) || LITERAL.test(p)))
    return (await fastGlob())([...patterns], { ...(cwd !== undefined ? { cwd } : {}), onlyFiles: true, dot: false });
  const out = new Set<string>();
  for (const p of patterns) {
    if (LITERAL.test(p)) {
      // A plain path (`tools/tools.yaml`) names itself: it is there when it is a file or a link to one.
      if (
        await stat(path.join(cwd ?? '.', p)).then(
          (s) => s.isFile(),
          () => false,
        )
      )
        out.add(p);
      continue;
    }
    const [, dir, ext] = SIMPLE.exec(p)!;
    let entries;
    try {
      entries = await readdir(path.join(cwd ?? '.', dir!), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (e.name.startsWith('.') || !e.name.endsWith(ext!)) continue;
      // A link counts as what it points to (a broken link is no file), as fast-glob follows links.
      const file =
        e.isFile() ||
        (e.isSymbolicLink() &&
          (await stat(path.join(cwd ?? '.', dir!, e.name)).then(
            (s) => s.isFile(),
            () => false,
          )));
      if (file) out.add(`${dir}${e.name}`);
    }
  }
  return [...out];
}
