import { describe, expect, it } from 'vitest';
import { catalogText } from '../../src/harness/render.js';
import { type SkillNaming } from '../../src/harness/types.js';
import catalogOrder from '../../transforms/skills/catalog-order.js';
import describeSkills from '../../transforms/skills/describe.js';
import { lowerFirst, rewordings } from '../../src/words/reword.js';
import distractors from '../../transforms/skills/distractors.js';
import rename from '../../transforms/skills/rename.js';
import { builtinWords } from '../../src/words/selection.js';
import { family, harness, skill, run, noProblems, validFor } from '../helpers/skill-transforms.js';

describe('every skills transform', () => {
  it.each(Object.values(family))('$id: id, family, strict options with a described p', (def) => {
    expect(def.id.startsWith('skills.')).toBe(true);
    expect(def.family).toBe('skills');
    const parsed = def.options.parse({}) as { p: number };
    expect(parsed.p).toBeGreaterThanOrEqual(0);
    expect(def.options.safeParse({ p: 2 }).success).toBe(false);
    expect(def.options.safeParse({ nope: 1 }).success).toBe(false);
    const shape = (def.options as unknown as { shape: Record<string, { description?: string }> }).shape;
    for (const [key, opt] of Object.entries(shape)) expect(opt.description, `${def.id}.${key}`).toBeTruthy();
  });

  it.each(Object.values(family))('$id: never mutates its input and is deterministic', (def) => {
    const state = harness({ skills: [skill('item_qa'), skill('greet'), skill('tool_strategy_benefit', { body: '# B\n\n- a\n- b\n- c\n- d' })] });
    const before = structuredClone(state);
    for (let seed = 0; seed < 20; seed++) {
      const a = run(def, state, { p: 1 }, seed);
      const b = run(def, state, { p: 1 }, seed);
      expect(a).toEqual(b);
    }
    expect(state).toEqual(before);
  });

  it.each(Object.values(family))('$id: nothing to do without skills', (def) => {
    expect(run(def, harness(), { p: 1 })).toBeNull();
  });
});

describe('skills.rename', () => {
  const namings: SkillNaming[] = ['identifier', 'snake', 'kebab', 'agent-skills'];
  const idsFor: Record<SkillNaming, string[]> = {
    identifier: ['item_qa', 'tool_strategy_benefit', 'greet', 'faqReply'],
    snake: ['item_qa', 'tool_strategy_benefit', 'greet', 'faq_reply'],
    kebab: ['item-qa', 'tool-strategy-benefit', 'greet', 'faq-reply'],
    'agent-skills': ['item-qa', 'tool-strategy-benefit', 'greet', 'faq-reply2'],
  };

  it.each(namings)('renames with valid, fresh, distinct names under %s naming', (naming) => {
    const ids = idsFor[naming];
    const state = harness({ skillNaming: naming, skills: ids.map((id) => skill(id)) });
    let renamed = 0;
    for (let seed = 0; seed < 200; seed++) {
      const r = run(rename, state, { p: 1, intensity: 1 }, seed)!;
      expect(r).not.toBeNull();
      const map = r.plan!.skills!;
      expect(r.params).toEqual({ renamed: map });
      const news = Object.values(map);
      expect(new Set(news).size).toBe(news.length);
      for (const [old, next] of Object.entries(map)) {
        expect(ids).toContain(old);
        expect(validFor(naming, next), `${next} under ${naming}`).toBe(true);
        expect(ids).not.toContain(next);
        expect(r.state.skills.map((s) => s.id)).toContain(next);
        expect(r.state.skills.map((s) => s.id)).not.toContain(old);
        renamed++;
      }
      expect(noProblems(r.state)).toEqual([]);
    }
    expect(renamed).toBeGreaterThan(200);
  });

  it('follows through code-span mentions in bodies and the prompt', () => {
    const state = harness({ skills: [skill('item_qa'), skill('switch', { body: 'Then load `item_qa` to answer.' })] });
    const r = run(rename, state, { p: 1, intensity: 1, styles: ['opaque'] }, 3)!;
    const map = r.plan!.skills!;
    expect(Object.keys(map).sort()).toEqual(['item_qa', 'switch']);
    expect(map.item_qa).toMatch(/^skill(?:[_-][0-9a-f]{4}|[_-][0-9]{3}|[a-z]{2}[0-9]{2})$/);
    expect(r.state.skills.find((s) => s.id === map.switch)!.body).toBe(`Then load \`${map.item_qa}\` to answer.`);
    expect(r.state.sections[0]!.text).toContain(`\`${map.item_qa}\``);
  });

  it.each([
    ['intensity 0 still renames one', { intensity: 0 }, 1],
    ['intensity 0.5 of 4 renames 2', { intensity: 0.5 }, 2],
    ['intensity 1 renames all', { intensity: 1 }, 4],
  ])('%s', (_, options, count) => {
    const state = harness({ skills: ['item_qa', 'tool_strategy_benefit', 'general_discount', 'faq_reply'].map((id) => skill(id)) });
    const r = run(rename, state, { p: 1, ...options }, 5)!;
    expect(Object.keys(r.plan!.skills!)).toHaveLength(count);
  });

  it('leaves distractors alone and returns null when only distractors exist', () => {
    expect(run(rename, harness({ skills: [skill('size_advice', { distractor: true })] }), { p: 1 })).toBeNull();
    const r = run(rename, harness({ skills: [skill('size_advice', { distractor: true }), skill('item_qa')] }), { p: 1, intensity: 1 })!;
    expect(Object.keys(r.plan!.skills!)).toEqual(['item_qa']);
  });

  it('returns null when every proposed name is taken', () => {
    expect(run(rename, harness({ skills: [skill('item_qa')] }), { p: 1 }, 1, () => true)).toBeNull();
  });

  it('never proposes a name the record or state already uses', () => {
    const state = harness({ skills: [skill('item_qa')] });
    const taken = new Set(['product_qa', 'goods_qa', 'sku_qa', 'merch_qa', 'shangpin_qa', 'itemQa', 'item-qa', 'ItemQa']);
    for (let seed = 0; seed < 100; seed++) {
      const r = run(rename, state, { p: 1, styles: ['synonym', 'case'] }, seed, (n) => taken.has(n) || n === 'item_qa');
      if (r) expect(taken.has(r.plan!.skills!.item_qa!)).toBe(false);
    }
  });
});

describe('skills.catalog-order', () => {
  it('shuffles the catalog, keeps every skill, needs no plan', () => {
    const ids = ['a_1', 'b_2', 'c_3', 'd_4', 'e_5'];
    const state = harness({ skills: ids.map((id) => skill(id)) });
    const orders = new Set<string>();
    for (let seed = 0; seed < 50; seed++) {
      const r = run(catalogOrder, state, { p: 1 }, seed)!;
      const order = r.state.skills.map((s) => s.id);
      expect(order).not.toEqual(ids);
      expect([...order].sort()).toEqual(ids);
      expect(r.params).toEqual({ order });
      expect(r.plan).toBeUndefined();
      expect(
        catalogText(r.state)
          .split('\n')
          .filter((l) => l.startsWith('- '))
          .map((l) => l.slice(2, l.indexOf(':'))),
      ).toEqual(order);
      orders.add(order.join());
    }
    expect(orders.size).toBeGreaterThan(20);
  });

  it('two skills always swap; one skill is nothing to do', () => {
    expect(run(catalogOrder, harness({ skills: [skill('a'), skill('b')] }), { p: 1 })!.state.skills.map((s) => s.id)).toEqual(['b', 'a']);
    expect(run(catalogOrder, harness({ skills: [skill('a')] }), { p: 1 })).toBeNull();
  });
});

describe('skills.distractors', () => {
  it.each(['identifier', 'snake', 'kebab', 'agent-skills'] as SkillNaming[])('adds 1..max never-loaded skills valid for %s naming', (naming) => {
    const state = harness({ skillNaming: naming, skills: [skill(naming === 'snake' || naming === 'identifier' ? 'item_qa' : 'item-qa')] });
    const counts = new Set<number>();
    for (let seed = 0; seed < 60; seed++) {
      const r = run(distractors, state, { p: 1, max: 4 }, seed)!;
      const added = r.state.skills.filter((s) => s.distractor);
      expect([...(r.params.added as string[])].sort()).toEqual(added.map((s) => s.id).sort());
      expect(added.length).toBeGreaterThanOrEqual(1);
      expect(added.length).toBeLessThanOrEqual(4);
      counts.add(added.length);
      for (const s of added) {
        expect(validFor(naming, s.id), s.id).toBe(true);
        expect(s.tools).toEqual([]);
        expect(s.description.length).toBeLessThanOrEqual(1024);
        expect(builtinWords.distractorSkills.map((d) => d.description)).toContain(s.description);
      }
      expect(new Set(r.state.skills.map((s) => s.id)).size).toBe(r.state.skills.length);
      expect(r.state.skills.filter((s) => !s.distractor)).toEqual(state.skills);
      expect(r.plan).toBeUndefined();
      expect(noProblems(r.state)).toEqual([]);
    }
    expect(counts).toEqual(new Set([1, 2, 3, 4]));
  });

  it('converts names to the naming rule: unit_conversion under agent-skills is unit-conversion', () => {
    const names = new Set<string>();
    for (let seed = 0; seed < 40; seed++)
      for (const s of run(distractors, harness({ skillNaming: 'agent-skills', skills: [skill('item-qa')] }), { p: 1, max: 9 }, seed)!.state.skills)
        names.add(s.id);
    expect(names).toContain('unit-conversion');
    expect([...names].every((n) => !n.includes('_'))).toBe(true);
  });

  it('skips names already taken and returns null when all are', () => {
    const all = builtinWords.distractorSkills.map((d) => d.name);
    const state = harness({ skills: [skill('size_advice')] });
    for (let seed = 0; seed < 30; seed++) {
      const ids = run(distractors, state, { p: 1, max: 20 }, seed)!.state.skills.map((s) => s.id);
      expect(ids.filter((i) => i === 'size_advice')).toHaveLength(1);
    }
    expect(run(distractors, state, { p: 1 }, 1, (n) => all.includes(n))).toBeNull();
  });

  it('puts distractors at varied places in the catalog', () => {
    const state = harness({ skills: ['a_1', 'b_2', 'c_3'].map((id) => skill(id)) });
    const places = new Set<number>();
    for (let seed = 0; seed < 40; seed++) {
      const r = run(distractors, state, { p: 1, max: 1 }, seed)!;
      places.add(r.state.skills.findIndex((s) => s.distractor));
    }
    expect(places.size).toBeGreaterThanOrEqual(3);
  });
});

describe('skills.describe', () => {
  it.each([
    ['Returns, exchanges and refunds.', 'returns, exchanges and refunds.'],
    ['FAQ entries of the room.', 'FAQ entries of the room.'],
    ['ItemQa answers.', 'ItemQa answers.'],
    ['Tool_chain for x.', 'Tool_chain for x.'],
    ['load_skill first.', 'load_skill first.'],
    ['A short one.', 'a short one.'],
    ['', ''],
  ])('lowerFirst(%j) = %j', (input, expected) => expect(lowerFirst(input)).toBe(expected));

  // Frames follow the shape of the sentence (the full table is test/words-reword.test.ts).
  it.each([
    ['Recommends a size from height and weight.', 'This skill recommends a size from height and weight.'],
    ['Answers $1 questions.', 'Purpose: Answers $1 questions.'],
    ['Greets.', 'When called, it greets.'],
  ])('rewords %j grammatically, e.g. %j', (text, expected) =>
    expect(rewordings(text, builtinWords.descriptionFrames, 'skill').map((r) => r.text)).toContain(expected),
  );

  it('rewords a share of descriptions, keeping the original words inside', () => {
    const ids = ['item_qa', 'greet', 'thanks', 'refusal'];
    const state = harness({ skills: ids.map((id) => skill(id, { description: `Handles ${id} comments.` })) });
    for (let seed = 0; seed < 50; seed++) {
      const r = run(describeSkills, state, { p: 1, intensity: 0.5 }, seed)!;
      const frames = r.params.frames as Record<string, string>;
      expect(Object.keys(frames)).toHaveLength(2);
      for (const s of r.state.skills) {
        const old = state.skills.find((x) => x.id === s.id)!.description;
        if (s.id in frames) {
          expect(s.description).not.toBe(old);
          expect(rewordings(old, builtinWords.descriptionFrames, 'skill').find((r) => r.frame === frames[s.id])?.text).toBe(s.description);
          expect(s.description).toContain(old.split(' ').slice(1).join(' '));
        } else expect(s.description).toBe(old);
      }
      expect(r.plan).toBeUndefined();
    }
  });

  it('keeps descriptions within 1024 characters (null when no frame fits)', () => {
    const long = `${'x'.repeat(1019)}.`;
    expect(run(describeSkills, harness({ skills: [skill('a', { description: long })] }), { p: 1, intensity: 1 })).toBeNull();
    const r = run(describeSkills, harness({ skills: [skill('a', { description: 'y'.repeat(1000) })] }), { p: 1, intensity: 1 }, 2)!;
    expect(r.state.skills[0]!.description.length).toBeLessThanOrEqual(1024);
  });
});
