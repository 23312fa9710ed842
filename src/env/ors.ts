import { randomUUID } from 'node:crypto';
import type { RewardResult } from '../episode/reward.js';
import type { RowRef } from '../episode/rows.js';
import { EnvError, type Session, type SessionOptions, type SessionStore } from './sessions.js';
import type { EnvRequest, EnvResponse, Protocol } from './protocol.js';

/**
 * The Open Reward Standard (https://openrewardstandard.io) over the session core: REST for
 * control, SSE for tool results, sessions named by the `X-Session-ID` header. One environment,
 * `hsa`, with one split (`train` unless configured) holding the loaded rows in order.
 *
 * ORS has one action, a tool call; a chat episode has two more, so two reserved call names (with a
 * dot, which no OpenAI tool name can contain) carry them:
 * - `hsa.message` — input `{"message": <assistant message>}`: one whole policy message (parallel
 *   tool calls, content, `reasoning_content`); the way to keep message boundaries.
 * - `hsa.reply` — input `{"content": "…", "reasoning_content"?: "…"}`: the policy's final reply.
 * A call of a row tool (`{"name": "lookup_faq", "input": {…}}`) is one assistant message with that
 * one call. Every answer is a `ToolOutput` whose blocks are the environment's messages (text = the
 * content, `detail` = role, name, tool_call_id) with the messages, `done` and `force_reply` in
 * `metadata`; the last one has `finished: true`, `reward` = the total and the components in
 * `metadata.reward`.
 */
export const ENV_NAME = 'hsa';
const CHUNK = 4096;

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function body(req: EnvRequest): Obj {
  if (req.body === undefined) return {};
  if (!isObj(req.body)) throw new EnvError(400, 'bad_request', 'body: expected a JSON object', 'body');
  return req.body;
}

function only(o: Obj, keys: string[], where: string): void {
  for (const k of Object.keys(o))
    if (!keys.includes(k)) throw new EnvError(400, 'bad_request', `${where}${k}: unknown field (expected ${keys.join(', ')})`, `${where}${k}`);
}

function sid(req: EnvRequest): string {
  const id = req.headers['x-session-id']?.trim();
  if (!id) throw new EnvError(400, 'bad_request', 'X-Session-ID header is required', 'X-Session-ID');
  return id;
}

function blocks(messages: Obj[]): Obj[] {
  return messages.map((m) => {
    const detail: Obj = { role: m.role };
    if (typeof m.name === 'string') detail.name = m.name;
    if (typeof m.tool_call_id === 'string') detail.tool_call_id = m.tool_call_id;
    return { type: 'text', text: typeof m.content === 'string' ? m.content : '', detail };
  });
}

type Events = { event: string; data: string }[];

function sse(taskId: string, payload: unknown): Events {
  const text = JSON.stringify(payload);
  const events = [{ event: 'task_id', data: taskId }];
  for (let i = 0; i < text.length || i === 0; i += CHUNK) events.push({ event: i + CHUNK >= text.length ? 'end' : 'chunk', data: text.slice(i, i + CHUNK) });
  return events;
}

export function createOrsProtocol(split = 'train'): Protocol {
  // Each session's last call result by task id, so a client that lost the stream can ask again
  // (ORS reconnection: calls of a session come one after another, so the last is the one in
  // flight). Kept on the session, not in a server-wide table: one session never gets another's
  // answer, and results die with their session instead of filling the old generation (a table of
  // the last thousand results made every scavenge promote them).
  const results = new WeakMap<Session, { taskId: string; events: Events }>();

  const checkSplit = (o: Obj): void => {
    if (o.split !== split) throw new EnvError(400, 'bad_request', `split: expected "${split}"`, 'split');
  };

  const rowRef = (spec: Obj): RowRef => {
    const refs = ['index', 'id', 'position', 'row'].filter((k) => spec[k] !== undefined);
    if (refs.length !== 1) throw new EnvError(400, 'bad_request', 'task_spec: give exactly one of index (extra_info.index), id, position or row', 'task_spec');
    const k = refs[0]!;
    return { [k]: spec[k] } as RowRef;
  };

  const options = (spec: Obj): Partial<SessionOptions> => {
    const out: Partial<SessionOptions> = {};
    if (spec.invalid_arguments !== undefined) {
      if (spec.invalid_arguments !== 'error' && spec.invalid_arguments !== 'tool_error')
        throw new EnvError(400, 'bad_request', 'task_spec.invalid_arguments: expected "error" or "tool_error"', 'task_spec.invalid_arguments');
      out.invalidArguments = spec.invalid_arguments;
    }
    if (spec.max_steps_per_turn !== undefined) {
      if (!Number.isInteger(spec.max_steps_per_turn) || (spec.max_steps_per_turn as number) < 1)
        throw new EnvError(400, 'bad_request', 'task_spec.max_steps_per_turn: expected a positive integer', 'task_spec.max_steps_per_turn');
      out.maxStepsPerTurn = spec.max_steps_per_turn as number;
    }
    return out;
  };

  const rewardMeta = (r: RewardResult) => ({ reward: r.reward, components: r.components, weights: r.weights, detail: r.detail });

  async function handle(req: EnvRequest, store: SessionStore): Promise<EnvResponse | undefined> {
    const { method, path } = req;
    const envPath = path.startsWith(`/${ENV_NAME}/`) ? path.slice(ENV_NAME.length + 1) : undefined;
    if (method === 'GET' && path === '/health') return { status: 200, json: { status: 'ok' } };
    if (method === 'GET' && path === '/list_environments') return { status: 200, json: [ENV_NAME] };
    if (method === 'POST' && path === '/create_session') {
      const id = randomUUID();
      return {
        status: 200,
        events: [
          { event: 'task_id', data: id },
          { event: 'end', data: '' },
        ],
      };
    }
    if (method === 'POST' && path === '/create') {
      const id = sid(req);
      const o = body(req);
      only(o, ['env_name', 'task_spec', 'split', 'index', 'secrets'], '');
      if (o.env_name !== undefined && o.env_name !== null && o.env_name !== ENV_NAME)
        throw new EnvError(404, 'not_found', `env_name: unknown environment ${JSON.stringify(o.env_name)} (this server has "${ENV_NAME}")`, 'env_name');
      let row;
      let opts: Partial<SessionOptions> = {};
      if (o.task_spec !== undefined && o.task_spec !== null) {
        if (o.split !== undefined || o.index !== undefined)
          throw new EnvError(400, 'bad_request', 'task_spec: give either task_spec or split and index, not both', 'task_spec');
        if (!isObj(o.task_spec)) throw new EnvError(400, 'bad_request', 'task_spec: expected an object', 'task_spec');
        only(o.task_spec, ['index', 'id', 'position', 'row', 'invalid_arguments', 'max_steps_per_turn'], 'task_spec.');
        row = store.resolveRow(rowRef(o.task_spec), 'task_spec');
        opts = options(o.task_spec);
      } else {
        if (o.split === undefined || o.index === undefined)
          throw new EnvError(400, 'bad_request', 'task_spec: give either task_spec or split and index', 'task_spec');
        checkSplit(o);
        row = store.resolveRow({ position: o.index as number }, 'index');
      }
      store.start(row, opts, id);
      return { status: 200, json: { sid: id } };
    }
    if (method === 'POST' && path === '/ping') {
      store.get(sid(req));
      return { status: 200, json: { status: 'ok' } };
    }
    if (method === 'POST' && (path === '/delete' || path === '/delete_session')) {
      const id = sid(req);
      store.delete(id);
      return { status: 200, json: { sid: id } };
    }
    if (envPath === undefined) {
      const first = path.split('/')[1];
      if (
        first &&
        ['tools', 'task_tools', 'splits', 'tasks', 'num_tasks', 'task', 'task_range', 'prompt', 'call', 'reward', 'messages'].includes(path.split('/')[2] ?? '')
      ) {
        throw new EnvError(404, 'not_found', `unknown environment ${JSON.stringify(first)} (this server has "${ENV_NAME}")`, 'env_name');
      }
      return undefined;
    }
    // Every tool is the row's: /tools lists a session's tools when given one (ORS allows that), none otherwise.
    if (method === 'GET' && envPath === '/tools' && !req.headers['x-session-id']) return { status: 200, json: { tools: [] } };
    if (method === 'GET' && envPath === '/splits')
      return { status: 200, json: [{ name: split, type: split === 'train' || split === 'validation' || split === 'test' ? split : 'validation' }] };
    if (method === 'POST' && envPath === '/tasks') {
      checkSplit(body(req));
      return { status: 200, json: { tasks: store.rows.summaries(), env_name: ENV_NAME } };
    }
    if (method === 'POST' && envPath === '/num_tasks') {
      checkSplit(body(req));
      return { status: 200, json: { num_tasks: store.rows.size } };
    }
    if (method === 'POST' && envPath === '/task') {
      const o = body(req);
      checkSplit(o);
      const i = o.index;
      if (!Number.isInteger(i) || (i as number) < 0 || (i as number) >= store.rows.size)
        throw new EnvError(400, 'bad_request', `index: expected 0..${store.rows.size - 1}`, 'index');
      return { status: 200, json: { task: store.rows.summaries(i as number, (i as number) + 1)[0] } };
    }
    if (method === 'POST' && envPath === '/task_range') {
      const o = body(req);
      checkSplit(o);
      const n = store.rows.size;
      const norm = (v: unknown, d: number, f: string) => {
        if (v === undefined || v === null) return d;
        if (!Number.isInteger(v)) throw new EnvError(400, 'bad_request', `${f}: expected an integer`, f);
        const x = v as number;
        return Math.min(n, x < 0 ? Math.max(0, n + x) : x);
      };
      return { status: 200, json: { tasks: store.rows.summaries(norm(o.start, 0, 'start'), norm(o.stop, n, 'stop')) } };
    }
    if (method === 'GET' && (envPath === '/task_tools' || envPath === '/tools')) {
      const s = store.get(sid(req));
      return {
        status: 200,
        json: { tools: s.episode.row.tools.map((t) => ({ name: t.function.name, description: t.function.description, input_schema: t.function.parameters })) },
      };
    }
    if (method === 'GET' && envPath === '/prompt') {
      const s = store.get(sid(req));
      return { status: 200, json: blocks(s.episode.initialMessages) };
    }
    if (method === 'GET' && envPath === '/messages') {
      const s = store.get(sid(req));
      return { status: 200, json: { messages: s.episode.messages, tools: s.episode.row.tools, done: s.episode.done, force_reply: s.episode.forcedReply } };
    }
    if (method === 'GET' && envPath === '/reward') {
      const s = store.get(sid(req));
      const r = await store.rewardOf(s);
      return { status: 200, json: { final: s.episode.done, ...rewardMeta(r) } };
    }
    if (method === 'POST' && envPath === '/call') {
      const id = sid(req);
      const o = body(req);
      only(o, ['name', 'input', 'task_id'], '');
      if (o.task_id !== undefined && o.task_id !== null) {
        if (typeof o.task_id !== 'string') throw new EnvError(400, 'bad_request', 'task_id: expected a string', 'task_id');
        const seen = results.get(store.get(id));
        if (seen !== undefined && seen.taskId === o.task_id) return { status: 200, events: seen.events };
      }
      if (typeof o.name !== 'string' || o.name === '')
        throw new EnvError(400, 'bad_request', 'name: expected the tool name (or hsa.message / hsa.reply)', 'name');
      const input = o.input ?? {};
      if (!isObj(input)) throw new EnvError(400, 'bad_request', 'input: expected an object', 'input');
      let message: unknown;
      let field: string;
      if (o.name === 'hsa.message') {
        only(input, ['message'], 'input.');
        message = input.message;
        field = 'input.message';
      } else if (o.name === 'hsa.reply') {
        only(input, ['content', 'reasoning_content'], 'input.');
        if (typeof input.content !== 'string') throw new EnvError(400, 'bad_request', 'input.content: expected a string', 'input.content');
        message = {
          role: 'assistant',
          content: input.content,
          ...(input.reasoning_content !== undefined ? { reasoning_content: input.reasoning_content } : {}),
        };
        field = 'input';
      } else {
        message = {
          role: 'assistant',
          content: '',
          tool_calls: [
            { id: `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`, type: 'function', function: { name: o.name, arguments: JSON.stringify(input) } },
          ],
        };
        field = 'input';
      }
      const session = store.get(id);
      const answer = await store.stepIn(session, message, field);
      const payload = {
        ok: true,
        output: {
          blocks: blocks(answer.messages),
          metadata: {
            messages: answer.messages,
            done: answer.done,
            force_reply: answer.forceReply,
            ...(answer.truncated ? { truncated: answer.truncated } : {}),
            ...(answer.reward ? { reward: rewardMeta(answer.reward) } : {}),
          },
          reward: answer.reward ? answer.reward.reward : null,
          finished: answer.done,
        },
      };
      const taskId = typeof o.task_id === 'string' ? o.task_id : randomUUID();
      const events = sse(taskId, payload);
      results.set(session, { taskId, events });
      return { status: 200, events };
    }
    return undefined;
  }

  return { id: 'ors', title: 'Open Reward Standard', handle };
}
