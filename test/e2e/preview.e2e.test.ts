import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, runHsaAsync } from '../helpers/hsa.js';

const H = 'fixtures/live-commerce/harness';
const T = 'fixtures/live-commerce/trajectories.jsonl';
const PLUGIN = 'fixtures/plugins/skill-suffix.mjs';
const sourceLine = (id: string) =>
  readFileSync(path.join(REPO, T), 'utf8')
    .split('\n')
    .find((l) => l.includes(`"id":"${id}"`))!;

describe('hsa preview and hsa transforms', () => {
  it('is byte-identical for the same seed, and a different seed changes at least 95% of variants', async () => {
    const args = (seed: string) => ['preview', H, '-t', T, '--id', 'lc-000037', '-k', '40', '--seed', seed, '--json'];
    const [a, b, c] = await Promise.all([runHsaAsync(args('1')), runHsaAsync(args('1')), runHsaAsync(args('2'))]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.stdout).toBe(a.stdout);
    const va = JSON.parse(a.stdout).variants as { stateHash: string; record: unknown; ok: boolean }[];
    const vc = JSON.parse(c.stdout).variants as { stateHash: string; record: unknown }[];
    expect(va).toHaveLength(40);
    expect(va.every((v) => v.ok)).toBe(true);
    const changed = va.filter((v, i) => JSON.stringify(v.record) !== JSON.stringify(vc[i]!.record)).length;
    expect(changed / va.length).toBeGreaterThanOrEqual(0.95);
  });

  it('gives the source record back byte for byte when every probability is 0', async () => {
    const r = await runHsaAsync(['preview', H, '-t', T, '--id', 'lc-000037', '-k', '3', '--probability', '0', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { variants: { record: unknown; transforms: unknown[] }[] };
    for (const v of out.variants) {
      expect(v.transforms).toEqual([]);
      expect(JSON.stringify(v.record)).toBe(sourceLine('lc-000037'));
    }
  });

  it('prints plan tables and check results for a person', async () => {
    const r = await runHsaAsync(['preview', H, '-t', T, '--id', 'lc-000037', '-k', '2', '--transforms', 'tools.rename', '--seed', '3']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('== lc-000037~v0');
    expect(r.stdout).toMatch(/tools:\n\s+\S+\s+→ \S+/);
    expect(r.stderr).toContain('2 passed every check, 0 failed');
  });

  it('refuses a behavioural transform in rewrite mode, naming it', async () => {
    const r = await runHsaAsync(['preview', H, '-t', T, '--id', 'lc-000037', '--transforms', 'nope.nothing']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown transform "nope.nothing"');
  });

  it('lists and uses a user transform from a plugin file', async () => {
    const list = await runHsaAsync(['transforms', '--plugin', PLUGIN, '--json']);
    expect(list.code, list.stderr).toBe(0);
    const rows = JSON.parse(list.stdout) as { id: string; defaults: Record<string, unknown> }[];
    expect(rows.find((r) => r.id === 'tools.suffix-plugin')?.defaults).toEqual({ p: 1, suffix: '_ext' });
    const text = await runHsaAsync(['transforms', '--plugin', PLUGIN]);
    expect(text.stdout).toContain('tools.suffix-plugin  (tools, exact, v1)');
    const r = await runHsaAsync(['preview', H, '-t', T, '--id', 'lc-000037', '-k', '1', '--plugin', PLUGIN, '--transforms', 'tools.suffix-plugin', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const v = JSON.parse(r.stdout).variants[0];
    expect(v.transforms[0].id).toBe('tools.suffix-plugin');
    expect(v.plan.tools.load_skill).toBe('load_skill_ext');
    expect(v.ok).toBe(true);
  });

  it('reports a plugin that is not a transform', async () => {
    const r = await runHsaAsync(['transforms', '--plugin', 'fixtures/general/README.md']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('fixtures/general/README.md: cannot load plugin');
  });
});
