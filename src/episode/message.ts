import { HsaError } from '../errors.js';

/** A policy message the episode cannot take; `field` names where (`message.tool_calls[1].function.arguments`). */
export class BadMessageError extends HsaError {
  readonly field: string;
  constructor(field: string, message: string) {
    super('HSA_BAD_RECORD', `${field}: ${message}`, 1);
    this.name = 'BadMessageError';
    this.field = field;
  }
}

/** Arguments that are not JSON (kept as text) when the episode treats them as the policy's error. */
export const BAD_JSON: unique symbol = Symbol('bad JSON');

export interface PolicyCall {
  id: string;
  name: string;
  /** The arguments as sent (a JSON string). */
  argumentsText: string;
  /** Parsed arguments, or BAD_JSON. */
  args: unknown;
}

/** An assistant message in Chat Completions shape, read and checked. */
export interface PolicyMessage {
  /** Content as sent (text parts joined), `<think>` blocks included. */
  content: string;
  /** `reasoning_content` / `reasoning` as sent, if any. */
  reasoningField?: string;
  calls: PolicyCall[];
  /** The message as it goes into the episode's conversation (Chat Completions shape). */
  raw: Record<string, unknown>;
}

function textContent(v: unknown, field: string): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) {
    return v
      .map((p, i) => {
        if (p === null || typeof p !== 'object' || (p as { type?: unknown }).type !== 'text' || typeof (p as { text?: unknown }).text !== 'string') {
          throw new BadMessageError(`${field}[${i}]`, 'expected a text part {"type":"text","text":…}');
        }
        return (p as { text: string }).text;
      })
      .join('');
  }
  throw new BadMessageError(field, 'expected a string, an array of text parts or null');
}

/**
 * Read the policy's assistant message. Arguments must be a JSON string (or an object, as trainer
 * rows hold them); text that is not JSON is a bad request unless `badJson` is `tool_error`, which
 * keeps it as the policy's mistake (answered with a tool error, scored as an invalid call).
 */
export function readPolicyMessage(v: unknown, field: string, badJson: 'error' | 'tool_error'): PolicyMessage {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new BadMessageError(field, 'expected a Chat Completions assistant message (an object)');
  const m = v as Record<string, unknown>;
  if (m.role !== 'assistant') throw new BadMessageError(`${field}.role`, `expected "assistant", got ${JSON.stringify(m.role ?? null)}`);
  const content = textContent(m.content, `${field}.content`);
  const reasoning = m.reasoning_content ?? m.reasoning;
  if (reasoning !== undefined && reasoning !== null && typeof reasoning !== 'string')
    throw new BadMessageError(`${field}.reasoning_content`, 'expected a string');
  const calls: PolicyCall[] = [];
  if (m.tool_calls !== undefined && m.tool_calls !== null) {
    if (!Array.isArray(m.tool_calls)) throw new BadMessageError(`${field}.tool_calls`, 'expected an array');
    m.tool_calls.forEach((c, i) => {
      const at = `${field}.tool_calls[${i}]`;
      if (c === null || typeof c !== 'object' || Array.isArray(c)) throw new BadMessageError(at, 'expected a tool call object');
      const call = c as Record<string, unknown>;
      if (call.type !== undefined && call.type !== 'function') throw new BadMessageError(`${at}.type`, 'expected "function"');
      const fn = call.function;
      if (fn === null || typeof fn !== 'object' || Array.isArray(fn)) throw new BadMessageError(`${at}.function`, 'expected {"name", "arguments"}');
      const f = fn as Record<string, unknown>;
      if (typeof f.name !== 'string' || f.name === '') throw new BadMessageError(`${at}.function.name`, 'expected a non-empty string');
      if (call.id !== undefined && typeof call.id !== 'string') throw new BadMessageError(`${at}.id`, 'expected a string');
      let argumentsText: string;
      let args: unknown;
      if (typeof f.arguments === 'string') {
        argumentsText = f.arguments;
        try {
          args = f.arguments.trim() === '' ? {} : JSON.parse(f.arguments);
        } catch (e) {
          if (badJson === 'error') throw new BadMessageError(`${at}.function.arguments`, `not JSON (${(e as Error).message})`);
          args = BAD_JSON;
        }
      } else if (f.arguments !== null && typeof f.arguments === 'object' && !Array.isArray(f.arguments)) {
        args = f.arguments;
        argumentsText = JSON.stringify(f.arguments);
      } else if (f.arguments === undefined) {
        args = {};
        argumentsText = '{}';
      } else throw new BadMessageError(`${at}.function.arguments`, 'expected a JSON string');
      calls.push({ id: typeof call.id === 'string' && call.id !== '' ? call.id : `call_${i}`, name: f.name, argumentsText, args });
    });
  }
  const raw: Record<string, unknown> = { role: 'assistant', content };
  if (typeof reasoning === 'string') raw.reasoning_content = reasoning;
  if (calls.length) raw.tool_calls = calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.argumentsText } }));
  return { content, ...(typeof reasoning === 'string' ? { reasoningField: reasoning } : {}), calls, raw };
}
