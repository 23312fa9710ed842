import type { SessionStore } from './sessions.js';

/** A request as a protocol adapter sees it: already read and JSON-parsed, no node:http in sight. */
export interface EnvRequest {
  method: string;
  /** Path without the query string, e.g. `/hsa/call`. */
  path: string;
  query: URLSearchParams;
  /** Lower-case header names. */
  headers: Record<string, string | undefined>;
  /** The parsed JSON body (`undefined` when there was none). */
  body: unknown;
}

export type EnvResponse =
  | { status: number; json: unknown }
  /** Server-Sent Events, written in order then the stream ends. */
  | { status: number; events: { event: string; data: string }[] };

/** One wire protocol over the session core. `handle` returns undefined for paths it does not serve. */
export interface Protocol {
  readonly id: string;
  readonly title: string;
  handle(req: EnvRequest, store: SessionStore): Promise<EnvResponse | undefined>;
}
