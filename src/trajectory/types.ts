import type { OpenAiTool } from '../harness/types.js';

/** One tool call in Chat Completions shape; `arguments` is a JSON string on input. */
export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type TextContent = string | { type: 'text'; text: string }[];

export type Message =
  | { role: 'system' | 'developer'; content: TextContent; name?: string }
  | { role: 'user'; content: TextContent; name?: string }
  | {
      role: 'assistant';
      content: TextContent | null;
      name?: string;
      tool_calls?: ToolCall[];
      reasoning_content?: string;
      refusal?: string | null;
    }
  | { role: 'tool'; tool_call_id: string; content: TextContent; name?: string };

/** One trajectory record: an OpenAI Chat Completions conversation plus provenance. */
export interface Trajectory {
  id: string;
  harness?: { name: string; version: string | number };
  context?: Record<string, unknown>;
  messages: Message[];
  tools?: OpenAiTool[];
  meta?: Record<string, unknown>;
}

/** A trajectory with where it came from. */
export interface SourcedTrajectory {
  record: Trajectory;
  file: string;
  line: number;
}

/** Plain text of a message content. */
export function textOf(content: TextContent | null | undefined): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  return content.map((p) => p.text).join('');
}
