import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UnreadableInputError } from '../src/errors.js';
import { loadHarness } from '../src/harness/load.js';
import { renderPrompt, renderSystemPrompt, renderTools } from '../src/harness/render.js';
import { REPO } from './helpers/hsa.js';
import { openAiTool } from './helpers/tmp.js';
import { errorsOf, loaded, useHarnessDirs, warningsOf } from './helpers/harness-dirs.js';

const { root, harnessDir } = useHarnessDirs();

describe('folder form', () => {
  it('loads fixtures/bad/_harness: prompt files, skills, tools, hooks and settings', async () => {
    const r = await loadHarness(path.join(REPO, 'fixtures/bad/_harness'));
    const h = loaded(r);
    expect(r.problems).toEqual([]);
    expect(h.name).toBe('bad-base');
    expect(h.version).toBe('1.0.0');
    expect(h.description).toMatch(/^Small valid harness/);
    expect(h.sections.map((s) => [s.id, s.kind])).toEqual([
      ['role', 'text'],
      ['skills', 'catalog'],
      ['shop', 'text'],
    ]);
    expect(h.sections[0]!.text).toBe('# Role\nYou are {{host.name}}, the assistant of {{shop.name}}.');
    expect(h.pinned).toEqual(['role']);
    expect(h.catalog).toEqual({ id: 'skills', title: 'Skills', intro: 'Call `load_skill` with a skill name first.' });
    expect(h.variables['host.name']).toEqual({ description: 'Persona name', default: 'Ava' });
    expect(h.variables['shop.name']).toEqual({ description: 'Shop name' });
    expect(h.skillNaming).toBe('snake');
    expect(h.skillLoader).toEqual({ tool: 'load_skill', argument: 'name' });
    expect(h.skills.map((s) => [s.id, s.kind, s.tools])).toEqual([
      ['greet', 'reply', []],
      ['lookup', 'strategy', ['get_item']],
    ]);
    expect(h.skills[1]!.body).toBe('1. Call get_item with the item id.\n2. Describe the item in one sentence.');
    expect(h.tools.map((t) => [t.name, t.sourceFormat])).toEqual([
      ['load_skill', 'openai'],
      ['get_item', 'openai'],
    ]);
    expect(h.hooks).toEqual([
      {
        id: 'stop_gate',
        event: 'stop',
        description: 'Keep replies short.',
        checks: [{ type: 'max_chars', value: 80 }],
        action: 'retry',
        channel: 'user',
        feedback: '[stop_gate] reply is {{chars}} chars, limit {{max_chars}}.',
        maxRounds: 3,
      },
    ]);
    expect(h.hookMessages).toEqual({ namePrefix: 'hook:' });
    expect(r.files.map((f) => f.file)).toEqual([
      'harness.yaml',
      'hooks.yaml',
      'prompt/role.md',
      'prompt/shop.md',
      'skills/greet/SKILL.md',
      'skills/lookup/SKILL.md',
      'tools/tools.json',
    ]);
  });

  it('reads prompt files in code-point order, puts the catalog last and normalises CRLF and a BOM', async () => {
    const dir = await harnessDir({
      'harness.yaml': 'name: order\nversion: "1"\nskills:\n  naming: identifier\n',
      'prompt/b.md': '\uFEFF# B\r\nsecond\r\n',
      'prompt/a.md': '# a\nthird',
      'prompt/Z.md': '\n\n# Z\nfirst\n\n',
      'prompt/notes.txt': 'not a section',
      'skills/x/SKILL.md': '---\nname: x\ndescription: X.\n---\nBody.',
    });
    const h = loaded(await loadHarness(dir));
    expect(h.sections.map((s) => s.id)).toEqual(['Z', 'a', 'b', 'skills']);
    expect(h.sections.map((s) => s.text)).toEqual(['# Z\nfirst', '# a\nthird', '# B\nsecond', '']);
    expect(renderSystemPrompt(h, {})).toBe('# Z\nfirst\n\n# a\nthird\n\n# B\nsecond\n\n# Skills\n\n- x: X.');
  });

  it('warns about sections missing from prompt.order and appends them', async () => {
    const dir = await harnessDir({
      'harness.yaml': 'name: o\nversion: "1"\nprompt:\n  order: [b]\n',
      'prompt/a.md': 'A',
      'prompt/b.md': 'B',
    });
    const r = await loadHarness(dir);
    const h = loaded(r);
    expect(h.sections.map((s) => s.id)).toEqual(['b', 'a']);
    expect(warningsOf(r)).toEqual([
      {
        file: path.join(dir, 'harness.yaml'),
        line: 4,
        path: 'prompt.order',
        message: 'section "a" is not listed; it is appended at the end',
        severity: 'warning',
      },
    ]);
  });

  it('keeps a YAML number version as written', async () => {
    const dir = await harnessDir({ 'harness.yaml': 'name: v\nversion: 1.10\n' });
    expect(loaded(await loadHarness(dir)).version).toBe('1.10');
    const dir2 = await harnessDir({ 'harness.yaml': 'name: v\nversion: 2026.08.2\n' });
    expect(loaded(await loadHarness(dir2)).version).toBe('2026.08.2');
  });

  it('throws UnreadableInputError for a path that does not exist, or a folder without harness.yaml', async () => {
    await expect(loadHarness(path.join(root(), 'nope'))).rejects.toBeInstanceOf(UnreadableInputError);
    const empty = await harnessDir({ 'prompt/a.md': 'A' });
    await expect(loadHarness(empty)).rejects.toThrow(/harness\.yaml: cannot read \(no such file\)/);
    await expect(loadHarness(empty)).rejects.toMatchObject({ code: 'HSA_UNREADABLE', exitCode: 2 });
  });
});

describe('single-file form', () => {
  const yaml = `name: inline
version: "3.2"
description: Everything in one file.
prompt:
  separator: "\\n---\\n"
  order: [role, skills, rules]
  unordered: [rules]
  sections:
    - id: role
      text: |
        # Role
        You are {{host}}.
    - id: rules
      text: |
        # Rules
        - be brief
        - be kind
  catalog:
    title: Playbooks
skills:
  naming: kebab
  loader: { tool: open_playbook, argument: playbook }
  items:
    - name: refund-flow
      description: |
        Refunds and
        returns.
      kind: strategy
      tools: [lookup_order]
      body: |
        1. Look the order up.
    - name: greet
      description: Greeting.
      body: Say hi.
tools:
  items:
    - type: function
      function:
        name: open_playbook
        description: Open a playbook.
        parameters: { type: object, properties: { playbook: { type: string } }, required: [playbook] }
    - name: orders/lookup
      title: Lookup
      description: Find an order.
      inputSchema: { type: object, properties: { id: { type: string } } }
hooks:
  - id: gate
    event: Stop
    checks:
      - max_chars: 50
  - id: audit
    event: PreToolUse
    matcher: open_playbook
    command: ./audit.sh
    timeout: 5
variables:
  host: { default: Kim }
`;

  it('loads inline sections, skills, tools and hooks, and nothing beside the file', async () => {
    const dir = await harnessDir({
      'agent.yaml': yaml.replace('tools: [lookup_order]', 'tools: [orders_lookup]'),
      // Folder-form defaults must NOT be picked up in single-file form.
      'prompt/extra.md': '# Extra',
      'hooks.yaml': 'hooks:\n  - id: other\n    event: stop\n    checks: [{ max_chars: 1 }]\n',
      'tools/t.json': JSON.stringify(openAiTool('stray')),
      'skills/stray/SKILL.md': '---\nname: stray\ndescription: S.\n---\n',
    });
    const r = await loadHarness(path.join(dir, 'agent.yaml'));
    const h = loaded(r);
    expect(r.problems).toEqual([]);
    expect(r.files.map((f) => f.file)).toEqual(['agent.yaml']);
    expect(h.version).toBe('3.2');
    expect(h.separator).toBe('\n---\n');
    expect(h.sections.map((s) => s.id)).toEqual(['role', 'skills', 'rules']);
    expect(h.unordered).toEqual(['rules']);
    expect(h.skills.map((s) => s.id)).toEqual(['greet', 'refund-flow']);
    expect(h.skills[1]).toEqual({
      id: 'refund-flow',
      description: 'Refunds and\nreturns.\n',
      kind: 'strategy',
      tools: ['orders_lookup'],
      body: '1. Look the order up.',
      extra: {},
    });
    expect(h.tools.map((t) => [t.name, t.sourceName, t.sourceFormat])).toEqual([
      ['open_playbook', 'open_playbook', 'openai'],
      ['orders_lookup', 'orders/lookup', 'mcp'],
    ]);
    expect(h.hooks.map((k) => k.id)).toEqual(['gate', 'audit']);
    expect(h.hooks[1]).toEqual({
      id: 'audit',
      event: 'pre_tool_use',
      matcher: ['open_playbook'],
      checks: [],
      command: './audit.sh',
      timeout: 5,
      action: 'reject',
      channel: 'tool',
      feedback: '[audit] {{reason}}',
      maxRounds: 3,
    });
    expect(renderSystemPrompt(h, {})).toBe(
      '# Role\nYou are Kim.\n---\n# Playbooks\n\n- greet: Greeting.\n- refund-flow: Refunds and returns.\n---\n# Rules\n- be brief\n- be kind',
    );
  });

  it('reports a skill naming a tool that does not exist at the line of that tool', async () => {
    const dir = await harnessDir({ 'agent.yaml': yaml });
    const r = await loadHarness(path.join(dir, 'agent.yaml'));
    expect(errorsOf(r)).toEqual([
      {
        file: path.join(dir, 'agent.yaml'),
        line: 29,
        path: 'skills.items.0.tools.0',
        message: 'skill "refund-flow" names tool "lookup_order", which does not exist',
        severity: 'error',
      },
    ]);
  });
});

describe('inline skill problems name the key path inside the file', () => {
  it('naming and missing tools of skills.items', async () => {
    const dir = await harnessDir({
      'one.yaml':
        'name: i\nversion: "1"\nskills:\n  naming: kebab\n  items:\n    - name: ok-skill\n      description: Fine.\n    - name: Bad_Name\n      description: Bad.\n      tools:\n        - nope\n',
    });
    const r = await loadHarness(path.join(dir, 'one.yaml'));
    expect(errorsOf(r).map((p) => [p.line, p.path, p.message.split(' (')[0]])).toEqual([
      [8, 'skills.items.1.name', '"Bad_Name" does not follow skills.naming "kebab"'],
      [11, 'skills.items.1.tools.0', 'skill "Bad_Name" names tool "nope", which does not exist'],
    ]);
  });
});

describe('minimal harness', () => {
  it('name + version, one prompt file and a JSON array of OpenAI tools: validates and renders', async () => {
    const tools = [openAiTool('search_kb', { q: { type: 'string' } }, ['q']), openAiTool('open_ticket', { title: { type: 'string' } })];
    const dir = await harnessDir({
      'harness.yaml': 'name: tiny\nversion: "0.1"\n',
      'prompt/policy.md': '\n# Policy\nAnswer support questions.\n\n',
      'tools/tools.json': JSON.stringify(tools, null, 2),
    });
    const r = await loadHarness(dir);
    const h = loaded(r);
    expect(r.problems).toEqual([]);
    expect(h.skills).toEqual([]);
    expect(h.hooks).toEqual([]);
    expect(h.skillLoader).toBeNull();
    expect(h.sections.map((s) => s.id)).toEqual(['policy']);
    expect(renderPrompt(h, {})).toEqual({ system: '# Policy\nAnswer support questions.', preamble: '' });
    expect(renderTools(h)).toEqual(tools);
  });

  it('a harness.yaml alone (no prompt, no tools) is valid and renders an empty prompt', async () => {
    const dir = await harnessDir({ 'harness.yaml': 'name: bare\nversion: 7\n' });
    const r = await loadHarness(dir);
    const h = loaded(r);
    expect(r.problems).toEqual([]);
    expect(h.version).toBe('7');
    expect(h.sections).toEqual([]);
    expect(renderSystemPrompt(h, {})).toBe('');
  });
});
