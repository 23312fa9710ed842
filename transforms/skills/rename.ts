import { z } from 'zod';
import { SKILL_NAME_MAX, SKILL_NAME_PATTERNS, type SkillNaming } from '../../src/harness/types.js';
import type { CaseStyle } from '../../src/transform/identifiers.js';
import { defineTransform } from '../../src/transform/define.js';
import { namingContext, renameSome, type NamingRules } from '../../src/transform/naming.js';
import { renameInState } from '../../src/transform/state.js';

/** Naming styles that make sense for skill ids (MCP `server__name` is a tool convention). */
export const SKILL_NAME_STYLES = ['synonym', 'case', 'affix', 'opaque'] as const;

/** Case styles a skill naming convention allows, in preference order. */
export const SKILL_CASES: Record<SkillNaming, CaseStyle[]> = {
  'agent-skills': ['kebab'],
  snake: ['snake'],
  kebab: ['kebab'],
  identifier: ['snake', 'kebab', 'camel', 'pascal'],
};

/** The rules a new skill id must follow under the harness's `skills.naming`. */
export function skillNamingRules(naming: SkillNaming): NamingRules {
  const pattern = SKILL_NAME_PATTERNS[naming];
  return {
    valid: (n) => n.length <= SKILL_NAME_MAX && pattern.test(n),
    cases: SKILL_CASES[naming],
    opaquePrefix: 'skill',
  };
}

/** Rename skills: word synonyms, case changes, affixes or opaque ids, valid for the harness's naming convention. */
export default defineTransform({
  id: 'skills.rename',
  family: 'skills',
  class: 'exact',
  version: 2,
  description:
    'Rename skills (synonyms, case, prefix/suffix, opaque ids) within the harness naming convention; the catalog, loader calls, skill bodies and prompt mentions follow.',
  options: z.strictObject({
    p: z.number().min(0).max(1).default(0.7).describe('probability that a variant renames skills'),
    intensity: z.number().min(0).max(1).default(0.5).describe('share of skills renamed (at least one)'),
    styles: z
      .array(z.enum(SKILL_NAME_STYLES))
      .min(1)
      .default([...SKILL_NAME_STYLES])
      .describe('naming styles to draw from'),
  }),
  appliesTo: (state) => state.skills.some((s) => !s.distractor),
  apply(state, ctx) {
    // Distractors are never loaded: renaming them changes nothing a trajectory shows.
    const candidates = state.skills.filter((s) => !s.distractor).map((s) => s.id);
    const byId = new Map(state.skills.map((s) => [s.id, s]));
    const map = renameSome(candidates, ctx.options, skillNamingRules(state.skillNaming), ctx, undefined, (id) => namingContext(id, byId.get(id)?.description));
    if (Object.keys(map).length === 0) return null;
    return { state: renameInState(state, { skills: map }), plan: { skills: map }, params: { renamed: map } };
  },
});
