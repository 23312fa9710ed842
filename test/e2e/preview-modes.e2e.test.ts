import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, runHsaAsync } from '../helpers/hsa.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { readJsonl } from '../helpers/tree.js';
import { expectPreviewMatchesSft } from '../helpers/preview.js';

afterAll(removeTempDirs);

/**
 * Run augment (SFT only, string arguments as preview prints them) and preview on the same input,
 * then compare preview's variant K with augment's ID~vK byte for byte: written exactly when preview
 * says ok, and then the same messages, tools and pool slot. Returns how many were compared.
 */
async function compare(input: string, ids: string[], extra: string[], harness: string[] = []): Promise<number> {
  const dir = tempDir('hsa-preview-modes-');
  const a = await runHsaAsync([
    'augment',
    '--no-gzip',
    ...(harness.length ? ['--harness', harness[0]!] : []),
    '-t',
    input,
    '-o',
    path.join(dir, 'out'),
    '--seed',
    '5',
    '-k',
    '4',
    '--stages',
    'sft',
    '--arguments',
    'string',
    '-q',
    '--on-error',
    'skip',
    ...extra,
  ]);
  expect(a.code, a.stderr).toBe(0);
  const sft = new Map(readJsonl(path.join(dir, 'out/sft/part-00000.jsonl')).map((r) => [r.id as string, r]));
  let compared = 0;
  for (const id of ids) {
    const p = await runHsaAsync(['preview', ...harness, '-t', input, '--id', id, '-k', '4', '--seed', '5', '--json', ...extra]);
    expect([0, 1], p.stderr).toContain(p.code);
    compared += expectPreviewMatchesSft(p.stdout, sft).length;
  }
  return compared;
}

const idsOf = (file: string, n: number) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .slice(0, n)
    .map((l) => JSON.parse(l).id as string);

describe('hsa preview = hsa augment beyond the default harness mode', () => {
  it('without a harness, previews a record under its own tools and system message (inline), as augment writes it', async () => {
    const input = path.join(REPO, 'fixtures/ingest/inline/records.jsonl');
    const ids = idsOf(input, 3);
    expect(await compare(input, ids, [])).toBeGreaterThanOrEqual(ids.length * 3);
  });

  it("with --system-prompt locate, the record's own prompt text is kept as augment keeps it", async () => {
    const input = path.join(REPO, 'fixtures/ingest/helpdesk/wrapped.jsonl');
    const ids = idsOf(input, 3);
    const harness = [path.join(REPO, 'fixtures/ingest/helpdesk')];
    expect(await compare(input, ids, ['--system-prompt', 'locate'], harness)).toBeGreaterThanOrEqual(ids.length * 3);
    // Without locate the wrapped log does not match the harness: preview refuses it, naming the message.
    const p = await runHsaAsync(['preview', harness[0]!, '-t', input, '--id', ids[0]!]);
    expect(p.code).toBe(1);
    expect(p.stderr).toContain('messages.0.content');
  });

  it('with --words, variants draw from the chosen packs as augment does', async () => {
    const input = path.join(REPO, 'fixtures/ingest/inline/records.jsonl');
    const ids = idsOf(input, 2);
    expect(await compare(input, ids, ['--words', 'travel'])).toBeGreaterThanOrEqual(ids.length * 3);
  });
});
