import { describe, expect, it } from 'vitest';
import { emptyPlan, renamedAwayNames, type RewritePlan } from '../../src/transform/plan.js';
import { bodyRewriterFor, planOwners } from '../../src/trajectory/rewrite.js';
import { baseHarness } from '../helpers/state.js';

/**
 * A parameter only a distractor tool has (the default pack's `translate_text(text)`) is renamed in
 * the variant, but no source text can refer to it: skill bodies keep their own `text` code spans
 * (an API reference's field), and the checks must read them the same way the transform wrote them.
 * Seen on published Agent Skills: the checks expected `text_api` where the body rightly kept `text`.
 */
describe('a parameter no source tool has', () => {
  const from = baseHarness({
    tools: [
      {
        name: 'load_skill',
        description: '',
        parameters: { type: 'object', properties: { name: { type: 'string' } } },
        sourceName: 'load_skill',
        sourceFormat: 'openai',
      },
    ],
  });
  const plan: RewritePlan = {
    ...emptyPlan(),
    tools: { translate_text: 'tool_6e28' },
    args: { translate_text: [{ op: 'rename', paths: { text: 'text_api' } }], load_skill: [{ op: 'rename', paths: { name: 'label' } }] },
  };

  it('has an empty owner set (not none, which would read it as a tool name)', () => {
    const owners = planOwners(plan, from, ['text', 'name']);
    expect(owners.get('text')).toEqual(new Set());
    expect(owners.get('name')).toEqual(new Set(['load_skill']));
  });

  it('is kept in skill bodies; the loader parameter beside its tool still follows the rename', () => {
    const body = 'The grading file must use the fields `text`, `passed` and `evidence`.\n\nCall `load_skill` with `name`.';
    expect(bodyRewriterFor(plan, from).rewriteReferences(body)).toBe(
      'The grading file must use the fields `text`, `passed` and `evidence`.\n\nCall `load_skill` with `label`.',
    );
  });

  it('counts as renamed away for generated markup', () => {
    expect([...renamedAwayNames(plan)].sort()).toEqual(['name', 'text', 'translate_text']);
  });
});
