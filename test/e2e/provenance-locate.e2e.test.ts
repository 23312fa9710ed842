import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, runHsa } from '../helpers/hsa.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

// Provenance says only what was applied (issue 23, item 6). With --system-prompt locate the
// record's own text stands between the located sections, so prompt.spacing's section separator
// never shows; its meta entry must not claim it. In match mode the separator is rendered and stays.

afterAll(removeTempDirs);

function sftOf(out: string): any[] {
  const dir = path.join(out, 'sft');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .flatMap((f) =>
      readFileSync(path.join(dir, f), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    );
}
const spacingOf = (r: any) => r.meta.transforms.find((t: any) => t.id === 'prompt.spacing');

describe('meta.transforms of a located prompt', () => {
  it('records no section separator for a located prompt (it is never rendered there), only a title casing the sections show; match mode still records the separator it renders', () => {
    const dir = tempDir('hsa-prov-');
    const lines = readFileSync(path.join(REPO, 'fixtures/clinic/trajectories.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => {
        const r = JSON.parse(l);
        r.messages[0].content = `Desk log 7\n\n${r.messages[0].content}\n\n[end of desk prompt]`;
        return JSON.stringify(r);
      });
    const wrapped = path.join(dir, 'wrapped.jsonl');
    writeFileSync(wrapped, `${lines.join('\n')}\n`);
    const located = path.join(dir, 'located');
    const a = runHsa([
      'augment',
      '--no-gzip',
      '--harness',
      'fixtures/clinic/harness',
      '-t',
      wrapped,
      '-o',
      located,
      '-k',
      '8',
      '--system-prompt',
      'locate',
      '-q',
    ]);
    expect(a.code, a.stderr).toBe(0);
    const recs = sftOf(located);
    expect(recs).toHaveLength(lines.length * 8);
    const spaced = recs.filter(spacingOf);
    expect(spaced.length).toBeGreaterThan(0);
    for (const r of spaced) {
      const t = spacingOf(r);
      expect(t.params, r.id).not.toHaveProperty('separator');
      // What is left was applied: a title casing other than the harness's own, visible in the prompt.
      expect(t.params.titleCase, r.id).not.toBe('as-is');
    }
    // The same records in match mode (the logged prompt is the rendered harness): the separator is
    // recorded, and the system message shows it.
    const matched = path.join(dir, 'matched');
    const m = runHsa([
      'augment',
      '--no-gzip',
      '--harness',
      'fixtures/clinic/harness',
      '-t',
      'fixtures/clinic/trajectories.jsonl',
      '-o',
      matched,
      '-k',
      '8',
      '-q',
    ]);
    expect(m.code, m.stderr).toBe(0);
    const withSep = sftOf(matched).filter((r) => spacingOf(r)?.params.separator !== undefined);
    expect(withSep.length).toBeGreaterThan(0);
    for (const r of withSep) expect(r.messages[0].content, r.id).toContain(spacingOf(r).params.separator);
  });
});
