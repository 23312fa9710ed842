import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, runHsaAsync } from './helpers/hsa.js';
import { removeTempDirs, tempDir } from './helpers/tmp.js';
import { distinctive, inOrder, layoutFree, leaksInBody, leaksInText, paragraphOfLines, tokens } from './helpers/output-scanner.js';

/**
 * The preservation proof on final output bytes: the real `hsa augment` over the travel-desk
 * fixture (headings that spell tool, skill and parameter names; a loader whose parameter is the
 * plain word `name`; skills full of code spans and JSON examples; procedures in skills and prompt
 * rules), many seeds, the default transform set, pooled and per-record states. What the written
 * JSONL says is read with an independent scanner (test/helpers/output-scanner.ts), never the engine's.
 */

const FIX = path.join(REPO, 'fixtures/fidelity');
const RUNS: { seed: string; pool?: string }[] = [
  { seed: '1' },
  { seed: '2' },
  { seed: '3' },
  { seed: '4' },
  { seed: '5', pool: '0' },
  { seed: '6', pool: '0' },
];

interface Json {
  [k: string]: unknown;
}
type Msg = {
  role: string;
  name?: string;
  content: string | null;
  tool_call_id?: string;
  tool_calls?: { id: string; function: { name: string; arguments: unknown } }[];
};
interface Rec {
  id: string;
  messages: Msg[];
  tools: { function: { name: string; description: string; parameters: Json } }[];
  meta: { source_id: string; transforms: { id: string; params: Json }[] };
}

const sources = new Map<string, Rec>(
  readFileSync(path.join(FIX, 'trajectories.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Rec)
    .map((r) => [r.id, r]),
);
const sourceTools = (JSON.parse(readFileSync(path.join(FIX, 'harness/tools/tools.json'), 'utf8')) as Rec['tools']).map((t) => ({
  name: t.function.name,
  params: Object.keys((t.function.parameters.properties as Json) ?? {}),
}));

const records: Rec[] = [];
let rejects = 0;

beforeAll(async () => {
  const runs = await Promise.all(
    RUNS.map(async (r) => {
      const out = path.join(tempDir('hsa-fidelity-'), 'out');
      const args = [
        'augment',
        '--no-gzip',
        '--harness',
        path.join(FIX, 'harness'),
        '-t',
        path.join(FIX, 'trajectories.jsonl'),
        '-o',
        out,
        '--seed',
        r.seed,
        '-k',
        '12',
        '--stages',
        'sft',
      ];
      if (r.pool) args.push('--state-pool', r.pool);
      const run = await runHsaAsync(args);
      expect(run.code, run.stderr).toBe(0);
      return out;
    }),
  );
  for (const out of runs) {
    records.push(...readJsonl(path.join(out, 'sft/part-00000.jsonl')));
    rejects += readJsonl(path.join(out, 'rejects/part-00000.jsonl')).length;
  }
}, 120_000);

afterAll(removeTempDirs);

function readJsonl(file: string): Rec[] {
  const text = readFileSync(file, 'utf8').trim();
  return text === '' ? [] : text.split('\n').map((l) => JSON.parse(l) as Rec);
}

/** Rename maps of a record's provenance. */
function renames(rec: Rec): { tools: Record<string, string>; params: Record<string, string>; all: Record<string, string> } {
  const get = (id: string) => (rec.meta.transforms.find((t) => t.id === id)?.params.renamed ?? {}) as Record<string, string>;
  const tools = get('tools.rename');
  const params = get('tools.param-rename');
  return { tools, params, all: { ...get('skills.rename'), ...tools, ...params, ...get('hooks.rename') } };
}

/** Old names gone from the record (renamed, and not some element's name again). */
function goneNames(all: Record<string, string>): string[] {
  const now = new Set(Object.values(all));
  return Object.keys(all).filter((k) => !now.has(k));
}

/** For each renamed parameter: every spelling of the tools that have it. */
function ownersOf(tools: Record<string, string>, params: Record<string, string>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const p of Object.keys(params)) {
    const set = new Set<string>();
    for (const t of sourceTools) if (t.params.includes(p)) set.add(t.name).add(tools[t.name] ?? t.name);
    out.set(p, set);
  }
  return out;
}

function argsOf(a: unknown): unknown {
  return typeof a === 'string' ? JSON.parse(a) : a;
}

function keysDeep(v: unknown, out: string[] = []): string[] {
  if (Array.isArray(v)) v.forEach((x) => keysDeep(x, out));
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) (out.push(k), keysDeep(x, out));
  return out;
}

function descriptions(v: unknown, out: string[] = []): string[] {
  if (Array.isArray(v)) v.forEach((x) => descriptions(x, out));
  else if (v !== null && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) k === 'description' && typeof x === 'string' ? out.push(x) : descriptions(x, out);
  return out;
}

/** Loaded skill bodies of a record with the source body of the same call. */
function loadedBodies(rec: Rec): { out: string; source: string }[] {
  const loader = renames(rec).tools.load_skill ?? 'load_skill';
  const ids = new Set(rec.messages.flatMap((m) => (m.tool_calls ?? []).filter((c) => c.function.name === loader).map((c) => c.id)));
  const src = sources.get(rec.meta.source_id)!;
  return rec.messages
    .filter((m) => m.role === 'tool' && ids.has(m.tool_call_id!))
    .map((m) => ({ out: m.content ?? '', source: src.messages.find((s) => s.role === 'tool' && s.tool_call_id === m.tool_call_id)!.content ?? '' }));
}

// Items of the lists the fixture declares free: seat-preferences is in skills.unordered_lists (its
// first list is free, its "How to confirm" list reads as steps); search-tips marks one list.
const FREE_ITEMS = new Set([
  '- Window seat.',
  '- Aisle seat.',
  '- Extra legroom (exit rows).',
  '- Seats together for a family.',
  '- Nearby airports (for example OPO instead of LIS).',
  '- A day earlier or later.',
  '- Rail for the first leg.',
]);

describe('fidelity on final output bytes (travel-desk fixture, default transforms, many seeds)', () => {
  it('writes every variant and rejects none', () => {
    expect(records.length).toBe(RUNS.length * 5 * 12);
    expect(rejects).toBe(0);
  });

  it('0 leaks of a renamed-away name anywhere the model reads, generated markup included', () => {
    const leaks: string[] = [];
    let renamedHeadingNames = 0;
    for (const rec of records) {
      const { tools, params, all } = renames(rec);
      const gone = goneNames(all);
      if (gone.length === 0) continue;
      if (gone.some((n) => ['cancel_pending_booking', 'search_flights', 'booking_id', 'refund-rules', 'name', 'lookup'].includes(n))) renamedHeadingNames++;
      const owners = ownersOf(tools, params);
      const now = new Set([...Object.values(all), ...rec.tools.map((t) => t.function.name)]);
      const at = (where: string, found: string[]) => found.forEach((n) => leaks.push(`${rec.id} ${where}: ${n}`));
      for (const t of rec.tools) {
        if (gone.includes(t.function.name)) at('tools', [t.function.name]);
        at(
          `tools.${t.function.name}.parameters`,
          keysDeep(t.function.parameters.properties).filter((k) => gone.includes(k)),
        );
        at(`tools.${t.function.name}.description`, leaksInText([t.function.description, ...descriptions(t.function.parameters)].join('\n'), gone, now));
      }
      const bodies = new Set(loadedBodies(rec).map((b) => b.out));
      rec.messages.forEach((m, i) => {
        const text = m.content ?? '';
        if (m.role === 'system' || (m.role === 'user' && m.name !== undefined)) at(`messages.${i}`, leaksInText(text, gone, now));
        if (m.name?.startsWith('hook:') && gone.includes(m.name.slice(5))) at(`messages.${i}.name`, [m.name]);
        if (m.role === 'assistant') {
          at(`messages.${i}`, leaksInText(text, gone, now));
          for (const c of m.tool_calls ?? []) {
            if (gone.includes(c.function.name)) at(`messages.${i}.call`, [c.function.name]);
            at(
              `messages.${i}.arguments`,
              keysDeep(argsOf(c.function.arguments)).filter((k) => gone.includes(k)),
            );
          }
        }
        if (m.role === 'tool' && bodies.has(text)) at(`messages.${i} (skill body)`, leaksInBody(text, gone, owners));
      });
    }
    expect(leaks.slice(0, 10)).toEqual([]);
    // The fixture's traps were exercised: names spelled by headings were renamed in many variants.
    expect(renamedHeadingNames).toBeGreaterThan(records.length / 3);
  });

  it('0 skill-body bytes changed that the plan does not explain', () => {
    const problems: string[] = [];
    let changedTokens = 0;
    for (const rec of records) {
      const { tools, params, all } = renames(rec);
      const owners = ownersOf(tools, params);
      for (const { out, source } of loadedBodies(rec)) {
        const a = layoutFree(source);
        const b = layoutFree(out);
        // Free lists may be reordered: their items are compared as multisets, in place of the list.
        const freeA = a.filter((l) => FREE_ITEMS.has(l)).sort();
        const freeB = b.filter((l) => FREE_ITEMS.has(l)).sort();
        if (JSON.stringify(freeA) !== JSON.stringify(freeB)) problems.push(`${rec.id}: free list items differ`);
        const restA = a.map((l) => (FREE_ITEMS.has(l) ? '- (free item)' : l));
        const restB = b.map((l) => (FREE_ITEMS.has(l) ? '- (free item)' : l));
        if (restA.length !== restB.length) {
          problems.push(`${rec.id}: ${restA.length} lines became ${restB.length}`);
          continue;
        }
        // Which paragraph of the source each line is in (for "beside its tool").
        const paraOf = paragraphOfLines(source);
        restA.forEach((x, k) => {
          const y = restB[k]!;
          if (x === y) return;
          const tx = tokens(x);
          const ty = tokens(y);
          if (tx.length !== ty.length) return void problems.push(`${rec.id}: line "${x}" became "${y}"`);
          tx.forEach((w, j) => {
            const v = ty[j]!;
            if (w === v) return;
            changedTokens++;
            if (all[w] !== v) return void problems.push(`${rec.id}: "${w}" became "${v}" in "${y}" (no such rename)`);
            if (distinctive(w)) return;
            const own = owners.get(w);
            const para = paraOf[k] ?? '';
            const explained = own ? [...own].some((t) => para.includes(t)) : x.includes(`\`${w}\``) || x.includes(`\`${w}(`);
            if (!explained) problems.push(`${rec.id}: plain "${w}" became "${v}" where the body does not refer to it: "${y}"`);
          });
        });
      }
    }
    expect(problems.slice(0, 10)).toEqual([]);
    expect(changedTokens).toBeGreaterThan(50);
  });

  it('keeps the unrelated examples of a skill intact when the loader parameter `name` is renamed', () => {
    let seen = 0;
    for (const rec of records) {
      const { params } = renames(rec);
      if (!params.name) continue;
      for (const { out } of loadedBodies(rec)) {
        if (!out.includes('Partner rail API')) continue;
        seen++;
        expect(out).toContain('"name": "Lisboa Oriente"');
        expect(out).toContain('`name` is the display name');
        expect(out).toContain('{"name": "bash"');
        expect(out).toContain('Each station object has a `name`');
      }
    }
    expect(seen).toBeGreaterThan(0);
  });

  it('0 reordered lists in skill bodies or ordered prompt sections; free ones do move', () => {
    const ordered = [
      // prompt: numbered, first/then/finally, Chinese steps, "1." mixed with "3)"
      ['Read the booking back', 'Ask for a reason', 'and the refund route'],
      ['First ask for the origin', 'Then call', 'Finally offer at most three'],
      ['First acknowledge the problem', 'Then say what you will do', 'Finally give the time frame'],
      ['首先确认行程', '然后说明费用', '最后询问是否需要发送行程单'],
      ['The names match the passports', 'The dates are in the right year', 'The email address was confirmed'],
    ];
    const bodyOrdered = [
      ['and read the current flight back', 'Offer the two best options', 'confirm the new flight'],
      ['First check the fare difference', 'Then check the baggage allowance', 'Finally tell the traveller'],
      ['首先确认原航班', '然后查询新航班', '最后发送新的行程单'],
      ['Unticketed bookings are cancelled', 'Ticketed fares follow', 'Taxes are always refundable'],
      ['is the display name', 'is a three-letter code', 'in responses is UTC', 'parameter of the export endpoint'],
      ['Header with the booking id.', 'One block per flight.', 'The fare rules.', 'A footer with'],
      ['First check the seat map', 'Then tell the traveller what', 'Finally note any fee'],
    ];
    const problems: string[] = [];
    let movedFree = 0;
    let movedRules = 0;
    for (const rec of records) {
      const prompt = rec.messages
        .filter((m) => m.role === 'system' || m.name === 'harness:preamble')
        .map((m) => m.content ?? '')
        .join('\n');
      for (const list of ordered) if (!inOrder(prompt, list)) problems.push(`${rec.id}: prompt list reordered: ${list[0]}`);
      if (!inOrder(prompt, ['Be brief', 'Give times', 'Spell out prices', 'Never paste raw'])) movedRules++;
      for (const { out } of loadedBodies(rec)) {
        for (const list of bodyOrdered)
          if (list.every((x) => out.includes(x)) && !inOrder(out, list)) problems.push(`${rec.id}: skill list reordered: ${list[0]}`);
        if (out.includes('Window seat.') && !inOrder(out, ['Window seat.', 'Aisle seat.', 'Extra legroom', 'Seats together'])) movedFree++;
      }
    }
    expect(problems.slice(0, 10)).toEqual([]);
    expect(movedFree).toBeGreaterThan(0);
    expect(movedRules).toBeGreaterThan(0);
  });
});
