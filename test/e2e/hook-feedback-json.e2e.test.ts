import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runChecker } from '../helpers/checker.js';
import { REPO } from '../helpers/hsa.js';
import { augmentWith } from '../helpers/one-transform.js';
import { removeTempDirs } from '../helpers/tmp.js';

/**
 * Hook feedback whose values hold quotes and backslashes, re-expressed by `hooks.feedback-style`:
 * fixtures/clinic's `no_cure_words` hook has a JSON template of its own and a logged message whose
 * reason quotes the word found (`the reply says "cure" \ a forbidden word`). A value is written
 * JSON-escaped once per JSON string it stands in and read back unescaped: the JSON frame holding
 * the JSON template (a JSON text inside a JSON string) got the value escaped once, invalid JSON.
 */

afterAll(() => removeTempDirs());

const REASON = 'the reply says "cure" \\ a forbidden word';

/** Whether `text` is, or holds a JSON text (from its first brace to its last) that holds, the reason decoded. */
function holdsReason(text: string): boolean {
  const from = text.indexOf('{');
  const to = text.lastIndexOf('}');
  if (from < 0 || to < from) return text.includes(REASON);
  const value = JSON.parse(text.slice(from, to + 1)) as Record<string, unknown>;
  return Object.values(value).some((v) => typeof v === 'string' && holdsReason(v));
}

describe('hook feedback values in and out of JSON frames', () => {
  it('every re-expressed message holds the reason as written: JSON-escaped in JSON, plain elsewhere', async () => {
    const harness = path.join(REPO, 'fixtures/clinic/harness');
    const trajectories = path.join(REPO, 'fixtures/clinic/trajectories.jsonl');
    const a = await augmentWith('hooks.feedback-style: { p: 1 }', [
      '--harness',
      harness,
      '-t',
      trajectories,
      '-k',
      '8',
      '--seed',
      '4',
      '--stages',
      'sft',
      '--json',
    ]);
    expect(a.code, a.stderr).toBe(0);
    const out = a.out;
    expect((JSON.parse(a.stdout) as { totals: Record<string, number> }).totals.variants_rejected).toBe(0);
    let messages = 0;
    for (const line of readFileSync(path.join(out, 'sft/part-00000.jsonl'), 'utf8').trim().split('\n')) {
      const r = JSON.parse(line) as { id: string; messages: { name?: string; content: string }[] };
      const m = r.messages.find((x) => x.name?.startsWith('hook:') && r.id.startsWith('cl-6'));
      if (!m) continue;
      messages++;
      // Every JSON text in the message parses, and the reason is found in it decoded, whatever
      // the frame around it (`Check "…" failed. {…}`, a JSON frame holding the JSON template).
      expect(holdsReason(m.content), `${r.id}: ${m.content}`).toBe(true);
      expect(m.content).not.toContain(REASON); // never written raw inside JSON
    }
    expect(messages).toBe(8);
    expect(runChecker(out, [trajectories], harness).failures).toEqual({});
  }, 60_000);
});
