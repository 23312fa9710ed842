import type { Harness } from '../harness/types.js';
import { canonicalJson } from '../util/canonical-json.js';
import { callKey } from './call-key.js';
import type { PolicyCall } from './message.js';
import { fixedRoundLimit, type EpisodeOptions } from './options.js';
import type { CallFailureKind } from './reject-kinds.js';
import type { EpisodeRow } from './row.js';

/** A conversation message as the episode keeps it (Chat Completions shape). */
export type Msg = Record<string, unknown>;

/** One invalid call of a teacher answer: what the model is told, and what the reject record says. */
export interface CallProblem {
  kind: CallFailureKind;
  /** The tool error the model gets (`error: …`). */
  error: string;
  detail: string;
  /** The arguments are not JSON (they are not sent back as they were). */
  notJson?: boolean;
}

/**
 * What an episode is played against: the prompt, the user turns, the tools and hooks, and the
 * recorded calls that answer the model's. An RL row makes one (`rowWorld`); teacher mode makes one
 * from a source trajectory and a variant's state (source-world.ts).
 */
export interface EpisodeWorld {
  /** The state whose tools and hooks the episode checks. */
  harness: Harness;
  hookPrefix: string;
  intent: string | undefined;
  /** The conversation up to and including the first user turn. */
  prompt: Msg[];
  /** The text of each user turn. */
  userTurns: readonly string[];
  /** The message that opens user turn `t` (t ≥ 1). */
  userMessage(t: number): Msg;
  /** Model calls allowed in user turn `t`. */
  roundLimit(t: number): number;
  /** The tools the model may call, by name. */
  toolNames: ReadonlySet<string>;
  /** What is wrong with one call before anything runs (`invalidCall: 'retry'` only); undefined: nothing. */
  callProblem(c: PolicyCall): CallProblem | undefined;
  /** The recorded result of a valid call; undefined when none is left; `repeat`: answered before. */
  answer(c: PolicyCall): { content: string; repeat: boolean } | undefined;
}

/** The row's tools and hooks in the shape the hook checks take (nothing else of a harness is needed). */
function harnessOfRow(row: EpisodeRow): Harness {
  return {
    name: row.dataSource,
    version: '',
    sections: [],
    pinned: [],
    unordered: [],
    separator: '\n\n',
    catalog: { id: 'skills', title: '' },
    variables: {},
    skillNaming: 'identifier',
    skillLoader: row.skillLoader,
    skills: [],
    tools: row.hookTools,
    hooks: row.hooks,
    hookMessages: { namePrefix: row.hookPrefix },
    promptStyle: null,
  };
}

/** What every episode of a row derives from it alone, built once per (read-only, shared) row. */
export interface RowRuntime {
  harness: Harness;
  toolNames: Set<string>;
  /** Recorded results by call key (name and canonical arguments), in recorded order. */
  replay: Map<string, string[]>;
  /** The expected calls' keys, in order. */
  expectedKeys: string[];
}

const runtimes = new WeakMap<EpisodeRow, RowRuntime>();

/** The row's runtime (see RowRuntime); sessions of one row share it, as they share the row. */
export function rowRuntime(row: EpisodeRow): RowRuntime {
  let rt = runtimes.get(row);
  if (rt) return rt;
  const replay = new Map<string, string[]>();
  for (const r of row.replay) {
    const key = callKey(r.name, canonicalJson(r.arguments));
    const list = replay.get(key);
    if (list) list.push(r.result);
    else replay.set(key, [r.result]);
  }
  rt = {
    harness: harnessOfRow(row),
    toolNames: new Set(row.tools.map((t) => t.function.name)),
    replay,
    expectedKeys: row.truth.expectedCalls.map((e) => callKey(e.name, canonicalJson(e.arguments))),
  };
  runtimes.set(row, rt);
  return rt;
}

/**
 * An RL row's world: the row's prompt and user turns, and its replay table (`extra_info.env.
 * tool_replay`, new names), matched by name and canonical arguments; recorded results are used in
 * recorded order, and a call already answered gets the first one again (a repeat).
 */
export function rowWorld(row: EpisodeRow, options: EpisodeOptions): EpisodeWorld & { row: EpisodeRow } {
  const runtime = rowRuntime(row);
  const used = new Map<string, number>();
  const limit = fixedRoundLimit(options);
  return {
    row,
    harness: runtime.harness,
    hookPrefix: row.hookPrefix,
    intent: row.intent,
    prompt: row.prompt.map((m) => ({ ...m })),
    userTurns: row.userTurns,
    userMessage: (t) => ({ role: 'user', content: row.userTurns[t] }),
    roundLimit: () => limit,
    toolNames: runtime.toolNames,
    callProblem: () => undefined,
    answer(c) {
      const key = callKey(c.name, canonicalJson(c.args));
      const hits = runtime.replay.get(key);
      if (!hits) return undefined;
      const n = used.get(key) ?? 0;
      const fresh = n < hits.length;
      if (fresh) used.set(key, n + 1);
      return { content: fresh ? hits[n]! : hits[0]!, repeat: !fresh };
    },
  };
}
