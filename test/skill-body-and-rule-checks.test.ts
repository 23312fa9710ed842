import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadHarness } from '../src/harness/load.js';
import { isProcedure, restyleSection } from '../src/harness/markdown.js';
import type { Harness, Skill } from '../src/harness/types.js';
import { formatProblem } from '../src/problems.js';
import { checkBodies } from '../src/trajectory/body-check.js';
import { checkRules } from '../src/trajectory/rules-check.js';
import { spellsName } from '../src/transform/identifiers.js';
import { TextRewriter } from '../src/transform/text-rewriter.js';
import { emptyPlan, type RewritePlan } from '../src/transform/plan.js';
import { renameInState } from '../src/transform/state.js';
import headingStyle from '../transforms/prompt/heading-style.js';
import { REPO } from './helpers/hsa.js';
import { applyTransform, baseHarness } from './helpers/state.js';
import { makeTmp, writeTree } from './helpers/tmp.js';

const tool = (name: string, params: string[]) => ({
  name,
  description: `${name}.`,
  parameters: { type: 'object', properties: Object.fromEntries(params.map((p) => [p, { type: 'string' }])) },
  sourceName: name,
  sourceFormat: 'openai' as const,
});
const skill = (id: string, body: string, over: Partial<Skill> = {}): Skill => ({
  id,
  description: `${id}.`,
  kind: 'reply',
  tools: [],
  body,
  extra: {},
  ...over,
});

describe('skill bodies: a plain word is rewritten only where the body refers to the element', () => {
  const owners = new Map([
    ['name', new Set(['load_skill', 'activate'])],
    ['query', new Set(['search_items'])],
  ]);
  const rw = new TextRewriter({ name: 'label', query: 'terms', search: 'find', load_skill: 'activate' }, owners);
  it.each([
    ['a parameter beside its tool', 'Call `load_skill` with `name`.', 'Call `activate` with `label`.'],
    [
      'a parameter in the JSON example of a call',
      'Example:\n\n```json\n{"name": "load_skill", "arguments": {"name": "pdf"}}\n```',
      'Example:\n\n```json\n{"name": "activate", "arguments": {"label": "pdf"}}\n```',
    ],
    [
      'a fenced example after the paragraph naming the tool',
      'Call `search_items` like this:\n\n```json\n{"query": "lamp"}\n```',
      'Call `search_items` like this:\n\n```json\n{"terms": "lamp"}\n```',
    ],
    [
      'an unrelated JSON example',
      'The API returns:\n\n```json\n{"name": "bash", "query": "x"}\n```',
      'The API returns:\n\n```json\n{"name": "bash", "query": "x"}\n```',
    ],
    ['an unrelated code span', 'Each station has a `name` and a `code`.', 'Each station has a `name` and a `code`.'],
    ['a parameter of another tool beside a tool', 'Call `search_items` with a `name`.', 'Call `search_items` with a `name`.'],
    ['a plain tool name as a whole code span', 'Use `search` or `search(q)`, not `search all`.', 'Use `find` or `find(q)`, not `search all`.'],
    ['a plain tool name as a JSON key', '{"search": 1}', '{"search": 1}'],
    ['a distinctive name anywhere', 'load_skill first; "load_skill": x', 'activate first; "activate": x'],
    ['prose', 'Give the name and the query.', 'Give the name and the query.'],
  ])('%s', (_, text, expected) => {
    expect(rw.rewriteReferences(text)).toBe(expected);
    // The generic text rule still rewrites every code span (prompt sections, assistant text).
    if (text.includes('`name`') && !text.includes('load_skill')) expect(rw.rewrite(text)).not.toBe(text);
  });

  it('renameInState keeps unrelated skill examples and renames the references', () => {
    const h = baseHarness({
      tools: [tool('load_skill', ['name']), tool('search_items', ['query'])],
      skillLoader: { tool: 'load_skill', argument: 'name' },
      skills: [skill('api', 'Objects have a `name`:\n\n```json\n{"name": "bash"}\n```'), skill('howto', 'Call `load_skill` with `name`.')],
    });
    const out = renameInState(h, { text: { name: 'label' } });
    expect(out.skills[0]!.body).toBe(h.skills[0]!.body);
    expect(out.skills[1]!.body).toBe('Call `load_skill` with `label`.');
  });
});

describe('checkBodies: every changed byte of a skill body is explained by the plan', () => {
  const h = baseHarness({
    tools: [tool('load_skill', ['name'])],
    skillLoader: { tool: 'load_skill', argument: 'name' },
    skills: [
      skill('api', '# API\n\nObjects have a `name`.\n\n- one\n- two\n- three'),
      skill('free', '# Free\n\n- a\n- b\n- c', { unorderedLists: true }),
      skill('howto', '# How\n\nCall `load_skill` with `name`.'),
    ],
  });
  const plan: RewritePlan = { ...emptyPlan(), args: { load_skill: [{ op: 'rename', paths: { name: 'label' } }] } };
  const to = (bodies: Record<string, string>): Harness => {
    const base = renameInState(h, { text: { name: 'label' } });
    return {
      ...base,
      tools: [tool('load_skill', ['label'])],
      skillLoader: { tool: 'load_skill', argument: 'label' },
      skills: base.skills.map((s) => ({ ...s, body: bodies[s.id] ?? s.body })),
    };
  };

  it('passes the rename at a reference and layout restyles', () => {
    expect(to({}).skills[2]!.body).toBe('# How\n\nCall `load_skill` with `label`.');
    expect(checkBodies(h, to({ api: '### API\n\nObjects have a `name`.\n\n* one\n* two\n* three', free: '# Free\n\n- c\n- a\n- b' }), plan)).toEqual([]);
  });
  it('fails a plain word renamed in text about something else (the old generic rename)', () => {
    expect(checkBodies(h, to({ api: '# API\n\nObjects have a `label`.\n\n- one\n- two\n- three' }), plan)).toEqual([
      'skills.api.body line 3: "`name`." became "`label`.", which the plan does not explain',
    ]);
  });
  it('fails a reordered list the harness did not mark unordered, and a changed word', () => {
    expect(checkBodies(h, to({ api: '# API\n\nObjects have a `name`.\n\n- two\n- one\n- three' }), plan)[0]).toMatch(
      /^skills\.api\.body line 5: "- two" moved \(list order changed\)/,
    );
    expect(checkBodies(h, to({ free: '# Free\n\n- a\n- b\n- d' }), plan)[0]).toMatch(/^skills\.free\.body line \d+: .* which the plan does not explain$/);
  });
});

describe('checkRules: ordered lists are sequences, unordered sections are multisets', () => {
  const section = (id: string, text: string) => ({ id, kind: 'text' as const, text, placement: 'system' as const });
  const from = baseHarness({
    sections: [section('steps', '# S\n\n1. a\n2. b'), section('free', '# F\n\n- x\n- y\n\n- First p\n- Then q')],
    unordered: ['free'],
  });
  const plan = emptyPlan();
  it('accepts a shuffled free list', () => {
    const to = { ...from, sections: [from.sections[0]!, section('free', '# F\n\n- y\n- x\n\n- First p\n- Then q')] };
    expect(checkRules(from, to, plan)).toEqual([]);
  });
  it('rejects a reordered numbered list and a reordered procedure in an unordered section', () => {
    const a = { ...from, sections: [section('steps', '# S\n\n1. b\n2. a'), from.sections[1]!] };
    expect(checkRules(from, a, plan)).toEqual(['ordered list a | b lost its order']);
    const b = { ...from, sections: [from.sections[0]!, section('free', '# F\n\n- x\n- y\n\n- Then q\n- First p')] };
    expect(checkRules(from, b, plan)).toEqual(['ordered list first p | then q lost its order']);
  });
});

describe('procedures', () => {
  it.each([
    [['Open the file', 'Then save it'], true],
    [['**First**, open it', 'Edit'], true],
    [['Step 1: open', 'Step 2: close'], true],
    [['1) open', '2) close'], true],
    [['(1) open', '(2) close'], true],
    [['①打开', '②关闭'], true],
    [['首先打开', '然后关闭'], true],
    [['第一步：打开', '第二步：关闭'], true],
    [['After that, confirm', 'x'], true],
    [['Window seat', 'Aisle seat'], false],
    [['Be brief', 'Use the first name of the traveller'], false],
    [['靠窗座位', '过道座位'], false],
  ])('%j → %s', (items, expected) => expect(isProcedure(items)).toBe(expected));
});

describe('generated tags never spell a harness name', () => {
  it.each([
    ['cancel_pending_order', ['cancel_pending_order'], true],
    ['how_to_cancel_pending_order', ['cancelPendingOrder'], true],
    ['refund_policy', ['refund-policy'], true],
    ['name', ['name'], true],
    ['name_and_contact', ['name'], false],
    ['cancellations', ['cancel_pending_order'], false],
  ])('%s vs %j → %s', (tag, names, expected) => expect(spellsName(tag, names)).toBe(expected));

  it('heading-style renders a title spelling a tool name as a neutral section tag', () => {
    const h = baseHarness({
      sections: [
        { id: 'a', kind: 'text', text: '# Cancel pending order\n\n- Ask why.', placement: 'system' },
        { id: 'b', kind: 'text', text: '# Tone\n\n- Be kind.', placement: 'system' },
      ],
      tools: [tool('cancel_pending_order', ['reason'])],
    });
    const r = applyTransform(headingStyle, h, { p: 1, headings: ['xml'] })!;
    expect(r.state.promptStyle!.neutralTitles).toEqual(['Cancel pending order']);
    expect(restyleSection(h.sections[0]!.text, r.state.promptStyle!)).toBe('<section title="Cancel pending order">\n- Ask why.\n</section>');
    expect(restyleSection(h.sections[1]!.text, r.state.promptStyle!)).toBe('<tone>\n- Be kind.\n</tone>');
  });
});

describe('skills.unordered_lists in harness.yaml', () => {
  let tmp: { dir: string; cleanup: () => Promise<void> };
  beforeAll(async () => {
    tmp = await makeTmp('hsa-unordered-');
  });
  afterAll(async () => {
    await tmp.cleanup();
  });
  const files = (list: string) => ({
    'harness.yaml': `name: t\nversion: "1"\nskills:\n  loader: { tool: load_skill, argument: name }\n  unordered_lists: ${list}\ntools:\n  sources: [tools.json]\n`,
    'tools.json': JSON.stringify([
      { type: 'function', function: { name: 'load_skill', description: 'Load.', parameters: { type: 'object', properties: { name: { type: 'string' } } } } },
    ]),
    'skills/tips/SKILL.md': '---\nname: tips\ndescription: Tips.\n---\n- a\n- b',
    'skills/steps/SKILL.md': '---\nname: steps\ndescription: Steps.\n---\n- a\n- b',
  });
  it('marks the listed skills', async () => {
    await writeTree(path.join(tmp.dir, 'ok'), files('[tips]'));
    const r = await loadHarness(path.join(tmp.dir, 'ok'));
    expect(r.problems.filter((p) => p.severity === 'error')).toEqual([]);
    expect(r.harness!.skills.map((s) => [s.id, s.unorderedLists === true])).toEqual([
      ['steps', false],
      ['tips', true],
    ]);
  });
  it('an unknown skill id is an error naming the file, line and key path', async () => {
    await writeTree(path.join(tmp.dir, 'bad'), files('[tips, tipz]'));
    const r = await loadHarness(path.join(tmp.dir, 'bad'));
    expect(r.problems.filter((p) => p.severity === 'error').map(formatProblem)).toEqual([
      expect.stringMatching(/\/bad\/harness\.yaml:5: skills\.unordered_lists\.1: no skill "tipz"$/),
    ]);
  });
  it('the fidelity fixture marks seat-preferences only', async () => {
    const r = await loadHarness(path.join(REPO, 'fixtures/fidelity/harness'));
    expect(r.harness!.skills.filter((s) => s.unorderedLists).map((s) => s.id)).toEqual(['seat-preferences']);
  });
});
