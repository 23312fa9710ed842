import type { Hook, OpenAiTool, Tool } from '../harness/types.js';
import { HsaError } from '../errors.js';

/**
 * An RL row (as `hsa augment` writes it to `rl/`) read into what an episode needs. Everything comes
 * from the row itself — the prompt, the tools, the hooks, the user turns, the replay table and the
 * reference — never from a harness folder, so a row can be sent over the wire and run anywhere.
 */
export interface EpisodeRow {
  /** `extra_info.index` (or the row's position when it has none). */
  index: number;
  id: string;
  dataSource: string;
  /** The messages up to the first assistant turn (system, preamble, first user message). */
  prompt: Record<string, unknown>[];
  tools: OpenAiTool[];
  hooks: Hook[];
  hookPrefix: string;
  skillLoader: { tool: string; argument: string } | null;
  userTurns: string[];
  /** `extra_info.env.intent` (the record's `meta.intent`), for `require_tool` checks with `intents`. */
  intent?: string;
  replay: ReplayEntry[];
  truth: GroundTruth;
  /** Old → new tool names of the row's state (from `extra_info.transforms`), for diagnostics. */
  renamedTools: Record<string, string>;
  /** The tools in the shape the hook checks read (name and JSON Schema). */
  hookTools: Tool[];
}

export interface ReplayEntry {
  id: string;
  name: string;
  arguments: unknown;
  result: string;
}

export interface ExpectedCall {
  name: string;
  arguments: unknown;
}

export interface GroundTruth {
  expectedCalls: ExpectedCall[];
  expectedSkills: string[];
  referenceReply: string;
  turns: { user: string; calls: ExpectedCall[]; skills: string[]; reply: string }[];
}

/** A row that cannot be run: the message names the field (`extra_info.env.tools[2].function.name`). */
export class BadRowError extends HsaError {
  readonly field: string;
  constructor(field: string, message: string) {
    super('HSA_BAD_RECORD', `${field}: ${message}`, 1);
    this.name = 'BadRowError';
    this.field = field;
  }
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function obj(v: unknown, field: string): Obj {
  if (!isObj(v)) throw new BadRowError(field, 'expected an object');
  return v;
}

function arr(v: unknown, field: string): unknown[] {
  if (!Array.isArray(v)) throw new BadRowError(field, 'expected an array');
  return v;
}

function str(v: unknown, field: string): string {
  if (typeof v !== 'string') throw new BadRowError(field, 'expected a string');
  return v;
}

/** A JSON string field (verl rows keep nested data as strings for Arrow) or the object itself. */
function jsonField(v: unknown, field: string): Obj {
  if (typeof v === 'string') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(v);
    } catch (e) {
      throw new BadRowError(field, `not valid JSON (${(e as Error).message})`);
    }
    return obj(parsed, field);
  }
  return obj(v, field);
}

function calls(v: unknown, field: string): ExpectedCall[] {
  return arr(v, field).map((c, i) => {
    const o = obj(c, `${field}[${i}]`);
    return { name: str(o.name, `${field}[${i}].name`), arguments: o.arguments ?? {} };
  });
}

function strings(v: unknown, field: string): string[] {
  return arr(v, field).map((s, i) => str(s, `${field}[${i}]`));
}

const HOOK_EVENTS = new Set(['pre_inference', 'pre_tool_use', 'post_tool_use', 'stop']);

/** Read one RL row; `position` is its place in the loaded files (used when it has no index). */
export function parseRow(value: unknown, position: number): EpisodeRow {
  const row = obj(value, 'row');
  const extra = obj(row.extra_info, 'extra_info');
  const rm = obj(row.reward_model, 'reward_model');
  const gt = jsonField(rm.ground_truth, 'reward_model.ground_truth');
  const env = jsonField(extra.env, 'extra_info.env');
  const prompt = arr(row.prompt, 'prompt').map((m, i) => {
    const o = obj(m, `prompt[${i}]`);
    str(o.role, `prompt[${i}].role`);
    return o;
  });
  const tools = arr(env.tools, 'extra_info.env.tools').map((t, i): OpenAiTool => {
    const f = obj(obj(t, `extra_info.env.tools[${i}]`).function, `extra_info.env.tools[${i}].function`);
    return {
      type: 'function',
      function: {
        name: str(f.name, `extra_info.env.tools[${i}].function.name`),
        description: typeof f.description === 'string' ? f.description : '',
        parameters: f.parameters === undefined ? { type: 'object' } : obj(f.parameters, `extra_info.env.tools[${i}].function.parameters`),
      },
    };
  });
  const hooks = arr(env.hooks ?? [], 'extra_info.env.hooks').map((h, i): Hook => {
    const o = obj(h, `extra_info.env.hooks[${i}]`);
    const event = str(o.event, `extra_info.env.hooks[${i}].event`);
    if (!HOOK_EVENTS.has(event)) throw new BadRowError(`extra_info.env.hooks[${i}].event`, `unknown event "${event}"`);
    arr(o.checks, `extra_info.env.hooks[${i}].checks`);
    // The row carries hooks exactly as the harness state holds them; the checks are trusted as written.
    return o as unknown as Hook;
  });
  const loader = env.skill_loader;
  let skillLoader: EpisodeRow['skillLoader'] = null;
  if (loader !== null && loader !== undefined) {
    const l = obj(loader, 'extra_info.env.skill_loader');
    skillLoader = { tool: str(l.tool, 'extra_info.env.skill_loader.tool'), argument: str(l.argument, 'extra_info.env.skill_loader.argument') };
  }
  const replay = arr(env.tool_replay ?? [], 'extra_info.env.tool_replay').map((r, i): ReplayEntry => {
    const o = obj(r, `extra_info.env.tool_replay[${i}]`);
    return {
      id: typeof o.id === 'string' ? o.id : `replay-${i}`,
      name: str(o.name, `extra_info.env.tool_replay[${i}].name`),
      arguments: o.arguments ?? {},
      result: str(o.result, `extra_info.env.tool_replay[${i}].result`),
    };
  });
  const turns = arr(gt.turns ?? [], 'reward_model.ground_truth.turns').map((t, i) => {
    const o = obj(t, `reward_model.ground_truth.turns[${i}]`);
    return {
      user: typeof o.user === 'string' ? o.user : '',
      calls: calls(o.calls ?? [], `reward_model.ground_truth.turns[${i}].calls`),
      skills: strings(o.skills ?? [], `reward_model.ground_truth.turns[${i}].skills`),
      reply: typeof o.reply === 'string' ? o.reply : '',
    };
  });
  const index = extra.index === undefined ? position : extra.index;
  if (typeof index !== 'number' || !Number.isInteger(index)) throw new BadRowError('extra_info.index', 'expected an integer');
  return {
    index,
    id: typeof extra.id === 'string' ? extra.id : String(index),
    dataSource: typeof row.data_source === 'string' ? row.data_source : '',
    prompt,
    tools,
    hooks,
    hookPrefix: typeof env.hook_message_prefix === 'string' ? env.hook_message_prefix : 'hook:',
    skillLoader,
    userTurns: strings(env.user_turns, 'extra_info.env.user_turns'),
    ...(typeof env.intent === 'string' ? { intent: env.intent } : {}),
    replay,
    truth: {
      expectedCalls: calls(gt.expected_calls ?? [], 'reward_model.ground_truth.expected_calls'),
      expectedSkills: strings(gt.expected_skills ?? [], 'reward_model.ground_truth.expected_skills'),
      referenceReply: typeof gt.reference_reply === 'string' ? gt.reference_reply : '',
      turns,
    },
    renamedTools: renamedTools(extra.transforms),
    hookTools: tools.map((t) => ({
      name: t.function.name,
      description: t.function.description,
      parameters: t.function.parameters,
      sourceName: t.function.name,
      sourceFormat: 'openai',
    })),
  };
}

/** The `tools.rename` table of the row's provenance, if it has one (empty otherwise). */
function renamedTools(transforms: unknown): Record<string, string> {
  let list: unknown = transforms;
  if (typeof list === 'string') {
    try {
      list = JSON.parse(list);
    } catch {
      return {};
    }
  }
  const out: Record<string, string> = {};
  if (!Array.isArray(list)) return out;
  for (const t of list) {
    if (!isObj(t) || t.id !== 'tools.rename' || !isObj(t.params) || !isObj(t.params.renamed)) continue;
    for (const [from, to] of Object.entries(t.params.renamed)) if (typeof to === 'string') out[from] = to;
  }
  return out;
}
