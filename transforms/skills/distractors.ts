import { z } from 'zod';
import type { Skill } from '../../src/harness/types.js';
import { defineTransform } from '../../src/transform/define.js';
import { caseStyleOf, joinWords } from '../../src/transform/identifiers.js';
import { splitWords } from '../../src/words/identifier-words.js';
import { cloneState } from '../../src/transform/state.js';
import { skillNamingRules } from './rename.js';

/** Add plausible skills the catalog lists but no trajectory ever loads. */
export default defineTransform({
  id: 'skills.distractors',
  family: 'skills',
  class: 'exact',
  version: 2,
  description: 'Add 1..max plausible distractor skills to the catalog (never loaded), named in the harness naming convention.',
  options: z.strictObject({
    p: z.number().min(0).max(1).default(0.5).describe('probability that a variant adds distractor skills'),
    max: z.number().int().min(1).max(20).default(3).describe('most distractor skills added to one variant (at least one is added)'),
  }),
  appliesTo: (state) => state.skills.length > 0,
  apply(state, ctx) {
    const pool = ctx.words.distractorSkills;
    // A harness without skills has no catalog to pad (and nothing to load skills with).
    if (pool.length === 0 || state.skills.length === 0) return null;
    const rules = skillNamingRules(state.skillNaming);
    const count = 1 + ctx.rng.int(ctx.options.max);
    const used = new Set(state.skills.map((s) => s.id));
    const added: Skill[] = [];
    for (const d of ctx.rng.shuffle(pool)) {
      if (added.length >= count) break;
      const words = splitWords(d.name);
      const current = caseStyleOf(d.name);
      const style = rules.cases.includes(current) ? current : rules.cases[0]!;
      const name = joinWords(words, style);
      if (!rules.valid(name) || used.has(name) || ctx.isTaken(name)) continue;
      if (d.description.length === 0 || d.description.length > 1024) continue;
      used.add(name);
      added.push({ id: name, description: d.description, kind: d.kind, tools: [], body: d.body.trim(), extra: {}, distractor: true });
    }
    if (added.length === 0) return null;
    const out = cloneState(state);
    // Each at a random place, so distractors are not always last in the catalog.
    for (const skill of added) out.skills.splice(ctx.rng.int(out.skills.length + 1), 0, skill);
    return { state: out, params: { added: added.map((s) => s.id) } };
  },
});
