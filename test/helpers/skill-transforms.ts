// The skills family and a small harness of skills, shared by the skills transform tests.
import { SKILL_NAME_MAX, SKILL_NAME_PATTERNS, type Harness, type Skill, type SkillNaming } from '../../src/harness/types.js';
import type { AnyTransform } from '../../src/transform/define.js';
import bodyLayout from '../../transforms/skills/body-layout.js';
import catalogOrder from '../../transforms/skills/catalog-order.js';
import describeSkills from '../../transforms/skills/describe.js';
import distractors from '../../transforms/skills/distractors.js';
import rename from '../../transforms/skills/rename.js';
import { applyTransform, baseHarness, stateErrors } from './state.js';

export const family: Record<string, AnyTransform> = {
  [distractors.id]: distractors,
  [rename.id]: rename,
  [catalogOrder.id]: catalogOrder,
  [describeSkills.id]: describeSkills,
  [bodyLayout.id]: bodyLayout,
};

export function harness(over: Partial<Harness> = {}): Harness {
  return baseHarness({
    sections: [
      { id: 'role', kind: 'text', text: '# Role\nYou host the room. Load `item_qa` for product questions.', placement: 'system' },
      { id: 'skills', kind: 'catalog', text: '', placement: 'system' },
    ],
    skillLoader: { tool: 'load_skill', argument: 'name' },
    tools: [
      {
        name: 'load_skill',
        description: 'Load a skill.',
        parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        sourceName: 'load_skill',
        sourceFormat: 'openai',
      },
    ],
    ...over,
  });
}

export const skill = (id: string, over: Partial<Skill> = {}): Skill => ({
  id,
  description: `The ${id} skill.`,
  kind: 'reply',
  tools: [],
  body: `# ${id}\n- step one\n- step two`,
  extra: {},
  ...over,
});

export const run = applyTransform;

export const noProblems = stateErrors;

export const validFor = (naming: SkillNaming, id: string) => SKILL_NAME_PATTERNS[naming].test(id) && id.length <= SKILL_NAME_MAX;
