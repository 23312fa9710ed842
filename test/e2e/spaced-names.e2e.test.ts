import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runChecker, tamperedCopy } from '../helpers/checker.js';
import { REPO, runHsaAsync } from '../helpers/hsa.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

/**
 * Tool names written for people (`Get Weather`, `Get Prices (v2)`, `get moon phase`), as API-Bank
 * and ToolACE style sets name them, in records that carry their own tools
 * (fixtures/ingest/spaced-names, an astronomy desk written for this project): a system prompt
 * listing the tools as JSON, code spans, prose mentions, parallel and unanswered final calls, a
 * dotted name beside them. The real binary validates and augments them; the tests read the
 * written bytes and run the independent checker on them.
 */

const FIXTURE = path.join(REPO, 'fixtures/ingest/spaced-names/records.jsonl');

afterAll(() => removeTempDirs());

type Json = Record<string, unknown>;
interface Out {
  id: string;
  tools: { function: { name: string } }[];
  messages: { role: string; content: string | null; tool_calls?: { function: { name: string } }[] }[];
  meta: { source_id: string; transforms: { id: string; params?: { renamed?: Record<string, string> } }[] };
}

const checker = (out: string) => runChecker(out, [FIXTURE]);

const readJsonl = <T>(f: string) =>
  readFileSync(f, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as T);
const renamed = (r: Out) => r.meta.transforms.find((t) => t.id === 'tools.rename')?.params?.renamed ?? {};
const calls = (r: Out) => r.messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.function.name));

describe('tool names with spaces and other characters OpenAI refuses', () => {
  const dir = tempDir('hsa-spaced-');
  const out = path.join(dir, 'out');

  it('validate accepts every record as given', async () => {
    const v = await runHsaAsync(['validate', '-t', FIXTURE, '--json']);
    const report = JSON.parse(v.stdout) as { problems: unknown[]; files: { records: number; invalid: number }[] };
    expect(report.problems).toEqual([]);
    expect(report.files[0]).toMatchObject({ records: 12, invalid: 0 });
    expect(v.code, v.stderr).toBe(0);
  });

  it('augment writes every variant; calls, the JSON tool list, code spans and prose follow the renames', async () => {
    const a = await runHsaAsync(['augment', '--no-gzip', '-t', FIXTURE, '-o', out, '-k', '8', '--seed', '7', '--stages', 'sft,rl', '-q', '--json']);
    expect(a.code, a.stderr).toBe(0);
    expect((JSON.parse(a.stdout) as { totals: Json }).totals).toMatchObject({
      input_records: 12,
      valid_records: 12,
      variants_written: 96,
      variants_rejected: 0,
    });
    const sft = readJsonl<Out>(path.join(out, 'sft/part-00000.jsonl'));
    const seen = { weather: 0, prices: 0, moon: 0, kept: 0 };
    for (const r of sft) {
      const map = renamed(r);
      const names = r.tools.map((t) => t.function.name);
      // The OpenAI-safe name is what the tool list and calls use: never the spelling with spaces.
      for (const n of [...names, ...calls(r)]) expect(n).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
      const weather = map.Get_Weather ?? 'Get_Weather';
      expect(names).toContain(weather);
      expect(calls(r)).toContain(weather);
      const system = r.messages[0]!.role === 'system' ? r.messages[0]!.content! : null;
      const prose = r.messages
        .filter((m) => m.role === 'assistant')
        .map((m) => m.content ?? '')
        .join('\n');
      if (map.Get_Weather !== undefined) {
        seen.weather++;
        for (const text of [system ?? '', prose]) expect(text).not.toContain('Get Weather');
        if (system !== null) {
          expect(system).toContain(`"name":"${weather}"`);
          expect(system).toContain(`Use \`${weather}\` before answering`);
          expect(prose).toContain(`${weather} says cloud cover`);
        }
      } else {
        seen.kept++;
        // Not renamed: the texts keep the source spelling, as written.
        if (system !== null) expect(system).toContain('"name":"Get Weather"');
      }
      if (system === null) continue;
      if (map.Get_Prices__v2_ !== undefined) {
        seen.prices++;
        expect(system).not.toContain('Get Prices (v2)');
        expect(system).toContain(`"name":"${map.Get_Prices__v2_}"`);
        expect(prose).toContain(`(from ${map.Get_Prices__v2_})`);
      }
      if (map.get_moon_phase !== undefined) {
        seen.moon++;
        // Plain lower-case words: renamed in code (JSON, code spans) only.
        expect(system).toContain(`"name":"${map.get_moon_phase}"`);
        expect(system).toContain(`\`${map.get_moon_phase}\` tells how dark`);
        expect(system).not.toContain('get moon phase');
      }
    }
    expect(seen.weather).toBeGreaterThan(0);
    expect(seen.kept).toBeGreaterThan(0);
    expect(seen.prices).toBeGreaterThan(0);
    expect(seen.moon).toBeGreaterThan(0);
    const c = checker(out);
    expect(c.failures).toEqual({});
    expect(c.code).toBe(0);
  }, 60_000);

  it('the checker sees the spelling with spaces: put back into a renamed variant, it is a leak', () => {
    const part = path.join(out, 'sft/part-00000.jsonl');
    const lines = readFileSync(part, 'utf8').trim().split('\n');
    const k = lines.findIndex((l) => {
      const r = JSON.parse(l) as Out;
      return renamed(r).Get_Weather !== undefined && r.messages[0]!.role === 'system';
    });
    expect(k).toBeGreaterThanOrEqual(0);
    const rec = JSON.parse(lines[k]!) as Out;
    const now = renamed(rec).Get_Weather!;
    const m = rec.messages.find((x) => x.role === 'assistant' && (x.content ?? '').includes(`${now} says`))!;
    m.content = m.content!.replace(`${now} says`, 'Get Weather says');
    const copy = tamperedCopy(out, path.join(dir, 'tampered'), k, JSON.stringify(rec));
    const c = checker(copy);
    expect(c.code).toBe(1);
    expect(c.failures.b_leak?.examples.join('\n')).toContain('"Get Weather"');
  });

  it('a name with a character that is still refused is an error naming the record, line and field', async () => {
    const bad = path.join(dir, 'bad.jsonl');
    const first = readFileSync(FIXTURE, 'utf8').split('\n')[0]!;
    writeFileSync(bad, first.replaceAll('"Find Observatory"', '"Find Observatory!"') + '\n');
    const v = await runHsaAsync(['validate', '-t', bad]);
    expect(v.code).toBe(1);
    expect(v.stdout + v.stderr).toMatch(/bad\.jsonl:1: sky-0: tools\.1\.function\.name: "Find Observatory!" is not a usable tool name/);
  });
});
