import type { OpenAiTool } from '../harness/types.js';
import { withArgs } from '../util/call-args.js';
import { checkCalls } from '../trajectory/invariants.js';
import type { Message, Trajectory } from '../trajectory/types.js';
import type { ReviewBucket } from './folder.js';

/** One problem of one record: where inside it (key path) and what. */
export interface RecordProblem {
  path: string;
  message: string;
}

type Obj = Record<string, unknown>;
/** A plain JSON object (not null, not an array). */
export const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The shape of a record of `stage` as docs/output.md documents it. Readers are
 * tolerant of added keys; what is checked is what trainers and the review commands rely on.
 */
export function shapeProblems(stage: ReviewBucket, v: unknown): RecordProblem[] {
  const out: RecordProblem[] = [];
  const need = (ok: boolean, path: string, message: string) => {
    if (!ok) out.push({ path, message });
  };
  if (!isObj(v)) return [{ path: '(record)', message: 'not a JSON object' }];
  if (stage === 'rejects') {
    need(v.kind === 'input' || v.kind === 'variant', 'kind', `must be "input" or "variant", got ${JSON.stringify(v.kind)}`);
    need(typeof v.reason === 'string' && v.reason !== '', 'reason', 'required: a reject carries its reason');
    need(v.id === null || typeof v.id === 'string', 'id', 'must be a string (or null for an unreadable input line)');
    return out;
  }
  if (stage === 'rl') {
    need(typeof v.data_source === 'string', 'data_source', 'required string');
    need(typeof v.ability === 'string', 'ability', 'required string');
    if (Array.isArray(v.prompt)) messageProblems(v.prompt, 'prompt', out);
    else out.push({ path: 'prompt', message: 'must be an array of messages' });
    const rm = v.reward_model;
    if (!isObj(rm)) out.push({ path: 'reward_model', message: 'required object' });
    else jsonStringProblems(rm.ground_truth, 'reward_model.ground_truth', ['expected_calls', 'turns'], out);
    const x = v.extra_info;
    if (!isObj(x)) out.push({ path: 'extra_info', message: 'required object' });
    else {
      need(typeof x.id === 'string', 'extra_info.id', 'required string');
      need(typeof x.index === 'number' && Number.isInteger(x.index), 'extra_info.index', 'required integer');
      jsonStringProblems(x.env, 'extra_info.env', ['user_turns', 'tool_replay', 'tools'], out);
    }
    return out;
  }
  need(typeof v.id === 'string' && v.id !== '', 'id', 'required non-empty string');
  if (Array.isArray(v.messages)) messageProblems(v.messages, 'messages', out);
  else out.push({ path: 'messages', message: 'must be an array of messages' });
  need(Array.isArray(v.tools) || typeof v.tools === 'string', 'tools', 'must be the tool list (or its JSON string with tools_format json-string)');
  if (typeof v.tools === 'string') jsonStringProblems(v.tools, 'tools', [], out, true);
  need(isObj(v.meta), 'meta', 'required object (provenance)');
  if (stage === 'opd' && Array.isArray(v.messages)) {
    const last = v.messages[v.messages.length - 1] as Obj | undefined;
    need(last?.role !== 'assistant', `messages.${v.messages.length - 1}.role`, 'an OPD prompt ends before an assistant turn');
  }
  return out;
}

function jsonStringProblems(v: unknown, path: string, keys: string[], out: RecordProblem[], array = false): void {
  if (typeof v !== 'string') return void out.push({ path, message: 'must be a JSON string' });
  let parsed: unknown;
  try {
    parsed = JSON.parse(v);
  } catch (e) {
    return void out.push({ path, message: `not valid JSON: ${(e as Error).message}` });
  }
  if (array) {
    if (!Array.isArray(parsed)) out.push({ path, message: 'must hold a JSON array' });
    return;
  }
  if (!isObj(parsed)) return void out.push({ path, message: 'must hold a JSON object' });
  for (const k of keys) if (!(k in parsed)) out.push({ path: `${path}.${k}`, message: 'required' });
}

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);

function messageProblems(messages: unknown[], base: string, out: RecordProblem[]): void {
  messages.forEach((m, i) => {
    const at = `${base}.${i}`;
    if (!isObj(m)) return void out.push({ path: at, message: 'not a message object' });
    if (typeof m.role !== 'string' || !ROLES.has(m.role)) out.push({ path: `${at}.role`, message: `unknown role ${JSON.stringify(m.role)}` });
    // Trainer shape: content is always a string (chat templates fail on null).
    if (typeof m.content !== 'string') out.push({ path: `${at}.content`, message: 'must be a string' });
    if (m.role === 'tool' && typeof m.tool_call_id !== 'string') out.push({ path: `${at}.tool_call_id`, message: 'required string' });
    if (m.tool_calls !== undefined) {
      if (!Array.isArray(m.tool_calls)) return void out.push({ path: `${at}.tool_calls`, message: 'must be an array' });
      m.tool_calls.forEach((c, k) => {
        const fn = isObj(c) ? c.function : undefined;
        if (!isObj(c) || typeof c.id !== 'string' || !isObj(fn) || typeof fn.name !== 'string' || !('arguments' in fn)) {
          out.push({ path: `${at}.tool_calls.${k}`, message: 'must be {id, type, function: {name, arguments}}' });
        }
      });
    }
  });
}

/** The record as a trajectory the engine's checks read: arguments as JSON strings, tools as a list. */
export function asTrajectory(stage: ReviewBucket, v: Obj): Trajectory | undefined {
  if (stage === 'sft' || stage === 'opd') {
    const tools = typeof v.tools === 'string' ? (JSON.parse(v.tools) as OpenAiTool[]) : (v.tools as OpenAiTool[]);
    return { id: v.id as string, messages: (v.messages as Message[]).map(stringArgs), tools };
  }
  if (stage === 'rl') {
    const env = JSON.parse((v.extra_info as Obj).env as string) as { tool_replay?: { id: string; name: string; arguments: unknown }[]; tools?: OpenAiTool[] };
    const calls = (env.tool_replay ?? []).map((c) => ({ id: c.id, type: 'function' as const, function: argsFunction(c.name, c.arguments) }));
    const prompt = (v.prompt as Message[]).map(stringArgs);
    // The replayed calls stand as one assistant turn after the prompt (paths are mapped back by rlPath).
    return { id: (v.extra_info as Obj).id as string, messages: [...prompt, { role: 'assistant', content: '', tool_calls: calls }], tools: env.tools ?? [] };
  }
  return undefined;
}

/** A path in the trajectory made by `asTrajectory` as a path in the RL row. */
export function rlPath(path: string, promptLength: number): string {
  const m = /^messages\.(\d+)(.*)$/.exec(path);
  if (!m) return path;
  const i = Number(m[1]);
  if (i < promptLength) return `prompt.${i}${m[2]}`;
  return `extra_info.env.tool_replay${m[2]!.replace(/^\.tool_calls/, '')}`;
}

function stringArgs(m: Message): Message {
  if (m.role !== 'assistant' || !m.tool_calls) return m;
  return {
    ...m,
    tool_calls: m.tool_calls.map((c) => {
      const a = c.function.arguments as unknown;
      return typeof a === 'string' ? c : { ...c, function: argsFunction(c.function.name, a, c.function) };
    }),
  };
}

/** A call's function with its arguments as JSON text; parsed arguments are kept as its callArgs value (no parse back). */
function argsFunction(name: string, args: unknown, base?: object): { name: string; arguments: string } {
  const text = typeof args === 'string' ? args : (JSON.stringify(args) as string | undefined);
  const fn = { ...base, name, arguments: text as string };
  return typeof args === 'string' || text === undefined ? fn : withArgs(fn, args);
}

/** The rename tables a record's meta carries, by kind (old → new), merged over its transforms. */
export interface RenameTables {
  tools: Record<string, string>;
  skills: Record<string, string>;
  params: Record<string, string>;
  hooks: Record<string, string>;
}

/**
 * Rename tables from `meta.transforms` (or RL's `extra_info.transforms` JSON): every applied
 * transform whose params hold a `renamed` map of strings, filed by family (`tools.param-*` are
 * parameter renames). Unknown transforms with such a map are filed by their family too.
 */
export function renameTables(transforms: unknown): RenameTables {
  const t: RenameTables = { tools: {}, skills: {}, params: {}, hooks: {} };
  if (!Array.isArray(transforms)) return t;
  for (const a of transforms) {
    if (!isObj(a) || typeof a.id !== 'string' || !isObj(a.params) || !isObj(a.params.renamed)) continue;
    const family = a.id.split('.')[0]!;
    const kind: keyof RenameTables | undefined = a.id.startsWith('tools.param')
      ? 'params'
      : family === 'tools'
        ? 'tools'
        : family === 'skills'
          ? 'skills'
          : family === 'hooks'
            ? 'hooks'
            : undefined;
    if (!kind) continue;
    for (const [k, n] of Object.entries(a.params.renamed)) if (typeof n === 'string' && k !== n) t[kind][k] = n;
  }
  return t;
}

/** The applied transforms of a record of any stage. */
export function appliedTransforms(stage: ReviewBucket, v: Obj): unknown[] {
  if (stage === 'rl') {
    const t = (v.extra_info as Obj | undefined)?.transforms;
    try {
      return typeof t === 'string' ? (JSON.parse(t) as unknown[]) : Array.isArray(t) ? t : [];
    } catch {
      return [];
    }
  }
  const t = (v.meta as Obj | undefined)?.transforms;
  return Array.isArray(t) ? t : [];
}

/** Calls name a listed tool and validate against its schema (the engine's check on the record's own tools). */
export function callProblems(rec: Trajectory): RecordProblem[] {
  // The state argument is only read when a record has no tools; every output record carries them.
  return checkCalls(rec, { tools: [] } as never).map(splitPath);
}

/** "messages.3.tool_calls.0: message" → {path, message}. */
export function splitPath(s: string): RecordProblem {
  const m = /^([A-Za-z_][\w.-]*): ([\s\S]*)$/.exec(s);
  return m ? { path: m[1]!, message: m[2]! } : { path: '(record)', message: s };
}
