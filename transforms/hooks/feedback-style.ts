import { z } from 'zod';
import { parseFeedback, renderFeedback } from '../../src/harness/feedback.js';
import type { Hook } from '../../src/harness/types.js';
import { defineTransform } from '../../src/transform/define.js';
import { cloneState } from '../../src/transform/state.js';
import { netParamRenames, type RewritePlan } from '../../src/transform/plan.js';
import { harnessNames } from '../../src/transform/prompt-style.js';
import type { Harness } from '../../src/harness/types.js';

const SLOT = /\{\{\s*([A-Za-z_][\w.]*)\s*\}\}/g;

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A frame whose text is a JSON object: the reason goes in as a JSON string body. */
const isJsonFrame = (frame: string) => frame.trimStart().startsWith('{"');

/** The `{{slot}}` names of a template, sorted, with repeats. */
export function slotsOf(template: string): string[] {
  return [...template.matchAll(SLOT)].map((m) => m[1]!).sort();
}

/** Fill a feedback frame: `{tag}` is the tag, `{reason}` the reason (JSON-escaped in a JSON frame). */
export function fillFeedbackFrame(frame: string, tag: string, reason: string): string {
  const r = isJsonFrame(frame) ? JSON.stringify(reason).slice(1, -1) : reason;
  return frame.replace(/\{(tag|reason)\}/g, (_, key: string) => (key === 'tag' ? tag : r));
}

/**
 * Split a feedback template into its tag and reason: the frame it is written in (matched with the
 * hook id, or a `{{hook}}` slot, as the tag), or no frame when none matches (the whole template is
 * the reason and the tag is the hook id). The built-in form `[id] reason` is one of the frames.
 */
export function splitFeedback(template: string, hookId: string, frames: readonly string[]): { frame: string | null; tag: string; reason: string } {
  // Most specific frames first, so `[{tag}] {reason}` wins over a frame that is only `{reason}` plus little.
  const ordered = [...frames].sort((a, b) => literalLength(b) - literalLength(a) || (a < b ? -1 : 1));
  for (const tag of [hookId, '{{hook}}']) {
    for (const frame of ordered) {
      if (!frame.includes('{reason}')) continue;
      let src = '';
      let seenReason = false;
      let last = 0;
      for (const m of frame.matchAll(/\{(tag|reason)\}/g)) {
        src += escapeRegex(frame.slice(last, m.index));
        if (m[1] === 'tag') src += escapeRegex(tag);
        else {
          src += seenReason ? '\\k<reason>' : '(?<reason>[\\s\\S]*)';
          seenReason = true;
        }
        last = m.index + m[0].length;
      }
      src += escapeRegex(frame.slice(last));
      const m = new RegExp(`^${src}$`).exec(template);
      if (!m) continue;
      let reason = m.groups!.reason!;
      if (isJsonFrame(frame)) {
        try {
          reason = JSON.parse(`"${reason}"`) as string;
        } catch {
          continue;
        }
      }
      return { frame, tag, reason };
    }
  }
  return { frame: null, tag: hookId, reason: template };
}

function literalLength(frame: string): number {
  return frame.replace(/\{(tag|reason)\}/g, '').length;
}

/** Sample values for a template's slots: distinct, and unlike any template text. */
function sampleVars(template: string): Record<string, string> {
  const vars: Record<string, string> = {};
  slotsOf(template).forEach((name, i) => (vars[name] = `\u27e8${name}#${i}\u27e9`));
  return vars;
}

/**
 * A new template is usable when it keeps the slots, reads its own variables back out of a message
 * it rendered (how trajectories are re-rendered), and cannot be mistaken for another hook's feedback.
 */
export function usableTemplate(next: string, old: string, hookId: string, others: readonly Hook[]): boolean {
  if (next === old) return false;
  if (slotsOf(next).join('\n') !== slotsOf(old).join('\n')) return false;
  const vars: Record<string, string> = { ...sampleVars(next), hook: hookId };
  let text: string;
  try {
    text = renderFeedback(next, vars);
  } catch {
    return false;
  }
  const back = parseFeedback(next, text);
  if (!back || Object.entries(back).some(([k, v]) => vars[k] !== v)) return false;
  for (const o of others) {
    let theirs: string;
    try {
      theirs = renderFeedback(o.feedback, { ...sampleVars(o.feedback), hook: o.id });
    } catch {
      continue;
    }
    if (parseFeedback(next, theirs) !== null || parseFeedback(o.feedback, text) !== null) return false;
  }
  return true;
}

/** Re-express hook feedback in another format: tag style and wording frame, same reason and slots. */
export default defineTransform({
  id: 'hooks.feedback-style',
  family: 'hooks',
  class: 'semantic',
  version: 2,
  description:
    'Re-express hook feedback templates in another format ("[tag] reason", "<tag>reason</tag>", "tag: reason", JSON, …); the reason and its {{slots}} stay intact.',
  options: z.strictObject({
    p: z.number().min(0).max(1).default(0.5).describe('probability that a variant restyles hook feedback'),
    intensity: z.number().min(0).max(1).default(0.7).describe('share of hooks whose feedback is restyled (at least one)'),
  }),
  appliesTo: (state) => state.hooks.length > 0,
  apply(state, ctx) {
    const candidates = state.hooks.filter((h) => h.feedback.trim() !== '').map((h) => h.id);
    if (candidates.length === 0 || ctx.words.feedbackFrames.length === 0) return null;
    const k = Math.max(1, Math.round(candidates.length * ctx.options.intensity));
    const chosen = ctx.rng.sample(candidates, k).sort();
    const out = cloneState(state);
    const frames: Record<string, string> = {};
    // A frame's own words (a JSON key such as "message") must not spell a harness name, current or
    // renamed away in this variant: the leak check would rightly read it as the old name.
    const avoid = namesToAvoid(state, ctx.source, ctx.plan);
    for (const id of chosen) {
      const hook = out.hooks.find((h) => h.id === id)!;
      const { frame, tag, reason } = splitFeedback(hook.feedback, hook.id, ctx.words.feedbackFrames);
      const others = out.hooks.filter((h) => h !== hook);
      for (const next of ctx.rng.shuffle(ctx.words.feedbackFrames)) {
        if (next === frame || spellsName(next, avoid)) continue;
        const template = fillFeedbackFrame(next, tag, reason);
        if (!usableTemplate(template, hook.feedback, hook.id, others)) continue;
        hook.feedback = template;
        frames[id] = next;
        break;
      }
    }
    if (Object.keys(frames).length === 0) return null;
    return { state: out, params: { frames } };
  },
});

/** Names a generated frame must not spell: the source's and current state's, and those the plan renamed away. */
function namesToAvoid(state: Harness, source: Harness, plan: RewritePlan): Set<string> {
  const names = harnessNames(source, state);
  for (const map of [plan.tools, plan.skills, plan.hooks]) for (const k of Object.keys(map)) names.add(k);
  for (const byPath of Object.values(netParamRenames(plan).params)) for (const p of Object.keys(byPath)) names.add(p.split('.').pop()!);
  return names;
}

/** Whether the literal text of a frame (placeholders left out) holds one of the names as a token. */
function spellsName(frame: string, names: ReadonlySet<string>): boolean {
  for (const token of frame.replace(/\{(tag|reason)\}/g, ' ').match(/[A-Za-z0-9_-]+/g) ?? []) if (names.has(token)) return true;
  return false;
}
