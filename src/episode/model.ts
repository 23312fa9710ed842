import type { OpenAiTool } from '../harness/types.js';
import type { Message, ToolCall } from '../trajectory/types.js';

/**
 * What an episode asks of the model that plays it (a teacher in teacher mode) and what it takes
 * back. The episode owns these shapes; teacher/types.ts names them for the teachers.
 */

/** One Chat Completions request as hsa sends it (before sampling parameters are added). */
export interface ModelRequest {
  messages: Message[];
  tools: OpenAiTool[];
  /** `none` when a hook forces a reply. */
  toolChoice?: 'auto' | 'none';
}

/** Where in an episode a request stands (the replay teacher answers from this). */
export interface ModelStep {
  variantId: string;
  /** Index of the user turn (0-based). */
  turn: number;
  /** Model calls already made in this turn (a per-call retry asks again at the same step). */
  attempt: number;
  forceReply: boolean;
  /**
   * Which sample of the whole episode this is (trajectory-level recovery re-runs a failed episode
   * with the next index); part of the cache key, so a warm cache replays every attempt. Default 0.
   */
  sample?: number;
  /** Per-call retries already made at this step (the previous answer's calls were invalid). Default 0. */
  retry?: number;
}

export interface ModelReply {
  content: string | null;
  toolCalls: ToolCall[];
  finishReason: string;
  usage: { prompt: number; completion: number };
  /** Served from the cache (no request made). */
  cached: boolean;
  /** The raw response body, for rejects. */
  raw?: unknown;
}
