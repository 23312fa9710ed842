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
    (a, b) => cmp(a.file, b.file) || (a.line ?? 0) - (b.line ?? 0) || cmp(a.id ?? '', b.id ?? '') || cmp(a.path, b.path) || cmp(a.message, b.message),
  );
}

/** Code-point string comparison, independent of locale. */
export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function hasErrors(problems: readonly Problem[]): boolean {
  return problems.some((p) => p.severity === 'error');
}

/**
 * The kind of a problem, stable across records: its key path with indices replaced by `*` and its
 * message with quoted names, numbers and the text after a `got`/`expected` comparison replaced by
 * placeholders — so the same mistake in 200 records is one kind. Severity is part of the kind.
 */
export function problemKind(p: Problem): string {
  const path = (p.path === '' ? '(root)' : p.path).replace(/(^|\.)\d+(?=\.|$)/g, '$1*');
  return `${p.severity === 'warning' ? 'warning: ' : ''}${path}: ${messageTemplate(p.message)}`;
}

function messageTemplate(message: string): string {
  return (
    message
      // Quoted texts (JSON-escaped or not) first, so digits inside them do not count twice.
      .replace(/"(?:[^"\\]|\\.)*"/g, '"…"')
      .replace(/'(?:[^'\\]|\\.)*'/g, "'…'")
      .replace(/`[^`]*`/g, '`…`')
      // Places and where-first-seen notes name a file and line: one kind whatever the place.
      .replace(/\((?:first at|also) [^)]*\)/g, '(…)')
      .replace(/\b\d+(?:\.\d+)?\b/g, 'N')
  );
}

/** One row of a problem summary: a kind, how often it occurred, and its first occurrence. */
export interface ProblemKindCount {
  kind: string;
  severity: Problem['severity'];
  count: number;
  example: Problem;
}

/**
 * Counts problems by kind (see problemKind), keeping the first problem of each kind as its
 * example. `rows()` lists errors before warnings, then by count (most first), then by kind.
 */
export class ProblemSummary {
  private byKind = new Map<string, ProblemKindCount>();

  add(p: Problem): void {
    const kind = problemKind(p);
    const row = this.byKind.get(kind);
    if (row) row.count++;
    else this.byKind.set(kind, { kind, severity: p.severity, count: 1, example: p });
  }

  rows(): ProblemKindCount[] {
    return [...this.byKind.values()].sort(
      (a, b) => (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1) || b.count - a.count || cmp(a.kind, b.kind),
    );
  }
}

/** The summary as text lines: `COUNT  KIND` then `  e.g. <the example, formatted>`. */
export function formatProblemSummary(rows: readonly ProblemKindCount[]): string {
  if (rows.length === 0) return 'problem kinds: none\n';
  const width = String(Math.max(...rows.map((r) => r.count))).length;
  let out = `problem kinds (${rows.length}):\n`;
  for (const r of rows) out += `${String(r.count).padStart(width)}  ${r.kind}\n${' '.repeat(width)}    e.g. ${formatProblem(r.example)}\n`;
  return out;
}
