import { readFileSync } from 'node:fs';
import type { Behaviour, ChatRequest, Respond } from './teacher-server.js';
import { canonicalJson, limitFromFeedback } from './teacher-behaviours.js';

/**
 * A stand-in for a real teacher model, for end-to-end tests: it has "learned" a set of reference
 * trajectories (hsa's own SFT output under the same harness states) and answers a request whose
 * conversation is a prefix of one of them with that trajectory's next assistant message. When the
 * last message is hook feedback it has not seen, it shortens its previous reply to the limit the
 * feedback names (a model that follows the stop gate's advice). Otherwise it says something short.
 */
export function replayingModel(sftFiles: readonly string[], hookPrefix = 'hook:'): Respond & { misses: number } {
  const next = new Map<string, Behaviour>();
  for (const file of sftFiles) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const rec = JSON.parse(line) as { messages: Msg[] };
      rec.messages.forEach((m, j) => {
        if (m.role !== 'assistant' || j === 0) return;
        next.set(prefixKey(rec.messages.slice(0, j)), {
          kind: 'message',
          content: m.content ?? '',
          tool_calls: (m.tool_calls ?? []).map((c) => ({
            id: c.id,
            name: c.function.name,
            arguments: typeof c.function.arguments === 'string' ? c.function.arguments : JSON.stringify(c.function.arguments),
          })),
        });
      });
    }
  }
  const respond = ((req: ChatRequest) => {
    const hit = next.get(prefixKey(req.messages as Msg[]));
    if (hit) return hit;
    respond.misses++;
    const last = req.messages[req.messages.length - 1] as Msg | undefined;
    if (last && (last.role === 'user' || last.role === 'system') && last.name?.startsWith(hookPrefix)) {
      const previous = [...req.messages].reverse().find((m: Msg) => m.role === 'assistant' && !m.tool_calls?.length) as Msg | undefined;
      const limit = limitFromFeedback(String(last.content)) ?? 40;
      return { kind: 'message', content: [...String(previous?.content ?? 'OK')].slice(0, limit).join('') };
    }
    return { kind: 'message', content: 'OK!' };
  }) as unknown as Respond & { misses: number };
  respond.misses = 0;
  return respond;
}

interface Msg {
  role: string;
  content?: string | null;
  name?: string;
  tool_call_id?: string;
  tool_calls?: { id: string; function: { name: string; arguments: unknown } }[];
}

function prefixKey(messages: readonly Msg[]): string {
  return canonicalJson(
    messages.map((m) => ({
      role: m.role,
      content: m.content ?? '',
      name: m.name ?? null,
      tool_call_id: m.tool_call_id ?? null,
      calls: (m.tool_calls ?? []).map((c) => [
        c.id,
        c.function.name,
        typeof c.function.arguments === 'string' ? safeParse(c.function.arguments) : c.function.arguments,
      ]),
    })),
  );
}

function safeParse(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}
