import { parseFeedback } from '../harness/feedback.js';
import { NO_CONTEXT, promptLayout, renderedSections, setPromptLayout } from '../harness/render.js';
import type { Harness } from '../harness/types.js';
import { checkTrajectory, type SystemPromptMode } from '../trajectory/check.js';
import { checkLeaks, leakFinder } from '../trajectory/invariants.js';
import { jsonEqual } from '../util/json-equal.js';
import { PREAMBLE_NAME, rewriteTrajectory } from '../trajectory/rewrite.js';
import { applyArgOps } from '../transform/plan.js';
import { callArgs, NOT_JSON, withArgs } from '../util/call-args.js';
import { copyWith, put } from '../util/copy.js';
import { getPath, setPath } from '../util/path.js';
import { textOf, type ToolCall, type Trajectory } from '../trajectory/types.js';
import { mappingFor, type CompiledMapping, type CompiledPlan } from './compile.js';

/** Why a record was not carried: a closed set of kinds; the detail and the plan entry stay in the reject. */
export const MIGRATE_REJECT_KINDS = {
  input_malformed: 'the input line is not a valid trajectory record',
  input_harness_mismatch: 'the record does not validate against harness A',
  removed_tool: 'the record calls a tool B does not have',
  removed_skill: 'the record loads a skill B does not have',
  removed_hook: 'the record shows the feedback of a hook B does not have',
  no_value: 'a call needs a value the plan cannot supply (a new required parameter, a dropped parameter or value)',
  prompt_layout: "the record's own text between located prompt sections has no place in B's sections",
  check_invalid_call: 'a migrated call does not validate under B (or the record fails validation against B)',
  check_leak: 'a name of A alone survives in what the model reads',
  check_round_trip: 'mapping the migrated record back through the plan does not give the source',
  check_bytes: 'user or tool bytes changed',
} as const;

export type MigrateRejectKind = keyof typeof MIGRATE_REJECT_KINDS;

export interface MigrateReject {
  kind: MigrateRejectKind;
  reason: string;
  /** The plan entry that stopped the record (`tools[3] (from: get_fines)`), when one did. */
  entry?: string;
}

export type MigrateResult = { ok: true; record: Trajectory } | { ok: false; reject: MigrateReject };

export interface MigrateOptions {
  /** How the logged system message is read against A (default match). */
  systemPrompt?: SystemPromptMode;
  file: string;
  line: number;
}

/**
 * Carry one record recorded under A into B along a compiled plan, then prove it: the record
 * validates against A first; its calls are carried by the engine's rewrite (tool, skill and hook
 * renames, argument renames, wrap and unwrap) and the per-call edits a RewritePlan cannot hold
 * (splits, enum values, fills); the result must validate against B as `hsa validate` does, its
 * calls under B's schemas, leak nothing of A's renamed names, map back to the source, and keep
 * user and tool bytes as they were.
 */
export function migrateRecord(source: Trajectory, cp: CompiledPlan, a: Harness, b: Harness, opts: MigrateOptions): MigrateResult {
  const mode = opts.systemPrompt ?? 'match';
  const problems = checkTrajectory(source, a, { file: opts.file, line: opts.line, systemPrompt: mode });
  const bad = problems.find((p) => p.severity === 'error');
  if (bad) return reject('input_harness_mismatch', `under A: ${bad.path}: ${bad.message}`);
  const stop = blocking(source, cp, a);
  if (stop) return { ok: false, reject: stop };

  // A located prompt keeps the record's own text before and after A's sections; B's sections take
  // the place of A's, in B's order.
  let input = source;
  const layout = promptLayout(source.messages[0]);
  let located = false;
  if (layout?.kind === 'slots') {
    const sep = a.promptStyle?.separator ?? a.separator;
    const inner = layout.outer.slice(1, -1);
    if (inner.some((t) => t !== sep))
      return reject(
        'prompt_layout',
        'text of the record between located sections of A has no place in B (only text before the first and after the last section is kept)',
      );
    const ids = renderedSections(b, source.context ?? NO_CONTEXT).map((s) => s.id);
    const bSep = b.promptStyle?.separator ?? b.separator;
    const first = { ...source.messages[0]! };
    setPromptLayout(first, {
      kind: 'slots',
      ids,
      outer: [layout.outer[0] ?? '', ...ids.slice(1).map(() => bSep), layout.outer[layout.outer.length - 1] ?? ''],
    });
    input = { ...source, messages: [first, ...source.messages.slice(1)] };
    located = true;
    // The record's own text around the prompt is kept as written: it must not name what A renamed.
    const finder = leakFinder(cp.leakPlan, a, b).text;
    for (const own of [layout.outer[0] ?? '', layout.outer[layout.outer.length - 1] ?? '']) {
      const old = [...finder.mentions(own, 'record')][0];
      if (old !== undefined)
        return reject('check_leak', `messages.0: the record's own text around the prompt mentions old name "${old}"`, leakEntry(cp, `old name "${old}"`, a));
    }
  }

  const rewritten = rewriteTrajectory(input, cp.rewrite, a, b);
  const migrated = carryCalls(rewritten, source, cp);
  if (migrated.harness) migrated.harness = { name: b.name, version: b.version };

  // What B itself says (its prompt sections, tool and schema descriptions, skill bodies, feedback
  // templates) is the operator's text, not the migration's: a name of A there is B's own (the
  // engine reports those places by their state path, once per state).
  const leaks = checkLeaks(migrated, cp.leakPlan, a, b).filter((x) => !STATE_PLACE.test(x));
  if (leaks.length) return reject('check_leak', leaks[0]!, leakEntry(cp, leaks[0]!, a));
  const bytes = changedBytes(source, migrated, a);
  if (bytes) return reject('check_bytes', bytes);
  const trip = callsRoundTrip(source, migrated, cp, a, b);
  if (trip) return reject('check_round_trip', trip, callEntry(cp, migrated, trip));
  // What `hsa validate --harness B` says of the record — calls valid under B's schemas among it (on
  // a copy: the check may normalise it).
  const underB = checkTrajectory({ ...migrated, messages: [...migrated.messages] }, b, {
    file: opts.file,
    line: opts.line,
    systemPrompt: located ? 'locate' : 'match',
  });
  const badB = underB.find((p) => p.severity === 'error');
  if (badB) return reject('check_invalid_call', `under B: ${badB.path}: ${badB.message}`, callEntry(cp, migrated, badB.path));
  return { ok: true, record: migrated };
}

const STATE_PLACE = /^(prompt\.[^:]+|tools\.[^.:\s]+\.(description|parameters)|skills\.[^:]+\.body|hooks\.[^:]+\.feedback): mentions old name /;

function reject(kind: MigrateRejectKind, reason: string, entry?: string): MigrateResult {
  return { ok: false, reject: { kind, reason, ...(entry !== undefined ? { entry } : {}) } };
}

/** The plan entry of the call a check names (`messages.4.tool_calls.0…`): the entry that made it. */
function callEntry(cp: CompiledPlan, rec: Trajectory, where: string): string | undefined {
  const m = /^messages\.(\d+)\.tool_calls\.(\d+)/.exec(where);
  if (!m) return undefined;
  const msg = rec.messages[Number(m[1])];
  const call = msg?.role === 'assistant' ? msg.tool_calls?.[Number(m[2])] : undefined;
  if (!call) return undefined;
  const args = callArgs(call.function);
  const c = mappingFor(cp, call.function.name, args === NOT_JSON ? undefined : args);
  return c ? entryName(cp, 'tools', c.entry, c.from) : undefined;
}

/** The plan entry of the old name a leak names (a split tool's name, which text cannot be carried for). */
function leakEntry(cp: CompiledPlan, leak: string, a?: Harness): string | undefined {
  let name = /old (?:tool |skill |hook |parameter )?name "([^"]+)"/.exec(leak)?.[1] ?? /old parameter "([^"]+)"/.exec(leak)?.[1];
  if (name === undefined) return undefined;
  // A tool named in text as its MCP server spells it (`sensors.read`).
  if (a && !cp.byFrom.has(name)) name = a.tools.find((x) => x.sourceName === name)?.name ?? name;
  const t = cp.byFrom.get(name);
  if (t) return entryName(cp, 'tools', t.index, name);
  const s = cp.skills.get(name);
  if (s) return entryName(cp, 'skills', s.index, name);
  const h = cp.hooks.get(name);
  return h ? entryName(cp, 'hooks', h.index, name) : undefined;
}

function entryName(cp: CompiledPlan, kind: 'tools' | 'skills' | 'hooks', index: number, from: string): string | undefined {
  if (index < 0) return undefined;
  if (kind === 'tools' && index >= cp.plan.tools.length) return undefined;
  return `${kind}[${index}] (from: ${from})`;
}

/** The first call, skill load or hook message of the source that the plan cannot carry. */
function blocking(rec: Trajectory, cp: CompiledPlan, a: Harness): MigrateReject | null {
  const prefix = a.hookMessages.namePrefix;
  for (const m of rec.messages) {
    if ((m.role === 'user' || m.role === 'system') && m.name?.startsWith(prefix)) {
      const id = m.name.slice(prefix.length);
      const h = cp.hooks.get(id);
      if (h && h.to === null)
        return { kind: 'removed_hook', reason: `hook feedback of "${id}", a hook B does not have`, ...opt(entryName(cp, 'hooks', h.index, id)) };
    }
    if (m.role !== 'assistant' || !m.tool_calls) continue;
    for (const call of m.tool_calls) {
      const name = call.function.name;
      const found = cp.byFrom.get(name);
      const where = found ? entryName(cp, 'tools', found.index, name) : undefined;
      if (!found || (!found.entry.map && !found.entry.split)) return { kind: 'removed_tool', reason: `calls "${name}", a tool B does not have`, ...opt(where) };
      const args = callArgs(call.function);
      if (args === NOT_JSON || args === null || typeof args !== 'object') continue;
      if (a.skillLoader && name === a.skillLoader.tool) {
        const skill = getPath(args, a.skillLoader.argument);
        const s = typeof skill === 'string' ? cp.skills.get(skill) : undefined;
        if (s && s.to === null)
          return {
            kind: 'removed_skill',
            reason: `loads skill "${String(skill)}", which B does not have`,
            ...opt(entryName(cp, 'skills', s.index, String(skill))),
          };
      }
      let mapping: CompiledMapping;
      let inner = args as Record<string, unknown>;
      // A split's case key is read here and left out of the walk below (its value chose the tool).
      let skip: string | undefined;
      if (found.entry.split) {
        const split = cp.splits.get(name)!;
        const v = inner[split.by];
        const c = typeof v === 'string' ? split.cases.get(v) : undefined;
        if (!c)
          return { kind: 'no_value', reason: `calls "${name}" with ${split.by} = ${JSON.stringify(v)}, a case the split has no tool of B for`, ...opt(where) };
        mapping = c;
        skip = split.by;
      } else mapping = found.mapping!;
      const m2 = mapping.mapping;
      if (m2.needs.length)
        return {
          kind: 'no_value',
          reason: `"${mapping.to}" of B requires ${m2.needs.map((n) => `"${n}"`).join(', ')}, which "${name}" calls have no value for and the plan does not fill`,
          ...opt(where),
        };
      if (m2.shape && 'unwrap' in m2.shape) {
        const w = skip === m2.shape.unwrap ? undefined : inner[m2.shape.unwrap];
        if (w === null || typeof w !== 'object' || Array.isArray(w)) continue;
        inner = w as Record<string, unknown>;
        skip = undefined;
      }
      const stop = firstLeafStop(inner, '', m2, name, mapping.to, where, skip);
      if (stop) return stop;
    }
  }
  return null;
}

function opt(entry: string | undefined): { entry?: string } {
  return entry === undefined ? {} : { entry };
}

/**
 * The first key path of an arguments object (objects descended, arrays not; in key order, a parent
 * before its members) that the mapping has no counterpart for, or whose enum value it drops.
 */
function firstLeafStop(
  obj: Record<string, unknown>,
  prefix: string,
  m2: CompiledMapping['mapping'],
  name: string,
  to: string,
  where: string | undefined,
  skip?: string,
): MigrateReject | null {
  for (const k in obj) {
    if (k === skip || !Object.prototype.hasOwnProperty.call(obj, k)) continue;
    const value = obj[k];
    const path = prefix + k;
    if (m2.params[path] === null)
      return { kind: 'no_value', reason: `calls "${name}" with parameter "${path}", which has no counterpart in "${to}"`, ...opt(where) };
    const vm = m2.values[path];
    if (vm && typeof value === 'string' && vm[value] === null)
      return { kind: 'no_value', reason: `calls "${name}" with ${path} = "${value}", a value "${to}" has no counterpart for`, ...opt(where) };
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const stop = firstLeafStop(value as Record<string, unknown>, `${path}.`, m2, name, to, where);
      if (stop) return stop;
    }
  }
  return null;
}

/** After the engine: split calls go to their case's tool; enum values and fills at B's paths. */
function carryCalls(rec: Trajectory, source: Trajectory, cp: CompiledPlan): Trajectory {
  if (cp.edited.size === 0) return rec;
  // The A tool each call was made with (the engine has renamed it; merged tools share a B name).
  const origin = new Map<string, string>();
  for (const m of source.messages)
    if (m.role === 'assistant') for (const c of m.tool_calls ?? []) if (cp.edited.has(c.function.name)) origin.set(c.id, c.function.name);
  if (origin.size === 0) return rec;
  const renamedResults = new Map<string, string>();
  let changed = false;
  const messages = rec.messages.map((m) => {
    if (m.role === 'tool' && m.name !== undefined && renamedResults.has(m.tool_call_id)) return { ...m, name: renamedResults.get(m.tool_call_id)! };
    if (m.role !== 'assistant' || !m.tool_calls) return m;
    let any = false;
    const calls = m.tool_calls.map((call): ToolCall => {
      const from = origin.get(call.id);
      if (from === undefined) return call;
      const split = cp.splits.get(from);
      let target: CompiledMapping | undefined;
      let args = callArgs(call.function);
      if (args === NOT_JSON || args === null || typeof args !== 'object') return call;
      if (split) {
        const inner = args as Record<string, unknown>;
        target = split.cases.get(String(inner[split.by])) ?? undefined;
        if (!target) return call;
        args = applyArgOps(without(inner, split.by), target.ops);
        renamedResults.set(call.id, target.to);
      } else {
        target = cp.byFrom.get(from)?.mapping;
        if (!target) return call;
      }
      args = editValues(args, target, 'forward');
      any = true;
      // The parsed arguments stay with the call: the checks after this read them without a parse.
      return { ...call, function: withArgs(copyWith(call.function, { name: target.to, arguments: JSON.stringify(args) }), args) };
    });
    if (!any) return m;
    changed = true;
    return { ...m, tool_calls: calls };
  });
  return changed || renamedResults.size ? { ...rec, messages } : rec;
}

/**
 * The round trip, per record: every migrated call mapped back through the plan (values and fills
 * undone, the inverse argument edits, a split call given its case's value again, a skill load its
 * A skill) is the source's call, canonically; hook feedback and named tool results carry A's names
 * back. (User and tool bytes are compared as they stand by changedBytes; the prompt, skill bodies
 * and feedback wording are B's by construction and proved by the validation under B.)
 */
function callsRoundTrip(source: Trajectory, migrated: Trajectory, cp: CompiledPlan, a: Harness, b: Harness): string | null {
  const src = withoutPreamble(source.messages);
  const out = withoutPreamble(migrated.messages);
  const hookBack = cp.hooksBack;
  const skillBack = cp.skillsBack;
  const bPrefix = b.hookMessages.namePrefix;
  for (let i = 0; i < src.length; i++) {
    const s = src[i]!;
    const o = out[i]!;
    if ((o.role === 'user' || o.role === 'system') && o.name?.startsWith(bPrefix)) {
      const id = o.name.slice(bPrefix.length);
      if (s.name !== `${a.hookMessages.namePrefix}${hookBack.get(id) ?? id}`)
        return `messages.${i}: hook feedback "${o.name}" does not map back to "${s.name ?? ''}"`;
      continue;
    }
    if (s.role === 'tool' && o.role === 'tool' && s.name !== o.name) {
      const froms = o.name === undefined ? [] : (cp.byTarget.get(o.name) ?? []).map((c) => c.from);
      if (!froms.some((f) => f === s.name || (s.name !== undefined && f === mcpSource(a, s.name))))
        return `messages.${i}: tool result name "${o.name ?? ''}" does not map back to "${s.name ?? ''}"`;
    }
    if (s.role !== 'assistant' || o.role !== 'assistant') continue;
    const sc = s.tool_calls ?? [];
    const oc = o.tool_calls ?? [];
    if (sc.length !== oc.length) return `messages.${i}: ${oc.length} calls where the source has ${sc.length}`;
    for (let k = 0; k < sc.length; k++) {
      const back = callBack(oc[k]!, cp, a, b, skillBack);
      const want = sc[k]!;
      const wantArgs = callArgs(want.function);
      if (
        back === null ||
        back.id !== want.id ||
        (back.name !== want.function.name && back.name !== mcpSource(a, want.function.name)) ||
        !jsonEqual(back.args, wantArgs)
      ) {
        return `messages.${i}.tool_calls.${k}: ${oc[k]!.function.name}(${oc[k]!.function.arguments}) maps back to ${back ? `${back.name}(${JSON.stringify(back.args)})` : 'nothing'}, not the source's ${want.function.name}(${want.function.arguments})`;
      }
    }
  }
  return null;
}

/** A's OpenAI-safe name of a call logged under the MCP server's own spelling (`sensors.read`). */
function mcpSource(a: Harness, name: string): string | undefined {
  return a.tools.find((t) => t.sourceName === name && t.name !== name)?.name;
}

/**
 * A call of B mapped back through the plan to A's (values and fills undone, the inverse argument
 * edits, a split's case value, a skill load's A skill). `dropNeeds`: B's required parameters A has
 * no counterpart for (`needs`, which a teacher supplies) are taken away first.
 */
export function callBack(
  call: ToolCall,
  cp: CompiledPlan,
  a: Harness,
  b: Harness,
  skillBack: Map<string, string>,
  dropNeeds = false,
): { id: string; name: string; args: unknown } | null {
  let args = callArgs(call.function);
  if (args === NOT_JSON) return null;
  const target = mappingFor(cp, call.function.name, args);
  if (!target) return null;
  if (dropNeeds) for (const p of target.mapping.needs) args = dropPath(args, target.wrapKey === null ? p : `${target.wrapKey}.${p}`);
  args = applyArgOps(editValues(args, target, 'back'), target.inverse);
  if (target.split) args = copyWith(args as Record<string, unknown>, { [target.split.by]: target.split.value });
  if (b.skillLoader && a.skillLoader && call.function.name === b.skillLoader.tool) {
    const skill = getPath(args, a.skillLoader.argument);
    if (typeof skill === 'string') args = setPath(args, a.skillLoader.argument, skillBack.get(skill) ?? skill);
  }
  return { id: call.id, name: target.from, args };
}

/** Enum values mapped (or mapped back) and fills added (or taken away), at B's full paths. */
function editValues(args: unknown, c: CompiledMapping, dir: 'forward' | 'back'): unknown {
  let out = args;
  for (const path in c.valuesB) {
    const vm = c.valuesB[path]!;
    const v = getPath(out, path);
    const table = dir === 'forward' ? vm.forward : vm.back;
    if (typeof v === 'string' && Object.prototype.hasOwnProperty.call(table, v)) out = putPath(out, path, table[v]!);
  }
  for (const path in c.fillB) {
    const value = c.fillB[path];
    if (dir === 'forward' && getPath(out, path) === undefined) out = putPath(out, path, value);
    if (dir === 'back') out = dropPath(out, path);
  }
  return out;
}

/** A copy with the dotted path set, adding the last key when it is missing (key order kept). */
function putPath(value: unknown, path: string, next: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const dot = path.indexOf('.');
  const obj = value as Record<string, unknown>;
  if (dot < 0) return copyWith(obj, { [path]: next });
  const head = path.slice(0, dot);
  return head in obj ? copyWith(obj, { [head]: putPath(obj[head], path.slice(dot + 1), next) }) : value;
}

function dropPath(value: unknown, path: string): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const dot = path.indexOf('.');
  const obj = value as Record<string, unknown>;
  if (dot < 0) return without(obj, path);
  const head = path.slice(0, dot);
  return head in obj ? copyWith(obj, { [head]: dropPath(obj[head], path.slice(dot + 1)) }) : value;
}

/** A copy of `obj` without the key `key` (order kept), by assignment. */
function without(obj: Record<string, unknown>, key: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k in obj) if (k !== key && Object.prototype.hasOwnProperty.call(obj, k)) put(out, k, obj[k]);
  return out;
}

/** The messages without the preamble turn (the same array when there is none, as in most records). */
function withoutPreamble<M extends { role: string; name?: string }>(messages: readonly M[]): readonly M[] {
  for (const m of messages) if (m.role === 'user' && m.name === PREAMBLE_NAME) return messages.filter((x) => !(x.role === 'user' && x.name === PREAMBLE_NAME));
  return messages;
}

/**
 * User turns and tool results are data: they must come out as they went in, byte for byte — except
 * skill-load results and a tool-channel hook's feedback, which the target state re-renders.
 */
function changedBytes(source: Trajectory, migrated: Trajectory, a: Harness): string | null {
  const src = withoutPreamble(source.messages);
  const out = withoutPreamble(migrated.messages);
  if (src.length !== out.length) return `${out.length} messages where the source has ${src.length}`;
  const loads = new Set<string>();
  const toolHooks = a.hooks.filter((k) => k.channel === 'tool');
  for (let i = 0; i < src.length; i++) {
    const s = src[i]!;
    const o = out[i]!;
    if (s.role === 'assistant' && a.skillLoader) for (const c of s.tool_calls ?? []) if (c.function.name === a.skillLoader.tool) loads.add(c.id);
    if (s.role === 'user' && s.name === undefined && (o.role !== 'user' || o.content !== s.content)) return `messages.${i}: the user's words changed`;
    if (s.role !== 'tool') continue;
    if (o.role !== 'tool' || o.tool_call_id !== s.tool_call_id) return `messages.${i}: the tool result moved`;
    if (o.content === s.content || loads.has(s.tool_call_id)) continue;
    const text = textOf(s.content);
    if (toolHooks.some((k) => parseFeedback(k.feedback, text) !== null)) continue;
    return `messages.${i}: the tool result changed`;
  }
  return null;
}
