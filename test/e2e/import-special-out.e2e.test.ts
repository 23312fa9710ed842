import { spawnSync } from 'node:child_process';
import { createReadStream, lstatSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runHsaAsync } from '../helpers/hsa.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

afterAll(() => removeTempDirs());

describe('hsa import --out a path that is not a regular file', () => {
  // `--out /dev/null` (or a FIFO a pipeline reads) used to get a temporary file renamed onto it,
  // which replaced the device with a regular file. Such a target is written directly.
  it('writes every line into a FIFO and leaves it a FIFO', async () => {
    const dir = tempDir('hsa-fifo-');
    const src = path.join(dir, 'in.jsonl');
    const rec = (i: number) => ({
      id: `r${i}`,
      messages: [
        { role: 'user', content: `hi ${i}` },
        { role: 'assistant', content: 'hello' },
      ],
    });
    writeFileSync(src, [0, 1, 2].map((i) => JSON.stringify(rec(i))).join('\n') + '\n');
    const fifo = path.join(dir, 'out.fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const read = new Promise<string>((resolve, reject) => {
      let text = '';
      createReadStream(fifo, 'utf8')
        .on('data', (c) => (text += String(c)))
        .on('end', () => resolve(text))
        .on('error', reject);
    });
    const r = await runHsaAsync(['import', '--from', 'openai-log', src, '--out', fifo]);
    expect(r.code, r.stderr).toBe(0);
    const lines = (await read)
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { id: string }).id);
    expect(lines).toEqual(['r0', 'r1', 'r2']);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });
});
