import { EndpointClient, requestBody, type EndpointLabels, type EndpointSettings } from '../llm/client.js';
import type { TeacherCache } from '../llm/cache.js';
import type { TeacherCounters } from '../llm/errors.js';
import type { Message } from '../trajectory/types.js';
import type { Teacher, TeacherReply, TeacherRequest, TeacherStep } from './types.js';

/** What the client needs of the teacher settings (the rest is the runtime's). */
export type OpenAiTeacherConfig = EndpointSettings;

/**
 * A teacher behind any OpenAI-compatible Chat Completions endpoint: our messages and tools become a
 * request body, sent through the endpoint client (cache, retries, rate limits), and the answer
 * becomes the runtime's reply.
 */
export class OpenAiTeacher implements Teacher {
  readonly kind = 'openai';
  private readonly client: EndpointClient;

  constructor(
    private readonly cfg: OpenAiTeacherConfig,
    cache: TeacherCache,
    opts: { requireCache: boolean; signal?: AbortSignal; counters: TeacherCounters } & EndpointLabels,
  ) {
    this.client = new EndpointClient(cfg, cache, opts);
  }

  settle(): Promise<void> {
    return this.client.settle();
  }

  /**
   * The request body as sent (and hashed): model, messages, tools and every sampling parameter.
   * Sample k > 0 of an episode (trajectory-level recovery) sends `seed + k` when a seed is set, so
   * a seeded endpoint does not repeat the sample that failed.
   */
  body(req: TeacherRequest, sample = 0): Record<string, unknown> {
    return requestBody(
      this.cfg,
      {
        model: this.cfg.model,
        messages: req.messages.map(apiMessage),
        ...(req.tools.length ? { tools: req.tools } : {}),
        ...(req.toolChoice === 'none' && req.tools.length ? { tool_choice: 'none' } : {}),
      },
      sample,
    );
  }

  complete(req: TeacherRequest, step: TeacherStep): Promise<TeacherReply> {
    const sample = step.sample ?? 0;
    return this.client.complete(this.body(req, sample), sample);
  }
}

/** Messages go out as they are (the Chat Completions shape); the same objects keep their cached canonical text. */
function apiMessage(m: Message): Message {
  return m;
}
