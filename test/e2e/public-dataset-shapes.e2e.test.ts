import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, runHsaAsync } from '../helpers/hsa.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

/**
 * Shapes met in real public data (single-turn function-calling sets, MCP tool lists, Hermes-style
 * prompts that embed the tool list, published Agent Skills), reproduced by records written for this
 * project. The real binary validates and augments them; the written bytes are then read by the
 * independent checker `scripts/audit/check-output.mjs` (its own ajv, name scan and task mapping).
 */

const CHECKER = path.join(REPO, 'scripts/audit/check-output.mjs');

afterAll(() => removeTempDirs());

type Json = Record<string, unknown>;
const fn = (name: string, parameters: Json, description?: string, extra: Json = {}) => ({
  type: 'function',
  function: { name, ...(description === undefined ? {} : { description }), parameters, ...extra },
});
const call = (id: string, name: string, args: Json) => ({ id, type: 'function', function: { name, arguments: JSON.stringify(args) } });

function checker(
  out: string,
  sources: string,
  harness?: string,
): { code: number; report: { failures: Record<string, { count: number; examples: string[] }>; checked: { records: number } } } {
  const args = [CHECKER, '--out', out, '--sources', sources, '--json', ...(harness ? ['--harness', harness] : [])];
  const r = spawnSync(process.execPath, args, { encoding: 'utf8' });
  return { code: r.status ?? -1, report: JSON.parse(r.stdout) };
}

const readJsonl = (f: string) =>
  readFileSync(f, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Json);

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

describe('a harness of published-style Agent Skills (code spans, JSON examples, long descriptions)', () => {
  const dir = tempDir('hsa-skills-');
  const h = path.join(dir, 'harness');
  for (const d of ['prompt', 'tools', 'skills/report-writer', 'skills/api-notes']) mkdirSync(path.join(h, d), { recursive: true });
  writeFileSync(
    path.join(h, 'harness.yaml'),
    'name: skills-desk\nversion: "1.0.0"\nprompt:\n  dir: prompt\n  order: [role, skills]\n  catalog:\n    id: skills\n    title: Skills\n    intro: Call `load_skill` with the skill\'s `name` first.\nskills:\n  dir: skills\n  naming: agent-skills\n  loader:\n    tool: load_skill\n    argument: name\ntools:\n  sources: [tools/tools.json]\n',
  );
  writeFileSync(path.join(h, 'prompt/role.md'), '# Role\n\nYou write reports in a sandbox.\n');
  writeFileSync(
    path.join(h, 'tools/tools.json'),
    JSON.stringify([
      fn('load_skill', { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }, 'Load a skill by name.'),
      fn('run_command', { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] }, 'Run a shell command.'),
    ]),
  );
  // A description longer than the Agent Skills limit (published skills have them): a warning.
  const long = `Write reports from data. ${'Use it for summaries, tables and charts of any data set. '.repeat(20)}`.trim();
  writeFileSync(
    path.join(h, 'skills/report-writer/SKILL.md'),
    `---\nname: report-writer\ndescription: ${long}\nlicense: Apache-2.0\n---\n# Report writer\n\nEach result row has the fields \`text\`, \`score\` and \`name\`; keep \`text\` verbatim.\n\n1. Load the data.\n2. Then write the summary.\n3. Finally check the \`text\` of every row.\n\n\`\`\`json\n{"name": "summary", "text": "…"}\n\`\`\`\n`,
  );
  writeFileSync(
    path.join(h, 'skills/api-notes/SKILL.md'),
    '---\nname: api-notes\ndescription: Notes on the partner API.\n---\nSend `{"text": "hi", "lang": "en"}`; the reply has a `text` field.\n',
  );
  const file = path.join(dir, 't.jsonl');
  const cfg = path.join(dir, 'hsa.yaml');

  it('loads with a warning for the long description, validates, and augments with 0 unexplained body changes', async () => {
    const v0 = await runHsaAsync(['validate', h]);
    expect(v0.code, v0.stderr).toBe(0);
    expect(v0.stdout + v0.stderr).toContain('more than the Agent Skills limit of 1024');
    const inspect = await runHsaAsync(['inspect', h, '--render']);
    expect(inspect.code, inspect.stderr).toBe(0);
    const body = (id: string) =>
      readFileSync(path.join(h, `skills/${id}/SKILL.md`), 'utf8')
        .replace(/^---\n[\s\S]*?\n---\n/, '')
        .trim();
    const recs = ['report-writer', 'api-notes'].flatMap((id, i) =>
      [0, 1].map((k) => ({
        id: `${id}-${k}`,
        messages: [
          { role: 'system', content: inspect.stdout },
          { role: 'user', content: `Use ${id} please (${k}).` },
          { role: 'assistant', content: '', tool_calls: [call('c0', 'load_skill', { name: id })] },
          { role: 'tool', tool_call_id: 'c0', content: body(id) },
          { role: 'assistant', content: '', tool_calls: [call(`c${i + 1}`, 'run_command', { command: `ls ${id}` })] },
        ],
      })),
    );
    writeFileSync(file, recs.map((r) => JSON.stringify(r)).join('\n') + '\n');
    // A distractor tool whose parameter is the plain word `text`, and renames of every tool and
    // parameter: the skill bodies' unrelated `text` code spans stay (the false reject this caused on
    // published skills is reproduced in test/transforms/distractor-param-owners.test.ts).
    writeFileSync(
      cfg,
      `harness: harness\ntrajectories: [t.jsonl]\nwords:\n  mode: {distractor_tools: replace}\n  distractor_tools:\n    - name: translate_snippet\n      description: Translate a short snippet.\n      parameters: {type: object, properties: {text: {type: string}, lang: {type: string}}, required: [text]}\ntransforms:\n  tools.distractors: { p: 1, max: 1 }\n  tools.param-rename: { p: 1, intensity: 1 }\n  skills.body-layout: true\n  skills.rename: true\n  tools.rename: true\n`,
    );
    const v = await runHsaAsync(['validate', h, '-t', file]);
    expect(v.code, v.stderr).toBe(0);
    for (const seed of ['1', '2']) {
      const out = path.join(dir, `out-${seed}`);
      const a = await runHsaAsync(['augment', '--no-gzip', '--config', cfg, '-o', out, '-k', '8', '--seed', seed, '--stages', 'sft', '-q', '--json']);
      expect(a.code, a.stderr).toBe(0);
      expect((JSON.parse(a.stdout) as { totals: Json; reject_reasons?: Json }).totals).toMatchObject({ variants_written: 32, variants_rejected: 0 });
      const c = checker(out, file, h);
      expect(c.report.failures).toEqual({});
      // The unrelated `text` spans are kept byte for byte in every body.
      for (const r of readJsonl(path.join(out, 'sft/part-00000.jsonl')) as { messages: { role: string; content: string }[] }[]) {
        const loaded = r.messages.find((m) => m.role === 'tool')!.content;
        expect(loaded).toContain('`text`');
      }
    }
  }, 60_000);
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

describe('skill loads logged as the file reads (blank line after the front matter, final newline)', () => {
  // A loader that returns SKILL.md after its front matter gives the body with the blank line that
  // followed the front matter and the file's final newline: the same body, and the same text kept.
  const dir = tempDir('hsa-skill-space-');
  const h = path.join(dir, 'harness');
  for (const d of ['prompt', 'tools', 'skills/seed-saving', 'skills/compost-guide', 'skills/mulch']) mkdirSync(path.join(h, d), { recursive: true });
  writeFileSync(path.join(h, 'harness.yaml'), 'name: garden-desk\nversion: "2"\nskills:\n  loader:\n    tool: open_skill\n    argument: skill\n');
  writeFileSync(path.join(h, 'prompt/role.md'), '# Role\n\nYou help allotment holders. Open a skill before you follow it.\n');
  writeFileSync(
    path.join(h, 'tools/tools.json'),
    JSON.stringify([
      fn('open_skill', { type: 'object', properties: { skill: { type: 'string' } }, required: ['skill'] }, 'Open a skill.'),
      fn(
        'log_task',
        { type: 'object', properties: { plot_id: { type: 'string' }, task: { type: 'string' } }, required: ['plot_id', 'task'] },
        'Log a task on a plot.',
      ),
    ]),
  );
  const files: Record<string, string> = {
    'seed-saving':
      '---\nname: seed-saving\ndescription: Save seed from open-pollinated crops.\nlicense: CC-BY-4.0\n---\n\n# Seed saving\n\n1. Pick the best plants and let them go to seed.\n2. Dry seed for two weeks, then call `log_task` with the `plot_id`.\n\n```python\nlabel = f"{crop}-{year}"\n```\n',
    'compost-guide':
      '---\nname: compost-guide\ndescription: Balance a compost heap.\n---\n\nMix greens and browns about 1:2. Turn weekly; log it with `log_task`.\n\n\n',
    // A one-word name: a plain word, which body rules leave alone, except in the front matter.
    mulch: '---\nname: mulch\ndescription: Mulch beds before winter.\n---\n\nSpread 5 cm of leaf mould, then call `log_task`.\n',
  };
  for (const [id, text] of Object.entries(files)) writeFileSync(path.join(h, `skills/${id}/SKILL.md`), text);
  const file = path.join(dir, 't.jsonl');
  const records: Json[] = [];
  for (let i = 0; i < 6; i++) {
    const id = i % 2 ? 'compost-guide' : 'seed-saving';
    const logged = files[id]!.slice(files[id]!.indexOf('\n---\n') + 5);
    records.push({
      id: `g-${i}`,
      messages: [
        { role: 'user', content: `Help with plot P${i}.` },
        { role: 'assistant', content: '', tool_calls: [call('a', 'open_skill', { skill: id })] },
        { role: 'tool', tool_call_id: 'a', content: logged },
        { role: 'assistant', content: 'Logging it.', tool_calls: [call('b', 'log_task', { plot_id: `P${i}`, task: id })] },
        { role: 'tool', tool_call_id: 'b', content: 'ok' },
        { role: 'assistant', content: 'Logged.' },
      ],
    });
  }
  // Loaders that return the whole file, front matter and all.
  for (let i = 0; i < 2; i++) {
    records.push({
      id: `m-${i}`,
      messages: [
        { role: 'user', content: `Mulch plot M${i}.` },
        { role: 'assistant', content: '', tool_calls: [call('a', 'open_skill', { skill: 'mulch' })] },
        { role: 'tool', tool_call_id: 'a', content: files.mulch },
        { role: 'assistant', content: 'Logging it.', tool_calls: [call('b', 'log_task', { plot_id: `M${i}`, task: 'mulch' })] },
        { role: 'tool', tool_call_id: 'b', content: 'ok' },
        { role: 'assistant', content: 'Logged.' },
      ],
    });
  }
  writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');

  it('a whole SKILL.md loaded: its front matter names the renamed skill by its new name', async () => {
    const cfg = path.join(dir, 'rename.yaml');
    writeFileSync(cfg, 'harness: harness\ntrajectories: [t.jsonl]\ntransforms:\n  skills.rename: { p: 1, intensity: 1 }\n');
    const out = path.join(dir, 'out-fm');
    const a = await runHsaAsync(['augment', '--no-gzip', '--config', cfg, '-o', out, '-k', '4', '--stages', 'sft', '-q', '--json']);
    expect(a.code, a.stderr).toBe(0);
    expect((JSON.parse(a.stdout) as { totals: Json }).totals).toMatchObject({ variants_written: 32, variants_rejected: 0 });
    expect(checker(out, file, h).report.failures).toEqual({});
    let seen = 0;
    for (const r of readJsonl(path.join(out, 'sft/part-00000.jsonl')) as {
      id: string;
      messages: { content: string }[];
      meta: { transforms: { id: string; params: { renamed?: Record<string, string> } }[] };
    }[]) {
      if (!r.id.startsWith('m-')) continue;
      const to = r.meta.transforms.find((t) => t.id === 'skills.rename')!.params.renamed!.mulch!;
      expect(r.messages[2]!.content).toMatch(new RegExp(`^---\nname: ${to}\n`));
      seen++;
    }
    expect(seen).toBe(8);
  }, 60_000);

  it('validates, augments every variant with the logged blank space kept, and the checker finds nothing', async () => {
    const v = await runHsaAsync(['validate', h, '-t', file]);
    expect(v.code, v.stdout + v.stderr).toBe(0);
    const out = path.join(dir, 'out');
    const a = await runHsaAsync(['augment', '--no-gzip', '--harness', h, '-t', file, '-o', out, '-k', '8', '--stages', 'sft', '-q', '--json']);
    expect(a.code, a.stderr).toBe(0);
    expect((JSON.parse(a.stdout) as { totals: Json }).totals).toMatchObject({ variants_written: 64, variants_rejected: 0 });
    const c = checker(out, file, h);
    expect(c.report.failures).toEqual({});
    for (const r of readJsonl(path.join(out, 'sft/part-00000.jsonl')) as { id: string; messages: { role: string; content: string }[] }[]) {
      if (r.id.startsWith('m-')) continue;
      const body = r.messages[2]!.content;
      expect(body.startsWith('\n')).toBe(true);
      expect(body.endsWith(r.id.startsWith('g-1') || r.id.startsWith('g-3') || r.id.startsWith('g-5') ? '\n\n\n' : '```\n')).toBe(true);
    }
  }, 60_000);
});
