import type { Harness } from '../harness/types.js';
import { canonicalJson } from '../util/canonical-json.js';
import { invertPlan, type RewritePlan } from '../transform/plan.js';
import { rewriteTrajectory } from './rewrite.js';
import { jsonEqual } from '../util/json-equal.js';
import type { Trajectory } from './types.js';
import { clip } from '../util/clip.js';

/** Applying the inverse plan to the augmented record gives the source back, canonically. */
export function checkRoundTrip(source: Trajectory, augmented: Trajectory, plan: RewritePlan, from: Harness, to: Harness): string[] {
  const back = rewriteTrajectory(augmented, invertPlan(plan), to, from);
  if (back.messages.length !== source.messages.length) return [`inverse has ${back.messages.length} messages, source has ${source.messages.length}`];
  const out: string[] = [];
  source.messages.forEach((m, i) => {
    const n = back.messages[i]!;
    // Messages that pass through untouched are the same objects; others compare structurally,
    // and in the canonical form (parsed arguments, null content as "") only when that differs.
    if (jsonEqual(m, n)) return;
    const [a, b] = canonicalRecord({ ...source, messages: [m, n] });
    if (a !== b) out.push(`messages.${i} differs after inverse: ${clip(b!)} vs ${clip(a!)}`);
  });
  if (source.tools && !jsonEqual(source.tools, back.tools)) out.push('tools differ after inverse');
  return out;
}

/** The canonical form compared by the round trip: messages with parsed arguments and "" for null content. */
export function canonicalRecord(rec: Trajectory): string[] {
  return rec.messages.map((m) => {
    if (m.role !== 'assistant') return canonicalJson(m);
    const calls = m.tool_calls?.map((c) => {
      let args: unknown = c.function.arguments;
      try {
        args = JSON.parse(c.function.arguments);
      } catch {
        /* compared as text */
      }
      return { ...c, function: { ...c.function, arguments: args } };
    });
    return canonicalJson({ ...m, content: m.content ?? '', ...(calls ? { tool_calls: calls } : {}) });
  });
}
