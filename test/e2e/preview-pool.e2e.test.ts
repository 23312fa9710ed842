import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, runHsaAsync } from '../helpers/hsa.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { readJsonl } from '../helpers/tree.js';
import { expectPreviewMatchesSft } from '../helpers/preview.js';

afterAll(removeTempDirs);

// `hsa preview` shows the variants `hsa augment` writes: the same pooled states (or, with
// --state-pool 0, the same per-variant states), byte for byte.
const IDS = ['lc-000003', 'lc-000011', 'lc-000037'];

describe('hsa preview = hsa augment', () => {
  it.each([
    ['the default pool', []],
    ['--state-pool 0', ['--state-pool', '0']],
  ] as const)("with %s, variant K of a record equals augment's ID~vK (messages and tools)", async (_what, poolFlag) => {
    const dir = tempDir('hsa-preview-pool-');
    const input = path.join(dir, 'in.jsonl');
    const lines = readFileSync(path.join(REPO, 'fixtures/live-commerce/trajectories.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => IDS.some((id) => l.includes(`"id":"${id}"`)));
    expect(lines).toHaveLength(IDS.length);
    writeFileSync(input, `${lines.join('\n')}\n`);
    const cfg = path.join(dir, 'hsa.yaml');
    // The fixture's transform selection and options, with arguments kept as strings (as preview prints them).
    const fixture = readFileSync(path.join(REPO, 'fixtures/live-commerce/hsa.yaml'), 'utf8');
    const transforms = fixture.slice(fixture.indexOf('\ntransforms:'));
    writeFileSync(
      cfg,
      [
        `harness: ${path.join(REPO, 'fixtures/live-commerce/harness')}`,
        `trajectories: [${input}]`,
        'out: out',
        'seed: 21',
        'variants: 4',
        'stages: [sft]',
        'arguments: string',
        transforms,
      ].join('\n'),
    );
    const a = await runHsaAsync(['augment', '--no-gzip', '--config', cfg, '-q', ...poolFlag]);
    expect(a.code, a.stderr).toBe(0);
    const sft = new Map(readJsonl(path.join(dir, 'out/sft/part-00000.jsonl')).map((r) => [r.id, r]));
    let compared = 0;
    const previews = await Promise.all(
      IDS.map((id) =>
        runHsaAsync(['preview', path.join(REPO, 'fixtures/live-commerce/harness'), '-t', input, '--id', id, '-k', '4', '--config', cfg, '--json', ...poolFlag]),
      ),
    );
    for (const p of previews) {
      expect([0, 1], p.stderr).toContain(p.code);
      const matched = expectPreviewMatchesSft(p.stdout, sft);
      if (poolFlag[1] === '0') for (const v of matched) expect(v.slot).toBeNull();
      compared += matched.length;
    }
    expect(compared).toBeGreaterThanOrEqual(IDS.length * 3);
  });
});
