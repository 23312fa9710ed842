import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runChecker } from '../helpers/checker.js';
import { REPO } from '../helpers/hsa.js';
import { augmentWith } from '../helpers/one-transform.js';
import { removeTempDirs } from '../helpers/tmp.js';

/**
 * `prompt.list-style` on items with nested lists and continuation lines (fixtures/clinic's style
 * section: a nested list indented by two, a hard line break, a tab-indented note, a Chinese list
 * hsa does not restyle). Under a wider marker (`1.` for `-`) the nested lines stayed two columns
 * in, left of the item's content column: in Markdown they were no longer part of the item.
 */

afterAll(() => removeTempDirs());

describe('a list item keeps its nested lines under a wider marker', () => {
  it('every nested or continued line stands at or right of its item content column', async () => {
    const harness = path.join(REPO, 'fixtures/clinic/harness');
    const trajectories = path.join(REPO, 'fixtures/clinic/trajectories.jsonl');
    const a = await augmentWith('prompt.list-style: { p: 1 }', ['--harness', harness, '-t', trajectories, '-k', '8', '--seed', '5', '--stages', 'sft']);
    expect(a.code, a.stderr).toBe(0);
    const out = a.out;
    const markers = new Set<string>();
    for (const line of readFileSync(path.join(out, 'sft/part-00000.jsonl'), 'utf8').trim().split('\n')) {
      const r = JSON.parse(line) as { id: string; messages: { role: string; content: string }[] };
      const lines = r.messages[0]!.content.split('\n');
      const k = lines.findIndex((l) => l.includes('In Chinese, use simplified characters.'));
      expect(k, r.id).toBeGreaterThan(0);
      const parent = /^(\S+) Answer in the patient's language/.exec(lines[k - 1]!);
      expect(parent, r.id).not.toBeNull();
      markers.add(parent![1]!);
      const column = parent![1]!.length + 1;
      for (const needle of ['In Chinese, use simplified characters.', 'Keep drug names in Latin letters.', 'A list of times counts as one sentence.']) {
        const l = lines.find((x) => x.includes(needle))!;
        expect(l.length - l.trimStart().length, `${r.id}: ${JSON.stringify(l)}`).toBeGreaterThanOrEqual(column);
      }
      // The Chinese list and the hard line break stay as written.
      expect(r.messages[0]!.content).toContain('1、不要承诺疗效。\n2、不要透露其他患者的信息。');
      expect(r.messages[0]!.content).toMatch(/Use at most three sentences\. {2}\n/);
    }
    expect(markers.has('1.')).toBe(true);
    expect(runChecker(out, [trajectories], harness).failures).toEqual({});
  }, 60_000);
});
