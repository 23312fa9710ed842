import { describeIssue } from '../harness/schema.js';
import type { Problem } from '../problems.js';
import { readJsonlLines } from '../util/jsonl.js';
import { isTrajectoryShape, trajectorySchema } from './schema.js';
import type { Trajectory } from './types.js';

export type ReadItem =
  | { ok: true; file: string; line: number; record: Trajectory; text: string }
  | { ok: false; file: string; line: number; text: string; problems: Problem[] };

/**
 * Stream the records of one JSONL file, each parsed and shape-checked. A bad line comes back as a
 * problem list (with file, line, id when known, and field), never as a throw. The record is the
 * parsed JSON itself, so keys keep their input order.
 */
export async function* readTrajectories(file: string): AsyncGenerator<ReadItem> {
  for await (const { line, text } of readJsonlLines(file)) {
    yield parseTrajectoryLine(file, line, text);
  }
}

export function parseTrajectoryLine(file: string, line: number, text: string): ReadItem {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, file, line, text, problems: [{ file, line, path: '(json)', message: `not valid JSON: ${(e as Error).message}`, severity: 'error' }] };
  }
  if (isTrajectoryShape(value)) return { ok: true, file, line, record: value as Trajectory, text };
  const r = trajectorySchema.safeParse(value, { reportInput: true });
  if (!r.success) {
    const id = value !== null && typeof value === 'object' && typeof (value as { id?: unknown }).id === 'string' ? (value as { id: string }).id : undefined;
    const problems = r.error.issues.map((issue): Problem => {
      const d = describeIssue(issue);
      return { file, line, ...(id !== undefined ? { id } : {}), path: d.path.join('.') || '(record)', message: roleHint(d.message, issue), severity: 'error' };
    });
    return { ok: false, file, line, text, problems };
  }
  return { ok: true, file, line, record: value as Trajectory, text };
}

function roleHint(message: string, issue: { code: string; path: PropertyKey[] }): string {
  if (issue.code === 'invalid_union' && issue.path[issue.path.length - 1] === 'role') {
    return 'role must be one of system, developer, user, assistant, tool';
  }
  return message;
}
