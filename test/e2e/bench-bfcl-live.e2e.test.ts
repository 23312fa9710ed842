import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, runHsaAsync } from '../helpers/hsa.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

/**
 * The per-record input of `npm run bench` (scripts/bench/bfcl-live.mjs, issue #26): BFCL-live-shaped
 * records, each with its own tools. The shape follows the leaderboard's live sets
 * (ShishirPatil/gorilla at 80c71907059bd197ea897e37e26fee292b0be61d,
 * berkeley-function-call-leaderboard/bfcl_eval/data/BFCL_v4_live_multiple.json, first entries:
 * `ChaFod` and `ChaDri.change_drink` in one list, camelCase `foodItem` beside snake_case `drink_id`,
 * a nested `new_preferences` object whose properties carry `enum` and `default`, `uber.ride` and
 * `api.weather`, a system message on some entries only, Vietnamese and Chinese user turns). A bench
 * input that hsa rejects, or whose records share harnesses, would measure something else: this
 * holds the generator to the shape the figures claim, and the written output to the checks.
 */

afterAll(() => removeTempDirs());

type Json = Record<string, unknown>;
interface Tool {
  function: { name: string; parameters: { properties: Record<string, Json>; required: string[] } };
}
interface Rec {
  id: string;
  tools: Tool[];
  messages: { role: string; content: string | null; tool_calls?: { function: { name: string } }[] }[];
}

function generate(file: string, records: number, seed: string): Rec[] {
  const gen = path.join(REPO, 'scripts/bench/bfcl-live.mjs');
  const r = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const m = await import(${JSON.stringify(gen)}); m.writeBfclLiveInput(${JSON.stringify(file)}, ${records}, ${JSON.stringify(seed)});`,
    ],
    { encoding: 'utf8' },
  );
  expect(r.status, r.stderr).toBe(0);
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Rec);
}

describe('the BFCL-live-shaped bench input', () => {
  const dir = tempDir('hsa-bfcl-live-');
  const file = path.join(dir, 'in.jsonl');
  const recs = generate(file, 400, 'test-seed');

  it('is the same bytes for the same seed, and other bytes for another', () => {
    const again = path.join(dir, 'again.jsonl');
    generate(again, 400, 'test-seed');
    expect(readFileSync(again, 'utf8')).toBe(readFileSync(file, 'utf8'));
    generate(again, 400, 'other-seed');
    expect(readFileSync(again, 'utf8')).not.toBe(readFileSync(file, 'utf8'));
  });

  it('gives every record a tool list of its own (so each is its own inline harness)', () => {
    const lists = new Set(recs.map((r) => JSON.stringify(r.tools)));
    expect(lists.size).toBe(recs.length);
  });

  it("holds every shape the leaderboard's live sets have", () => {
    const names = recs.flatMap((r) => r.tools.map((t) => t.function.name));
    const params = recs.flatMap((r) => r.tools.flatMap((t) => Object.entries(t.function.parameters.properties)));
    const count = (pred: (x: never) => boolean, list: unknown[]) => list.filter(pred as (x: unknown) => boolean).length;
    const shapes = {
      'snake_case tool names (get_current_weather)': count((n: string) => /^[a-z]+(_[a-z]+)+$/.test(n), names),
      'dotted tool names (uber.ride, ChaDri.change_drink)': count((n: string) => n.includes('.'), names),
      'service-numbered names (Hotels_2_SearchHotel)': count((n: string) => /^[A-Z][A-Za-z]+_\d_[A-Z]/.test(n), names),
      'camelCase tool names': count((n: string) => /^[a-z]+[A-Z]/.test(n) && !n.includes('.'), names),
      'camelCase parameters (foodItem)': count(([k]: [string]) => /^[a-z]+[A-Z]/.test(k), params),
      'snake_case parameters (drink_id)': count(([k]: [string]) => k.includes('_'), params),
      'nested object parameters': count(([, s]: [string, Json]) => s.type === 'object' && typeof s.properties === 'object', params),
      'enum parameters': count(([, s]: [string, Json]) => Array.isArray(s.enum), params),
      'parameters with a default': count(([, s]: [string, Json]) => 'default' in s, params),
      'boolean, integer, number and array parameters': ['boolean', 'integer', 'number', 'array'].every((t) => params.some(([, s]) => s.type === t)) ? 1 : 0,
      'one-tool records (live_simple)': count((r: Rec) => r.tools.length === 1, recs),
      'records of five or more tools': count((r: Rec) => r.tools.length >= 5, recs),
      'records with a system message': count((r: Rec) => r.messages[0]?.role === 'system', recs),
      'records without one': count((r: Rec) => r.messages[0]?.role !== 'system', recs),
      'a system message naming a tool in a code span': count((r: Rec) => r.messages[0]?.role === 'system' && (r.messages[0].content ?? '').includes('`'), recs),
      'parallel calls in one turn (live_parallel)': count((r: Rec) => r.messages.some((m) => (m.tool_calls?.length ?? 0) >= 2), recs),
      'user turns not in English': count((r: Rec) => r.messages.some((m) => m.role === 'user' && /[^\x00-\x7f]/.test(m.content ?? '')), recs),
      'two user turns': count((r: Rec) => r.messages.filter((m) => m.role === 'user').length === 2, recs),
    };
    const missing = Object.entries(shapes)
      .filter(([, n]) => n === 0)
      .map(([k]) => k);
    expect(missing).toEqual([]);
  });

  // Two settings of the bench, each its own test (and file of 150 records) so that each stays well
  // inside the time a busy machine gives one test.
  const small = path.join(dir, 'small.jsonl');
  const smallRecs = generate(small, 150, 'test-seed-2');
  for (const [tag, extra, variants] of [
    ['the rename set, one variant', ['--variants', '1', '--transforms', 'tools.rename', 'tools.param-rename', 'tools.order'], 1],
    ['defaults', [], 4],
  ] as const) {
    it(`is taken whole by hsa under ${tag}; the output passes the independent checker and verify`, async () => {
      const out = path.join(dir, `out-${variants}`);
      const a = await runHsaAsync(['augment', '--no-gzip', '-t', small, '-o', out, '--stages', 'sft,rl', '-q', '--json', ...extra]);
      expect(a.code, a.stderr).toBe(0);
      const totals = (JSON.parse(a.stdout) as { totals: Json }).totals;
      // Every record valid, every variant written: a reject here would make the bench time rejects.
      expect(totals).toMatchObject({
        input_records: smallRecs.length,
        valid_records: smallRecs.length,
        variants_written: smallRecs.length * variants,
        variants_rejected: 0,
      });
      const c = spawnSync(process.execPath, [path.join(REPO, 'scripts/audit/check-output.mjs'), '--out', out, '--sources', small, '--json'], {
        encoding: 'utf8',
      });
      const report = JSON.parse(c.stdout) as { failures: Json; checked: { records: number } };
      expect(report.failures).toEqual({});
      expect(report.checked.records).toBe(smallRecs.length * variants);
      expect(c.status).toBe(0);
      const v = await runHsaAsync(['verify', out, '--sources', small]);
      expect(v.code, v.stdout + v.stderr).toBe(0);
      expect(v.stdout + v.stderr).toContain('sound');
    }, 180_000);
  }
});
