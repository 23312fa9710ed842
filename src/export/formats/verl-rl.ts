import { readFile } from 'node:fs/promises';
import { UsageError } from '../../errors.js';
import type { TokenCounter } from '../../tokenize/tokenizer.js';
import { canonicalJson } from '../../util/canonical-json.js';
import { isSkip, messagesColumn, parquetMessages, stringColumn } from '../messages.js';
import { pythonJson } from '../../util/python-json.js';
import type { JsonlSink, ParquetSink, SchemaElement } from '../sinks.js';
import { defineFormat, type ExportContext, type Skip } from '../types.js';

interface Tool {
  type?: string;
  function?: { name?: unknown; description?: unknown; parameters?: Record<string, unknown> };
}

interface Call {
  name: string;
  arguments: unknown;
}

interface Env {
  tools?: unknown;
  tool_replay?: { name?: unknown; arguments?: unknown; result?: unknown }[];
  user_turns?: unknown[];
}

interface Truth {
  turns?: { user?: unknown; calls?: Call[]; reply?: unknown }[];
}

/** The members of `extra_info` hsa writes (see src/output/stages.ts) and their parquet types. */
const EXTRA_INFO: [string, 'int' | 'string'][] = [
  ['index', 'int'],
  ['id', 'string'],
  ['source_id', 'string'],
  ['source_file', 'string'],
  ['source_line', 'int'],
  ['variant', 'string'],
  ['seed', 'string'],
  ['transforms', 'string'],
  ['harness_state', 'string'],
  ['env', 'string'],
];
const EXTRA_KEYS = new Set(EXTRA_INFO.map(([k]) => k));
const ROW_KEYS = new Set(['data_source', 'prompt', 'ability', 'reward_model', 'extra_info']);

/** The agent loop rows name (`agent_name`), registered by the agent-loop config the export writes. */
export const AGENT_NAME = 'hsa_agent';
/** The interaction name in `interaction_kwargs` (the row's episode, for loops that run an interaction). */
const INTERACTION = 'hsa';

const SCHEMA: SchemaElement[] = [
  { name: 'root', num_children: 6 },
  stringColumn('data_source'),
  ...messagesColumn('prompt'),
  stringColumn('ability'),
  // verl picks the agent loop per row by this column (verl/experimental/agent_loop/agent_loop.py).
  stringColumn('agent_name'),
  { name: 'reward_model', repetition_type: 'OPTIONAL', num_children: 2 },
  stringColumn('style'),
  stringColumn('ground_truth'),
  { name: 'extra_info', repetition_type: 'OPTIONAL', num_children: EXTRA_INFO.length + 2 },
  ...EXTRA_INFO.map(([k, t]): SchemaElement => (t === 'int' ? { name: k, type: 'INT64', repetition_type: 'OPTIONAL' } : stringColumn(k))),
  { name: 'tool_selection', repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
  { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
  stringColumn('element'),
  // verl's RLHFDataset hands `extra_info.interaction_kwargs` to the agent loop (rl_dataset.py).
  { name: 'interaction_kwargs', repetition_type: 'OPTIONAL', num_children: 3 },
  stringColumn('name'),
  { name: 'index', type: 'INT64', repetition_type: 'OPTIONAL' },
  stringColumn('id'),
];

const PACKAGE = 'hsa_verl';
const SHIPPED = ['hsa_env.py', 'agent_loop.py'];
const INTEGRATION = new URL('../../../../integrations/verl/', import.meta.url);

/** What the rows need of verl, measured while they are written. */
class Measure {
  prompt = 0;
  promptAt = '';
  response = 0;
  responseAt = '';
  parallel = 1;
  parallelAt = '';
  result = 0;
  resultAt = '';
  rows = 0;

  add(id: string, prompt: number, response: number, parallel: number, result: number): void {
    this.rows++;
    if (prompt > this.prompt) [this.prompt, this.promptAt] = [prompt, id];
    if (response > this.response) [this.response, this.responseAt] = [response, id];
    if (parallel > this.parallel) [this.parallel, this.parallelAt] = [parallel, id];
    if (result > this.result) [this.result, this.resultAt] = [result, id];
  }
}

/**
 * verl agentic RL: every row in one `train.parquet` (+ `train.json`, the same rows as JSON lines),
 * run by hsa's agent loop (`agent_name: hsa_agent`, integrations/verl/agent_loop.py, copied as
 * `hsa_verl/`), which shows each row its own tools and plays every step against `hsa env serve`;
 * `agent_loop.yaml` registers it and `verl_overrides.txt` holds the verl settings measured from
 * the rows in the student's tokens.
 */
export default defineFormat({
  id: 'verl-rl',
  description:
    "verl RL: one train.parquet (+ train.json) for the whole export, hsa's agent loop (each row's own tools, hsa env serve) and the verl settings measured from the rows",
  stages: ['rl'],
  needsTokenizer: true,
  open(ctx: ExportContext) {
    const counter = ctx.counter;
    if (!counter) throw new UsageError("verl-rl: measures prompts and responses in the student's tokens; give --tokenizer (qwen3 is the default)");
    let parquet: ParquetSink | null = null;
    let json: JsonlSink | null = null;
    const measure = new Measure();
    return {
      add(record) {
        const extraKeys = Object.keys(record).filter((k) => !ROW_KEYS.has(k));
        if (extraKeys.length) return { kind: 'row field not representable', detail: `field ${extraKeys.map((k) => `"${k}"`).join(', ')} has no column` };
        const extra = (record.extra_info ?? {}) as Record<string, unknown>;
        const unknown = Object.keys(extra).filter((k) => !EXTRA_KEYS.has(k));
        if (unknown.length) return { kind: 'extra_info field not representable', detail: `extra_info.${unknown[0]}: no column` };
        let env: Env;
        try {
          env = JSON.parse(String(extra.env)) as Env;
        } catch {
          return { kind: 'no environment', detail: 'extra_info.env: not JSON text' };
        }
        const tools = Array.isArray(env.tools) ? (env.tools as Tool[]) : [];
        const names = toolNames(tools);
        if (isSkip(names)) return names;
        const prompt = parquetMessages(record.prompt);
        if (isSkip(prompt)) return prompt;
        const reward = (record.reward_model ?? {}) as Record<string, unknown>;
        const measured = measureRow(counter, record.prompt as unknown[], tools, env, reward.ground_truth);
        if (isSkip(measured)) return measured;
        measure.add(String(extra.id ?? record.id ?? ''), measured.prompt, measured.response, measured.parallel, measured.result);
        const index = extra.index === undefined ? null : BigInt(extra.index as number);
        const row = {
          data_source: record.data_source ?? null,
          prompt,
          ability: record.ability ?? null,
          agent_name: AGENT_NAME,
          reward_model: {
            style: reward.style ?? null,
            ground_truth:
              typeof reward.ground_truth === 'string' ? reward.ground_truth : reward.ground_truth === undefined ? null : JSON.stringify(reward.ground_truth),
          },
          extra_info: {
            ...Object.fromEntries(EXTRA_INFO.map(([k, t]) => [k, extra[k] === undefined ? null : t === 'int' ? BigInt(extra[k] as number) : String(extra[k])])),
            tool_selection: names,
            interaction_kwargs: { name: INTERACTION, index, id: extra.id === undefined ? null : String(extra.id) },
          },
        };
        (parquet ??= ctx.parquet('train.parquet', SCHEMA)).write(row);
        const plain = {
          ...row.extra_info,
          index: extra.index ?? null,
          source_line: extra.source_line ?? null,
          interaction_kwargs: { ...row.extra_info.interaction_kwargs, index: extra.index ?? null },
        };
        (json ??= ctx.jsonl('train.json')).write({ ...row, extra_info: plain });
        return undefined;
      },
      async endPart() {},
      async finish() {
        if (parquet) ctx.done(await parquet.close());
        if (json) ctx.done(await json.close());
        for (const f of SHIPPED) await ctx.whole(`${PACKAGE}/${f}`, await readFile(new URL(f, INTEGRATION), 'utf8'));
        await ctx.whole(
          `${PACKAGE}/__init__.py`,
          '"""hsa\'s verl agent loop and environment bridge, copied by `hsa export --to verl-rl` from integrations/verl."""\n',
        );
        // JSON, which YAML (OmegaConf) reads as it is.
        await ctx.whole('agent_loop.yaml', `${JSON.stringify([{ name: AGENT_NAME, _target_: `${PACKAGE}.agent_loop.HsaAgentLoop` }], null, 2)}\n`);
        const settings = verlSettings(measure);
        await ctx.whole('verl_overrides.txt', `${settings.map(([k, v]) => `${k}=${v}`).join('\n')}\n`);
        return {
          verl: {
            agent_name: AGENT_NAME,
            agent_loop_config: 'agent_loop.yaml',
            overrides: 'verl_overrides.txt',
            settings: Object.fromEntries(settings),
            measured: {
              rows: measure.rows,
              tokenizer: counter.info.name,
              prompt_tokens_max: measure.prompt,
              prompt_tokens_max_row: measure.promptAt,
              reference_response_tokens_max: measure.response,
              reference_response_tokens_max_row: measure.responseAt,
              parallel_calls_max: measure.parallel,
              parallel_calls_max_row: measure.parallelAt,
              tool_result_chars_max: measure.result,
              tool_result_chars_max_row: measure.resultAt,
            },
          },
        };
      },
    };
  },
});

/**
 * The verl settings these rows need (Hydra overrides for `verl.trainer.main_ppo`). verl's defaults
 * (verl/trainer/config/_generated_ppo_trainer.yaml) — 512-token prompts and responses, one call
 * per round, 256-character tool results — would cut hsa rows; these are the measured maxima
 * (the response one past it: verl stops a rollout whose response reaches the limit).
 */
function verlSettings(m: Measure): [string, string | number | boolean][] {
  return [
    ['data.max_prompt_length', Math.max(1, m.prompt)],
    ['data.max_response_length', m.response + 1],
    ['data.filter_overlong_prompts', true],
    ['data.truncation', 'error'],
    ['data.return_raw_chat', true],
    ['actor_rollout_ref.rollout.mode', 'async'],
    ['actor_rollout_ref.rollout.multi_turn.enable', true],
    ['actor_rollout_ref.rollout.multi_turn.format', 'hermes'],
    ['actor_rollout_ref.rollout.multi_turn.max_parallel_calls', m.parallel],
    ['actor_rollout_ref.rollout.multi_turn.max_tool_response_length', Math.max(1, m.result)],
    ['actor_rollout_ref.rollout.agent.agent_loop_config_path', 'agent_loop.yaml'],
  ];
}

/** The row's tool names (verl's tool parser and the environment key calls by name), or why not. */
function toolNames(tools: Tool[]): string[] | Skip {
  const names: string[] = [];
  const seen = new Set<string>();
  for (const t of tools) {
    const name = t?.function?.name;
    if (typeof name !== 'string') return { kind: 'tool without a name', detail: 'extra_info.env.tools: a tool without a function name' };
    if (seen.has(name)) return { kind: 'tool listed twice', detail: `extra_info.env.tools: "${name}" listed twice (calls are answered by name)` };
    seen.add(name);
    names.push(name);
  }
  return names;
}

/** Python's `len` of a string: code points (verl compares tool results with `len(text)`). */
function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

const THINK_EMPTY = '<think>\n\n</think>\n\n';

/**
 * A row's prompt in the student's tokens (the chat template with the row's tools and the
 * generation prompt) and its reference episode as hsa's agent loop runs it: each reference turn's
 * calls as one generated message (an empty think block, the calls in the hermes format the
 * template teaches, `<|im_end|>`; a reply recorded with its reasoning keeps it instead), the recorded results rendered as the loop appends them (with
 * the next generation prompt), the reply, the next user turn.
 */
function measureRow(
  counter: TokenCounter,
  prompt: unknown[],
  tools: Tool[],
  env: Env,
  groundTruth: unknown,
): { prompt: number; response: number; parallel: number; result: number } | Skip {
  let truth: Truth;
  try {
    truth = (typeof groundTruth === 'string' ? JSON.parse(groundTruth) : groundTruth) as Truth;
  } catch {
    return { kind: 'no reference', detail: 'reward_model.ground_truth: not JSON text' };
  }
  const turns = Array.isArray(truth?.turns) ? truth.turns : [];
  const replay = new Map<string, string[]>();
  let result = 0;
  for (const r of env.tool_replay ?? []) {
    const text = typeof r.result === 'string' ? r.result : JSON.stringify(r.result ?? null);
    result = Math.max(result, codePoints(text));
    const key = `${String(r.name)}\u0000${canonicalJson(r.arguments ?? {})}`;
    (replay.get(key) ?? replay.set(key, []).get(key)!).push(text);
  }
  const promptTokens = counter.count(prompt, tools.length ? tools : undefined, true);
  let response = 0;
  let parallel = 1;
  turns.forEach((turn, i) => {
    const calls = Array.isArray(turn.calls) ? turn.calls : [];
    if (calls.length) {
      parallel = Math.max(parallel, calls.length);
      response += counter.countText(
        `${THINK_EMPTY}${calls.map((c) => `<tool_call>\n${pythonJson({ name: c.name, arguments: c.arguments })}\n</tool_call>`).join('\n')}<|im_end|>`,
      );
      const results = calls.map((c) => {
        const key = `${c.name}\u0000${canonicalJson(c.arguments ?? {})}`;
        return { role: 'tool', content: replay.get(key)?.shift() ?? '' };
      });
      response += counter.count(results, undefined, true);
    }
    const reply = String(turn.reply ?? '');
    response += counter.countText(`${reply.includes('</think>') ? '' : THINK_EMPTY}${reply}<|im_end|>`);
    const next = turns[i + 1];
    if (next) response += counter.count([{ role: 'user', content: String(next.user ?? '') }], undefined, true);
  });
  return { prompt: promptTokens, response, parallel, result };
}
