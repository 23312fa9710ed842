import { renderTools } from '../harness/render.js';
import type { Harness } from '../harness/types.js';
import { PREAMBLE_NAME } from '../trajectory/rewrite.js';
import { textOf, type Message, type Trajectory } from '../trajectory/types.js';
import type { AppliedTransform } from '../transform/variant.js';
import type { RunConfig } from '../config/augment-config.js';
import { createRng } from '../transform/rng.js';
import { callArgs, NOT_JSON } from '../util/call-args.js';
import { getPath } from '../util/path.js';
import { sharedText } from '../util/json-out.js';
import { copyWith } from '../util/copy.js';

/** Where an output record came from; carried by every record of every stage. */
export interface Provenance {
  source_id: string;
  source_file: string;
  source_line: number;
  /** Variant index, or "src" for the kept source. */
  variant: number | 'src';
  transforms: AppliedTransform[];
  /** `state_slot`: the shared state's pool slot (with --state-pool). */
  harness: { name: string; version: string; state_hash: string; state_slot?: number };
  seed: string;
  /** How the final trajectory was made, with a teacher: replay or openai. */
  teacher?: string;
  /** Set when a rejected teacher run kept the rewritten reference (--fallback rewrite). */
  fallback?: 'rewrite';
  teacher_reason?: string;
  teacher_reason_kind?: string;
  /** Set when the teacher's episode needed recovery: attempts made and per-call retries by kind. */
  teacher_recovery?: { attempts: number; call_retries: Record<string, number> };
}

/** One trajectory under one harness state, ready for the stage writers. */
export interface StageInput {
  id: string;
  record: Trajectory;
  state: Harness;
  provenance: Provenance;
  /** A global, deterministic ordinal of this output (for RL's `extra_info.index`). */
  ordinal: number;
}

export interface GeneralPrompt {
  id: string;
  messages: Message[];
  meta?: Record<string, unknown>;
}

/**
 * Messages as trainers read them: assistant `content` never null (chat templates do string
 * operations on it), text-part arrays joined into a string, tool-call arguments as JSON objects
 * (the Hugging Face chat-template convention) or kept as strings with `--arguments string`.
 */
export function trainerMessages(messages: readonly Message[], args: RunConfig['arguments']): Record<string, unknown>[] {
  return messages.map((m) => {
    // A message already in trainer shape is passed on as the same object (never modified), so
    // its JSON can be reused by every record that shows it (see messagesWriter).
    if (typeof m.content === 'string' && !(m.role === 'assistant' && m.tool_calls)) return m;
    const out: Record<string, unknown> = { ...m };
    if ('content' in m) out.content = textOf(m.content);
    if (m.role === 'assistant' && m.tool_calls) {
      out.tool_calls = m.tool_calls.map((c) => ({
        ...c,
        function: { ...c.function, arguments: args === 'object' ? argsValue(c.function) : c.function.arguments },
      }));
    }
    return out;
  });
}

/**
 * trainerMessages of a record's messages, kept for the last record asked about: its SFT record and
 * each of its OPD prompts (prefixes of it) then show the same converted message objects, so a
 * writer encodes each message once for every line that shows it (see messagesWriter).
 */
function trainerView(messages: readonly Message[], args: RunConfig['arguments']): Record<string, unknown>[] {
  if (messages !== lastView.messages || args !== lastView.args) lastView = { messages, args, out: trainerMessages(messages, args) };
  return lastView.out;
}

let lastView: { messages: readonly Message[] | null; args: RunConfig['arguments'] | null; out: Record<string, unknown>[] } = {
  messages: null,
  args: null,
  out: [],
};

/** Parsed arguments, or the text as it is when it is not JSON. */
function argsValue(fn: { arguments: string }): unknown {
  const v = callArgs(fn);
  return v === NOT_JSON ? fn.arguments : v;
}

function toolsField(state: Harness, cfg: RunConfig): unknown {
  const tools = renderTools(state);
  return cfg.toolsFormat === 'json-string' ? JSON.stringify(tools) : tools;
}

/** SFT: `{id, messages, tools, meta}` — the conversational shape TRL, ms-swift and LLaMA-Factory read. */
export function sftRecord(x: StageInput, cfg: RunConfig): Record<string, unknown> {
  return {
    id: x.id,
    messages: trainerView(x.record.messages, cfg.arguments),
    tools: toolsField(x.state, cfg),
    meta: x.record.meta ? copyWith(x.provenance, { source_meta: x.record.meta }) : { ...x.provenance },
  };
}

/**
 * OPD: prompt-only records ending right before an assistant turn the student must produce (at most
 * `opd.prompts` of the record's assistant turns, chosen by opdTurns), each followed by general
 * prompts at the configured ratio.
 */
export function opdRecords(x: StageInput, cfg: RunConfig, general: readonly GeneralPrompt[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const chosen = opdTurns(x, cfg);
  const perDomain = cfg.opd.generalRatio / (1 - cfg.opd.generalRatio);
  const tools = toolsField(x.state, cfg);
  const messages = trainerView(x.record.messages, cfg.arguments);
  for (const j of chosen) {
    const id = `${x.id}#${j}`;
    out.push({
      id,
      messages: messages.slice(0, j),
      tools,
      meta: copyWith(x.provenance, x.record.meta ? { turn: j, source_meta: x.record.meta } : { turn: j }),
    });
    if (general.length === 0 || perDomain <= 0) continue;
    const rng = createRng(cfg.seed, 'opd-general', id);
    const n = Math.floor(perDomain) + (rng.chance(perDomain - Math.floor(perDomain)) ? 1 : 0);
    for (let g = 0; g < n; g++) {
      const prompt = general[rng.int(general.length)]!;
      out.push({
        id: `${prompt.id}@${id}.${g}`,
        messages: trainerMessages(prompt.messages, cfg.arguments),
        tools: cfg.toolsFormat === 'json-string' ? '[]' : [],
        meta: { source: 'general', general_id: prompt.id, mixed_with: id, seed: cfg.seed, ...(prompt.meta ? { source_meta: prompt.meta } : {}) },
      });
    }
  }
  return out;
}

/**
 * The assistant turns an OPD prompt of this output is cut before, in order. The candidates are every
 * assistant turn (a run of consecutive assistant messages, cut before its first) after the first message (or only the first with `opd.turns: first`); with
 * `opd.prompts: N` an output keeps N of them. On-policy distillation trains on what the student
 * generates from each prompt, so a prompt is a context, and the prefixes of one conversation are
 * near copies of one context (same system prompt and tool list, one more turn each). The variants of
 * a record are where the contexts differ (another harness state each), so the N cut points of
 * variant v are the next N of one seeded order of the record's turns (run seed, source id, a fixed
 * tag): the record's variants together still cover every turn when variants × N ≥ its turns.
 */
function opdTurns(x: StageInput, cfg: RunConfig): number[] {
  const turns: number[] = [];
  const msgs = x.record.messages;
  // A turn is a run of assistant messages (a reply, then its calls, as some logs split one turn):
  // a prompt is cut before the run's first message, never between two of them.
  msgs.forEach((m, i) => {
    if (m.role === 'assistant' && i > 0 && msgs[i - 1]!.role !== 'assistant') turns.push(i);
  });
  const candidates = cfg.opd.turns === 'first' ? turns.slice(0, 1) : turns;
  const n = cfg.opd.prompts;
  if (n === 'all' || candidates.length <= n) return candidates;
  const order = createRng(cfg.seed, 'opd-prompts', x.provenance.source_id).shuffle(candidates);
  // A kept source comes after the variants in that order.
  const v = x.provenance.variant === 'src' ? cfg.variants : x.provenance.variant;
  const start = (v * n) % order.length;
  const chosen = Array.from({ length: n }, (_, k) => order[(start + k) % order.length]!);
  return chosen.sort((a, b) => a - b);
}

/** The message objects of `sftRecord(x)` that `opdRecords(x)` shows again (in at least one prompt). */
export function opdShownMessages(x: StageInput, cfg: RunConfig): ReadonlySet<object> {
  const chosen = opdTurns(x, cfg);
  return new Set(chosen.length === 0 ? [] : trainerView(x.record.messages, cfg.arguments).slice(0, chosen[chosen.length - 1]));
}

interface Turn {
  user: string;
  calls: { name: string; arguments: unknown }[];
  skills: string[];
  reply: string;
}

/**
 * RL: a row in the verl shape that TRL's GRPO also reads. `prompt` holds the messages up to the
 * first assistant turn; `reward_model.ground_truth` (a JSON string) the reference in the new
 * names; `extra_info.env` (a JSON string) everything a simulator needs to run the episode.
 */
export function rlRecord(x: StageInput, cfg: RunConfig): Record<string, unknown> {
  const messages = x.record.messages;
  const firstAssistant = messages.findIndex((m) => m.role === 'assistant');
  const prompt = trainerMessages(firstAssistant === -1 ? messages : messages.slice(0, firstAssistant), 'object');
  const prefix = x.state.hookMessages.namePrefix;
  const loader = x.state.skillLoader;
  const turns: Turn[] = [];
  const replay: { id: string; name: string; arguments: unknown; result: string }[] = [];
  const callById = new Map<string, { name: string; arguments: unknown }>();
  let turn: Turn | undefined;
  for (const m of messages) {
    if (m.role === 'user' && m.name !== PREAMBLE_NAME && !m.name?.startsWith(prefix)) {
      turn = { user: textOf(m.content), calls: [], skills: [], reply: '' };
      turns.push(turn);
    } else if (m.role === 'assistant' && turn) {
      for (const c of m.tool_calls ?? []) {
        const args = argsValue(c.function);
        callById.set(c.id, { name: c.function.name, arguments: args });
        if (loader && c.function.name === loader.tool) {
          const skill = getPath(args, loader.argument);
          if (typeof skill === 'string') turn.skills.push(skill);
        }
        turn.calls.push({ name: c.function.name, arguments: args });
      }
      if (!m.tool_calls?.length) turn.reply = textOf(m.content);
    } else if (m.role === 'tool') {
      const call = callById.get(m.tool_call_id);
      if (call) replay.push({ id: m.tool_call_id, ...call, result: textOf(m.content) });
    }
  }
  const groundTruth = {
    expected_calls: turns.flatMap((t) => t.calls),
    expected_skills: turns.flatMap((t) => t.skills),
    reference_reply: turns.length ? turns[turns.length - 1]!.reply : '',
    turns,
  };
  // `JSON.stringify` of the env object, member by member: the tool list's JSON is the one the SFT and
  // OPD lines of this state wrote (see sharedText), not serialised again.
  const env = objectJson([
    ['user_turns', JSON.stringify(turns.map((t) => t.user))],
    ['tool_replay', JSON.stringify(replay)],
    ['tools', sharedText(renderTools(x.state))],
    ['hooks', JSON.stringify(x.state.hooks)],
    ['hook_message_prefix', JSON.stringify(prefix)],
    ['skill_loader', JSON.stringify(loader)],
    // The record's intent whenever it has one: a hook's `require_tool … intents` reads it, and so
    // does `hsa eval`'s per-intent gap (which is "(no intent)" for a row without it).
    ...(typeof x.record.meta?.intent === 'string' ? [['intent', JSON.stringify(x.record.meta.intent)] as const] : []),
  ]);
  return {
    data_source: cfg.rl.dataSource || `hsa/${x.state.name}`,
    prompt,
    ability: cfg.rl.ability,
    reward_model: { style: 'rule', ground_truth: JSON.stringify(groundTruth) },
    extra_info: {
      index: x.ordinal,
      id: x.id,
      source_id: x.provenance.source_id,
      source_file: x.provenance.source_file,
      source_line: x.provenance.source_line,
      variant: x.provenance.variant,
      seed: x.provenance.seed,
      transforms: sharedText(x.provenance.transforms),
      harness_state: x.provenance.harness.state_hash,
      env,
    },
  };
}

/** The JSON of an object from its members' JSON, in order; a member whose JSON is undefined is left out, as JSON.stringify does. */
function objectJson(members: readonly (readonly [string, string | undefined])[]): string {
  let out = '';
  for (const [key, json] of members) if (json !== undefined) out += `${out === '' ? '{' : ','}${JSON.stringify(key)}:${json}`;
  return out === '' ? '{}' : `${out}}`;
}
