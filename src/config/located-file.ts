import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { ConfigError, UnreadableInputError } from '../errors.js';
import { describeIssue } from '../harness/schema.js';
import { isParseFailure, parseLocated, type LocatedDoc } from '../util/located.js';

/** Read a YAML/JSON file against a strict schema; every problem at once as `file:line: key.path: message`. */
export async function readLocated<S extends z.ZodType>(file: string, schema: S, what: string): Promise<{ data: z.infer<S>; doc: LocatedDoc }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new UnreadableInputError(`${file}: cannot read ${what}`);
  }
  const doc = parseLocated(file, text);
  if (isParseFailure(doc)) throw new ConfigError(`${file}:${doc.line ?? 1}: syntax: ${doc.message}`);
  const r = schema.safeParse(doc.value ?? {});
  if (!r.success) {
    throw new ConfigError(
      r.error.issues
        .map((issue) => {
          const d = describeIssue(issue);
          const at = issue.code === 'unrecognized_keys' && issue.keys[0] !== undefined ? [...d.path, issue.keys[0]] : d.path;
          const line = doc.lineOf(at);
          return `${file}${line ? `:${line}` : ''}: ${d.path.join('.') || '(root)'}: ${d.message}`;
        })
        .join('\n'),
    );
  }
  return { data: r.data, doc };
}
