import { renderSystemPrompt, renderTools } from '../harness/render.js';
import type { Harness, JsonSchema } from '../harness/types.js';
import type { Problem } from '../problems.js';
import { callArgs, jsonError, NOT_JSON } from '../util/call-args.js';
import { jsonEqual } from '../util/json-equal.js';
import { schemaErrors } from '../util/json-schema.js';
import { getPath } from '../util/path.js';
import { textOf, type Trajectory } from './types.js';

export interface CheckContext {
  file: string;
  line: number;
}

/**
 * Check one shape-valid record against a harness: tool calls answered and valid against their
 * schemas, called tools and loaded skills exist, hook messages name real hooks, and the system
 * message equals the harness rendered with the record's context.
 */
export function checkTrajectory(rec: Trajectory, h: Harness, at: CheckContext): Problem[] {
  const problems: Problem[] = [];
  const add = (path: string, message: string, severity: Problem['severity'] = 'error') =>
    problems.push({ file: at.file, line: at.line, id: rec.id, path, message, severity });

  if (rec.harness && rec.harness.name !== h.name) {
    add('harness.name', `record was made under harness "${rec.harness.name}", validating against "${h.name}"`, 'warning');
  } else if (rec.harness && String(rec.harness.version) !== h.version) {
    add('harness.version', `record was made under version ${rec.harness.version}, the harness is ${h.version}`, 'warning');
  }

  const harnessTools = new Map(h.tools.map((t) => [t.name, t.parameters]));
  const recordTools = rec.tools ? new Map(rec.tools.map((t) => [t.function.name, (t.function.parameters ?? { type: 'object', properties: {} }) as JsonSchema])) : null;
  if (rec.tools && !jsonEqual(rec.tools, renderTools(h))) {
    add('tools', 'differ from the tools the harness renders; calls are validated against the record\'s tools', 'warning');
  }

  const skills = new Set(h.skills.map((s) => s.id));
  const hooks = new Set(h.hooks.map((k) => k.id));
  const prefix = h.hookMessages.namePrefix;
  const seenCallIds = new Set<string>();
  let open = new Map<string, number>(); // call id → message index of the assistant that made it

  rec.messages.forEach((m, i) => {
    const mp = `messages.${i}`;
    if (m.role === 'system' && i > 0 && !(m.name?.startsWith(prefix))) {
      add(`${mp}.role`, 'a system message after the first is only allowed as hook feedback (name "' + prefix + '<hook id>")');
    }
    if ((m.role === 'user' || m.role === 'system') && m.name?.startsWith(prefix)) {
      const hookId = m.name.slice(prefix.length);
      if (!hooks.has(hookId)) add(`${mp}.name`, `hook feedback names hook "${hookId}", which does not exist`);
    }
    if (m.role !== 'tool' && open.size > 0) {
      for (const [id, j] of open) add(`messages.${j}.tool_calls`, `tool call "${id}" has no tool message answering it`);
      open = new Map();
    }
    if (m.role === 'assistant') {
      (m.tool_calls ?? []).forEach((call, k) => {
        const cp = `${mp}.tool_calls.${k}`;
        if (seenCallIds.has(call.id)) add(`${cp}.id`, `duplicate tool call id "${call.id}"`);
        seenCallIds.add(call.id);
        open.set(call.id, i);
        const name = call.function.name;
        const schema = recordTools ? recordTools.get(name) : harnessTools.get(name);
        if (!harnessTools.has(name)) add(`${cp}.function.name`, `tool "${name}" does not exist in harness ${h.name}`);
        else if (recordTools && !recordTools.has(name)) add(`${cp}.function.name`, `tool "${name}" is not in the record's tools`);
        const args = callArgs(call.function);
        if (args === NOT_JSON) {
          add(`${cp}.function.arguments`, `not valid JSON: ${jsonError(call.function.arguments)}`);
          return;
        }
        if (args === null || typeof args !== 'object' || Array.isArray(args)) {
          add(`${cp}.function.arguments`, 'must be a JSON object');
          return;
        }
        if (schema) for (const msg of schemaErrors(schema, args)) add(`${cp}.function.${msg.split(':')[0]}`, msg.slice(msg.indexOf(':') + 2));
        if (h.skillLoader && name === h.skillLoader.tool) {
          const skill = getPath(args, h.skillLoader.argument);
          if (typeof skill === 'string' && !skills.has(skill)) add(`${cp}.function.arguments.${h.skillLoader.argument}`, `skill "${skill}" does not exist`);
        }
      });
      if (m.content === null && !(m.tool_calls && m.tool_calls.length > 0)) add(`${mp}.content`, 'an assistant message without tool calls needs content');
    }
    if (m.role === 'tool') {
      if (!open.has(m.tool_call_id)) {
        add(`${mp}.tool_call_id`, seenCallIds.has(m.tool_call_id) ? `tool call "${m.tool_call_id}" is answered twice` : `no tool call "${m.tool_call_id}" before this tool message`);
      }
      open.delete(m.tool_call_id);
    }
  });
  for (const [id, j] of open) add(`messages.${j}.tool_calls`, `tool call "${id}" has no tool message answering it`);

  const first = rec.messages[0];
  if (first && first.role === 'system') {
    let expected: string | undefined;
    try {
      expected = renderSystemPrompt(h, rec.context ?? {});
    } catch (e) {
      add('context', (e as Error).message);
    }
    if (expected !== undefined) {
      const actual = textOf(first.content);
      if (actual !== expected) add('messages.0.content', `system message differs from the rendered harness: ${shortDiff(expected, actual)}`);
    }
  }
  return problems;
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
