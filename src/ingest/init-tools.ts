import type { OpenAiTool } from '../harness/types.js';
import { cmp, type Problem } from '../problems.js';
import { callArgs, NOT_JSON } from '../util/call-args.js';
import { canonicalJson } from '../util/canonical-json.js';
import type { Loc, Seen } from './init-types.js';

// `hsa init`: the tool list inferred from the records' `tools` and calls.

interface ToolVariant {
  tool: OpenAiTool;
  key: string;
  records: Loc[];
}

/**
 * One tool per name. A name listed with different definitions (description or schema) in
 * different records is a conflict: the definition listed by the most records wins (ties: the one
 * seen first), and the conflict is reported with the records holding each definition. Order: the
 * most common tool list's order, then other tools in the order first seen.
 */
export function inferTools(records: Seen[], note: (p: Omit<Problem, 'severity'>) => void): { list: OpenAiTool[]; conflicts: string[]; inferred: string[] } {
  const byName = new Map<string, ToolVariant[]>();
  const lists = new Map<string, { n: number; names: string[] }>();
  for (const { rec, at } of records) {
    if (!rec.tools) continue;
    const names = rec.tools.map((t) => t.function.name);
    const lk = JSON.stringify(names);
    const l = lists.get(lk);
    if (l) l.n++;
    else lists.set(lk, { n: 1, names });
    for (const t of rec.tools) {
      const key = canonicalJson(t);
      const vs = byName.get(t.function.name) ?? [];
      if (!byName.has(t.function.name)) byName.set(t.function.name, vs);
      const v = vs.find((x) => x.key === key);
      if (v) v.records.push(at);
      else vs.push({ tool: t, key, records: [at] });
    }
  }
  let order: string[] = [];
  let top = 0;
  for (const l of lists.values()) if (l.n > top) [order, top] = [l.names, l.n];
  const names = [...order, ...[...byName.keys()].filter((n) => !order.includes(n))];
  const conflicts: string[] = [];
  const list: OpenAiTool[] = names.map((name) => {
    const vs = byName.get(name)!;
    const pick = vs.reduce((a, b) => (b.records.length > a.records.length ? b : a));
    if (vs.length > 1) {
      conflicts.push(name);
      const where = vs.map(
        (v) =>
          `${v === pick ? 'kept' : 'other'}: ${v.records.length} record${v.records.length === 1 ? '' : 's'} (${v.records
            .slice(0, 3)
            .map((r) => `${r.file}:${r.line}`)
            .join(', ')}${v.records.length > 3 ? ', …' : ''})`,
      );
      const first = vs.find((v) => v !== pick)!.records[0]!;
      note({
        file: first.file,
        line: first.line,
        path: `tools.${name}`,
        message: `tool "${name}" is listed with ${vs.length} different definitions; the most common is written — ${where.join('; ')}`,
      });
    }
    return withObjectType(pick.tool, note, pick.records[0]!);
  });
  // Tools that are called but listed by no record: a schema from the calls.
  const inferred: string[] = [];
  const calls = new Map<string, { args: Record<string, unknown>[]; at: Loc }>();
  for (const { rec, at } of records) {
    for (const m of rec.messages) {
      if (m.role !== 'assistant') continue;
      for (const c of m.tool_calls ?? []) {
        if (byName.has(c.function.name)) continue;
        const e = calls.get(c.function.name) ?? { args: [], at };
        calls.set(c.function.name, e);
        const a = callArgs(c.function);
        if (a !== NOT_JSON && a !== null && typeof a === 'object' && !Array.isArray(a)) e.args.push(a as Record<string, unknown>);
      }
    }
  }
  for (const [name, { args, at }] of calls) {
    inferred.push(name);
    list.push({ type: 'function', function: { name, description: '', parameters: schemaFromCalls(args) } });
    note({
      file: at.file,
      line: at.line,
      path: `tools.${name}`,
      message: `tool "${name}" is called but no record lists it: written with a schema inferred from ${args.length} call${args.length === 1 ? '' : 's'} (check it)`,
    });
  }
  return { list, conflicts, inferred };
}

/** A harness tool's parameters must be an object schema: an untyped one gets `type: object`. */
function withObjectType(t: OpenAiTool, note: (p: Omit<Problem, 'severity'>) => void, at: Loc): OpenAiTool {
  const p = t.function.parameters as Record<string, unknown> | undefined;
  if (p === undefined || p.type === 'object') return t;
  if (p.type === undefined) {
    note({ file: at.file, line: at.line, path: `tools.${t.function.name}.parameters`, message: 'schema has no type: written with "type": "object"' });
    return { ...t, function: { ...t.function, parameters: { type: 'object', ...p } } };
  }
  return t;
}

function schemaFromCalls(args: Record<string, unknown>[]): Record<string, unknown> {
  const types = new Map<string, Set<string>>();
  for (const a of args) {
    for (const [k, v] of Object.entries(a)) {
      const s = types.get(k) ?? new Set<string>();
      types.set(k, s);
      s.add(v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v);
    }
  }
  const properties: Record<string, unknown> = {};
  for (const k of [...types.keys()].sort(cmp)) {
    const s = types.get(k)!;
    if (s.has('number')) s.delete('integer');
    properties[k] = s.size === 1 ? { type: [...s][0] } : {};
  }
  return { type: 'object', properties };
}
