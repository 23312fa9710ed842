import { PREAMBLE_NAME } from '../trajectory/rewrite.js';
import type { Message } from '../trajectory/types.js';

/** A user message that opens a turn: not hook feedback, not the preamble. */
export function isTurnStart(m: Message, hookPrefix: string): boolean {
  return m.role === 'user' && m.name !== PREAMBLE_NAME && !(m.name?.startsWith(hookPrefix) ?? false);
}
