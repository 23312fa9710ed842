import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TeacherCache } from '../src/llm/cache.js';

// The cache writes its files from a worker thread: what lands on disk, what a reader gets back,
// how a write that cannot be done is reported, and that the worker does not hold a process open.
const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(path.join(os.tmpdir(), 'hsa-cache-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const answer = (i: number) => ({ id: `chatcmpl-${i}`, choices: [{ index: 0, message: { role: 'assistant', content: `答 ${i}` }, finish_reason: 'stop' }] });

describe('TeacherCache', () => {
  it('stores each answer as <key[0:2]>/<key>.json (JSON and a newline), leaves no temporary file, and reads it back', async () => {
    const dir = tmp();
    const cache = new TeacherCache(dir);
    const keys = Array.from({ length: 300 }, (_, i) =>
      TeacherCache.key('http://127.0.0.1:1/v1', { model: 'm', messages: [{ role: 'user', content: String(i) }] }),
    );
    await Promise.all(keys.map((k, i) => cache.put(k, answer(i))));
    for (const [i, k] of keys.entries()) {
      expect(readFileSync(path.join(dir, k.slice(0, 2), `${k}.json`), 'utf8')).toBe(`${JSON.stringify(answer(i))}\n`);
      expect(await cache.get(k)).toEqual(answer(i));
    }
    const files = readdirSync(dir, { recursive: true }).map(String);
    expect(files.filter((f) => f.endsWith('.tmp'))).toEqual([]);
    // A fresh cache object (another process) lists what is there.
    expect(await new TeacherCache(dir).get(keys[7]!)).toEqual(answer(7));
  });

  it('rejects a write that cannot be done with the file system error, and keeps working for the next one', async () => {
    const dir = tmp();
    writeFileSync(path.join(dir, 'not-a-folder'), 'x');
    const broken = new TeacherCache(path.join(dir, 'not-a-folder'));
    const key = TeacherCache.key('http://x/v1', { model: 'm' });
    await expect(broken.put(key, answer(1))).rejects.toThrow(/ENOTDIR|EEXIST/);
    const ok = new TeacherCache(path.join(dir, 'ok'));
    await ok.put(key, answer(2));
    expect(await ok.get(key)).toEqual(answer(2));
  });

  it('lets the process end once its writes are done', () => {
    const dir = tmp();
    // The built module (as the e2e tests run bin/hsa from dist/).
    const src = path.resolve('dist/src/llm/cache.js');
    // A child that stores one answer and does nothing else: it must exit by itself (the timeout fails it otherwise).
    const code = `import { TeacherCache } from ${JSON.stringify(src)}; await new TeacherCache(${JSON.stringify(dir)}).put('ab12', { ok: 1 }); console.log('stored');`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', timeout: 20_000 });
    expect(out.trim()).toBe('stored');
    expect(readFileSync(path.join(dir, 'ab', 'ab12.json'), 'utf8')).toBe('{"ok":1}\n');
  });
});
