import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTrajectories } from '../src/trajectory/read.js';
import { readJsonlLines, readJsonlRanges, readLineSpans } from '../src/util/jsonl.js';
import { makeTmp, writeTree } from './helpers/tmp.js';

let tmp: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  tmp = await makeTmp('hsa-ranges-');
});
afterAll(async () => {
  await tmp.cleanup();
});

async function file(name: string, content: string | Uint8Array): Promise<string> {
  await writeTree(tmp.dir, { [name]: content });
  return path.join(tmp.dir, name);
}

/** The lines as the byte reader hands them out, decoded here (the range object is reused, so each is taken at once). */
async function ranges(f: string): Promise<{ line: number; text: string }[]> {
  const out: { line: number; text: string }[] = [];
  for await (const r of readJsonlRanges(f)) out.push({ line: r.line, text: r.buf.toString('utf8', r.start, r.end) });
  return out;
}

async function decoded(f: string): Promise<{ line: number; text: string }[]> {
  const out: { line: number; text: string }[] = [];
  for await (const l of readJsonlLines(f)) out.push(l);
  return out;
}

describe('readJsonlRanges (the bytes worker threads are sent)', () => {
  it('skips exactly the lines trim() makes empty, Unicode white space included, and keeps line numbers', async () => {
    const f = await file(
      'ws.jsonl',
      ['\uFEFF{"id":"a"}\r', '   \t', '\u3000', '\u00A0\u2028', '\u3000{"id":"b"}', '', '{"id":"c"}\r', '\r', '\u00E9'].join('\n'),
    );
    const expected = [
      { line: 1, text: '{"id":"a"}' },
      { line: 5, text: '\u3000{"id":"b"}' },
      { line: 7, text: '{"id":"c"}' },
      { line: 9, text: '\u00E9' },
    ];
    expect(await ranges(f)).toEqual(expected);
    expect(await decoded(f)).toEqual(expected);
  });

  it('hands over invalid UTF-8 and lines longer than the read buffer as bytes', async () => {
    const long = `{"id":"long","pad":"${'x'.repeat(3 << 20)}"}`;
    const bad = Buffer.concat([
      Buffer.from('{"id":"'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}\n'),
      Buffer.from(`${long}\n`),
      Buffer.from([0xc2, 0xa0, 0x0a]),
    ]);
    const f = await file('bytes.jsonl', bad);
    const got = await ranges(f);
    expect(got.map((l) => l.line)).toEqual([1, 2]);
    expect(got[0]!.text).toBe('{"id":"\uFFFD\uFFFD"}');
    expect(got[1]!.text).toBe(long);
    expect(await decoded(f)).toEqual(got);
  });
});

/** Every step of the span reader: its lines decoded at once (the buffer is reused after the step). */
async function steps(f: string): Promise<{ line: number; text: string }[][]> {
  const out: { line: number; text: string }[][] = [];
  for await (const { buf, spans } of readLineSpans(f)) {
    const step: { line: number; text: string }[] = [];
    for (let i = 0; i < spans.length; i += 3) step.push({ line: spans[i]!, text: buf.toString('utf8', spans[i + 1], spans[i + 2]) });
    out.push(step);
  }
  return out;
}

describe('readLineSpans (a step per read chunk, under the other readers)', () => {
  it('a BOM, CRLF, blank lines and a last line without a newline (a step of its own, known at the end of the file)', async () => {
    const f = await file('small.jsonl', '\uFEFF{"id":"a"}\r\n\r\n{"id":"b"}\n\n  \n{"id":"c"}');
    const expected = [
      { line: 1, text: '{"id":"a"}' },
      { line: 3, text: '{"id":"b"}' },
      { line: 6, text: '{"id":"c"}' },
    ];
    expect(await steps(f)).toEqual([expected.slice(0, 2), expected.slice(2)]);
    expect(await decoded(f)).toEqual(expected);
  });

  it('a file of several read chunks comes in several steps, line numbers running on, no line split or lost', async () => {
    // ~3 MB of lines with multi-byte text, so chunk boundaries fall inside lines and inside characters.
    const want = Array.from({ length: 30000 }, (_, i) => ({ line: 2 * i + 1, text: JSON.stringify({ id: `r${i}`, t: 'é€'.repeat(i % 40) }) }));
    const f = await file('many.jsonl', want.map((l) => `${l.text}\r\n\n`).join(''));
    const got = await steps(f);
    expect(got.length).toBeGreaterThan(2);
    expect(got.every((s) => s.length > 0)).toBe(true);
    expect(got.flat()).toEqual(want);
    expect(await decoded(f)).toEqual(want);
  });

  it('an empty file has no steps; a stopped consumer closes the file', async () => {
    expect(await steps(await file('empty.jsonl', '\n\r\n'))).toEqual([]);
    const f = await file('stop.jsonl', '{"id":"a"}\n{"id":"b"}\n');
    for await (const s of readLineSpans(f)) {
      expect(s.spans.slice(0, 1)).toEqual([1]);
      break;
    }
  });
});

describe('readTrajectories over the span reader', () => {
  it('invalid UTF-8 and invalid JSON lines are problems with the file and line; the lines around them are read', async () => {
    const rec = (id: string) => JSON.stringify({ id, messages: [{ role: 'user', content: 'hi' }] });
    const f = await file(
      'bad.jsonl',
      Buffer.concat([
        Buffer.from(`\uFEFF${rec('a')}\r\n\n`),
        Buffer.from('{"id":"b","messages":[{"role":"user","content":"'),
        Buffer.from([0xff]),
        Buffer.from('"}],"x":1}\n{"id": \n'),
        Buffer.from(rec('d')),
      ]),
    );
    const got: { line: number; ok: boolean; detail: string }[] = [];
    for await (const it of readTrajectories(f))
      got.push({ line: it.line, ok: it.ok, detail: it.ok ? it.record.id : it.problems.map((p) => `${p.file}:${p.line} ${p.path}`).join('; ') });
    expect(got).toEqual([
      { line: 1, ok: true, detail: 'a' },
      { line: 3, ok: false, detail: `${f}:3 (record)` },
      { line: 4, ok: false, detail: `${f}:4 (json)` },
      { line: 5, ok: true, detail: 'd' },
    ]);
  });
});
