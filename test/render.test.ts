import path from 'node:path';
import { baseHarness } from './helpers/state.js';
import { describe, expect, it } from 'vitest';
import { RenderError } from '../src/errors.js';
import { loadHarness } from '../src/harness/load.js';
import { catalogText, renderPrompt, renderSystemPrompt, renderTools } from '../src/harness/render.js';
import { fillTemplate, hasSlots, templateSlots } from '../src/harness/template.js';
import type { Harness, Section, Skill } from '../src/harness/types.js';
import { canonicalJson } from '../src/util/canonical-json.js';
import { REPO } from './helpers/hsa.js';
import { makeTmp, openAiTool, writeTree } from './helpers/tmp.js';

/** A harness built in memory: only what rendering reads. */
function harness(over: Partial<Harness> = {}): Harness {
  return baseHarness(over);
}
const text = (id: string, t: string): Section => ({ id, kind: 'text', text: t, placement: 'system' });
const catalog = (id = 'skills'): Section => ({ id, kind: 'catalog', text: '', placement: 'system' });
const skill = (id: string, description: string): Skill => ({ id, description, kind: 'reply', tools: [], body: '', extra: {} });

function renderError(fn: () => unknown): RenderError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(RenderError);
    return e as RenderError;
  }
  throw new Error('expected a RenderError');
}

describe('template slots', () => {
  it('fills nested paths', () => {
    expect(
      fillTemplate('Room {{room.name}} ({{ room.id }}) by {{host.profile.display}}.', {
        room: { name: 'Kitchen', id: 'r-1' },
        host: { profile: { display: 'Mia' } },
      }),
    ).toBe('Room Kitchen (r-1) by Mia.');
  });

  it('formats scalars, arrays of scalars, objects and arrays of objects', () => {
    const ctx = {
      n: 3,
      f: 2.5,
      neg: -0.1,
      yes: true,
      no: false,
      nil: null,
      tags: ['a', 'b', 3],
      obj: { b: 1, a: [1, 2] },
      objs: [{ x: 1 }, { y: 'z' }],
      empty: [],
    };
    expect(fillTemplate('{{n}}|{{f}}|{{neg}}|{{yes}}|{{no}}|{{nil}}|{{tags}}|{{obj}}|{{objs}}|{{empty}}', ctx)).toBe(
      '3|2.5|-0.1|true|false||a, b, 3|{"b":1,"a":[1,2]}|[{"x":1},{"y":"z"}]|',
    );
  });

  it('each blocks: {{this}}, item fields, fallback to the context, and item fields shadowing it', () => {
    const ctx = {
      shop: 'Acme',
      tags: ['red', 'blue'],
      items: [
        { id: 'a1', title: 'Mug' },
        { id: 'b2', title: 'Cap', shop: 'Outlet' },
      ],
    };
    expect(fillTemplate('{{#each tags}}[{{this}}]{{/each}}', ctx)).toBe('[red][blue]');
    expect(fillTemplate('{{#each items}}- {{id}} {{title}} @ {{shop}}\n{{/each}}', ctx)).toBe('- a1 Mug @ Acme\n- b2 Cap @ Outlet\n');
    expect(fillTemplate('{{#each items}}{{this.title}};{{/each}}', ctx)).toBe('Mug;Cap;');
    expect(fillTemplate('{{#each items}}{{this}}{{/each}}', { items: [{ a: 1 }] })).toBe('{"a":1}');
    expect(fillTemplate('before{{#each none}}x{{/each}}after', { none: [] })).toBe('beforeafter');
  });

  it('nested each blocks look up through every enclosing item', () => {
    const ctx = {
      sep: '/',
      groups: [
        { name: 'g1', members: ['x', 'y'] },
        { name: 'g2', members: ['z'] },
      ],
    };
    expect(fillTemplate('{{#each groups}}{{name}}:{{#each members}}{{name}}{{sep}}{{this}} {{/each}};{{/each}}', ctx)).toBe('g1:g1/x g1/y ;g2:g2/z ;');
  });

  it('uses a declared default when the context has no value, and the context value when it has one', () => {
    expect(fillTemplate('Hi, I am {{host.name}}.', {}, { 'host.name': 'Mia' })).toBe('Hi, I am Mia.');
    expect(fillTemplate('Hi, I am {{host.name}}.', { host: { name: 'Leo' } }, { 'host.name': 'Mia' })).toBe('Hi, I am Leo.');
    expect(fillTemplate('{{#each items}}{{title}} {{currency}};{{/each}}', { items: [{ title: 'a' }] }, { currency: 'CNY' })).toBe('a CNY;');
    // A null value is a value: the default does not replace it.
    expect(fillTemplate('[{{x}}]', { x: null }, { x: 'd' })).toBe('[]');
  });

  it('a missing variable is a RenderError naming context.<path>', () => {
    const e = renderError(() => fillTemplate('Room {{room.name}}', { room: { id: 'r-1' } }));
    expect(e.path).toBe('context.room.name');
    expect(e.message).toBe('context.room.name: missing template variable');
    expect(e.code).toBe('HSA_RENDER');
    expect(renderError(() => fillTemplate('{{#each items}}{{title}}{{/each}}', { items: [{ id: 1 }] })).path).toBe('context.title');
    expect(renderError(() => fillTemplate('{{#each items}}{{this.title}}{{/each}}', { items: [{ id: 1 }] })).path).toBe('context.this.title');
    expect(renderError(() => fillTemplate('{{#each items}}x{{/each}}', {})).message).toBe('context.items: missing template variable');
    expect(renderError(() => fillTemplate('{{#each items}}x{{/each}}', { items: 'abc' })).message).toBe('context.items: expected an array for {{#each}}');
  });

  it('leaves text without slots, and brace text that is not a slot, untouched', () => {
    expect(fillTemplate('no slots here', {})).toBe('no slots here');
    expect(fillTemplate('JSON {"a": {"b": 1}} and {{ not a slot! }} and {{1abc}}', {})).toBe('JSON {"a": {"b": 1}} and {{ not a slot! }} and {{1abc}}');
    expect(hasSlots('{{ not a slot! }}')).toBe(false);
    expect(hasSlots('a {{b}}')).toBe(true);
  });

  it('templateSlots lists root paths, sorted, counting an each block by its array only', () => {
    expect(templateSlots('{{room.name}} {{#each items}}{{title}} {{this}} {{shop}}{{/each}} {{a}} {{room.name}}')).toEqual(['a', 'items', 'room.name']);
    expect(templateSlots('plain')).toEqual([]);
  });

  it('rejects an unclosed each and a stray /each', () => {
    expect(() => templateSlots('{{#each items}} x')).toThrow('template: {{#each items}} is not closed');
    expect(() => templateSlots('x {{/each}}')).toThrow('template: {{/each}} without {{#each}}');
    expect(() => fillTemplate('{{#each a}}{{#each b}}{{/each}}', { a: [] })).toThrow('template: {{#each a}} is not closed');
  });
});

describe('catalog rendering', () => {
  it('title, intro, one line per skill in code-point order, descriptions folded to one line', () => {
    const h = harness({
      catalog: { id: 'skills', title: 'Available skills', intro: 'Load one first.' },
      skills: [skill('Zeta', 'Last\n  alphabetically?\nNo: first.'), skill('alpha', '  Lower case sorts after upper.  '), skill('beta_2', 'B.')],
    });
    expect(catalogText(h)).toBe(
      '# Available skills\n\nLoad one first.\n\n- Zeta: Last alphabetically? No: first.\n- alpha: Lower case sorts after upper.\n- beta_2: B.',
    );
  });

  it('without an intro, and empty without skills', () => {
    expect(catalogText(harness({ skills: [skill('a', 'A.')] }))).toBe('# Skills\n\n- a: A.');
    expect(catalogText(harness())).toBe('');
  });

  it('an empty catalog leaves no gap between the sections around it', () => {
    const h = harness({ sections: [text('a', 'A'), catalog(), text('b', 'B')] });
    expect(renderSystemPrompt(h, {})).toBe('A\n\nB');
  });

  it('the loader sorts skills for the catalog whatever the folder order', async () => {
    const tmp = await makeTmp('hsa-render-');
    try {
      await writeTree(tmp.dir, {
        'harness.yaml':
          'name: c\nversion: "1"\nskills:\n  naming: identifier\n  loader: { tool: load, argument: name }\nprompt:\n  catalog: { title: Playbooks, intro: "  Pick one.  " }\n',
        'tools/load.json': JSON.stringify(openAiTool('load', { name: { type: 'string' } })),
        'skills/b/SKILL.md': '---\nname: b\ndescription: >-\n  Folded\n  text.\n---\n',
        'skills/A/SKILL.md': '---\nname: A\ndescription: |\n  Two\n  lines.\n---\n',
        'skills/a/SKILL.md': '---\nname: a\ndescription: Small a.\n---\n',
      });
      const r = await loadHarness(tmp.dir);
      expect(r.problems).toEqual([]);
      expect(renderSystemPrompt(r.harness!, {})).toBe('# Playbooks\n\nPick one.\n\n- A: Two lines.\n- a: Small a.\n- b: Folded text.');
    } finally {
      await tmp.cleanup();
    }
  });
});

describe('section order and separators', () => {
  it('renders sections in harness order, joined by the separator, each filled from the context', () => {
    const h = harness({
      separator: '\n\n---\n\n',
      sections: [text('role', '# Role\nI am {{name}}.'), catalog(), text('rules', '# Rules\n- one\n- two')],
      skills: [skill('greet', 'Greet.')],
    });
    expect(renderSystemPrompt(h, { name: 'Mia' })).toBe('# Role\nI am Mia.\n\n---\n\n# Skills\n\n- greet: Greet.\n\n---\n\n# Rules\n- one\n- two');
  });

  it('the catalog can sit first, and preamble sections are rendered apart', () => {
    const h = harness({
      sections: [catalog(), text('role', 'Role'), { id: 'ctx', kind: 'text', text: 'Room {{room}}', placement: 'preamble' }],
      skills: [skill('s', 'S.')],
    });
    expect(renderPrompt(h, { room: 'r1' })).toEqual({ system: '# Skills\n\n- s: S.\n\nRole', preamble: 'Room r1' });
  });

  it('variable defaults declared in the harness fill template slots', () => {
    const h = harness({
      sections: [text('a', '{{host.name}} / {{room}}')],
      variables: { 'host.name': { default: 'Mia' }, room: { description: 'no default' } },
    });
    expect(renderSystemPrompt(h, { room: 'r1' })).toBe('Mia / r1');
    expect(() => renderSystemPrompt(h, {})).toThrow('context.room: missing template variable');
    // With no context at all the defaults still apply.
    expect(renderSystemPrompt(harness({ sections: [text('a', '{{x}}')], variables: { x: { default: 5 } } }), undefined)).toBe('5');
  });

  it('follows prompt.order from harness.yaml, catalog included', async () => {
    const r = await loadHarness(path.join(REPO, 'fixtures/bad/_harness'));
    const h = r.harness!;
    const ctx = { shop: { name: 'Acme' }, items: [{ id: 'a1', title: 'Mug' }] };
    expect(renderSystemPrompt(h, ctx)).toBe(
      '# Role\nYou are Ava, the assistant of Acme.\n\n# Skills\n\nCall `load_skill` with a skill name first.\n\n- greet: Greet a new customer.\n- lookup: Look an item up and describe it.\n\n# Shop\n- a1: Mug\n',
    );
  });

  it('renderTools gives the OpenAI shape in harness order', () => {
    const h = harness({
      tools: [
        { name: 'b', description: 'B.', parameters: { type: 'object' }, sourceName: 'x.b', sourceFormat: 'mcp', title: 'Bee' },
        { name: 'a', description: '', parameters: { type: 'object', properties: {} }, sourceName: 'a', sourceFormat: 'openai' },
      ],
    });
    expect(renderTools(h)).toEqual([
      { type: 'function', function: { name: 'b', description: 'B.', parameters: { type: 'object' } } },
      { type: 'function', function: { name: 'a', description: '', parameters: { type: 'object', properties: {} } } },
    ]);
  });
});

describe('determinism', () => {
  it('the same harness and context render the same bytes, every time', () => {
    const h = harness({ sections: [text('a', '{{#each xs}}{{this}},{{/each}} {{o}}')], skills: [skill('b', 'B'), skill('a', 'A')] });
    const ctx = { xs: [3, 1, 2], o: { z: 1, a: 2 } };
    const first = renderSystemPrompt(h, ctx);
    for (let i = 0; i < 5; i++) expect(renderSystemPrompt(h, ctx)).toBe(first);
    expect(first).toBe('3,1,2, {"z":1,"a":2}');
  });

  it('loading the same snapshot written in a different file order gives the same harness and prompt', async () => {
    const files: Record<string, string> = {
      'harness.yaml': 'name: d\nversion: "1"\nskills:\n  loader: { tool: load, argument: name }\n',
      'prompt/b.md': '# B',
      'prompt/a.md': '# A',
      'prompt/c.md': '# C {{x}}',
      'skills/two/SKILL.md': '---\nname: two\ndescription: Two.\n---\n',
      'skills/one/SKILL.md': '---\nname: one\ndescription: One.\n---\n',
      'tools/b.json': JSON.stringify(openAiTool('load', { name: { type: 'string' } })),
      'tools/a.json': JSON.stringify([openAiTool('zz'), openAiTool('aa')]),
    };
    const t1 = await makeTmp('hsa-det-');
    const t2 = await makeTmp('hsa-det-');
    try {
      await writeTree(t1.dir, files);
      await writeTree(t2.dir, Object.fromEntries(Object.entries(files).reverse()));
      const [r1, r2] = [await loadHarness(t1.dir), await loadHarness(t2.dir)];
      expect(r1.problems).toEqual([]);
      expect(canonicalJson(r1.harness)).toBe(canonicalJson(r2.harness));
      expect(r1.files).toEqual(r2.files);
      expect(r1.harness!.tools.map((t) => t.name)).toEqual(['zz', 'aa', 'load']);
      expect(renderSystemPrompt(r1.harness!, { x: 1 })).toBe('# A\n\n# B\n\n# C 1\n\n# Skills\n\n- one: One.\n- two: Two.');
      expect(renderSystemPrompt(r2.harness!, { x: 1 })).toBe(renderSystemPrompt(r1.harness!, { x: 1 }));
    } finally {
      await t1.cleanup();
      await t2.cleanup();
    }
  });
});
