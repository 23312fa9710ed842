import { SKILL_NAME_MAX, SKILL_NAME_PATTERNS, type OpenAiTool, type SkillNaming } from '../harness/types.js';
import { cmp } from '../problems.js';
import { textOf } from '../trajectory/types.js';
import { callArgs, NOT_JSON } from '../util/call-args.js';
import { splitPrompt } from './prompt-split.js';
import type { Seen } from './init-types.js';

// `hsa init`: skills inferred from the records (a loader tool and a catalog in the prompt).

interface InferredSkills {
  loader: { tool: string; argument: string };
  naming: SkillNaming;
  items: Map<string, { description: string; body: string }>;
  written: string[];
  title?: string;
  intro?: string;
  catalogText?: string;
  note?: string;
}

const MIN_SKILL_CHARS = 200;

/**
 * A skill loader is a tool every call of which has one string argument (the same one) naming an
 * id, and whose results are long texts (≥ 200 characters on average, with line breaks, not JSON);
 * when several tools fit, the first (named like `skill`, then the most distinct ids) whose ids
 * the prompt lists as a catalog wins. Each
 * id's body is its most common result (trimmed). Skills are written only when the system message
 * holds their catalog exactly as hsa renders it (`# Title`, an optional intro paragraph, then
 * `- id: description` lines in id order), since the harness renders the catalog into the prompt;
 * otherwise the loader stays a plain tool and the report says why.
 */
export function inferSkills(records: Seen[], tools: OpenAiTool[], system: string | undefined): InferredSkills {
  const empty = (note?: string): InferredSkills => ({
    loader: { tool: '', argument: '' },
    naming: 'identifier',
    items: new Map(),
    written: [],
    ...(note ? { note } : {}),
  });
  type Cand = { argument: string | null; ok: boolean; results: Map<string, Map<string, number>>; chars: number; n: number };
  const cands = new Map<string, Cand>();
  for (const { rec } of records) {
    const pending = new Map<string, { tool: string; id: string | null }>();
    for (const m of rec.messages) {
      if (m.role === 'assistant') {
        for (const c of m.tool_calls ?? []) {
          const cand = cands.get(c.function.name) ?? { argument: null, ok: true, results: new Map(), chars: 0, n: 0 };
          cands.set(c.function.name, cand);
          const a = callArgs(c.function);
          const entries = a !== NOT_JSON && a !== null && typeof a === 'object' && !Array.isArray(a) ? Object.entries(a) : [];
          const [k, v] = entries[0] ?? [];
          if (entries.length !== 1 || typeof v !== 'string' || (cand.argument !== null && cand.argument !== k)) cand.ok = false;
          else cand.argument = k!;
          pending.set(c.id, { tool: c.function.name, id: typeof v === 'string' ? v : null });
        }
      } else if (m.role === 'tool') {
        const p = pending.get(m.tool_call_id);
        if (!p || p.id === null) continue;
        const cand = cands.get(p.tool)!;
        const body = textOf(m.content).trim();
        cand.chars += body.length;
        cand.n++;
        // Skills are texts with line breaks, not data: a JSON result marks a data tool.
        if (!body.includes('\n') || isJsonText(body)) cand.ok = false;
        const counts = cand.results.get(p.id) ?? new Map<string, number>();
        cand.results.set(p.id, counts);
        counts.set(body, (counts.get(body) ?? 0) + 1);
      }
    }
  }
  const fits = [...cands.entries()].filter(([, c]) => c.ok && c.argument !== null && c.n > 0 && c.chars / c.n >= MIN_SKILL_CHARS);
  if (fits.length === 0) return empty();
  fits.sort(([a, x], [b, y]) => Number(/skill/i.test(b)) - Number(/skill/i.test(a)) || y.results.size - x.results.size || cmp(a, b));
  // The first candidate whose skills the prompt lists as a catalog; else the report names the first.
  const found = fits
    .map(([tool, cand]) => ({ tool, cand, ids: [...cand.results.keys()].sort(cmp) }))
    .find((f) => system !== undefined && findCatalog(system, f.ids) !== undefined);
  const { tool, cand, ids } = found ?? { tool: fits[0]![0], cand: fits[0]![1], ids: [...fits[0]![1].results.keys()].sort(cmp) };
  const loader = { tool, argument: cand.argument! };
  if (!tools.some((t) => t.function.name === tool)) return empty(`loader-like tool "${tool}" is not in the tools`);
  const seen = `tool "${tool}" loads ${ids.length} skill${ids.length === 1 ? '' : 's'} (${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', …' : ''})`;
  const catalog = found && system !== undefined ? findCatalog(system, ids) : undefined;
  if (!catalog) {
    return empty(
      `${seen}, but the system message has no skill catalog in the form hsa renders ("# Title", an optional intro, then "- id: description" lines in id order, listing every loaded skill); skills are not written and "${tool}" stays a plain tool, because the harness would render a catalog the logged prompt does not have`,
    );
  }
  const listed = catalog.entries.map(([id]) => id);
  const naming = (['agent-skills', 'snake', 'kebab', 'identifier'] as const).find((n) =>
    listed.every((id) => id.length <= SKILL_NAME_MAX && SKILL_NAME_PATTERNS[n].test(id)),
  );
  if (!naming)
    return empty(`${seen}, but not every id is a skill name (letters, digits, - and _, at most ${SKILL_NAME_MAX} characters): not written as skills`);
  const items = new Map<string, { description: string; body: string }>();
  for (const [id, description] of catalog.entries) {
    const counts = cand.results.get(id);
    let body = '';
    let top = 0;
    for (const [b, n] of counts ?? []) if (n > top) [body, top] = [b, n];
    items.set(id, { description, body });
  }
  const written = [...items.keys()];
  return { loader, naming, items, written, title: catalog.title, ...(catalog.intro !== undefined ? { intro: catalog.intro } : {}), catalogText: catalog.text };
}

function isJsonText(text: string): boolean {
  if (!/^[[{]/.test(text)) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** A section of the prompt that is exactly a rendered catalog listing (at least) `ids`. */
function findCatalog(system: string, ids: string[]): { title: string; intro?: string; entries: [string, string][]; text: string } | undefined {
  for (const { text } of splitPrompt(system).sections) {
    const m = /^# ([^\n]+)\n\n(?:([\s\S]*?)\n\n)?((?:- [^\n]*(?:\n|$))+)$/.exec(text);
    if (!m) continue;
    const entries: [string, string][] = [];
    for (const line of m[3]!.split('\n').filter((l) => l !== '')) {
      const e = /^- ([^\s:]+): (\S(?:.*\S)?)$/.exec(line);
      if (!e || e[2]!.length > 1024) break;
      entries.push([e[1]!, e[2]!]);
    }
    const listed = entries.map(([id]) => id);
    if (listed.length !== m[3]!.split('\n').filter((l) => l !== '').length) continue;
    if (listed.some((id, i) => i > 0 && cmp(listed[i - 1]!, id) >= 0)) continue;
    if (!ids.every((id) => listed.includes(id))) continue;
    const intro = m[2]?.trim();
    // The same lines catalogText renders.
    const lines = [`# ${m[1]}`, ''];
    if (intro) lines.push(intro, '');
    for (const [id, d] of entries) lines.push(`- ${id}: ${d}`);
    if (lines.join('\n') !== text) continue;
    return { title: m[1]!, ...(intro ? { intro } : {}), entries, text };
  }
  return undefined;
}
