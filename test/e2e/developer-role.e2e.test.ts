import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runChecker, tamperedCopy } from '../helpers/checker.js';
import { REPO, runHsaAsync } from '../helpers/hsa.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

/**
 * OpenAI's `developer` role (reasoning models' logs put the instructions there, first or later)
 * and a later system message that is not hook feedback, naming the tools
 * (fixtures/ingest/developer-role). Their mentions follow the renames, as the assistant's do;
 * before, a developer message was passed through as written, and every variant that renamed a tool
 * it names was rejected by the leak check (31 of 64), and a later system message was an error.
 */

const FIXTURE = path.join(REPO, 'fixtures/ingest/developer-role/records.jsonl');

afterAll(() => removeTempDirs());

type Out = { meta: { transforms: { id: string; params?: { renamed?: Record<string, string> } }[] }; messages: { role: string; content: string | null }[] };
const checker = (out: string) => runChecker(out, [FIXTURE]);

describe('developer messages and later system messages', () => {
  const dir = tempDir('hsa-developer-');
  const out = path.join(dir, 'out');

  it('every variant is written; developer text names the tools by their new names', async () => {
    const a = await runHsaAsync(['augment', '--no-gzip', '-t', FIXTURE, '-o', out, '-k', '8', '--stages', 'sft', '-q', '--json']);
    expect(a.code, a.stderr).toBe(0);
    expect((JSON.parse(a.stdout) as { totals: Record<string, number> }).totals).toMatchObject({
      valid_records: 12,
      variants_written: 96,
      variants_rejected: 0,
    });
    const sft = readFileSync(path.join(out, 'sft/part-00000.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Out);
    let renamed = 0;
    for (const r of sft) {
      const map = r.meta.transforms.find((t) => t.id === 'tools.rename')?.params?.renamed ?? {};
      const dev = r.messages
        .filter((m, i) => m.role === 'developer' || (m.role === 'system' && i > 0))
        .map((m) => m.content!)
        .join('\n');
      for (const [old, now] of Object.entries(map)) {
        if (old !== 'get_sky_report' && old !== 'book_dome_time') continue;
        renamed++;
        expect(dev).not.toMatch(new RegExp(`\\b${old}\\b`));
        if (old === 'book_dome_time' || dev.includes('before')) expect(dev).toContain(now);
      }
    }
    expect(renamed).toBeGreaterThan(0);
    const c = checker(out);
    expect(c.failures).toEqual({});
    expect(c.code).toBe(0);
  }, 60_000);

  it('the checker reads developer messages: an old name put back is a leak', () => {
    const part = path.join(out, 'sft/part-00000.jsonl');
    const lines = readFileSync(part, 'utf8').trim().split('\n');
    const k = lines.findIndex((l) =>
      (JSON.parse(l) as Out).meta.transforms.some((t) => t.id === 'tools.rename' && t.params?.renamed?.book_dome_time !== undefined),
    );
    expect(k).toBeGreaterThanOrEqual(0);
    const rec = JSON.parse(lines[k]!) as Out;
    const now = rec.meta.transforms.find((t) => t.id === 'tools.rename')!.params!.renamed!.book_dome_time!;
    const dev = rec.messages.find((m) => m.role === 'developer')!;
    dev.content = dev.content!.replaceAll(now, 'book_dome_time');
    const copy = tamperedCopy(out, path.join(dir, 'tampered'), k, JSON.stringify(rec));
    const c = checker(copy);
    expect(c.code).toBe(1);
    expect(c.failures.b_leak?.examples.join('\n')).toContain('(developer)');
  });

  it('a later system message validates; hook feedback must still name a real hook', async () => {
    const v = await runHsaAsync(['validate', '-t', FIXTURE]);
    expect(v.code, v.stdout + v.stderr).toBe(0);
    const bad = path.join(dir, 'bad-hook.jsonl');
    const first = JSON.parse(
      readFileSync(FIXTURE, 'utf8')
        .split('\n')
        .find((l) => l.includes('sys-later-0'))!,
    ) as { messages: { role: string; name?: string }[] };
    first.messages[2]!.name = 'hook:loop_guard';
    writeFileSync(bad, JSON.stringify(first) + '\n');
    const b = await runHsaAsync(['validate', '-t', bad]);
    expect(b.code).toBe(1);
    expect(b.stdout + b.stderr).toContain('messages.2.name: hook feedback names hook "loop_guard", which does not exist');
  });
});
