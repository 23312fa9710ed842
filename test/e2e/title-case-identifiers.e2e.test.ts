import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runChecker } from '../helpers/checker.js';
import { REPO } from '../helpers/hsa.js';
import { augmentWith } from '../helpers/one-transform.js';
import { removeTempDirs } from '../helpers/tmp.js';

/**
 * A section title that names tools (fixtures/clinic: `# Rules for find_patient and lab.get_result`)
 * under the heading styles and title cases of `prompt.heading-style` and `prompt.spacing`, with the
 * tools renamed or not: `FIND_PATIENT` or `Find_patient` name no tool (names are case-sensitive),
 * and neither the leak check nor the rules check (which compares lower-cased text) saw it.
 */

afterAll(() => removeTempDirs());

describe('a title case never changes an identifier in the title', () => {
  it('the title spells each tool exactly as the variant names it', async () => {
    const harness = path.join(REPO, 'fixtures/clinic/harness');
    const trajectories = path.join(REPO, 'fixtures/clinic/trajectories.jsonl');
    const a = await augmentWith(
      ['prompt.heading-style: { p: 1 }', 'prompt.spacing: { p: 1 }', 'tools.rename: { p: 0.5 }'],
      ['--harness', harness, '-t', trajectories, '-k', '8', '--seed', '1', '--stages', 'sft'],
    );
    expect(a.code, a.stderr).toBe(0);
    const cases = new Set<string>();
    for (const line of readFileSync(path.join(a.out, 'sft/part-00000.jsonl'), 'utf8').trim().split('\n')) {
      const r = JSON.parse(line) as { id: string; messages: { content: string }[]; meta: { transforms: { id: string; params?: Record<string, unknown> }[] } };
      const renamed = (r.meta.transforms.find((t) => t.id === 'tools.rename')?.params?.renamed ?? {}) as Record<string, string>;
      const title = r.messages[0]!.content.split('\n').find((l) => /rules for/i.test(l))!;
      expect(title, r.id).toBeDefined();
      cases.add(/RULES FOR/.test(title) ? 'upper' : /Rules For/.test(title) ? 'title' : /rules for/.test(title) ? 'lower' : 'as-is');
      expect(title, r.id).toContain(renamed.find_patient ?? 'find_patient');
      expect(title, r.id).toContain(renamed.lab_get_result ?? 'lab.get_result');
    }
    expect(cases.has('upper') && cases.has('title')).toBe(true);
    expect(runChecker(a.out, [trajectories], harness).failures).toEqual({});
  }, 60_000);
});
