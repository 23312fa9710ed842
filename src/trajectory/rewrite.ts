import { parseFeedback, renderFeedback } from '../harness/feedback.js';
import { promptMessage, renderRecordPrompt, renderTools, stateTextMessage } from '../harness/render.js';
import { joinUserText, setUserTextLayout, userTextLayout } from '../harness/user-text-layout.js';
import type { Harness, Hook } from '../harness/types.js';
import { openAiSafeName, toolSpellings } from '../harness/tools.js';
import { TextRewriter } from '../transform/text-rewriter.js';
import { applyArgOps, dictionary, mapId, netParamRenames, type RewritePlan } from '../transform/plan.js';
import { schemaPropertyNames } from '../transform/state.js';
import { callArgs, NOT_JSON, withArgs } from '../util/call-args.js';
import { copyWith } from '../util/copy.js';
import { getPath, setPath } from '../util/path.js';
import { ownMemo, pairMemo } from '../util/derived.js';
import { textOf, type Message, type TextContent, type ToolCall, type Trajectory } from './types.js';

/** The `name` that marks a preamble message (prompt sections moved out of the system message). */
export const PREAMBLE_NAME = 'harness:preamble';

/**
 * Carry a trajectory from harness state `from` to state `to` along `plan`. Works on parsed
 * structure: the system message, the tool list, skill-load results and hook feedback are
 * re-rendered from `to`; tool calls get new names and argument edits; identifier mentions in
 * assistant text are rewritten. User words and tool data stay as they are.
 */
export function rewriteTrajectory(rec: Trajectory, plan: RewritePlan, from: Harness, to: Harness): Trajectory {
  const text = textRewriterFor(plan, from);
  const rw = (c: TextContent): TextContent =>
    typeof c === 'string' ? text.rewrite(c, 'record') : c.map((p) => ({ ...p, text: text.rewrite(p.text, 'record') }));
  const fromPrefix = from.hookMessages.namePrefix;
  const toPrefix = to.hookMessages.namePrefix;
  // (Only a harness with a skill loader or tool-channel hooks reads these: no maps made for the others.)
  const loaderCalls = from.skillLoader ? new Map<string, string>() : undefined; // call id → original skill id
  const callTools = from.hooks.some((k) => k.channel === 'tool') ? new Map<string, string>() : undefined; // call id → original tool name
  const hasSystem = rec.messages[0]?.role === 'system';
  // Only a record that shows a prompt gets one rendered (a bare call mapped on its own has none).
  const rendered = hasSystem ? renderRecordPrompt(to, rec) : { system: '', preamble: '' };
  const out: Message[] = [];
  let preambleDone = rendered.preamble === '';

  rec.messages.forEach((m, i) => {
    if (m.role === 'user' && m.name === PREAMBLE_NAME) return;
    if (!preambleDone && m.role === 'user' && hasSystem) {
      out.push(promptMessage({ role: 'user', name: PREAMBLE_NAME, content: rendered.preamble }, rendered, true));
      preambleDone = true;
    }
    if (i === 0 && m.role === 'system' && !m.name?.startsWith(fromPrefix)) {
      out.push(promptMessage(copyWith(m, { content: rendered.system }), rendered));
      return;
    }
    if ((m.role === 'user' || m.role === 'system') && m.name?.startsWith(fromPrefix)) {
      const oldId = m.name.slice(fromPrefix.length);
      const newId = mapId(plan.hooks, oldId);
      const fromHook = from.hooks.find((k) => k.id === oldId);
      const toHook = to.hooks.find((k) => k.id === newId);
      const role = toHook && toHook.channel !== 'tool' ? toHook.channel : m.role;
      out.push({ ...m, role, name: `${toPrefix}${newId}`, content: refeed(textOf(m.content), fromHook, toHook, text) });
      return;
    }
    // OpenAI's instruction role (first, as reasoning models' logs have it, or later), and a later
    // system message that is not hook feedback, are read like a system prompt: their mentions follow
    // the renames, as the assistant's do (the leak check reads them).
    if (m.role === 'developer' || m.role === 'system') {
      const content = rw(m.content);
      out.push(content === m.content ? m : { ...m, content });
      return;
    }
    if (m.role === 'assistant') {
      // A message the plan leaves as it is (its text names nothing renamed, its calls' names and
      // arguments, as written, unchanged) stays the same object: the checks compare it by identity
      // and the writer encodes it once for every variant that shows it.
      const content = m.content === null ? null : rw(m.content);
      let same = content === m.content;
      let calls: ToolCall[] | undefined;
      if (m.tool_calls) {
        calls = m.tool_calls.map((call) => {
          const oldName = call.function.name;
          callTools?.set(call.id, oldName);
          let args = callArgs(call.function);
          const name = mapId(plan.tools, oldName);
          if (args === NOT_JSON) {
            same = false;
            return { ...call, function: { ...call.function, name } };
          }
          if (from.skillLoader && oldName === from.skillLoader.tool) {
            const skill = getPath(args, from.skillLoader.argument);
            if (typeof skill === 'string') {
              loaderCalls!.set(call.id, skill);
              args = setPath(args, from.skillLoader.argument, mapId(plan.skills, skill));
            }
          }
          const ops = plan.args[oldName];
          if (ops) args = applyArgOps(args, ops);
          const text = JSON.stringify(args);
          if (name === oldName && text === call.function.arguments) return call;
          same = false;
          return { ...call, function: withArgs(copyWith(call.function, { name, arguments: text }), args) };
        });
      }
      if (same) {
        out.push(m);
        return;
      }
      const next: Message = { ...m };
      if (content !== null) next.content = content;
      if (calls) next.tool_calls = calls;
      out.push(next);
      return;
    }
    // The first user turn of a harness with prompt.user_sections: its harness text follows the
    // renames, as the assistant's text does; the user's words around it stay as written.
    if (m.role === 'user' && typeof m.content === 'string' && from.userTexts !== undefined) {
      const layout = userTextLayout(m, m.content);
      if (layout) {
        const texts = layout.texts.map((t) => text.rewrite(t, 'record'));
        const next = copyWith(m, { content: joinUserText(layout.outer, texts) });
        setUserTextLayout(next, { ids: layout.ids, texts, outer: layout.outer });
        out.push(next);
        return;
      }
    }
    if (m.role === 'tool') {
      // A result that names its tool (as OpenAI logs do) names it in the new state.
      if (m.name !== undefined && mapId(plan.tools, m.name) !== m.name) m = { ...m, name: mapId(plan.tools, m.name) };
      const skill = loaderCalls?.get(m.tool_call_id);
      if (skill !== undefined) {
        const fromSkill = from.skills.find((s) => s.id === skill);
        const toId = mapId(plan.skills, skill);
        const toSkill = to.skills.find((s) => s.id === toId);
        // A skill-load result that is the skill's body becomes the new state's body (one text per state).
        const logged = textOf(m.content);
        if (fromSkill && toSkill && logged.trim() === fromSkill.body) {
          // Blank space around a logged body (a blank line after the front matter, a file's final
          // newline) is the record's own, kept as written, as around a logged system prompt.
          const lead = typeof m.content === 'string' ? logged.slice(0, logged.length - logged.trimStart().length) : '';
          const trail = typeof m.content === 'string' ? logged.slice(logged.trimEnd().length) : '';
          out.push(lead === '' && trail === '' ? stateTextMessage(copyWith(m, { content: toSkill.body })) : { ...m, content: lead + toSkill.body + trail });
        } else {
          // Any other load result reads like a skill body: plain words only where it refers to them.
          const body = bodyRewriterFor(plan, from);
          const rb = (c: string) => frontMatterName(body.rewriteReferences(c, 'record'), skill, toId);
          out.push({ ...m, content: typeof m.content === 'string' ? rb(m.content) : m.content.map((p) => ({ ...p, text: rb(p.text) })) });
        }
        return;
      }
      const tool = callTools?.get(m.tool_call_id);
      const hook = tool === undefined ? undefined : toolChannelHook(from, tool, textOf(m.content));
      if (hook) {
        const toHook = to.hooks.find((k) => k.id === mapId(plan.hooks, hook.id));
        out.push({ ...m, content: refeed(textOf(m.content), hook, toHook, text) });
        return;
      }
      out.push(m);
      return;
    }
    out.push(m);
  });

  const result: Trajectory = { ...rec, messages: out };
  if (rec.tools) result.tools = renderTools(to);
  return result;
}

/**
 * A load result that is the whole SKILL.md (front matter included) names the skill in its
 * front matter's `name:` line, a plain word the body rules leave alone: it names the loaded
 * skill, so it follows the skill's rename.
 */
function frontMatterName(text: string, from: string, to: string): string {
  if (from === to || !text.startsWith('---')) return text;
  const end = text.indexOf('\n---', 3);
  if (end < 0) return text;
  const head = text
    .slice(0, end)
    .replace(/^(name:[ \t]*)(["']?)([^"'\r\n]*?)\2([ \t]*)$/m, (all, key: string, q: string, v: string, sp: string) =>
      v === from ? `${key}${q}${to}${q}${sp}` : all,
    );
  return head + text.slice(end);
}

/** The free-text rewriter of a plan: tool, skill and hook names, and parameters renamed alike in every tool. */
export function textRewriterFor(plan: RewritePlan, from: Harness): TextRewriter {
  return pairMemo(REWRITER, plan, from, () => new TextRewriter(textMap(plan, from), undefined, () => toolSpellings(from)));
}

const REWRITER = Symbol('hsa.textRewriter');

/**
 * The rewriter of a plan for skill bodies (see TextRewriter.rewriteReferences): the text map, with
 * each renamed parameter's tools by their names in `from` and after the plan.
 */
export function bodyRewriterFor(plan: RewritePlan, from: Harness): TextRewriter {
  return pairMemo(BODY_REWRITER, plan, from, () => {
    const map = textMap(plan, from);
    return new TextRewriter(map, planOwners(plan, from, Object.keys(map)), () => toolSpellings(from));
  });
}

const BODY_REWRITER = Symbol('hsa.bodyRewriter');

/** For the parameter names among `keys`: every name (before and after the plan) of the tools that have them. */
export function planOwners(plan: RewritePlan, from: Harness, keys: readonly string[]): Map<string, Set<string>> {
  const elements = new Set([...Object.keys(plan.tools), ...Object.keys(plan.skills), ...Object.keys(plan.hooks)]);
  const { propertyOwners } = toolIndex(from);
  const owners = new Map<string, Set<string>>();
  for (const k of keys) {
    if (elements.has(k)) continue;
    const set = new Set<string>();
    for (const name of propertyOwners.get(k) ?? NO_TOOLS) {
      set.add(name);
      set.add(mapId(plan.tools, name));
    }
    // A parameter that no source tool has (only a distractor's) has no owner in the source, so no
    // source text refers to it: an empty set, not a missing one (which would read it as a tool name).
    owners.set(k, set);
  }
  return owners;
}

const NO_TOOLS: readonly string[] = [];

/**
 * Whether `name` is an identifier the state declares (a tool, parameter, skill, hook or section
 * name: the names of stateIdentifiers), from its tool index.
 */
export function declares(h: Harness, name: string): boolean {
  const idx = toolIndex(h);
  return (
    idx.byName.has(name) ||
    idx.propertyOwners.has(name) ||
    h.skills.some((s) => s.id === name) ||
    h.hooks.some((k) => k.id === name) ||
    h.sections.some((s) => s.id === name)
  );
}

/**
 * The property names a schema declares anywhere, as schemaPropertyNames lists them (nested objects,
 * array items and branches included), kept by schema object: a state shares most schema objects
 * with its source, and so do the variants of one record.
 */
export function propertyNames(schema: unknown): readonly string[] {
  return schemaPropertyNames(schema);
}

/** A state's tools by name, and which tools declare each parameter name: once per state, for every plan from it. */
export interface ToolIndex {
  /** The first tool of each name. */
  byName: Map<string, Harness['tools'][number]>;
  /** Parameter name (declared anywhere in a schema) → the names of the tools that declare it, in tool order. */
  propertyOwners: Map<string, string[]>;
}

const TOOL_INDEX = Symbol('hsa.toolIndex');

export function toolIndex(h: Harness): ToolIndex {
  return ownMemo(TOOL_INDEX, h, () => computeToolIndex(h));
}

function computeToolIndex(h: Harness): ToolIndex {
  const idx: ToolIndex = { byName: new Map(), propertyOwners: new Map() };
  for (const t of h.tools) {
    if (!idx.byName.has(t.name)) idx.byName.set(t.name, t);
    const names = propertyNames(t.parameters);
    for (let i = 0; i < names.length; i++) {
      const p = names[i]!;
      // (A name declared twice in one schema — nested objects — is one owner.)
      if (names.indexOf(p) !== i) continue;
      const list = idx.propertyOwners.get(p);
      if (list) list.push(t.name);
      else idx.propertyOwners.set(p, [t.name]);
    }
  }
  return idx;
}

const TEXT_MAP = Symbol('hsa.textMap');

/** Identifier renames that apply to free text (ambiguous ones — one old name, two new — are left out). */
export function textMap(plan: RewritePlan, from: Harness): Record<string, string> {
  return pairMemo(TEXT_MAP, plan, from, () => computeTextMap(plan, from));
}

function computeTextMap(plan: RewritePlan, from: Harness): Record<string, string> {
  // Old name → its one new name, or null once two different new names were proposed (ambiguous).
  const candidates = new Map<string, string | null>();
  const add = (a: string, b: string) => {
    if (a === b) return;
    const cur = candidates.get(a);
    if (cur === undefined) candidates.set(a, b);
    else if (cur !== null && cur !== b) candidates.set(a, null);
  };
  for (const map of [plan.skills, plan.hooks]) for (const a of Object.keys(map)) add(a, map[a]!);
  // A tool whose source name OpenAI does not allow (`plants.find_by_zone`, named `plants_find_by_zone`)
  // is written in texts as the source spells it: that spelling is renamed too, and a plan back to
  // the source writes it again.
  const { byName, propertyOwners } = toolIndex(from);
  for (const a of Object.keys(plan.tools)) {
    const b = plan.tools[a]!;
    const t = byName.get(a);
    const spelled = t !== undefined && t.sourceName !== t.name && !byName.has(t.sourceName) ? t.sourceName : null;
    if (spelled !== null && openAiSafeName(spelled) === b) add(a, spelled);
    else {
      add(a, b);
      if (spelled !== null) add(spelled, b);
    }
  }
  // A parameter name goes into the text map only when every tool that has it renames it the same way.
  const params = leafRenamesByTool(plan);
  const leafRenames = new Map<string, string | null>();
  for (const tool of Object.keys(params)) {
    const net = params[tool]!;
    for (const old of Object.keys(net)) {
      const leaf = net[old]!;
      const cur = leafRenames.get(old);
      if (cur === undefined) leafRenames.set(old, leaf);
      else if (cur !== null && cur !== leaf) leafRenames.set(old, null);
    }
  }
  for (const [old, leaf] of leafRenames) {
    if (leaf === null) continue;
    const owners = propertyOwners.get(old);
    let everywhere = true;
    if (owners) for (const name of owners) if (params[name]?.[old] !== leaf) everywhere = false;
    if (everywhere) add(old, leaf);
  }
  const out = dictionary();
  for (const [a, b] of candidates) if (b !== null) out[a] = b;
  return out;
}

/**
 * Per source tool name: parameter names (leaves) renamed, old → new. A tool whose arguments are
 * also reshaped (wrapped, nested) still renamed its parameters: its rename ops count as well, so
 * the prose that mentions them (skill bodies, descriptions) follows.
 */
export function leafRenamesByTool(plan: RewritePlan): Record<string, Record<string, string>> {
  const { params, reshaped } = netParamRenames(plan);
  const out = dictionary<Record<string, string>>();
  for (const tool of Object.keys(params)) {
    const net = params[tool]!;
    // Top-level paths (most renames) are their own leaves: the net renames serve as they are (read only).
    let nested = false;
    for (const path in net) if (path.includes('.')) nested = true;
    if (!nested) {
      out[tool] = net;
      continue;
    }
    const m = dictionary();
    for (const path of Object.keys(net)) m[lastSegment(path)] = net[path]!;
    out[tool] = m;
  }
  for (const tool of reshaped) {
    const m = dictionary();
    for (const op of plan.args[tool] ?? []) {
      if (op.op !== 'rename') continue;
      for (const path of Object.keys(op.paths)) {
        const leaf = op.paths[path]!;
        const old = lastSegment(path);
        // A name renamed again (a → b, then b → c) keeps its first name as the key.
        const first = Object.keys(m).find((k) => m[k] === old) ?? old;
        m[first] = leaf;
      }
    }
    for (const a of Object.keys(m)) if (a === m[a]) delete m[a];
    if (Object.keys(m).length > 0) out[tool] = m;
  }
  return out;
}

/** The last segment of a dotted parameter path (`a.b.c` → `c`). */
function lastSegment(path: string): string {
  const i = path.lastIndexOf('.');
  return i < 0 ? path : path.slice(i + 1);
}

function refeed(content: string, fromHook: Hook | undefined, toHook: Hook | undefined, text: TextRewriter): string {
  if (fromHook && toHook) {
    const vars = parseFeedback(fromHook.feedback, content);
    if (vars) return renderFeedback(toHook.feedback, { ...vars, hook: toHook.id });
  }
  return text.rewrite(content, 'record');
}

function toolChannelHook(h: Harness, tool: string, content: string): Hook | undefined {
  return h.hooks.find(
    (k) =>
      k.channel === 'tool' &&
      (k.event === 'pre_tool_use' || k.event === 'post_tool_use') &&
      (!k.matcher || k.matcher.includes(tool)) &&
      parseFeedback(k.feedback, content) !== null,
  );
}
