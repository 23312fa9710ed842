import OpenAI from 'openai';
import { startTeacherServer, type Respond, type TeacherServer } from './teacher-server.js';

// Shared by the teacher-*.test.ts files: servers started for a test (closed by closeServers after each), an
// openai client for one, and small waits.

export type APIError = InstanceType<typeof OpenAI.APIError>;

export const servers: TeacherServer[] = [];
export async function start(respond: Respond, opts?: { idleTimeoutMs?: number }): Promise<TeacherServer> {
  const s = await startTeacherServer(respond, opts);
  servers.push(s);
  return s;
}
export async function closeServers(): Promise<void> {
  await Promise.all(servers.splice(0).map((s) => s.close()));
}

export function client(s: TeacherServer, extra: { timeout?: number; maxRetries?: number } = {}): OpenAI {
  return new OpenAI({ baseURL: s.url, apiKey: 'sk-test', maxRetries: 0, timeout: 2000, ...extra });
}

export const user = (content: string) => [{ role: 'user' as const, content }];
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export async function waitFor(cond: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('waitFor: timed out');
    await sleep(10);
  }
}
export async function caught(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected the call to throw');
}
