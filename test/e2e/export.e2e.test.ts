import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { runHsaAsync, STACK_LINE } from '../helpers/hsa.js';
import { readJsonl, treeHashes } from '../helpers/tree.js';
import { duckRows, filesUnder, fromSharegpt, fromSwift, renderedView, sourceRecords, withoutNulls } from '../helpers/export-map.js';

afterAll(removeTempDirs);

/** The cart-desk fixture: a list-of-objects parameter, list-valued arguments, parallel calls. */
const FIXTURE = 'test/fixtures/export/hsa.yaml';
let fixtureOut = '';
let demoOut = '';

beforeAll(async () => {
  fixtureOut = tempDir('hsa-export-src-');
  demoOut = tempDir('hsa-export-demo-');
  const [a, b] = await Promise.all([
    runHsaAsync(['augment', '--no-gzip', '--config', FIXTURE, '--out', fixtureOut, '--force', '-q']),
    runHsaAsync(['augment', '--no-gzip', '--config', 'fixtures/live-commerce/hsa.yaml', '--out', demoOut, '--force', '-q', '--stages', 'sft,rl']),
  ]);
  expect(a.stderr).toBe('');
  expect(a.code).toBe(0);
  expect(b.code).toBe(0);
}, 120_000);

async function exportTo(source: string, format: string, extra: string[] = []) {
  const out = path.join(tempDir('hsa-export-'), 'x');
  const r = await runHsaAsync(['export', source, '--to', format, '--out', out, ...extra]);
  expect(r.stderr).not.toContain(STACK_LINE);
  expect(r.code, r.stderr).toBe(0);
  return { out, r, manifest: JSON.parse(readFileSync(path.join(out, 'export-manifest.json'), 'utf8')) as Record<string, any> };
}

/** The JSONL record's messages as the parquet holds them: every call's arguments parsed. */
function expectedMessages(messages: unknown): unknown {
  return (messages as Record<string, any>[]).map((m) => ({
    ...m,
    ...(m.tool_calls
      ? {
          tool_calls: m.tool_calls.map((c: any) => ({
            ...c,
            function: { ...c.function, arguments: typeof c.function.arguments === 'string' ? JSON.parse(c.function.arguments) : c.function.arguments },
          })),
        }
      : {}),
  }));
}

function parquetMessagesParsed(messages: unknown): unknown {
  return (withoutNulls(messages) as Record<string, any>[]).map((m) => ({
    ...m,
    ...(m.tool_calls ? { tool_calls: m.tool_calls.map((c: any) => ({ ...c, function: { ...c.function, arguments: JSON.parse(c.function.arguments) } })) } : {}),
  }));
}

describe('hsa export --to verl-sft', () => {
  for (const which of ['fixture', 'demo'] as const) {
    it(`writes parquet that DuckDB reads back equal to every JSONL record (${which})`, async () => {
      const source = which === 'fixture' ? fixtureOut : demoOut;
      const { out, manifest } = await exportTo(source, 'verl-sft');
      const src = sourceRecords(source, 'sft');
      const rows: Record<string, unknown>[] = [];
      for (const f of filesUnder(out, '.parquet')) rows.push(...(await duckRows(path.join(out, f))));
      expect(rows.length).toBe(src.length);
      expect(manifest.counts).toEqual({ read: src.length, written: src.length, skipped: 0, too_long: 0 });
      const schemasByTool = new Map<string, Set<string>>();
      let listArgs = 0;
      rows.forEach((row, i) => {
        const rec = src[i]!.record;
        expect(row.id).toBe(rec.id);
        // Tool-call arguments are JSON text in the file, so differently shaped ones never null-pad.
        expect(parquetMessagesParsed(row.messages), String(rec.id)).toEqual(expectedMessages(rec.messages));
        expect(JSON.parse(row.tools as string)).toEqual(rec.tools);
        expect(JSON.parse(row.meta as string)).toEqual(rec.meta);
        for (const t of rec.tools as { function: { name: string; parameters: unknown } }[]) {
          if (!schemasByTool.has(t.function.name)) schemasByTool.set(t.function.name, new Set());
          schemasByTool.get(t.function.name)!.add(JSON.stringify(t.function.parameters));
        }
        for (const m of rec.messages as { tool_calls?: { function: { arguments: unknown } }[] }[]) {
          for (const c of m.tool_calls ?? [])
            if (Object.values(c.function.arguments as object).some((v) => Array.isArray(v) && v.some((x) => x && typeof x === 'object'))) listArgs++;
        }
      });
      if (which === 'fixture') {
        // The cases the format must survive are really there: one tool name with several schemas,
        // arguments holding lists of objects.
        expect(Math.max(...[...schemasByTool.values()].map((s) => s.size))).toBeGreaterThan(1);
        expect(listArgs).toBeGreaterThan(5);
      }
      expect(existsSync(path.join(out, 'verl_sft_dataset.py'))).toBe(true);
    }, 60_000);
  }

  it('adds enable_thinking when asked, and exports OPD prompts', async () => {
    const { out } = await exportTo(fixtureOut, 'verl-sft', ['--stage', 'opd', '--enable-thinking', 'false']);
    const rows = await duckRows(path.join(out, filesUnder(out, '.parquet')[0]!));
    expect(rows[0]!.enable_thinking).toBe(false);
    const last = (rows[0]!.messages as { role: string }[]).at(-1)!;
    expect(last.role).not.toBe('assistant');
  });
});

describe('hsa export --to verl-rl', () => {
  it('writes one file set for the whole export; every row carries its own tools, its agent loop and its interaction kwargs', async () => {
    const { out, manifest } = await exportTo(fixtureOut, 'verl-rl');
    const src = sourceRecords(fixtureOut, 'rl');
    const byId = new Map(src.map((s) => [String((s.record.extra_info as { id: string }).id), s.record]));
    const parquet = await duckRows(path.join(out, 'train.parquet'));
    const json = readJsonl(path.join(out, 'train.json'));
    expect(parquet.length).toBe(src.length);
    expect(json.length).toBe(parquet.length);
    const names = new Map<string, Set<string>>();
    parquet.forEach((row, i) => {
      const extra = row.extra_info as Record<string, unknown>;
      const source = byId.get(String(extra.id))!;
      expect(source, String(extra.id)).toBeDefined();
      const se = source.extra_info as Record<string, unknown>;
      const env = JSON.parse(String(se.env)) as { tools: { function: { name: string; parameters: Record<string, unknown> } }[] };
      expect(extra.tool_selection).toEqual(env.tools.map((t) => t.function.name));
      for (const t of env.tools) {
        if (!names.has(t.function.name)) names.set(t.function.name, new Set());
        names.get(t.function.name)!.add(JSON.stringify(t.function.parameters));
      }
      // The rest of the row is the source row (variant as text: "src" or the index).
      expect(withoutNulls(row.prompt)).toEqual(source.prompt);
      expect(row.reward_model).toEqual(source.reward_model);
      expect(row.data_source).toBe(source.data_source);
      expect(row.agent_name).toBe('hsa_agent');
      const { tool_selection, interaction_kwargs, ...rest } = extra;
      void tool_selection;
      expect(interaction_kwargs).toEqual({ name: 'hsa', index: se.index, id: se.id });
      expect(rest).toEqual({ ...se, variant: String(se.variant) });
      expect(withoutNulls(json[i])).toEqual(withoutNulls(row));
    });
    // One tool name with different schemas in different states: all in the one file, each row with its own.
    expect(Math.max(...[...names.values()].map((s) => s.size))).toBeGreaterThan(1);
    const verl = manifest.verl as { settings: Record<string, unknown>; measured: Record<string, unknown> };
    const overrides = readFileSync(path.join(out, 'verl_overrides.txt'), 'utf8').trim().split('\n');
    expect([...overrides].sort()).toEqual(
      Object.entries(verl.settings)
        .map(([k, v]) => `${k}=${String(v)}`)
        .sort(),
    );
    expect(verl.settings['data.max_prompt_length']).toBe(verl.measured.prompt_tokens_max);
  }, 60_000);
});

/** Source SFT records by id, and what a template renders of them. */
function sourceViews(source: string) {
  return new Map(
    sourceRecords(source, 'sft').map((s) => [String(s.record.id), { record: s.record, view: renderedView(s.record.messages as Record<string, unknown>[]) }]),
  );
}

describe('hsa export --to llamafactory / swift', () => {
  for (const which of ['fixture', 'demo'] as const) {
    it(`carry the same conversations, parallel calls included, or say why not (${which})`, async () => {
      const source = which === 'fixture' ? fixtureOut : demoOut;
      const src = sourceViews(source);
      const [lf, sw] = await Promise.all([exportTo(source, 'llamafactory'), exportTo(source, 'swift')]);
      let parallel = 0;
      for (const [fmt, { out, manifest }] of [
        ['llamafactory', lf],
        ['swift', sw],
      ] as const) {
        const seen = new Set<string>();
        for (const f of filesUnder(out, '.jsonl').filter((f) => f !== 'rejects.jsonl')) {
          for (const row of readJsonl(path.join(out, f))) {
            const back = fmt === 'llamafactory' ? fromSharegpt(row as never) : fromSwift(row as never);
            const s = src.get(String(row.id))!;
            expect(back.messages, `${fmt} ${String(row.id)}`).toEqual(s.view);
            expect(back.tools).toEqual(s.record.tools);
            if (s.view.some((m) => (m.tool_calls?.length ?? 0) > 1)) parallel++;
            seen.add(String(row.id));
          }
        }
        // Nothing is dropped silently: every record is written or in rejects with its reason.
        const rejects = readJsonl(path.join(out, 'rejects.jsonl'));
        for (const r of rejects) {
          expect(r.reason).toBeTruthy();
          seen.add(String(r.id));
        }
        expect(seen.size).toBe(src.size);
        expect(manifest.counts.written + manifest.counts.skipped).toBe(src.size);
        expect(Object.values(manifest.skips as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(rejects.length);
      }
      if (which === 'fixture') expect(parallel).toBeGreaterThan(1);
      const info = JSON.parse(readFileSync(path.join(lf.out, 'dataset_info.json'), 'utf8'));
      expect(info.hsa).toMatchObject({ file_name: 'data', formatting: 'sharegpt', columns: { messages: 'conversations', system: 'system', tools: 'tools' } });
      expect(info.hsa.tags).toMatchObject({
        role_tag: 'from',
        content_tag: 'value',
        user_tag: 'human',
        assistant_tag: 'gpt',
        observation_tag: 'observation',
        function_tag: 'function_call',
      });
    }, 60_000);
  }
});

describe('hsa export --to llamafactory --merge-turns', () => {
  /** The source view as --merge-turns should write it: later system messages as user turns, user runs joined. */
  function merged(view: ReturnType<typeof renderedView>): ReturnType<typeof renderedView> {
    const out: ReturnType<typeof renderedView> = [];
    view.forEach((m, i) => {
      const asUser = m.role === 'user' || (m.role === 'system' && i > 0);
      const last = out[out.length - 1];
      if (asUser && last?.role === 'user') out[out.length - 1] = { ...last, content: `${String(last.content)}\n\n${String(m.content)}` };
      else out.push(asUser ? { ...m, role: 'user' } : m);
    });
    return out;
  }

  it('writes the demo records that break alternation (placed prompt sections, hook feedback) as alternating turns, and counts them', async () => {
    const src = sourceViews(demoOut);
    const plain = await exportTo(demoOut, 'llamafactory');
    const { out, manifest } = await exportTo(demoOut, 'llamafactory', ['--merge-turns']);
    // Without the flag these records are skipped for exactly these two reasons; with it none is.
    expect(plain.manifest.skips['turns do not alternate']).toBeGreaterThan(0);
    expect(plain.manifest.skips['system message not first']).toBeGreaterThan(0);
    expect(readFileSync(path.join(plain.out, 'rejects.jsonl'), 'utf8')).toContain('--merge-turns joins consecutive user turns');
    expect(manifest.counts).toMatchObject({ read: src.size, written: src.size, skipped: 0 });
    expect(manifest.options.merge_turns).toBe(true);
    let changed = 0;
    let joined = 0;
    let systems = 0;
    for (const f of filesUnder(out, '.jsonl').filter((f) => f !== 'rejects.jsonl')) {
      for (const row of readJsonl(path.join(out, f)) as { id: string; conversations: { from: string; value: string }[] }[]) {
        // LLaMA-Factory's own rule: human/observation at even positions, gpt/function_call at odd, ending with the model.
        row.conversations.forEach((t, k) => expect(k % 2 === 0 ? ['human', 'observation'] : ['gpt', 'function_call'], `${row.id} turn ${k}`).toContain(t.from));
        expect(row.conversations.length % 2).toBe(0);
        const s = src.get(row.id)!;
        const want = merged(s.view);
        expect(fromSharegpt(row as never).messages, row.id).toEqual(want);
        if (want.length !== s.view.length || s.view.some((m, i) => i > 0 && m.role === 'system')) changed++;
        joined += s.view.filter(
          (m, i) => i > 0 && (m.role === 'user' || m.role === 'system') && (s.view[i - 1]!.role === 'user' || (s.view[i - 1]!.role === 'system' && i > 1)),
        ).length;
        systems += s.view.filter((m, i) => i > 0 && m.role === 'system').length;
      }
    }
    expect(changed).toBe(plain.manifest.counts.skipped);
    expect(manifest.merged_turns).toEqual({ records: changed, user_turns_joined: joined, system_as_user: systems });
    // Records that alternated already are written byte for byte as without the flag.
    const plainRows = new Map(
      filesUnder(plain.out, '.jsonl')
        .filter((f) => f !== 'rejects.jsonl')
        .flatMap((f) => readJsonl(path.join(plain.out, f)))
        .map((r) => [String(r.id), JSON.stringify(r)]),
    );
    for (const f of filesUnder(out, '.jsonl').filter((f) => f !== 'rejects.jsonl'))
      for (const r of readJsonl(path.join(out, f))) if (plainRows.has(String(r.id))) expect(JSON.stringify(r)).toBe(plainRows.get(String(r.id)));
  }, 60_000);

  it('is refused for the formats that keep every turn (verl-sft, trl)', async () => {
    const r = await runHsaAsync(['export', demoOut, '--to', 'verl-sft', '--out', path.join(tempDir('hsa-export-'), 'x'), '--merge-turns']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--merge-turns: only llamafactory and swift need it');
  });
});

describe('hsa export: determinism and bad inputs', () => {
  it('gives byte-identical folders for two exports, however the source path is spelled', async () => {
    for (const format of ['verl-sft', 'verl-rl', 'llamafactory', 'swift', 'trl']) {
      const a = await exportTo(fixtureOut, format);
      const b = await exportTo(`${fixtureOut}/../${path.basename(fixtureOut)}/`, format);
      expect(treeHashes(b.out), format).toEqual(treeHashes(a.out));
    }
  }, 60_000);

  it('reads gzip parts and the string forms of tools and arguments, writing the same records', async () => {
    const src = tempDir('hsa-export-gz-');
    const r = await runHsaAsync([
      'augment',
      '--no-gzip',
      '--config',
      FIXTURE,
      '--out',
      src,
      '--force',
      '-q',
      '--gzip',
      '--tools-format',
      'json-string',
      '--arguments',
      'string',
    ]);
    expect(r.code, r.stderr).toBe(0);
    for (const format of ['swift', 'llamafactory', 'trl']) {
      const [a, b] = await Promise.all([exportTo(fixtureOut, format), exportTo(src, format)]);
      const data = (out: string) => Object.fromEntries(Object.entries(treeHashes(out)).filter(([f]) => f !== 'export-manifest.json'));
      expect(data(b.out), format).toEqual(data(a.out));
    }
    // verl-sft keeps argument text as the source wrote it (a string stays a string), so compare values.
    const [a, b] = await Promise.all([exportTo(fixtureOut, 'verl-sft'), exportTo(src, 'verl-sft')]);
    const rows = async (out: string) => {
      const all: unknown[] = [];
      for (const f of filesUnder(out, '.parquet'))
        for (const r of await duckRows(path.join(out, f)))
          all.push({ ...r, messages: parquetMessagesParsed(r.messages), tools: JSON.parse(r.tools as string) });
      return all;
    };
    expect(await rows(b.out)).toEqual(await rows(a.out));
  }, 60_000);

  it('puts records over --max-tokens in rejects with their counts; the balance holds', async () => {
    const { out, manifest } = await exportTo(fixtureOut, 'swift', ['--max-tokens', '640']);
    const rejects = readJsonl(path.join(out, 'rejects.jsonl'));
    expect(manifest.counts.too_long).toBeGreaterThan(0);
    expect(manifest.counts.written).toBeGreaterThan(0);
    expect(manifest.counts.read).toBe(manifest.counts.written + manifest.counts.skipped + manifest.counts.too_long);
    expect(rejects.filter((r) => r.kind === 'too_long').length).toBe(manifest.counts.too_long);
    expect(String(rejects[0]!.reason)).toMatch(/^too_long: [\d,]+ tokens > 640$/);
    expect(manifest.tokens.sft.max).toBeLessThanOrEqual(640);
    expect(manifest.options.tokenizer.name).toBe('qwen3');
  }, 60_000);

  it('refuses a folder that is not an hsa output, an unknown format and a tokenizer folder without tokenizer.json, writing nothing', async () => {
    const root = tempDir('hsa-export-bad-');
    const notOut = path.join(root, 'plain');
    mkdirSync(notOut);
    writeFileSync(path.join(notOut, 'data.jsonl'), '{}\n');
    const noTokenizer = path.join(root, 'tok');
    mkdirSync(noTokenizer);
    writeFileSync(path.join(noTokenizer, 'tokenizer_config.json'), '{"chat_template":"{{ messages }}"}');
    const cases: [string[], RegExp][] = [
      [['export', notOut, '--to', 'verl-sft', '--out', path.join(root, 'o1')], /not an hsa output folder \(no manifest\.json/],
      [
        ['export', fixtureOut, '--to', 'axolotl', '--out', path.join(root, 'o2')],
        /unknown format "axolotl" \(formats: verl-sft, verl-rl, llamafactory, swift, trl\)/,
      ],
      [
        ['export', fixtureOut, '--to', 'swift', '--out', path.join(root, 'o3'), '--max-tokens', '100', '--tokenizer', noTokenizer],
        /tokenizer\.json: cannot read/,
      ],
      [['export', fixtureOut, '--to', 'llamafactory', '--stage', 'opd', '--out', path.join(root, 'o4')], /llamafactory exports sft records/],
      [['augment', '--no-gzip', '--config', FIXTURE, '--out', path.join(root, 'o5'), '--tokenizer', noTokenizer], /tokenizer\.json: cannot read/],
    ];
    for (const [args, message] of cases) {
      const r = await runHsaAsync(args);
      expect(r.stderr).not.toContain(STACK_LINE);
      expect([1, 2], r.stderr).toContain(r.code);
      expect(r.stderr).toMatch(message);
    }
    for (const o of ['o1', 'o2', 'o3', 'o4']) expect(existsSync(path.join(root, o)), o).toBe(false);
    expect(existsSync(path.join(root, 'o5', 'manifest.json'))).toBe(false);
    // An out folder that holds something else is not overwritten without --force.
    const busy = path.join(root, 'busy');
    mkdirSync(busy);
    writeFileSync(path.join(busy, 'keep.txt'), 'mine');
    const r = await runHsaAsync(['export', fixtureOut, '--to', 'swift', '--out', busy]);
    expect(r.code).toBe(2);
    expect(readFileSync(path.join(busy, 'keep.txt'), 'utf8')).toBe('mine');
  }, 60_000);
});
