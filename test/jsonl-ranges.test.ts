import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJsonlLines, readJsonlRanges } from '../src/util/jsonl.js';
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
