import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LineFileWriter } from '../src/util/line-writer.js';
import { makeTmp } from './helpers/tmp.js';

let tmp: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  tmp = await makeTmp('hsa-line-writer-');
});
afterAll(async () => tmp.cleanup());

/** A deterministic mix: short and long lines, non-Latin text, surrogate pairs, byte pieces. */
function lines(n: number): (string | (string | Uint8Array)[])[] {
  const out: (string | (string | Uint8Array)[])[] = [];
  for (let i = 0; i < n; i++) {
    const body = `{"i":${i},"t":"${'直播间 ✓ 😀 '.repeat(i % 7)}${'x'.repeat((i * 7919) % 3000)}"}`;
    if (i % 3 === 0) out.push([body.slice(0, 5), Buffer.from(body.slice(5, 40), 'utf8'), body.slice(40)]);
    else out.push(body);
  }
  // Lines longer than one buffer (1 MB), in ASCII and in three-byte characters.
  out.push(`{"big":"${'y'.repeat(3 << 20)}"}`, `{"big":"${'货'.repeat(1 << 20)}"}`, '{"after":true}');
  return out;
}

function expected(all: ReturnType<typeof lines>): Buffer {
  return Buffer.from(
    all.map((l) => (typeof l === 'string' ? l : l.map((p) => (typeof p === 'string' ? p : Buffer.from(p).toString('utf8'))).join(''))).join('\n') + '\n',
    'utf8',
  );
}

describe('LineFileWriter', () => {
  it('writes every line, pieces and lines longer than its buffers byte for byte, and renames into place on commit', async () => {
    const file = path.join(tmp.dir, 'sub', 'out.jsonl');
    const all = lines(6000);
    const w = await LineFileWriter.open(file);
    for (const l of all) {
      const wait = w.write(l);
      if (wait) await wait;
    }
    expect(existsSync(file)).toBe(false); // only the temporary name until commit
    await w.commit();
    expect(w.lines).toBe(all.length);
    const got = await readFile(file);
    expect(got.length).toBe(expected(all).length);
    expect(got.equals(expected(all))).toBe(true);
    expect(existsSync(`${file}.tmp`)).toBe(false);
  });

  it('gives the same bytes whether or not the caller waits for each write before the next', async () => {
    const all = lines(3000);
    const file = path.join(tmp.dir, 'nowait.jsonl');
    const w = await LineFileWriter.open(file);
    const waits: Promise<void>[] = [];
    for (const l of all) {
      const wait = w.write(l);
      if (wait) waits.push(wait);
    }
    await Promise.all(waits);
    await w.commit();
    expect((await readFile(file)).equals(expected(all))).toBe(true);
  });

  it('short texts between byte pieces (copied by hand when ASCII) keep their UTF-8: accents, emoji, lone surrogates, at a buffer edge', async () => {
    const shorts = ['', ',', '","b":', 'é', '€"', 'a😀', '\ud800', 'x\udc00y', '0123456789abcdef', '0123456789abcdefg', '\u007f\u0080'];
    const all: (string | (string | Uint8Array)[])[] = [];
    for (let i = 0; i < 4000; i++) {
      const s = shorts[i % shorts.length]!;
      all.push([s, Buffer.from(`{"n":${i},"pad":"${'p'.repeat((i * 31) % 700)}"`), s, Buffer.from('}'), s]);
    }
    const file = path.join(tmp.dir, 'short.jsonl');
    const w = await LineFileWriter.open(file);
    for (const l of all) {
      const wait = w.write(l);
      if (wait) await wait;
    }
    await w.commit();
    expect((await readFile(file)).equals(expected(all))).toBe(true);
  });

  it('a full buffer goes to the file without a wait; the write before it is waited for only while it is still going', async () => {
    const file = path.join(tmp.dir, 'handover.jsonl');
    const w = await LineFileWriter.open(file);
    const line = 'z'.repeat(1000);
    const handed: Promise<void>[] = [];
    // Two buffer handovers (a buffer goes at 15/16 of 1 MB), written in one go: nothing in flight can finish meanwhile.
    for (let i = 0; i < 2500; i++) {
      const r = w.write(line);
      if (r !== undefined) handed.push(r);
    }
    expect(handed.length).toBe(1); // the second handover, the first write still going
    await handed[0];
    await w.commit();
    expect((await readFile(file)).equals(Buffer.from(`${line}\n`.repeat(2500)))).toBe(true);
  });

  it('abort leaves neither the file nor its temporary', async () => {
    const file = path.join(tmp.dir, 'aborted.jsonl');
    const w = await LineFileWriter.open(file);
    for (const l of lines(2000)) await w.write(l);
    await w.abort();
    expect(existsSync(file)).toBe(false);
    expect(existsSync(`${file}.tmp`)).toBe(false);
  });

  it('commitAll puts every file in place with its lines, none before, and a direct target is written as is', async () => {
    const a = path.join(tmp.dir, 'all', 'a.jsonl');
    const b = path.join(tmp.dir, 'all', 'b.jsonl');
    const wa = await LineFileWriter.open(a);
    const wb = await LineFileWriter.open(b);
    const wn = await LineFileWriter.open('/dev/null');
    const all = lines(500);
    for (const l of all) {
      await wa.write(l);
      await wn.write(l);
    }
    await wb.write('{"only":1}');
    expect(existsSync(a) || existsSync(b)).toBe(false);
    await LineFileWriter.commitAll([wa, wb, wn]);
    expect(await readFile(a)).toEqual(expected(all));
    expect(await readFile(b, 'utf8')).toBe('{"only":1}\n');
    expect(existsSync(`${a}.tmp`) || existsSync(`${b}.tmp`)).toBe(false);
    expect([wa.lines, wb.lines]).toEqual([all.length, 1]);
  });
});
