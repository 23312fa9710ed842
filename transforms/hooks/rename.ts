import { z } from 'zod';
import type { Harness } from '../../src/harness/types.js';
import { defineTransform } from '../../src/transform/define.js';
import { isDistinctive } from '../../src/words/identifier-words.js';
import { namingContext, renameSome, type NamingRules } from '../../src/transform/naming.js';
import { renameInState } from '../../src/transform/state.js';

export const HOOK_ID = /^[A-Za-z][A-Za-z0-9_.-]*$/;
const HOOK_ID_MAX = 64;
const HOOK_NAME_STYLES = ['synonym', 'case', 'affix', 'opaque'] as const;

const HOOK_RULES: NamingRules = {
  valid: (n) => n.length <= HOOK_ID_MAX && HOOK_ID.test(n),
  cases: ['snake', 'kebab', 'camel', 'pascal'],
  opaquePrefix: 'hook',
};

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Rename a hook's own id where its feedback uses it as a tag: `[id]`, `<id>`, `</id>`, `(id)`,
 * `"id"`, or `id:` at the start. The text rewriter already handles distinctive ids everywhere; a
 * plain-word id (`audit`) is only touched in these tag positions, never in the prose of the reason.
 */
export function retag(template: string, oldId: string, newId: string): string {
  const id = escapeRegex(oldId);
  return template
    .replace(new RegExp(`(\\[|<\\/?|\\(|")${id}(\\]|>|\\)|")`, 'g'), (m, open: string, close: string) =>
      (open === '[' && close === ']') || (open.startsWith('<') && close === '>') || (open === '(' && close === ')') || (open === '"' && close === '"')
        ? `${open}${newId}${close}`
        : m,
    )
    .replace(new RegExp(`^${id}:`), `${newId}:`);
}

/** A state with hooks renamed: ids, text mentions and the feedback tags of the renamed hooks. */
export function renameHooks(state: Harness, map: Record<string, string>): Harness {
  const out = renameInState(state, { hooks: map });
  for (const [oldId, newId] of Object.entries(map)) {
    if (isDistinctive(oldId)) continue;
    const hook = out.hooks.find((h) => h.id === newId);
    if (hook) hook.feedback = retag(hook.feedback, oldId, newId);
  }
  return out;
}

/** Rename hooks: word synonyms, case changes, affixes or opaque ids. Feedback message names and tags follow. */
export default defineTransform({
  id: 'hooks.rename',
  family: 'hooks',
  class: 'exact',
  version: 2,
  description: 'Rename hooks (synonyms, case, prefix/suffix, opaque ids); hook feedback names ("hook:<id>"), feedback tags and prompt mentions follow.',
  options: z.strictObject({
    p: z.number().min(0).max(1).default(0.5).describe('probability that a variant renames hooks'),
    intensity: z.number().min(0).max(1).default(0.5).describe('share of hooks renamed (at least one)'),
    styles: z
      .array(z.enum(HOOK_NAME_STYLES))
      .min(1)
      .default([...HOOK_NAME_STYLES])
      .describe('naming styles to draw from'),
  }),
  appliesTo: (state) => state.hooks.length > 0,
  apply(state, ctx) {
    const byId = new Map(state.hooks.map((h) => [h.id, h]));
    const map = renameSome(
      state.hooks.map((h) => h.id),
      ctx.options,
      HOOK_RULES,
      ctx,
      undefined,
      (id) => namingContext(id, byId.get(id)?.description, byId.get(id)?.feedback),
    );
    if (Object.keys(map).length === 0) return null;
    return { state: renameHooks(state, map), plan: { hooks: map }, params: { renamed: map } };
  },
});
