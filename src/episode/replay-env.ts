import type { Harness } from '../harness/types.js';
import { rewriteTrajectory } from '../trajectory/rewrite.js';
import { textOf, type Message, type ToolCall, type Trajectory } from '../trajectory/types.js';
import type { RewritePlan } from '../transform/plan.js';
import { getPath } from '../util/path.js';
import { callKey, canonicalArgs } from './call-key.js';
import { DEFAULT_MAX_ROUNDS, type Consistency } from './options.js';
import { isTurnStart } from './turns.js';

/**
 * The replay environment: a teacher's call is mapped back to the source's names through the inverse
 * plan and matched (name and canonical arguments) to an unused recorded call of the source; its
 * recorded result comes back, mapped forward (a skill load returns the new state's body). One per
 * episode attempt (it remembers which recorded calls were used).
 */
export class ReplayEnvironment {
  private readonly recorded = new Map<string, { content: string; used: boolean }[]>();
  private readonly sourceCalls: string[] = [];
  private readonly madeCalls: string[] = [];

  constructor(
    source: Trajectory,
    private readonly from: Harness,
    private readonly to: Harness,
    private readonly inverse: RewritePlan,
    private readonly mapBack?: (call: ToolCall) => ToolCall | null,
  ) {
    const results = new Map<string, string>();
    for (const m of source.messages) if (m.role === 'tool') results.set(m.tool_call_id, textOf(m.content));
    for (const m of source.messages) {
      if (m.role !== 'assistant') continue;
      for (const c of m.tool_calls ?? []) {
        const key = keyOf(c);
        this.sourceCalls.push(key);
        const list = this.recorded.get(key) ?? [];
        list.push({ content: results.get(c.id) ?? '', used: false });
        this.recorded.set(key, list);
      }
    }
  }

  execute(c: ToolCall): { kind: 'ok'; content: string } | { kind: 'divergent' } {
    // Map the call back into the source state with the same machinery that rewrites trajectories.
    const mapped = this.mapBack
      ? this.mapBack(c)
      : (
          rewriteTrajectory({ id: 'call', messages: [{ role: 'assistant', content: '', tool_calls: [c] }] }, this.inverse, this.to, this.from).messages[0] as {
            tool_calls: ToolCall[];
          }
        ).tool_calls[0]!;
    if (mapped === null) {
      this.madeCalls.push(keyOf(c));
      return { kind: 'divergent' };
    }
    const key = keyOf(mapped);
    this.madeCalls.push(key);
    const hit = this.recorded.get(key)?.find((r) => !r.used);
    if (!hit) return { kind: 'divergent' };
    hit.used = true;
    const loader = this.to.skillLoader;
    if (loader && c.function.name === loader.tool) {
      try {
        const skill = getPath(JSON.parse(c.function.arguments), loader.argument);
        const body = this.to.skills.find((s) => s.id === skill)?.body;
        if (body !== undefined) return { kind: 'ok', content: body };
      } catch {
        /* the recorded result is returned as it is */
      }
    }
    return { kind: 'ok', content: hit.content };
  }

  /** Compare the calls made with the reference's (after mapping back): exact multiset, superset, or any. */
  consistency(mode: Consistency): string | undefined {
    if (mode === 'any') return undefined;
    const count = (xs: string[]) => xs.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map<string, number>());
    const made = count(this.madeCalls);
    const ref = count(this.sourceCalls);
    for (const [k, n] of ref) if ((made.get(k) ?? 0) < n) return `calls differ from the reference: missing ${k.replace('\u0000', ' ')}`;
    if (mode === 'exact') for (const [k, n] of made) if ((ref.get(k) ?? 0) < n) return `calls differ from the reference: extra ${k.replace('\u0000', ' ')}`;
    return undefined;
  }
}

function keyOf(c: ToolCall): string {
  return callKey(c.function.name, canonicalArgs(c.function.arguments));
}

/**
 * The model-call limit of one user turn under `max_rounds: auto`: the source turn's model calls
 * plus a margin (half as many again, at least 4), plus every stop gate's rounds, and never below
 * the old fixed default of 12. Real runs make 13–26 calls in one turn; a fixed 12 rejected them.
 */
export function turnRoundLimit(sourceCalls: number, to: Harness): number {
  const gates = to.hooks.filter((h) => h.event === 'stop').reduce((n, h) => n + h.maxRounds, 0);
  return Math.max(DEFAULT_MAX_ROUNDS, sourceCalls + Math.max(4, Math.ceil(sourceCalls / 2)) + gates);
}

/**
 * The source's user turns to replay, each with the number of model calls (assistant messages) the
 * source made in it. Trailing turns without an answer are left out when some turn is answered.
 */
export function answeredTurns(source: Trajectory, hookPrefix: string): { user: Message; modelCalls: number }[] {
  const turns: { user: Message; modelCalls: number }[] = [];
  for (const m of source.messages) {
    if (isTurnStart(m, hookPrefix)) turns.push({ user: m, modelCalls: 0 });
    else if (m.role === 'assistant' && turns.length > 0) turns[turns.length - 1]!.modelCalls++;
  }
  let end = turns.length;
  while (end > 0 && turns[end - 1]!.modelCalls === 0) end--;
  return end === 0 ? turns : turns.slice(0, end);
}
