import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runHsaAsync } from '../helpers/hsa.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

/**
 * Tool-carrying shapes met in real public data (single-turn function-calling sets, MCP tool lists, Hermes-style
 * prompts that embed the tool list, published Agent Skills), reproduced by records written for this
 * project. The real binary validates and augments them; the written bytes are then read by the
 * independent checker `scripts/audit/check-output.mjs` (its own ajv, name scan and task mapping).
 */

import { call, checker, fn, readJsonl, type Json } from '../helpers/public-shapes.js';

afterAll(() => removeTempDirs());

describe('records that carry their own tools, as public function-calling sets write them', () => {
  const dir = tempDir('hsa-shapes-');
  const file = path.join(dir, 'fc.jsonl');
  const issueTools = [
    // Nested array of objects, `strict`, no description.
    fn(
      'create_issue',
      {
        type: 'object',
        properties: {
          repo: { type: 'string' },
          title: { type: 'string' },
          labels: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, color: { type: 'string' } }, required: ['name'] } },
        },
        required: ['repo', 'title'],
      },
      undefined,
      { strict: true },
    ),
    fn(
      'read_file',
      { type: 'object', properties: { path: { type: 'string', description: '文件路径 (path of the file)' } }, required: ['path'], additionalProperties: false },
      '读取文件 Read a file',
    ),
  ];
  // MCP tools whose names OpenAI does not allow (dots), called by those names.
  const mcpTools = [
    {
      name: 'tracker.search',
      description: 'Search the tracker.\r\nReturns ids.',
      inputSchema: { type: 'object', properties: { q: { type: 'string' }, top_k: { type: 'integer', minimum: 1 } }, required: ['q'] },
    },
    { name: 'tracker.get', inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } },
  ];
  // A Hermes-style system prompt with the tool list written out as JSON (plain-word tool and parameter names).
  const searchTool = fn(
    'search',
    { type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer' } }, required: ['query'] },
    'Search the web.',
  );
  const hermesSystem = `You are a function calling AI model. You are provided with function signatures within <tools></tools> XML tags.\n<tools>\n${JSON.stringify(searchTool.function)}\n</tools>\nFor each call return a JSON object with "name" and "arguments".`;
  const records: Json[] = [];
  for (let i = 0; i < 6; i++) {
    // Single turn: the final (parallel) calls are the target, nobody answers them.
    records.push({
      id: `st-${i}`,
      tools: issueTools,
      messages: [
        { role: 'system', content: ' You file issues.\r\nBe brief.\n' },
        { role: 'user', content: `Open an issue in acme/app${i} titled Crash, label bug, and read README.md` },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            call('c1', 'create_issue', { repo: `acme/app${i}`, title: 'Crash', labels: [{ name: 'bug' }] }),
            call('c2', 'read_file', { path: 'README.md' }),
          ],
        },
      ],
    });
    records.push({
      id: `mcp-${i}`,
      tools: mcpTools,
      messages: [
        { role: 'user', content: `  搜索 issue ${i} 并打开  ` },
        { role: 'assistant', content: '', tool_calls: [call('x', 'tracker.search', { q: `issue ${i}`, top_k: 1 })] },
        { role: 'tool', tool_call_id: 'x', content: `["T-${i}"]` },
        { role: 'assistant', content: '', tool_calls: [call('x', 'tracker.get', { id: `T-${i}` })] },
      ],
    });
    records.push({
      id: `hermes-${i}`,
      tools: [searchTool],
      messages: [
        { role: 'system', content: hermesSystem },
        { role: 'user', content: `find cats ${i}` },
        { role: 'assistant', content: '', tool_calls: [call('h', 'search', { query: `cats ${i}`, limit: 3 })] },
      ],
    });
  }
  writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');

  it('validate accepts every record as given (unanswered final calls, MCP names with dots)', async () => {
    const v = await runHsaAsync(['validate', '-t', file, '--json']);
    const report = JSON.parse(v.stdout) as { problems: { severity: string; message: string }[] };
    expect(report.problems.filter((p) => p.severity === 'error')).toEqual([]);
    expect(v.code, v.stderr).toBe(0);
  });

  it('a final call that is answered by nothing is accepted only at the very end', async () => {
    const bad = path.join(dir, 'bad.jsonl');
    const rec = records[0] as { messages: Json[] };
    // The same open calls followed by a user turn: a missing answer, still an error.
    writeFileSync(bad, JSON.stringify({ ...rec, id: 'mid', messages: [...rec.messages, { role: 'user', content: 'and?' }] }) + '\n');
    const v = await runHsaAsync(['validate', '-t', bad]);
    expect(v.code).toBe(1);
    expect(v.stdout + v.stderr).toContain('tool call "c1" has no tool message answering it');
  });

  it('augment writes every variant; the independent checker finds no invalid call, leak or task change', async () => {
    for (const seed of ['1', '2', '3']) {
      const out = path.join(dir, `out-${seed}`);
      const a = await runHsaAsync(['augment', '--no-gzip', '-t', file, '-o', out, '-k', '8', '--seed', seed, '--stages', 'sft,rl', '-q', '--json']);
      expect(a.code, a.stderr).toBe(0);
      const totals = (JSON.parse(a.stdout) as { totals: Json }).totals;
      expect(totals).toMatchObject({ input_records: 18, valid_records: 18, variants_written: 144, variants_rejected: 0 });
      const c = checker(out, file);
      expect(c.report.failures).toEqual({});
      expect(c.code).toBe(0);
      // The single-turn target is kept: the last message makes both calls, and RL expects them.
      const sft = readJsonl(path.join(out, 'sft/part-00000.jsonl')) as { id: string; messages: { role: string; tool_calls?: unknown[] }[] }[];
      for (const r of sft.filter((x) => x.id.startsWith('st-'))) {
        const last = r.messages[r.messages.length - 1]!;
        expect(last.role).toBe('assistant');
        expect(last.tool_calls).toHaveLength(2);
      }
      const rl = readJsonl(path.join(out, 'rl/part-00000.jsonl')) as { extra_info: { index?: unknown }; reward_model: { ground_truth: string } }[];
      const st = rl.filter((r) => JSON.stringify(r).includes('acme/app'));
      expect(st.length).toBe(48);
      for (const r of st) expect((JSON.parse(r.reward_model.ground_truth) as { expected_calls: unknown[] }).expected_calls).toHaveLength(2);
    }
  }, 60_000);

  it('the checker is not blind: an old name put back into the output is reported', async () => {
    const out = path.join(dir, 'out-1');
    const part = path.join(out, 'sft/part-00000.jsonl');
    const lines = readFileSync(part, 'utf8').trim().split('\n');
    const k = lines.findIndex((l) => (JSON.parse(l) as { meta: { transforms: { id: string }[] } }).meta.transforms.some((t) => t.id === 'tools.rename'));
    expect(k).toBeGreaterThanOrEqual(0);
    const rec = JSON.parse(lines[k]!) as {
      tools: { function: { name: string } }[];
      meta: { transforms: { id: string; params: { renamed: Record<string, string> } }[] };
    };
    const [old, now] = Object.entries(rec.meta.transforms.find((t) => t.id === 'tools.rename')!.params.renamed)[0]!;
    // The tool list names the tool by its old name again (the rename table is left as written).
    rec.tools.find((t) => t.function.name === now)!.function.name = old;
    const copy = path.join(dir, 'tampered');
    mkdirSync(path.join(copy, 'sft'), { recursive: true });
    writeFileSync(path.join(copy, 'manifest.json'), readFileSync(path.join(out, 'manifest.json')));
    lines[k] = JSON.stringify(rec);
    writeFileSync(path.join(copy, 'sft/part-00000.jsonl'), lines.join('\n') + '\n');
    const c = checker(copy, file);
    expect(c.code).toBe(1);
    expect(Object.keys(c.report.failures)).toContain('b_leak');
  });
});

describe('leaderboard-style records: dotted OpenAI tool names, Python type names, one object parameter', () => {
  // Function-calling leaderboards write OpenAI function tools named with dots and schemas typed
  // with Python's names (`dict`, `float`, `tuple`, `any`), plus an `optional` flag JSON Schema does
  // not know; their own harness maps these to JSON Schema before a model sees them.
  const dir = tempDir('hsa-leaderboard-');
  const file = path.join(dir, 'lb.jsonl');
  const tools = [
    fn(
      'freight.quote',
      {
        type: 'dict',
        properties: {
          weight_kg: { type: 'float', description: 'Gross weight.' },
          dims_cm: { type: 'tuple', items: { type: 'integer' }, description: 'Length, width, height.' },
          express: { type: 'boolean', default: false, optional: true },
        },
        required: ['weight_kg', 'dims_cm'],
      },
      'Quote a freight shipment.',
    ),
    fn(
      'freight.book',
      {
        type: 'dict',
        properties: {
          booking: {
            type: 'dict',
            description: 'The booking.',
            properties: { quote_id: { type: 'string' }, notes: { type: 'any', description: 'Anything for the driver.' } },
            required: ['quote_id'],
          },
        },
        required: ['booking'],
      },
      'Book a quoted shipment.',
    ),
    fn('Units.convert', { type: 'dict', properties: { value: { type: 'float' }, to: { type: 'string', enum: ['kg', 'lb'] } }, required: ['value', 'to'] }),
  ];
  const records: Json[] = [];
  for (let i = 0; i < 6; i++) {
    records.push({
      id: `q-${i}`,
      tools,
      messages: [
        { role: 'user', content: `Quote ${i + 2}.5 kg in a 30x20x${10 + i} box, and convert ${i} lb to kg.` },
        {
          role: 'assistant',
          content: null,
          tool_calls: [call('a', 'freight.quote', { weight_kg: i + 2.5, dims_cm: [30, 20, 10 + i] }), call('b', 'Units.convert', { value: i, to: 'kg' })],
        },
      ],
    });
    records.push({
      id: `b-${i}`,
      tools,
      messages: [
        { role: 'user', content: `Book quote Q${i}, leave it at the back door.` },
        {
          role: 'assistant',
          content: null,
          tool_calls: [call('c', 'freight.book', { booking: { quote_id: `Q${i}`, notes: i % 2 ? 'back door' : { gate: i } } })],
        },
      ],
    });
    // The dotted names in prose: a system message, the assistant's text, a tool description.
    records.push({
      id: `s-${i}`,
      tools,
      messages: [
        { role: 'system', content: 'You arrange freight. Price with freight.quote before freight.book; weights go through Units.convert first.' },
        { role: 'user', content: `Ship ${i + 1} lb, 10x10x10.` },
        {
          role: 'assistant',
          content: 'Converting with Units.convert, then freight.quote.',
          tool_calls: [call('u', 'Units.convert', { value: i + 1, to: 'kg' })],
        },
        { role: 'tool', tool_call_id: 'u', content: `${(i + 1) * 0.45}` },
        { role: 'assistant', content: 'Now freight.quote.', tool_calls: [call('q', 'freight.quote', { weight_kg: (i + 1) * 0.45, dims_cm: [10, 10, 10] })] },
        { role: 'tool', tool_call_id: 'q', content: '{"quote_id":"Q9"}' },
        { role: 'assistant', content: 'Quote Q9 is ready; say the word and I book it with freight.book.' },
      ],
    });
  }
  writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');

  it('validate accepts every record as given', async () => {
    const v = await runHsaAsync(['validate', '-t', file, '--json']);
    expect((JSON.parse(v.stdout) as { problems: { severity: string }[] }).problems.filter((p) => p.severity === 'error')).toEqual([]);
    expect(v.code, v.stderr).toBe(0);
  });

  it('augment writes every variant with OpenAI-safe names and JSON Schema types; the checker finds nothing', async () => {
    const cfg = path.join(dir, 'wrap.yaml');
    // Every variant restyles every tool's wrapper: the one object parameter of freight.book is flattened.
    writeFileSync(cfg, `trajectories: [lb.jsonl]\ntransforms:\n  tools.schema-style: { p: 1, intensity: 1, styles: [wrap] }\n`);
    const runs = [
      ['--seed', '1'],
      ['--seed', '2'],
      ['--config', cfg, '--seed', '3'],
    ];
    let flattened = 0;
    let renamedInProse = 0;
    for (const [k, run] of runs.entries()) {
      const out = path.join(dir, `out-${k}`);
      const a = await runHsaAsync([
        'augment',
        '--no-gzip',
        ...(run[0] === '--config' ? [] : ['-t', file]),
        ...run,
        '-o',
        out,
        '-k',
        '8',
        '--stages',
        'sft',
        '-q',
        '--json',
      ]);
      expect(a.code, a.stderr).toBe(0);
      expect((JSON.parse(a.stdout) as { totals: Json }).totals).toMatchObject({
        input_records: 18,
        valid_records: 18,
        variants_written: 144,
        variants_rejected: 0,
      });
      const c = checker(out, file);
      expect(c.report.failures).toEqual({});
      expect(c.code).toBe(0);
      const text = readFileSync(path.join(out, 'sft/part-00000.jsonl'), 'utf8');
      // What the model reads: no Python type name, no name OpenAI refuses.
      expect(text).not.toMatch(/"type":"(dict|float|tuple|any)"/);
      for (const r of text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { tools: { function: { name: string } }[]; messages: { tool_calls?: { function: { name: string } }[] }[] })) {
        for (const t of r.tools) expect(t.function.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
        for (const m of r.messages) for (const c2 of m.tool_calls ?? []) expect(c2.function.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      }
      flattened += (text.match(/"flatten:/g) ?? []).length;
      // A renamed dotted tool is renamed in prose too (the checker looks for the dotted spelling).
      for (const r of text
        .trim()
        .split('\n')
        .map(
          (l) =>
            JSON.parse(l) as {
              id: string;
              messages: { content: unknown }[];
              meta: { transforms: { id: string; params: { renamed?: Record<string, string> } }[] };
            },
        )) {
        const renamed = r.meta.transforms.find((t) => t.id === 'tools.rename')?.params.renamed ?? {};
        if (r.id.startsWith('s-') && renamed.freight_quote) {
          renamedInProse++;
          expect(JSON.stringify(r.messages)).not.toContain('freight.quote');
          expect(JSON.stringify(r.messages)).toContain(renamed.freight_quote);
        }
      }
    }
    expect(flattened).toBeGreaterThan(0);
    expect(renamedInProse).toBeGreaterThan(0);
  }, 60_000);

  it('the checker is not blind to a dotted name put back into prose', () => {
    const part = path.join(dir, 'out-0', 'sft/part-00000.jsonl');
    const lines = readFileSync(part, 'utf8').trim().split('\n');
    // A variant whose tools.rename renamed freight.quote (by its OpenAI-safe name).
    const k = lines.findIndex((l) => {
      const r = JSON.parse(l) as { id: string; meta: { transforms: { id: string; params: { renamed?: Record<string, string> } }[] } };
      return r.id.startsWith('s-') && r.meta.transforms.find((t) => t.id === 'tools.rename')?.params.renamed?.freight_quote !== undefined;
    });
    expect(k).toBeGreaterThanOrEqual(0);
    const rec = JSON.parse(lines[k]!) as { messages: { role: string; content: string }[] };
    rec.messages[0]!.content += ' Always freight.quote first.';
    lines[k] = JSON.stringify(rec);
    const copy = path.join(dir, 'tampered');
    mkdirSync(path.join(copy, 'sft'), { recursive: true });
    writeFileSync(path.join(copy, 'manifest.json'), readFileSync(path.join(dir, 'out-0', 'manifest.json')));
    writeFileSync(path.join(copy, 'sft/part-00000.jsonl'), lines.join('\n') + '\n');
    const c = checker(copy, file);
    expect(c.code).toBe(1);
    expect(c.report.failures.b_leak?.examples.join('\n')).toContain('"freight.quote" in messages.0(system)');
  });
});
