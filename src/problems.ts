/**
 * A problem found in an input: where it is (file, line, key path) and what is wrong.
 * Loaders and validators collect every problem instead of throwing on the first one.
 */
export interface Problem {
  file: string;
  line?: number;
  /** Record id, for trajectory problems. */
  id?: string;
  /** Dotted key path inside the file or record, e.g. `hooks.0.checks.1.max_chars`. */
  path: string;
  message: string;
  severity: 'error' | 'warning';
}

/** `file[:line]: [id: ]path: message` — the one way a problem is printed. */
export function formatProblem(p: Problem): string {
  const where = p.line !== undefined ? `${p.file}:${p.line}` : p.file;
  const id = p.id !== undefined ? `${p.id}: ` : '';
  const path = p.path === '' ? '(root)' : p.path;
  const tag = p.severity === 'warning' ? 'warning: ' : '';
  return `${where}: ${id}${path}: ${tag}${p.message}`;
}

/** Stable order for printing and for JSON output: file, line, path, message. */
export function sortProblems(problems: readonly Problem[]): Problem[] {
  return [...problems].sort(
    (a, b) =>
      cmp(a.file, b.file) ||
      (a.line ?? 0) - (b.line ?? 0) ||
      cmp(a.id ?? '', b.id ?? '') ||
      cmp(a.path, b.path) ||
      cmp(a.message, b.message),
  );
}

/** Code-point string comparison, independent of locale. */
export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function hasErrors(problems: readonly Problem[]): boolean {
  return problems.some((p) => p.severity === 'error');
}
