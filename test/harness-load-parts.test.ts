import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadHarness } from '../src/harness/load.js';
import { renderTools } from '../src/harness/render.js';
import { openAiSafeName } from '../src/harness/tools.js';
import { openAiTool } from './helpers/tmp.js';
import { errorsOf, loaded, useHarnessDirs, warningsOf } from './helpers/harness-dirs.js';

const { harnessDir } = useHarnessDirs();

describe('tool formats', () => {
  const schema = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };

  it('reads an MCP tools/list result and one inside a JSON-RPC envelope', async () => {
    const dir = await harnessDir({
      'harness.yaml': 'name: mcp\nversion: "1"\n',
      'tools/a-list.json': JSON.stringify({
        tools: [{ name: 'get_campaign', title: 'Campaign', description: 'Get one.', inputSchema: schema, annotations: { readOnlyHint: true } }],
      }),
      'tools/b-rpc.json': JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        result: {
          tools: [{ name: 'list_campaigns', description: 'List.', inputSchema: { type: 'object', properties: {} }, outputSchema: { type: 'object' } }],
        },
      }),
      'tools/c-single.yaml': 'name: ping\ninputSchema:\n  type: object\n',
    });
    const h = loaded(await loadHarness(dir));
    expect(h.tools).toEqual([
      {
        name: 'get_campaign',
        description: 'Get one.',
        parameters: schema,
        sourceName: 'get_campaign',
        sourceFormat: 'mcp',
        title: 'Campaign',
        annotations: { readOnlyHint: true },
      },
      { name: 'list_campaigns', description: 'List.', parameters: { type: 'object', properties: {} }, sourceName: 'list_campaigns', sourceFormat: 'mcp' },
      { name: 'ping', description: '', parameters: { type: 'object' }, sourceName: 'ping', sourceFormat: 'mcp' },
    ]);
  });

  it('gives an MCP name with a dot an OpenAI-safe name and keeps the source name', async () => {
    const dir = await harnessDir({
      'harness.yaml': 'name: mcp\nversion: "1"\n',
      'tools/mcp.json': JSON.stringify([{ name: 'marketing.get_campaign', description: 'Get.', inputSchema: schema }]),
    });
    const h = loaded(await loadHarness(dir));
    expect(h.tools.map((t) => [t.name, t.sourceName])).toEqual([['marketing_get_campaign', 'marketing.get_campaign']]);
    expect(renderTools(h)[0]!.function.name).toBe('marketing_get_campaign');
  });

  it('cuts long MCP names to 64 characters with a hash suffix that keeps them apart', () => {
    const a = `svc.${'x'.repeat(80)}.a`;
    const b = `svc.${'x'.repeat(80)}.b`;
    const sa = openAiSafeName(a);
    const sb = openAiSafeName(b);
    expect(sa).toHaveLength(64);
    expect(sb).toHaveLength(64);
    expect(sa).not.toBe(sb);
    expect(sa).toMatch(/^svc_x{51}_[0-9a-f]{8}$/);
    expect(openAiSafeName(a)).toBe(sa);
    expect(openAiSafeName('ok-name_1')).toBe('ok-name_1');
    expect(openAiSafeName('a b/c')).toBe('a_b_c');
  });

  it('reports two MCP names that map to the same safe name as duplicates', async () => {
    const text = JSON.stringify(
      {
        tools: [
          { name: 'a.b', inputSchema: schema },
          { name: 'a/b', inputSchema: schema },
        ],
      },
      null,
      2,
    );
    const lineOf = (s: string) => text.split('\n').findIndex((l) => l.includes(s)) + 1;
    const dir = await harnessDir({ 'harness.yaml': 'name: mcp\nversion: "1"\n', 'tools/mcp.json': text });
    const r = await loadHarness(dir);
    // The first tool is located at its item (line 3), the duplicate at its own name.
    expect(lineOf('"a/b"')).toBeGreaterThan(10);
    expect(errorsOf(r).map((p) => [p.line, p.path, p.message])).toEqual([
      [lineOf('"a/b"'), 'tools.1.name', `duplicate tool "a_b" (also ${path.join(dir, 'tools/mcp.json')}:3)`],
    ]);
  });

  it('rejects a bare function object with a hint', async () => {
    const dir = await harnessDir({
      'harness.yaml': 'name: t\nversion: "1"\n',
      'tools/bare.json': JSON.stringify({ name: 'f', parameters: { type: 'object' } }),
    });
    const r = await loadHarness(dir);
    expect(errorsOf(r).map((p) => p.message)).toEqual(['looks like a bare function; wrap it as {"type":"function","function":{...}}']);
  });
});

describe('hooks', () => {
  it('maps Claude Code event aliases and applies per-event defaults', async () => {
    const dir = await harnessDir({
      'harness.yaml': 'name: h\nversion: "1"\n',
      'tools/t.json': JSON.stringify(openAiTool('t')),
      'hooks.yaml': `hooks:
  - { id: a, event: UserPromptSubmit, checks: [{ max_tool_rounds: 2 }] }
  - { id: b, event: PreToolUse, checks: [{ schema_valid: true }] }
  - { id: c, event: PostToolUse, matcher: [t], checks: [{ forbid: { phrases: [secret] } }] }
  - { id: d, event: Stop, checks: [{ forbid: { regex: ['x+'] } }] }
  - { id: e, event: post_tool_use, checks: [{ schema_valid: true }], action: retry, channel: system, max_rounds: 1 }
`,
    });
    const h = loaded(await loadHarness(dir));
    expect(h.hooks.map((k) => [k.id, k.event, k.action, k.channel, k.maxRounds])).toEqual([
      ['a', 'pre_inference', 'retry', 'user', 3],
      ['b', 'pre_tool_use', 'reject', 'tool', 3],
      ['c', 'post_tool_use', 'retry', 'tool', 3],
      ['d', 'stop', 'retry', 'user', 3],
      ['e', 'post_tool_use', 'retry', 'system', 1],
    ]);
    expect(h.hooks[2]!.checks).toEqual([{ type: 'forbid', phrases: ['secret'], regex: [], target: 'arguments' }]);
    expect(h.hooks[3]!.checks).toEqual([{ type: 'forbid', phrases: [], regex: ['x+'], target: 'reply' }]);
  });

  it('reports a hooks.yaml without a hooks list and unknown top-level keys', async () => {
    const dir = await harnessDir({ 'harness.yaml': 'name: h\nversion: "1"\n', 'hooks.yaml': '- id: a\n  event: stop\n' });
    const r = await loadHarness(dir);
    expect(errorsOf(r)).toEqual([
      {
        file: path.join(dir, 'hooks.yaml'),
        line: 1,
        path: 'hooks',
        message: expect.stringMatching(
          /^expected a mapping with `hooks:`, holding a list of hsa hooks \(`- id: …, event: stop, checks: \[…\]`\) or a Claude Code hooks mapping \(`PreToolUse: .*; found a list$/,
        ),
        severity: 'error',
      },
    ]);
    const dir2 = await harnessDir({ 'harness.yaml': 'name: h\nversion: "1"\n', 'hooks.yaml': 'hooks: []\nversion: 2\n' });
    const r2 = await loadHarness(dir2);
    expect(errorsOf(r2)).toEqual([{ file: path.join(dir2, 'hooks.yaml'), line: 2, path: '', message: 'unknown key: version', severity: 'error' }]);
  });

  it('refuses an event named like a property every object has (toString, constructor)', async () => {
    for (const event of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      const dir = await harnessDir({ 'harness.yaml': 'name: h\nversion: "1"\n', 'hooks.yaml': `hooks:\n  - id: a\n    event: "${event}"\n` });
      const r = await loadHarness(dir);
      expect(
        errorsOf(r).map((p) => [p.line, p.path, p.message.slice(0, 16)]),
        event,
      ).toEqual([[3, 'hooks.0.event', 'must be one of p']]);
    }
  });
});

describe('skills', () => {
  it('keeps the Agent Skills keys silently and warns only about unknown front-matter keys', async () => {
    const dir = await harnessDir({
      'harness.yaml': 'name: s\nversion: "1"\nskills:\n  loader: { tool: load, argument: name }\n',
      'tools/load.json': JSON.stringify(openAiTool('load', { name: { type: 'string' } })),
      'skills/pdf-tools/SKILL.md':
        '---\nname: pdf-tools\ndescription: Work with PDFs.\nlicense: Apache-2.0\nallowed-tools: Read Write\nmetadata:\n  author: someone\ncompatibility: needs poppler\nowner: team-a\n---\n# PDF\nUse it.\n',
    });
    const r = await loadHarness(dir);
    const h = loaded(r);
    expect(h.skills[0]!.extra).toEqual({
      license: 'Apache-2.0',
      'allowed-tools': 'Read Write',
      metadata: { author: 'someone' },
      compatibility: 'needs poppler',
      owner: 'team-a',
    });
    expect(h.skills[0]!.body).toBe('# PDF\nUse it.');
    const file = path.join(dir, 'skills/pdf-tools/SKILL.md');
    expect(warningsOf(r)).toEqual([{ file, line: 9, path: 'owner', message: 'front-matter key is not used by hsa (kept as written)', severity: 'warning' }]);
    expect(errorsOf(r)).toEqual([]);
  });

  it('warns when skills exist without a loader', async () => {
    const dir = await harnessDir({
      'harness.yaml': 'name: s\nversion: "1"\n',
      'skills/a/SKILL.md': '---\nname: a\ndescription: A.\n---\n',
    });
    const r = await loadHarness(dir);
    expect(r.problems.map((p) => [p.severity, p.path])).toEqual([['warning', 'skills.loader']]);
  });
});

describe('all problems at once', () => {
  it('a harness with 3 independent errors gives exactly those 3 problems', async () => {
    const dir = await harnessDir({
      'harness.yaml': 'name: three\nversion: "1"\nprompt:\n  pinned: [missing_section]\n',
      'prompt/role.md': '# Role',
      'tools/bad.json': JSON.stringify(openAiTool('bad name!')),
      'skills/greet/SKILL.md': '---\nname: greeting\ndescription: Hi.\n---\n',
    });
    const r = await loadHarness(dir);
    expect(r.harness).toBeDefined();
    expect(errorsOf(r).map((p) => [path.relative(dir, p.file), p.line, p.path])).toEqual(
      expect.arrayContaining([
        ['harness.yaml', 4, 'prompt.pinned.0'],
        ['tools/bad.json', 1, 'function.name'],
        [path.join('skills', 'greet', 'SKILL.md'), 2, 'name'],
      ]),
    );
    expect(errorsOf(r)).toHaveLength(3);
  });

  it('reports every schema problem of harness.yaml itself, each on its own line', async () => {
    const dir = await harnessDir({ 'harness.yaml': 'name: ""\nversion: "1"\ncolour: red\nprompt:\n  order: role\n' });
    const r = await loadHarness(dir);
    expect(r.harness).toBeUndefined();
    expect(r.problems.map((p) => [p.line, p.path, p.message])).toEqual(
      expect.arrayContaining([
        [1, 'name', expect.stringMatching(/>=1 characters/)],
        [3, '', 'unknown key: colour'],
        [5, 'prompt.order', 'Invalid input: expected array, received string'],
      ]),
    );
    expect(r.problems).toHaveLength(3);
  });
});
