import { open, readFile } from 'node:fs/promises';
import { UnreadableInputError } from '../errors.js';
import { readJsonlLines } from '../util/jsonl.js';

/** One source record's text and the 1-based line it starts on. */
export interface SourceText {
  line: number;
  text: string;
}

/**
 * The records of a source file: JSONL (one record a line, streamed), or — when the first
 * non-blank character is `[` — one JSON array of records (as LLaMA-Factory and many published
 * sets ship them), read whole and split into its elements, each with the line it starts on, so a
 * bad element is reported on its own and the others still convert.
 */
export async function* readSourceRecords(file: string): AsyncGenerator<SourceText> {
  if ((await firstChar(file)) !== '[') {
    yield* readJsonlLines(file);
    return;
  }
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new UnreadableInputError(`${file}: cannot read (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  yield* arrayElements(text.replace(/^\uFEFF/, ''));
}

async function firstChar(file: string): Promise<string | undefined> {
  let fh;
  try {
    fh = await open(file, 'r');
  } catch (e) {
    throw new UnreadableInputError(
      `${file}: cannot read (${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : ((e as NodeJS.ErrnoException).code ?? 'error')})`,
    );
  }
  try {
    const buf = Buffer.alloc(4096);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    const m = /[^\s\uFEFF]/.exec(buf.subarray(0, bytesRead).toString('utf8'));
    return m?.[0];
  } finally {
    await fh.close();
  }
}

/** The top-level elements of a JSON array text, found by bracket depth outside strings. */
export function* arrayElements(text: string): Generator<SourceText> {
  let line = 1;
  let depth = 0;
  let inString = false;
  let start = -1;
  let startLine = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\n') line++;
    if (inString) {
      if (c === '\\') {
        if (text[i + 1] === '\n') line++;
        i++;
      } else if (c === '"') inString = false;
      continue;
    }
    if (depth === 1 && start < 0 && !/[\s,\]]/.test(c)) {
      start = i;
      startLine = line;
    }
    if (c === '"') inString = true;
    else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') {
      depth--;
      if (depth === 0) {
        if (start >= 0) yield { line: startLine, text: text.slice(start, i).trim() };
        return;
      }
    }
    if (depth === 1 && start >= 0 && c === ',') {
      yield { line: startLine, text: text.slice(start, i).trim() };
      start = -1;
    }
  }
  // An array that never closes: what was started is still one (bad) element.
  if (start >= 0) yield { line: startLine, text: text.slice(start).trim() };
}
