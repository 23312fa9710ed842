import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, runHsaAsync } from '../helpers/hsa.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { readJsonl } from '../helpers/tree.js';

afterAll(removeTempDirs);

describe('SFT records without an assistant turn', () => {
  it('are counted in the summary and the manifest, and with --skip-empty-sft go to rejects with their kind', async () => {
    const dir = tempDir('hsa-sft-empty-');
    const lines = readFileSync(path.join(REPO, 'fixtures/live-commerce/trajectories.jsonl'), 'utf8').split('\n').filter(Boolean).slice(0, 5);
    // Two records cut before their first answer (a prompt set, or logs of turns the model never answered).
    const cut = lines.slice(0, 2).map((l) => {
      const r = JSON.parse(l) as { id: string; messages: { role: string }[] };
      const first = r.messages.findIndex((m) => m.role === 'assistant');
      return JSON.stringify({ ...r, id: `${r.id}-unanswered`, messages: r.messages.slice(0, first) });
    });
    const input = path.join(dir, 'in.jsonl');
    writeFileSync(input, `${[...lines, ...cut].join('\n')}\n`);
    const args = (out: string, ...more: string[]) => [
      'augment',
      '--no-gzip',
      '--harness',
      path.join(REPO, 'fixtures/live-commerce/harness'),
      '-t',
      input,
      '-o',
      path.join(dir, out),
      '-k',
      '2',
      '--stages',
      'sft,opd',
      '--json',
      ...more,
    ];

    const [kept, skipped, text] = await Promise.all([
      runHsaAsync(args('kept')),
      runHsaAsync(args('skipped', '--skip-empty-sft')),
      runHsaAsync(args('text', '--skip-empty-sft').filter((a) => a !== '--json')),
    ]);
    expect(kept.code, kept.stderr).toBe(0);
    const k = JSON.parse(kept.stdout);
    expect(k.totals.sft_without_assistant).toBe(4);
    expect(JSON.parse(readFileSync(path.join(dir, 'kept/manifest.json'), 'utf8')).totals.sft_without_assistant).toBe(4);
    const keptSft = readJsonl(path.join(dir, 'kept/sft/part-00000.jsonl'));
    expect(keptSft.filter((r) => String(r.id).includes('-unanswered'))).toHaveLength(4);

    expect(skipped.code, skipped.stderr).toBe(0);
    const s = JSON.parse(skipped.stdout);
    expect(s.totals.sft_without_assistant).toBe(4);
    expect(s.rejectReasons).toEqual({ sft_no_assistant: 4 });
    const sft = readJsonl(path.join(dir, 'skipped/sft/part-00000.jsonl'));
    expect(sft.map((r) => r.id)).toEqual(keptSft.filter((r) => !String(r.id).includes('-unanswered')).map((r) => r.id));
    const rejects = readJsonl(path.join(dir, 'skipped/rejects/part-00000.jsonl'));
    expect(rejects.map((r) => [r.kind, r.reason_kind, r.id])).toEqual(
      cut.flatMap((l) => [0, 1].map((v) => ['sft', 'sft_no_assistant', `${JSON.parse(l).id}~v${v}`])),
    );
    // The text summary says so, too.
    expect(text.code, text.stderr).toBe(0);
    expect(text.stderr).toContain('4 SFT records without an assistant turn skipped to rejects');
  });
});
