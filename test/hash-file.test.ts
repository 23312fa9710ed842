import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hashFile } from '../src/output/out-folder.js';

const dir = mkdtempSync(path.join(tmpdir(), 'hsa-hash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// hashFile reads in 1 MB chunks: files shorter than one, of exactly one, and of several (with a
// short last chunk) hash as the whole file does.
describe('hashFile', () => {
  for (const size of [0, 5, 1 << 20, (1 << 20) + 1, 3 * (1 << 20) + 12345]) {
    it(`${size} bytes`, async () => {
      const bytes = Buffer.alloc(size);
      for (let i = 0; i < size; i++) bytes[i] = (i * 131 + (i >> 11)) & 0xff;
      const file = path.join(dir, `f${size}`);
      writeFileSync(file, bytes);
      expect(await hashFile(file)).toEqual({ sha256: createHash('sha256').update(bytes).digest('hex'), bytes: size });
    });
  }
  it('a missing file is HSA_UNREADABLE', async () => {
    await expect(hashFile(path.join(dir, 'none'))).rejects.toMatchObject({ code: 'HSA_UNREADABLE' });
  });
});
