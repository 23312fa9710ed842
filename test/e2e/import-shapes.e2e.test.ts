import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, runHsaAsync } from '../helpers/hsa.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

/**
 * Shapes of logs met in the second real-data audit, reproduced by records written for this project
 * (fixtures/import/shapes, an observatory desk). Each is imported, validated and augmented by the
 * real binary; the tests read the bytes written and run the independent checker on them.
 */

const CHECKER = path.join(REPO, 'scripts/audit/check-output.mjs');

afterAll(() => removeTempDirs());

type Msg = { role: string; content: unknown; tool_call_id?: string; tool_calls?: { function: { name: string; arguments: string } }[] };
const readJsonl = <T>(f: string) =>
  readFileSync(f, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as T);

async function importAugmentCheck(from: string, fixture: string, dir: string): Promise<{ imported: string; out: string }> {
  const imported = path.join(dir, 'imported.jsonl');
  const i = await runHsaAsync(['import', '--from', from, fixture, '-o', imported]);
  expect(i.code, i.stderr).toBe(0);
  const v = await runHsaAsync(['validate', '-t', imported]);
  expect(v.code, v.stdout + v.stderr).toBe(0);
  const out = path.join(dir, 'out');
  const a = await runHsaAsync(['augment', '--no-gzip', '-t', imported, '-o', out, '-k', '8', '--stages', 'sft', '-q', '--json']);
  expect(a.code, a.stderr).toBe(0);
  expect((JSON.parse(a.stdout) as { totals: { variants_rejected: number } }).totals.variants_rejected).toBe(0);
  const c = spawnSync(process.execPath, [CHECKER, '--out', out, '--sources', imported, '--json'], { encoding: 'utf8' });
  expect((JSON.parse(c.stdout) as { failures: unknown }).failures).toEqual({});
  expect(c.status).toBe(0);
  return { imported, out };
}

describe("openai-log: tool results logged as the tool's JSON value", () => {
  const fixture = path.join(REPO, 'fixtures/import/shapes/openai-object-results.jsonl');

  it('an object, array, number or null result becomes its JSON text (null: empty), arguments given as an object too', async () => {
    const { imported, out } = await importAugmentCheck('openai-log', fixture, tempDir('hsa-shapes-openai-'));
    const recs = readJsonl<{ id: string; messages: Msg[] }>(imported);
    const results = (id: string) =>
      recs
        .find((r) => r.id === id)!
        .messages.filter((m) => m.role === 'tool')
        .map((m) => m.content);
    expect(results('obj-results')).toEqual([
      '["Paranal","La Silla"]',
      '{"site":"Paranal","cloud_cover":0,"seeing_arcsec":0.6,"note":"dry \\"El Niño\\" year"}',
      '35',
    ]);
    expect(results('pair-obj')).toEqual(['{"site":"Mauna Kea","cloud_cover":10,"seeing_arcsec":0.4,"ok":true,"windows":[{"from":"22:00","to":"01:00"}]}']);
    expect(results('null-result')).toEqual(['']);
    const calls = recs.find((r) => r.id === 'obj-results')!.messages.flatMap((m) => m.tool_calls ?? []);
    expect(calls[0]!.function).toEqual({ name: 'list_sites', arguments: '{"region":"Atacama"}' });
    // The variants show the model the same result text.
    const sft = readJsonl<{ meta: { source_id: string }; messages: Msg[] }>(path.join(out, 'sft/part-00000.jsonl'));
    for (const r of sft.filter((x) => x.meta.source_id === 'obj-results')) {
      expect(r.messages.filter((m) => m.role === 'tool').map((m) => m.content)).toEqual(results('obj-results'));
    }
  }, 60_000);
});

describe('openai-log: Mistral-style tools and provider tools', () => {
  const fixture = path.join(REPO, 'fixtures/import/shapes/openai-mistral-tools.jsonl');

  it('a tool written {"function": {...}} without "type" is a function tool; a provider tool is refused saying what it is', async () => {
    const dir = tempDir('hsa-shapes-mistral-');
    const out = path.join(dir, 'imported.jsonl');
    const i = await runHsaAsync(['import', '--from', 'openai-log', fixture, '-o', out, '--on-error', 'skip']);
    expect(i.code, i.stderr).toBe(0);
    expect(i.stderr).toContain(
      'openai-mistral-tools.jsonl:3: request.tools.0.type: "openrouter:advisor" is a server tool, not a function tool; only function tools can be imported',
    );
    const recs = readJsonl<{ id: string; tools: { type: string; function: { name: string; parameters: unknown } }[]; messages: Msg[] }>(out);
    // The first line is the same conversation, continued by the second: superseded.
    expect(recs.map((r) => r.id)).toEqual(['mistral-2']);
    expect(recs[0]!.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'get_sky_report',
          description: 'Cloud cover at a site.',
          parameters: { type: 'object', properties: { site: { type: 'string' } }, required: ['site'], additionalProperties: false },
        },
      },
    ]);
    const rejects = readJsonl<{ line: number; problems: { path: string }[] }>(path.join(dir, 'imported.rejects.jsonl'));
    expect(rejects.map((r) => [r.line, r.problems[0]!.path])).toEqual([[3, 'request.tools.0.type']]);
    const v = await runHsaAsync(['validate', '-t', out]);
    expect(v.code, v.stdout + v.stderr).toBe(0);
  });
});

describe('openai-log: SDK dumps of replies and reasoning parts', () => {
  const fixture = path.join(REPO, 'fixtures/import/shapes/openai-sdk-dumps.jsonl');

  it('an empty legacy function_call is no call; thinking parts become reasoning_content, in order', async () => {
    const { imported, out } = await importAugmentCheck('openai-log', fixture, tempDir('hsa-shapes-dumps-'));
    const recs = readJsonl<{ id: string; messages: (Msg & { reasoning_content?: string })[] }>(imported);
    const dump = recs.find((r) => r.id === 'sdk-dump')!.messages.at(-1)!;
    expect(dump).toEqual({ role: 'assistant', content: '{"site": "Kitt Peak"}' });
    const [first, last] = recs.find((r) => r.id === 'thinking-parts')!.messages.filter((m) => m.role === 'assistant');
    expect(first).toMatchObject({ content: '', reasoning_content: 'I should look at the sky report.' });
    expect(first!.tool_calls).toHaveLength(1);
    expect(last).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'Yes, clear skies.' }], reasoning_content: 'Zero cloud.\n\nSay it plainly.' });
    const sft = readFileSync(path.join(out, 'sft/part-00000.jsonl'), 'utf8');
    expect(sft).toContain('Zero cloud.\\n\\nSay it plainly.');
  }, 60_000);

  it('a part that is not text beside thinking parts is refused at its own index', async () => {
    const dir = tempDir('hsa-shapes-dumps-bad-');
    const bad = path.join(dir, 'bad.jsonl');
    const rec = {
      id: 'img',
      messages: [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'x' },
            { type: 'image_url', image_url: { url: 'data:' } },
          ],
        },
      ],
    };
    writeFileSync(bad, JSON.stringify(rec) + '\n');
    const i = await runHsaAsync(['import', '--from', 'openai-log', bad, '-o', path.join(dir, 'o.jsonl')]);
    expect(i.code).toBe(1);
    expect(i.stderr).toContain('bad.jsonl:1: messages.1.content.1: "image_url" parts cannot be imported (only text)');
  });
});

describe('anthropic: consecutive assistant messages are one turn, as the Messages API joins them; system text between turns', () => {
  const fixture = path.join(REPO, 'fixtures/import/shapes/anthropic-split-turns.jsonl');

  it('a turn logged in two pieces keeps both calls open for the results that follow; a response continues a prefill', async () => {
    const { imported } = await importAugmentCheck('anthropic', fixture, tempDir('hsa-shapes-anthropic-'));
    const recs = readJsonl<{ id: string; messages: Msg[] }>(imported);
    const split = recs.find((r) => r.id === 'split-turn')!.messages;
    expect(split.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'assistant']);
    expect(split[2]).toMatchObject({ content: 'Looking up sites.' });
    expect(split[2]!.tool_calls!.map((c) => c.function.name)).toEqual(['list_sites', 'get_sky_report']);
    expect(split.slice(3, 5).map((m) => m.tool_call_id)).toEqual(['toolu_a', 'toolu_b']);
    const prefill = recs.find((r) => r.id === 'prefill')!.messages;
    expect(prefill.map((m) => m.role)).toEqual(['system', 'user', 'assistant']);
    expect(prefill[2]!.content).toEqual([
      { type: 'text', text: '{"answer": ' },
      { type: 'text', text: '"checking"}' },
    ]);
    // System text between turns is a later system message.
    const between = recs.find((r) => r.id === 'system-between')!.messages;
    expect(between.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'system', 'user', 'assistant']);
    expect(between[4]!.content).toBe('From now on use `list_sites` before any sky report.');
  }, 60_000);
});
