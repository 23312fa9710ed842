import type { Trajectory } from '../trajectory/types.js';
import { textOf } from '../trajectory/types.js';
import type { Teacher, TeacherReply, TeacherRequest, TeacherStep } from './types.js';
import { isTurnStart } from '../episode/turns.js';

/**
 * The built-in offline teacher: it answers each step with the rewritten reference, through the
 * same runtime as a real teacher (hooks, replay environment, checks). Per user turn it gives the
 * reference's assistant messages in order, then repeats the turn's last reply; when a hook forces
 * a reply it gives that last reply at once. Under a behavioural transform the reference may no
 * longer satisfy the harness, and the runtime then rejects the variant with the reason.
 */
export class ReplayTeacher implements Teacher {
  readonly kind = 'replay';
  private readonly turns = new Map<string, TeacherReply[][]>();

  /** Register the reference for a variant before its episode runs. */
  setReference(variantId: string, reference: Trajectory, hookPrefix: string): void {
    const turns: TeacherReply[][] = [];
    for (const m of reference.messages) {
      if (isTurnStart(m, hookPrefix)) turns.push([]);
      else if (m.role === 'assistant' && turns.length > 0) {
        turns[turns.length - 1]!.push({
          content: m.content === null ? null : textOf(m.content),
          toolCalls: m.tool_calls ?? [],
          finishReason: m.tool_calls?.length ? 'tool_calls' : 'stop',
          usage: { prompt: 0, completion: 0 },
          cached: true,
        });
      }
    }
    this.turns.set(variantId, turns);
  }

  forget(variantId: string): void {
    this.turns.delete(variantId);
  }

  async complete(_req: TeacherRequest, step: TeacherStep): Promise<TeacherReply> {
    const turn = this.turns.get(step.variantId)?.[step.turn] ?? [];
    const replies = turn.filter((r) => r.toolCalls.length === 0);
    const last = replies[replies.length - 1] ?? { content: '', toolCalls: [], finishReason: 'stop', usage: { prompt: 0, completion: 0 }, cached: true };
    if (step.forceReply) return last;
    return turn[step.attempt] ?? last;
  }
}
