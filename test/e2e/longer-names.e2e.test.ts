import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runChecker } from '../helpers/checker.js';
import { REPO, runHsaAsync } from '../helpers/hsa.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

/**
 * Tool names written for people where one is the start of another (`Get Weather` and `Get Weather
 * Forecast`, `Get Prices` and `Get Prices (v2)`), and a retired service whose name starts with a
 * tool's (`Get Weather History`): fixtures/ingest/longer-names, a ferry desk written for this
 * project. A rename of the shorter name must never touch the longer one (it would name a tool
 * that does not exist: `FetchSky Forecast`). The tests read the written bytes.
 */

const FIXTURE = path.join(REPO, 'fixtures/ingest/longer-names/records.jsonl');

afterAll(() => removeTempDirs());

interface Msg {
  role: string;
  content: string | null;
}
interface Out {
  id: string;
  tools: { function: { name: string; description: string } }[];
  messages: Msg[];
  meta: { source_id: string; transforms: { id: string; params?: { renamed?: Record<string, string> } }[] };
}

const readJsonl = <T>(f: string) =>
  readFileSync(f, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as T);
const sources = new Map(readJsonl<Out>(FIXTURE).map((r) => [r.id, r]));
const SPELLED: Record<string, string> = {
  Get_Weather: 'Get Weather',
  Get_Weather_Forecast: 'Get Weather Forecast',
  Get_Prices: 'Get Prices',
  Get_Prices__v2_: 'Get Prices (v2)',
};
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Every text of a variant the model reads: messages and tool descriptions. */
function texts(r: Out): string[] {
  return [...r.messages.map((m) => m.content ?? ''), ...r.tools.map((t) => t.function.description)];
}

describe('a tool name that starts a longer one', () => {
  const dir = tempDir('hsa-longer-');

  it('renames touch only the name as a whole phrase; the longer names and the retired service stay', async () => {
    const out = path.join(dir, 'rename');
    const a = await runHsaAsync([
      'augment',
      '--no-gzip',
      '-t',
      FIXTURE,
      '-o',
      out,
      '-k',
      '8',
      '--seed',
      '3',
      '--transforms',
      'tools.rename',
      '--stages',
      'sft',
      '-q',
    ]);
    expect(a.code, a.stderr).toBe(0);
    const seen = { shortOnly: 0, pricesOnly: 0 };
    for (const r of readJsonl<Out>(path.join(out, 'sft/part-00000.jsonl'))) {
      const map = r.meta.transforms.find((t) => t.id === 'tools.rename')?.params?.renamed ?? {};
      const all = texts(r).join('\n');
      expect(all).toContain('Get Weather History service was retired');
      for (const [safe, to] of Object.entries(map)) {
        // A new name is never glued to the rest of a longer name.
        expect(all).not.toMatch(new RegExp(`${esc(to)} (Forecast|History|\\(v2\\))`));
        expect(SPELLED[safe]).toBeDefined();
      }
      if (map.Get_Weather !== undefined && map.Get_Weather_Forecast === undefined) {
        seen.shortOnly++;
        expect(all).toContain('Use Get Weather Forecast for later days'.replace('Use ', ''));
        expect(all).toContain(`Use ${map.Get_Weather} for now and Get Weather Forecast for later days.`);
        expect(r.tools.find((t) => t.function.name === map.Get_Weather)!.function.description).toBe(
          'Current conditions at a station. For later days use Get Weather Forecast.',
        );
      }
      if (map.Get_Prices !== undefined && map.Get_Prices__v2_ === undefined) {
        seen.pricesOnly++;
        expect(all).toContain(`Get Prices (v2) replaces ${map.Get_Prices}; quote ${map.Get_Prices} only`);
      }
      // Mapped back name by name (longest source spelling first), every text is the source's.
      const src = sources.get(r.meta.source_id)!;
      const back = (s: string) => {
        let t = s;
        for (const [safe, to] of Object.entries(map).sort((x, y) => y[1].length - x[1].length))
          t = t.replace(new RegExp(`(?<![A-Za-z0-9_])${esc(to)}(?![A-Za-z0-9_])`, 'g'), SPELLED[safe]!);
        return t;
      };
      expect(r.messages.map((m) => back(m.content ?? ''))).toEqual(src.messages.map((m) => m.content ?? ''));
    }
    expect(seen.shortOnly).toBeGreaterThan(0);
    expect(seen.pricesOnly).toBeGreaterThan(0);
  }, 60_000);

  it('every transform on: every variant is written and the independent checker passes', async () => {
    const out = path.join(dir, 'all');
    const a = await runHsaAsync(['augment', '--no-gzip', '-t', FIXTURE, '-o', out, '-k', '6', '--seed', '5', '--stages', 'sft', '-q', '--json']);
    expect(a.code, a.stderr).toBe(0);
    expect((JSON.parse(a.stdout) as { totals: Record<string, number> }).totals).toMatchObject({ variants_written: 36, variants_rejected: 0 });
    const c = runChecker(out, [FIXTURE]);
    expect(c.failures).toEqual({});
    expect(c.code).toBe(0);
  }, 60_000);
});
