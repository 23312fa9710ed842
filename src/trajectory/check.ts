import { NO_CONTEXT, renderPrompt, renderedSections, renderTools, setPromptLayout } from '../harness/render.js';
import { locateUserTexts, setUserTextLayout } from '../harness/user-text-layout.js';
import { normaliseTool } from '../harness/tools.js';
import type { Harness, JsonSchema, OpenAiTool } from '../harness/types.js';
import type { Problem } from '../problems.js';
import { callArgs, jsonError, NOT_JSON } from '../util/call-args.js';
import { jsonEqual } from '../util/json-equal.js';
import { schemaErrors } from '../util/json-schema.js';
import { getPath } from '../util/path.js';
import { renameCalls } from './read.js';
import { textOf, type Trajectory } from './types.js';

/** How a logged system message is taken: as the rendered harness, with the harness's sections found inside it, or replaced. */
export type SystemPromptMode = 'match' | 'locate' | 'replace';

/** What became of a record's system message. */
export type PromptOutcome = 'matched' | 'located' | 'replaced';

export interface CheckContext {
  file: string;
  line: number;
  /** Default `match`. */
  systemPrompt?: SystemPromptMode;
  /** Filled in by the check: what became of the system message (absent: the record has none). */
  outcome?: { prompt?: PromptOutcome; discardedChars?: number };
}

/**
 * Check one shape-valid record against a harness: tool calls answered and valid against their
 * schemas, called tools and loaded skills exist, hook messages name real hooks, and the system
 * message equals the harness rendered with the record's context.
 */
export function checkTrajectory(rec: Trajectory, h: Harness, at: CheckContext): Problem[] {
  // Calls logged under an MCP tool's own name follow the OpenAI-safe name the harness gives it.
  renameCalls(rec, mcpNames(h));
  const problems: Problem[] = [];
  const add = (path: string, message: string, severity: Problem['severity'] = 'error') =>
    problems.push({ file: at.file, line: at.line, id: rec.id, path, message, severity });

  if (rec.harness && rec.harness.name !== h.name) {
    add('harness.name', `record was made under harness "${rec.harness.name}", validating against "${h.name}"`, 'warning');
  } else if (rec.harness && String(rec.harness.version) !== h.version) {
    add('harness.version', `record was made under version ${rec.harness.version}, the harness is ${h.version}`, 'warning');
  }

  const { harnessTools, skills, hooks } = harnessFacts(h);
  // A record showing the harness's own tools is checked against the harness's schemas (the same
  // values): only a record with tools of its own needs a map of them.
  let ownTools = false;
  if (rec.tools && !jsonEqual(rec.tools, renderTools(h))) {
    const diff = toolListDifference(rec.tools, h);
    // The same tools written another way (`strict`, no description or parameters, a dotted name):
    // the record shows the harness's tools, as every variant will.
    if (diff === null) rec.tools = renderTools(h);
    else {
      add(
        'tools',
        `differ from the tools of harness ${h.name} (${diff}): every variant carries the harness tools, so this record cannot be augmented under this harness; augment without --harness to make the tools and system message of each record its harness`,
      );
      ownTools = true;
    }
  }

  const recordTools =
    rec.tools && ownTools ? new Map(rec.tools.map((t) => [t.function.name, t.function.parameters ?? { type: 'object', properties: {} }])) : null;

  const prefix = h.hookMessages.namePrefix;
  const seenCallIds = new Set<string>();
  let open = new Map<string, number>(); // call id → message index of the assistant that made it

  // (Plain loops, paths built only for a problem: every record of a run passes through here.)
  const messages = rec.messages;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    // A later system message that is not hook feedback is the record's own instruction text (OpenAI
    // logs carry them: "the following tools are now available"); the rewrite follows renames in it.
    if ((m.role === 'user' || m.role === 'system') && m.name?.startsWith(prefix)) {
      const hookId = m.name.slice(prefix.length);
      if (!hooks.has(hookId)) add(`messages.${i}.name`, `hook feedback names hook "${hookId}", which does not exist`);
    }
    if (m.role !== 'tool' && open.size > 0) {
      for (const [id, j] of open) add(`messages.${j}.tool_calls`, `tool call "${id}" has no tool message answering it`);
      open = new Map();
    }
    if (m.role === 'assistant') {
      const calls = m.tool_calls ?? [];
      for (let k = 0; k < calls.length; k++) {
        const call = calls[k]!;
        if (seenCallIds.has(call.id)) add(`messages.${i}.tool_calls.${k}.id`, `duplicate tool call id "${call.id}"`);
        seenCallIds.add(call.id);
        open.set(call.id, i);
        const name = call.function.name;
        const schema = recordTools ? recordTools.get(name) : harnessTools.get(name);
        if (!harnessTools.has(name)) add(`messages.${i}.tool_calls.${k}.function.name`, `tool "${name}" does not exist in harness ${h.name}`);
        else if (recordTools && !recordTools.has(name)) add(`messages.${i}.tool_calls.${k}.function.name`, `tool "${name}" is not in the record's tools`);
        const args = callArgs(call.function);
        if (args === NOT_JSON) {
          add(`messages.${i}.tool_calls.${k}.function.arguments`, `not valid JSON: ${jsonError(call.function.arguments)}`);
          continue;
        }
        if (args === null || typeof args !== 'object' || Array.isArray(args)) {
          add(`messages.${i}.tool_calls.${k}.function.arguments`, 'must be a JSON object');
          continue;
        }
        if (schema)
          for (const msg of schemaErrors(schema, args)) add(`messages.${i}.tool_calls.${k}.function.${msg.split(':')[0]}`, msg.slice(msg.indexOf(':') + 2));
        if (h.skillLoader && name === h.skillLoader.tool) {
          const skill = getPath(args, h.skillLoader.argument);
          if (typeof skill === 'string' && !skills.has(skill))
            add(`messages.${i}.tool_calls.${k}.function.arguments.${h.skillLoader.argument}`, `skill "${skill}" does not exist`);
        }
      }
      if (m.content === null && !(m.tool_calls && m.tool_calls.length > 0))
        add(`messages.${i}.content`, 'an assistant message without tool calls needs content');
    }
    if (m.role === 'tool') {
      if (!open.has(m.tool_call_id)) {
        add(
          `messages.${i}.tool_call_id`,
          seenCallIds.has(m.tool_call_id) ? `tool call "${m.tool_call_id}" is answered twice` : `no tool call "${m.tool_call_id}" before this tool message`,
        );
      }
      open.delete(m.tool_call_id);
    }
  }
  // A conversation may end with the assistant's calls and nothing after them: single-turn
  // function-calling sets are made of such records (the final calls are the target). Only calls of
  // the last message, none of them answered, are accepted open; anything else is a missing answer.
  const last = rec.messages.length - 1;
  const finalCalls = rec.messages[last]?.role === 'assistant' ? (rec.messages[last].tool_calls?.length ?? 0) : 0;
  const finalTarget = finalCalls > 0 && open.size === finalCalls && [...open.values()].every((j) => j === last);
  if (!finalTarget) for (const [id, j] of open) add(`messages.${j}.tool_calls`, `tool call "${id}" has no tool message answering it`);

  const first = rec.messages[0];
  if (first && first.role === 'system') {
    let expected: string | undefined;
    try {
      expected = renderPrompt(h, rec.context ?? NO_CONTEXT).system;
    } catch (e) {
      add('context', (e as Error).message);
    }
    if (expected !== undefined) checkSystemMessage(rec, h, expected, at, add);
  }
  if (h.userTexts && h.userTexts.length > 0) checkUserTexts(rec, h, add);
  return problems;
}

/**
 * A harness whose first user turn carries harness text (`prompt.user_sections`): each text is found,
 * in order, in the record's first user message, and the layout kept on it (the text around them is
 * the user's). A record without them is not one of this harness's.
 */
function checkUserTexts(rec: Trajectory, h: Harness, add: (path: string, message: string, severity?: Problem['severity']) => void): void {
  const i = firstUserTurn(rec, h);
  if (i < 0) return add('messages', `no user message: prompt.user_sections of harness ${h.name} are found in the first user turn`);
  const m = rec.messages[i]!;
  if (typeof m.content !== 'string')
    return add(`messages.${i}.content`, 'prompt.user_sections: the first user turn must be a string to hold the harness text (it is a list of parts)');
  const found = locateUserTexts(h, m.content);
  if ('missing' in found) {
    const text = h.userTexts!.find((u) => u.id === found.missing)!.text;
    return add(
      `messages.${i}.content`,
      `first user turn: section "${found.missing}" of prompt.user_sections is not in it${found.after ? ` after section "${found.after}"` : ''}: ${shortDiff(text, m.content)}`,
    );
  }
  setUserTextLayout(m, found);
}

/** The index of a record's first user turn (not hook feedback, not a preamble), or -1. */
export function firstUserTurn(rec: { messages: readonly { role: string; name?: string }[] }, h: Harness): number {
  return rec.messages.findIndex((m) => m.role === 'user' && m.name !== 'harness:preamble' && !m.name?.startsWith(h.hookMessages.namePrefix));
}

/**
 * The system message against the rendered harness (docs/harness-format.md, "Logged system
 * prompts"). Blank space before and after the rendered prompt is the record's own in every mode (a
 * prompt file's final newline, a log's trailing newline) and kept verbatim. Otherwise `locate`
 * looks for the harness's sections in order and keeps the text around and between them as the
 * record's; `replace` puts the rendered harness in place of the logged message (a warning says how
 * much was dropped); `match` reports the first differing line.
 */
function checkSystemMessage(
  rec: Trajectory,
  h: Harness,
  expected: string,
  at: CheckContext,
  add: (path: string, message: string, severity?: Problem['severity']) => void,
): void {
  const first = rec.messages[0]!;
  const actual = textOf(first.content);
  const outcome = (prompt: PromptOutcome, discardedChars?: number) => {
    if (at.outcome) at.outcome = { prompt, ...(discardedChars !== undefined ? { discardedChars } : {}) };
  };
  if (actual === expected) return outcome('matched');
  const lead = /^\s*/.exec(actual)![0];
  const tail = lead.length === actual.length ? '' : /\s*$/.exec(actual)![0];
  if (actual.slice(lead.length, actual.length - tail.length) === expected) {
    setPromptLayout(first, { kind: 'edges', lead, tail });
    return outcome('matched');
  }
  const mode = at.systemPrompt ?? 'match';
  if (mode === 'locate') {
    const sections = renderedSections(h, rec.context ?? NO_CONTEXT);
    const outer: string[] = [];
    let pos = 0;
    for (const s of sections) {
      const i = actual.indexOf(s.text, pos);
      if (i < 0) {
        const near = pos === 0 ? '' : ` after section "${sections[outer.length - 1]!.id}"`;
        return add(
          'messages.0.content',
          `system message: section "${s.id}" of the harness is not in it${near} (--system-prompt locate looks for every section, in order): ${shortDiff(s.text, actual.slice(pos))}`,
        );
      }
      outer.push(actual.slice(pos, i));
      pos = i + s.text.length;
    }
    outer.push(actual.slice(pos));
    setPromptLayout(first, { kind: 'slots', ids: sections.map((s) => s.id), outer });
    return outcome('located');
  }
  if (mode === 'replace') {
    rec.messages[0] = { ...first, content: expected };
    add(
      'messages.0.content',
      `system message replaced by the rendered harness (--system-prompt replace): the logged message's ${actual.length} characters are dropped`,
      'warning',
    );
    return outcome('replaced', actual.length);
  }
  // Every section of the harness inside the logged message, in order, with text of the log's own
  // around them: that is what `locate` keeps, so say so.
  const hint = sectionsInOrder(renderedSections(h, rec.context ?? NO_CONTEXT), actual)
    ? ' (every section of the harness is in it, in order, with text of its own around them: --system-prompt locate keeps that text and uses the sections)'
    : '';
  add('messages.0.content', `system message differs from the rendered harness: ${shortDiff(expected, actual)}${hint}`);
}

/** Whether every non-empty section text occurs in `text`, in order, without overlapping. */
function sectionsInOrder(sections: readonly { text: string }[], text: string): boolean {
  let pos = 0;
  let found = 0;
  for (const s of sections) {
    if (s.text === '') continue;
    const i = text.indexOf(s.text, pos);
    if (i < 0) return false;
    pos = i + s.text.length;
    found++;
  }
  return found > 0;
}

interface HarnessFacts {
  harnessTools: ReadonlyMap<string, JsonSchema>;
  skills: ReadonlySet<string>;
  hooks: ReadonlySet<string>;
}

const factsByHarness = new WeakMap<Harness, HarnessFacts>();

/** A harness's tool schemas by name, skill ids and hook ids: what every record is checked against, made once per harness. */
function harnessFacts(h: Harness): HarnessFacts {
  let f = factsByHarness.get(h);
  if (!f) {
    f = {
      harnessTools: new Map(h.tools.map((t) => [t.name, t.parameters])),
      skills: new Set(h.skills.map((s) => s.id)),
      hooks: new Set(h.hooks.map((k) => k.id)),
    };
    factsByHarness.set(h, f);
  }
  return f;
}

/**
 * How a record's own tool list differs from the tools harness `h` renders, each tool read as the
 * harness reads a tool file (OpenAI or MCP shape, `strict` dropped, a missing description empty, a
 * dotted name made OpenAI-safe), as a short phrase naming the first difference; null when the two
 * lists are the same tools in the same order.
 */
export function toolListDifference(tools: readonly unknown[], h: Harness): string | null {
  const rendered = renderTools(h);
  const own: OpenAiTool[] = [];
  for (const [i, raw] of tools.entries()) {
    const one = normaliseTool(raw);
    if (!('tool' in one)) return `tools.${i}: ${one.issues[0]?.message ?? 'not a tool'}`;
    own.push({ type: 'function', function: { name: one.tool.name, description: one.tool.description, parameters: one.tool.parameters } });
  }
  const names = new Set(rendered.map((t) => t.function.name));
  const ownNames = new Set(own.map((t) => t.function.name));
  const extra = own.find((t) => !names.has(t.function.name));
  if (extra) return `"${extra.function.name}" is not a harness tool`;
  const missing = rendered.find((t) => !ownNames.has(t.function.name));
  if (missing) return `${own.length} of the ${rendered.length} harness tools listed, not "${missing.function.name}"`;
  for (const [i, t] of own.entries()) {
    const r = rendered[i]!;
    if (t.function.name !== r.function.name) return `another order: tools.${i} is "${t.function.name}" where the harness has "${r.function.name}"`;
    if (t.function.description !== r.function.description) return `"${t.function.name}": another description`;
    if (!jsonEqual(t.function.parameters, r.function.parameters)) return `"${t.function.name}": other parameters`;
  }
  return own.length === rendered.length ? null : `${own.length} tools where the harness has ${rendered.length}`;
}

const mcpNameMaps = new WeakMap<Harness, Map<string, string>>();

/** MCP tool names of a harness that were made OpenAI-safe (source name → name), once per harness. */
export function mcpNames(h: Harness): Map<string, string> {
  let m = mcpNameMaps.get(h);
  if (!m) {
    const names = new Set(h.tools.map((t) => t.name));
    m = new Map(h.tools.filter((t) => t.sourceName !== t.name && !names.has(t.sourceName)).map((t) => [t.sourceName, t.name]));
    mcpNameMaps.set(h, m);
  }
  return m;
}

/** The first differing line of two texts, as `line N: expected "…", got "…"`. */
export function shortDiff(expected: string, actual: string): string {
  const a = expected.split('\n');
  const b = actual.split('\n');
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) {
      const show = (s: string | undefined) => (s === undefined ? '(end of text)' : JSON.stringify(clip(s, 80)));
      return `line ${i + 1}: expected ${show(a[i])}, got ${show(b[i])}`;
    }
  }
  return 'texts differ in line endings';
}

function clip(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}
