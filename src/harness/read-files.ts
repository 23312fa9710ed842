import { readFile, readdir, stat } from 'node:fs/promises';
import { UnreadableInputError } from '../errors.js';
import { cmp } from '../problems.js';
import { stripBom } from '../util/located.js';

// File reads and text normalisation of the harness loader.

/** A file's text; an unreadable file is an UnreadableInputError naming why. */
export async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UnreadableInputError(`${file}: cannot read (${code === 'ENOENT' ? 'no such file' : (code ?? 'error')})`);
  }
}

/** Sorted entries of a folder; `null` when it does not exist and was required, `[]` when optional. */
export async function listDir(dir: string, required: boolean): Promise<string[] | null> {
  try {
    return (await readdir(dir)).sort(cmp);
  } catch {
    return required ? null : [];
  }
}

/** Whether a path is a folder (false when it does not exist). */
export async function isDir(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory();
  } catch {
    return false;
  }
}

/** Whether a path is a file (false when it does not exist). */
export async function isFile(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isFile();
  } catch {
    return false;
  }
}

/** The JSON.parse error of a text (with the line of its position when known), or undefined. */
export function jsonSyntaxError(text: string): { message: string; line?: number } | undefined {
  const body = stripBom(text);
  try {
    JSON.parse(body);
    return undefined;
  } catch (e) {
    const message = (e as Error).message;
    const pos = /at position (\d+)/.exec(message);
    if (!pos) return { message };
    return { message, line: body.slice(0, Number(pos[1])).split('\n').length };
  }
}

/**
 * CRLF line ends (files saved on Windows) read as `\n`. A lone carriage return is text, not a line
 * end: logged prompts carry them inside lines (API descriptions pasted from web pages), and a
 * prompt file written from such a log must render it back byte for byte.
 */
export function normaliseNewlines(s: string): string {
  return s.replace(/\r\n/g, '\n');
}

/** A plain object (not null, not an array). */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
