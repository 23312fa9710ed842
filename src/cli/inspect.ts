import { readFile } from 'node:fs/promises';
import { UnreadableInputError } from '../errors.js';
import { loadHarness } from '../harness/load.js';
import { renderPrompt, renderTools } from '../harness/render.js';
import { templateSlots } from '../harness/template.js';
import { formatProblem, hasErrors, sortProblems } from '../problems.js';
import type { Io } from './io.js';

export interface InspectOptions {
  harness: string;
  render?: boolean;
  context?: string;
  json?: boolean;
}

/**
 * `hsa inspect`: what a harness holds (skills by kind, tools, hooks by event, sections, template
 * variables), or with --render exactly the rendered system prompt for a context.
 */
export async function inspectCommand(opts: InspectOptions, io: Io): Promise<number> {
  const loaded = await loadHarness(opts.harness);
  const h = loaded.harness;
  if (!h || hasErrors(loaded.problems)) {
    for (const p of sortProblems(loaded.problems)) io.err(`${formatProblem(p)}\n`);
    io.err(`cannot inspect ${opts.harness}: the harness has errors (run hsa validate)\n`);
    return 1;
  }
  let context: unknown = {};
  if (opts.context !== undefined) {
    let text: string;
    try {
      text = await readFile(opts.context, 'utf8');
    } catch {
      throw new UnreadableInputError(`${opts.context}: cannot read`);
    }
    try {
      context = JSON.parse(text);
    } catch (e) {
      io.err(`${opts.context}: not valid JSON: ${(e as Error).message}\n`);
      return 1;
    }
  }
  if (opts.render) {
    let rendered;
    try {
      rendered = renderPrompt(h, context);
    } catch (e) {
      io.err(`${opts.context ?? '(empty context)'}: ${(e as Error).message}\n`);
      return 1;
    }
    if (opts.json) io.out(`${JSON.stringify({ system: rendered.system, preamble: rendered.preamble, tools: renderTools(h) }, null, 2)}\n`);
    else io.out(rendered.system);
    return 0;
  }
  const variables = new Set<string>(Object.keys(h.variables));
  for (const s of h.sections) for (const v of templateSlots(s.text)) variables.add(v);
  const summary = {
    harness: { name: h.name, version: h.version },
    skills: {
      total: h.skills.length,
      reply: h.skills.filter((s) => s.kind === 'reply').length,
      strategy: h.skills.filter((s) => s.kind === 'strategy').length,
      ids: h.skills.map((s) => s.id),
    },
    tools: { total: h.tools.length, names: h.tools.map((t) => t.name) },
    hooks: {
      total: h.hooks.length,
      byEvent: Object.fromEntries(
        (['pre_inference', 'pre_tool_use', 'post_tool_use', 'stop'] as const).map((e) => [e, h.hooks.filter((k) => k.event === e).map((k) => k.id)]),
      ),
    },
    sections: { order: h.sections.map((s) => s.id), pinned: h.pinned, unordered: h.unordered, catalog: h.catalog.id },
    variables: [...variables].sort(),
    skillLoader: h.skillLoader,
  };
  if (opts.json) {
    io.out(`${JSON.stringify(summary, null, 2)}\n`);
    return 0;
  }
  const lines = [
    `harness   ${h.name} ${h.version}`,
    `skills    ${summary.skills.total} (${summary.skills.reply} reply, ${summary.skills.strategy} strategy)${h.skillLoader ? ` loaded by ${h.skillLoader.tool}(${h.skillLoader.argument})` : ''}`,
    `tools     ${summary.tools.total}: ${summary.tools.names.join(', ')}`,
    `hooks     ${summary.hooks.total}${Object.entries(summary.hooks.byEvent)
      .filter(([, ids]) => ids.length)
      .map(([e, ids]) => `\n  ${e.padEnd(14)} ${ids.join(', ')}`)
      .join('')}`,
    `sections  ${summary.sections.order.length}: ${summary.sections.order
      .map(
        (id) => `${id}${h.pinned.includes(id) ? ' (pinned)' : ''}${h.unordered.includes(id) ? ' (unordered)' : ''}${id === h.catalog.id ? ' (catalog)' : ''}`,
      )
      .join(', ')}`,
    `variables ${summary.variables.length}: ${summary.variables.join(', ')}`,
  ];
  for (const p of sortProblems(loaded.problems)) io.err(`${formatProblem(p)}\n`);
  io.out(`${lines.join('\n')}\n`);
  return 0;
}
