import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { HSA_BIN, REPO } from './hsa.js';

/** A running `hsa env serve` (the real binary) and a plain HTTP client for its Open Reward Standard API. */
export interface EnvServer {
  url: string;
  child: ChildProcess;
  stderr: () => string;
  stop(): Promise<number | null>;
}

/** Start `hsa env serve --port 0 --json` and wait for the address line. */
export function startEnv(args: string[]): Promise<EnvServer> {
  const child = spawn(process.execPath, [HSA_BIN, 'env', 'serve', '--port', '0', '--json', '--idle-exit', '120', ...args], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`hsa env serve exited ${code}: ${err}`)));
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      const nl = out.indexOf('\n');
      if (nl === -1) return;
      const { url } = JSON.parse(out.slice(0, nl)) as { url: string };
      resolve({
        url,
        child,
        stderr: () => err,
        stop: () => {
          child.kill('SIGTERM');
          return exited;
        },
      });
    });
  });
}

export interface Reply {
  status: number;
  body: any;
}

/** One JSON request. */
export async function request(url: string, method: string, p: string, body?: unknown, sid?: string, raw?: string): Promise<Reply> {
  const res = await fetch(`${url}${p}`, {
    method,
    headers: { 'content-type': 'application/json', ...(sid ? { 'x-session-id': sid } : {}) },
    ...(raw !== undefined ? { body: raw } : body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) return { status: res.status, body: readSse(text) };
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** The SSE answer of an ORS call: the concatenated `chunk`/`end` data, parsed; plus the task id. */
export function readSse(text: string): { task_id?: string; events: string[]; payload: any } {
  const events: string[] = [];
  let taskId: string | undefined;
  let data = '';
  for (const block of text.split('\n\n')) {
    if (!block.trim()) continue;
    const lines = block.split('\n');
    const event = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? 'message';
    const d = lines
      .filter((l) => l.startsWith('data: '))
      .map((l) => l.slice(6))
      .join('\n');
    events.push(event);
    if (event === 'task_id') taskId = d;
    else if (event === 'chunk' || event === 'end') data += d;
  }
  return { ...(taskId ? { task_id: taskId } : {}), events, payload: data ? JSON.parse(data) : undefined };
}

export async function create(url: string, sid: string, taskSpec: unknown): Promise<Reply> {
  return request(url, 'POST', '/create', { env_name: 'hsa', task_spec: taskSpec }, sid);
}

/** An ORS tool call; returns the RunToolOutput payload (or the 4xx body). */
export async function call(url: string, sid: string, name: string, input: unknown): Promise<Reply> {
  const r = await request(url, 'POST', '/hsa/call', { name, input }, sid);
  return r.status === 200 ? { status: 200, body: r.body.payload } : r;
}

export interface RlRow {
  extra_info: { index: number; id: string; transforms: string; env: string };
  reward_model: { ground_truth: string };
  prompt: any[];
}

export function readRows(dir: string): RlRow[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .flatMap((f) =>
      readFileSync(path.join(dir, f), 'utf8')
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as RlRow),
    );
}

export const truthOf = (r: RlRow) => JSON.parse(r.reward_model.ground_truth);
export const envOf = (r: RlRow) => JSON.parse(r.extra_info.env);

/** The assistant messages that replay a row's reference: per turn, all its calls in one message, then its reply. */
export function referenceMessages(row: RlRow): Record<string, unknown>[][] {
  return truthOf(row).turns.map((t: { calls: { name: string; arguments: unknown }[]; reply: string }, ti: number) => {
    const msgs: Record<string, unknown>[] = [];
    if (t.calls.length) {
      msgs.push({
        role: 'assistant',
        content: '',
        tool_calls: t.calls.map((c, i) => ({ id: `c${ti}_${i}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } })),
      });
    }
    msgs.push({ role: 'assistant', content: t.reply });
    return msgs;
  });
}

/** Run a whole episode over ORS with these assistant messages; every env answer and the final payload. */
export async function runEpisode(url: string, sid: string, taskSpec: unknown, messages: Record<string, unknown>[]): Promise<{ answers: any[]; final: any }> {
  const c = await create(url, sid, taskSpec);
  if (c.status !== 200) throw new Error(`create: ${c.status} ${JSON.stringify(c.body)}`);
  const answers: any[] = [];
  for (const m of messages) {
    const r = await call(url, sid, 'hsa.message', { message: m });
    if (r.status !== 200) throw new Error(`call: ${r.status} ${JSON.stringify(r.body)}`);
    answers.push(r.body);
    if (r.body.output.finished) break;
  }
  return { answers, final: answers[answers.length - 1] };
}
