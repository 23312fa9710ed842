import type { Harness, Hook, JsonSchema, Section, Skill, Tool } from '../harness/types.js';
import { catalogText } from '../harness/render.js';
import { cmp } from '../problems.js';
import { dice, nameSimilarity, nameWords, round2, textSimilarity, textWords } from './similarity.js';
import { bestParams, enumOf, mapObject, optionValues, props, requiredOf, type ParamResult } from './param-match.js';
import { PLAN_FORMAT, type CallMapping, type MigrationPlan, type NamedEntry, type SectionEntry, type ToolEntry } from './types.js';

/** Below this a tool, skill or hook pair is not a match (the element is removed/added instead). */
export const MATCH_THRESHOLD = 0.35;

/**
 * Infer the plan between two harness versions: tools (by name, description and parameter overlap,
 * with wrap/unwrap shapes and splits by an enum parameter), parameters, enum values, skills, hooks
 * and prompt sections. Deterministic: every choice is a greedy pass over pairs sorted by score,
 * then by names.
 */
export function inferPlan(a: Harness, b: Harness): MigrationPlan {
  const tools = matchTools(
    a.tools.filter((t) => !t.distractor),
    b.tools.filter((t) => !t.distractor),
  );
  const skills = matchNamed(
    a.skills.filter((s) => !s.distractor),
    b.skills.filter((s) => !s.distractor),
    skillScore,
  );
  const hooks = matchNamed(a.hooks, b.hooks, hookScore);
  const sections = matchSections(a, b);
  return {
    format: PLAN_FORMAT,
    from: { harness: a.name, version: a.version },
    to: { harness: b.name, version: b.version },
    tools: tools.entries,
    skills: skills.entries,
    hooks: hooks.entries,
    sections: sections.entries,
    added: { tools: tools.added, skills: skills.added, hooks: hooks.added, sections: sections.added },
    proposals: [],
  };
}

// ---------------------------------------------------------------------------------------------
// tools

interface Scored {
  score: number;
  evidence: string[];
  map: CallMapping;
}

function matchTools(as: readonly Tool[], bs: readonly Tool[]): { entries: ToolEntry[]; added: string[] } {
  const byName = new Map(bs.map((t) => [t.name, t]));
  const taken = new Set<string>();
  const done = new Map<string, ToolEntry>();
  // Splits first: a tool whose enum parameter's values each name a new tool would otherwise be
  // matched 1:1 with whichever of them scores best.
  for (const t of as) {
    if (byName.has(t.name)) continue;
    const split = findSplit(t, bs);
    if (!split) continue;
    done.set(t.name, split);
    for (const c of Object.values(split.split!.cases)) if (c) taken.add(c.to);
  }
  // Merges next: several tools of A became one of B, chosen by the value of a new enum parameter.
  const aNames = new Set(as.map((t) => t.name));
  for (const b of bs) {
    if (taken.has(b.name) || aNames.has(b.name)) continue;
    const merged = findMerge(
      b,
      as.filter((t) => !done.has(t.name) && !byName.has(t.name)),
    );
    if (!merged) continue;
    for (const e of merged) done.set(e.from, e);
    taken.add(b.name);
  }
  const pairs: { a: Tool; b: Tool; s: Scored }[] = [];
  for (const a of as) {
    if (done.has(a.name)) continue;
    for (const b of bs) {
      if (taken.has(b.name)) continue;
      const s = scoreTools(a, b);
      if (s.score >= MATCH_THRESHOLD) pairs.push({ a, b, s });
    }
  }
  pairs.sort((x, y) => y.s.score - x.s.score || cmp(x.a.name, y.a.name) || cmp(x.b.name, y.b.name));
  for (const { a, b, s } of pairs) {
    if (done.has(a.name) || taken.has(b.name)) continue;
    done.set(a.name, { from: a.name, map: s.map, score: s.score, evidence: s.evidence });
    taken.add(b.name);
  }
  const entries = as.map((a) => done.get(a.name) ?? { from: a.name, score: 0, evidence: [removedEvidence(a, bs, taken)] });
  return { entries, added: bs.filter((b) => !taken.has(b.name)).map((b) => b.name) };
}

function removedEvidence(a: Tool, bs: readonly Tool[], taken: ReadonlySet<string>): string {
  let best: { name: string; score: number } | null = null;
  for (const b of bs) {
    if (taken.has(b.name)) continue;
    const s = scoreTools(a, b).score;
    if (!best || s > best.score) best = { name: b.name, score: s };
  }
  return best
    ? `removed: no tool of B scores ${MATCH_THRESHOLD} (closest free one: ${best.name}, ${round2(best.score)})`
    : 'removed: no tool of B is left to match';
}

/** Name, description and parameters of two tools, with the best shape edit between their schemas. */
export function scoreTools(a: Tool, b: Tool): Scored {
  const name = nameSimilarity(a.name, b.name);
  const desc = textSimilarity(a.description, b.description);
  const p = bestParams(a.parameters, b.parameters);
  const score = round2(0.3 * name + 0.35 * desc + 0.35 * p.score);
  const evidence = [`name ${round2(name)}, description ${round2(desc)}, parameters ${round2(p.score)}`, ...p.evidence];
  return { score, evidence, map: { to: b.name, ...(p.shape ? { shape: p.shape } : {}), params: p.params, values: p.values, fill: {}, needs: p.needs } };
}

/**
 * A tool split into several: a string enum parameter of A's tool whose values each name a B tool
 * (the value's words in the B tool's name) whose description resembles A's. Each value's calls go
 * to its tool, the enum parameter dropped and the rest mapped to that tool's parameters.
 */
function findSplit(a: Tool, bs: readonly Tool[]): ToolEntry | null {
  const pa = props(a.parameters);
  for (const by of Object.keys(pa)) {
    const values = enumOf(pa[by]!);
    if (!values || values.length < 2) continue;
    const cases: Record<string, CallMapping | null> = {};
    const evidence: string[] = [];
    const used = new Set<string>();
    let found = 0;
    let total = 0;
    const rest: JsonSchema = {
      ...a.parameters,
      properties: Object.fromEntries(Object.entries(pa).filter(([k]) => k !== by)),
      required: requiredOf(a.parameters).filter((k) => k !== by),
    };
    for (const v of values) {
      const words = nameWords(v);
      let best: { b: Tool; desc: number } | null = null;
      for (const b of bs) {
        if (used.has(b.name) || b.name === a.name) continue;
        const bw = nameWords(b.name);
        if (![...words].every((w) => bw.has(w))) continue;
        const desc = textSimilarity(a.description, b.description);
        if (desc < 0.3) continue;
        if (!best || desc > best.desc || (desc === best.desc && cmp(b.name, best.b.name) < 0)) best = { b, desc };
      }
      if (!best) {
        cases[v] = null;
        evidence.push(`${by} = "${v}": no tool of B is named for it (its calls cannot be carried)`);
        continue;
      }
      used.add(best.b.name);
      found++;
      const p = mapObject(rest, best.b.parameters);
      total += 0.5 * best.desc + 0.5 * p.score;
      cases[v] = { to: best.b.name, params: p.params, values: p.values, fill: {}, needs: p.needs };
      evidence.push(
        `${by} = "${v}" → ${best.b.name} (its name holds "${v}", description ${round2(best.desc)}, parameters ${round2(p.score)})`,
        ...p.evidence.map((e) => `${best.b.name}: ${e}`),
      );
    }
    if (found >= 2)
      return {
        from: a.name,
        split: { by, cases },
        score: round2(total / found),
        evidence: [`split by "${by}": its values name ${found} tools of B`, ...evidence],
      };
  }
  return null;
}

/**
 * Tools merged into one: a string enum parameter of B's tool whose values each name one of A's
 * tools (the value's and B's tool's words against the A tool's name, Dice ≥ 0.5) whose parameters
 * are B's other ones (≥ 0.3). Each A tool maps to B's tool with the enum parameter filled with its
 * value — the value that tells, on the way back, which A tool a call was.
 */
function findMerge(b: Tool, free: readonly Tool[]): ToolEntry[] | null {
  const pb = props(b.parameters);
  for (const by of Object.keys(pb)) {
    if (!requiredOf(b.parameters).includes(by)) continue;
    const values = optionValues(pb[by]!);
    if (!values || values.length < 2) continue;
    const rest: JsonSchema = {
      ...b.parameters,
      properties: Object.fromEntries(Object.entries(pb).filter(([k]) => k !== by)),
      required: requiredOf(b.parameters).filter((k) => k !== by),
    };
    const context = `${b.description} ${String(pb[by]!.description ?? '')}`;
    const pairs: { a: Tool; v: string; score: number; name: number; p: ParamResult; desc: number }[] = [];
    for (const v of values) {
      const own = nameWords(v);
      const words = new Set([...own, ...nameWords(b.name)]);
      for (const a of free) {
        const aw = nameWords(a.name);
        // The value itself must name the tool (a word of it in the tool's name), not only B's name.
        if (![...own].some((w) => aw.has(w))) continue;
        const name = dice(aw, words);
        if (name < 0.5) continue;
        const p = mapObject(a.parameters, rest);
        if (p.score < 0.3) continue;
        const desc = textSimilarity(a.description, context);
        pairs.push({ a, v, score: 0.5 * name + 0.3 * p.score + 0.2 * desc, name, p, desc });
      }
    }
    pairs.sort((x, y) => y.score - x.score || cmp(x.a.name, y.a.name) || cmp(x.v, y.v));
    const usedA = new Set<string>();
    const usedV = new Set<string>();
    const out: ToolEntry[] = [];
    for (const x of pairs) {
      if (usedA.has(x.a.name) || usedV.has(x.v)) continue;
      usedA.add(x.a.name);
      usedV.add(x.v);
      out.push({
        from: x.a.name,
        map: { to: b.name, params: x.p.params, values: x.p.values, fill: { [by]: x.v }, needs: x.p.needs },
        score: round2(x.score),
        evidence: [
          `merged into ${b.name} with ${by} = "${x.v}" (name ${round2(x.name)}, parameters ${round2(x.p.score)}, description ${round2(x.desc)})`,
          ...x.p.evidence,
        ],
      });
    }
    if (out.length >= 1) return out;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// skills and hooks

function skillScore(a: Skill, b: Skill): { score: number; evidence: string[] } {
  const name = nameSimilarity(a.id, b.id);
  const desc = textSimilarity(a.description, b.description);
  const body = textSimilarity(a.body, b.body);
  const edited = a.body === b.body ? 'body unchanged' : 'body edited';
  return {
    score: round2(0.3 * name + 0.3 * desc + 0.4 * body),
    evidence: [`name ${round2(name)}, description ${round2(desc)}, body ${round2(body)} (${edited})`],
  };
}

function hookScore(a: Hook, b: Hook): { score: number; evidence: string[] } {
  if (a.event !== b.event) return { score: 0, evidence: [] };
  const name = nameSimilarity(a.id, b.id);
  const text = textSimilarity(`${a.description ?? ''} ${a.feedback}`, `${b.description ?? ''} ${b.feedback}`);
  const checks =
    JSON.stringify(a.checks) === JSON.stringify(b.checks) ? 1 : dice(new Set(a.checks.map((c) => c.type)), new Set(b.checks.map((c) => c.type))) * 0.5;
  return {
    score: round2(0.3 * name + 0.3 * text + 0.4 * checks),
    evidence: [
      `event ${a.event}, name ${round2(name)}, description and feedback ${round2(text)}, checks ${checks === 1 ? 'the same' : round2(checks)}${a.feedback === b.feedback ? '' : ' (feedback reworded)'}`,
    ],
  };
}

function matchNamed<T extends { id: string }>(
  as: readonly T[],
  bs: readonly T[],
  score: (a: T, b: T) => { score: number; evidence: string[] },
): { entries: NamedEntry[]; added: string[] } {
  const pairs: { a: T; b: T; s: { score: number; evidence: string[] } }[] = [];
  for (const a of as)
    for (const b of bs) {
      const s = score(a, b);
      if (s.score >= MATCH_THRESHOLD) pairs.push({ a, b, s });
    }
  pairs.sort((x, y) => y.s.score - x.s.score || cmp(x.a.id, y.a.id) || cmp(x.b.id, y.b.id));
  const done = new Map<string, NamedEntry>();
  const taken = new Set<string>();
  for (const { a, b, s } of pairs) {
    if (done.has(a.id) || taken.has(b.id)) continue;
    done.set(a.id, { from: a.id, to: b.id, score: s.score, evidence: s.evidence });
    taken.add(b.id);
  }
  const entries = as.map((a) => done.get(a.id) ?? { from: a.id, to: null, score: 0, evidence: [`removed: nothing in B scores ${MATCH_THRESHOLD}`] });
  return { entries, added: bs.filter((b) => !taken.has(b.id)).map((b) => b.id) };
}

// ---------------------------------------------------------------------------------------------
// prompt sections

/**
 * The units of a section's text (heading lines out): sentences of its paragraphs and list items, as
 * word sets — a flat policy cut into sections moves sentence by sentence.
 */
function paragraphs(h: Harness, s: Section): { text: string; words: Set<string> }[] {
  const text = s.kind === 'catalog' ? catalogText(h) : s.text;
  return text
    .split(/\n\s*\n|\n(?=\s*(?:[-*+•]|\d+[.)])\s)/)
    .map((p) =>
      p
        .split('\n')
        .filter((l) => !/^\s*#{1,6}\s/.test(l))
        .join('\n')
        .trim(),
    )
    .flatMap((p) => p.split(/(?<=[.!?])\s+(?=[A-Z`"'(])/))
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .map((p) => ({ text: p, words: textWords(p) }));
}

/**
 * Sections by content: each sentence of A goes to the B section holding its most similar
 * sentence (Dice ≥ 0.5), so a flat file cut into sections maps to every section that took a part.
 * The skill catalogs (generated) match each other.
 */
function matchSections(a: Harness, b: Harness): { entries: SectionEntry[]; added: string[] } {
  const bParas = b.sections.flatMap((s) => (s.kind === 'catalog' ? [] : paragraphs(b, s).map((p) => ({ ...p, section: s.id }))));
  const hit = new Set<string>();
  const entries: SectionEntry[] = a.sections.map((s) => {
    if (s.kind === 'catalog') {
      const c = b.sections.find((x) => x.kind === 'catalog');
      if (c) hit.add(c.id);
      return c
        ? { from: s.id, to: [c.id], score: 1, evidence: ['the generated skill catalog'] }
        : { from: s.id, to: [], score: 0, evidence: ['removed: B has no skill catalog'] };
    }
    const ps = paragraphs(a, s);
    const targets = new Set<string>();
    let same = 0;
    let edited = 0;
    let sum = 0;
    for (const p of ps) {
      let best: { section: string; s: number; text: string } | null = null;
      for (const q of bParas) {
        const d = dice(p.words, q.words);
        if (!best || d > best.s) best = { section: q.section, s: d, text: q.text };
      }
      if (best && best.s >= 0.5) {
        targets.add(best.section);
        sum += best.s;
        if (best.text === p.text) same++;
        else edited++;
      }
    }
    const to = b.sections.filter((x) => targets.has(x.id)).map((x) => x.id);
    for (const t of to) hit.add(t);
    const n = ps.length;
    const lost = n - same - edited;
    const evidence = to.length
      ? [`${same + edited} of ${n} sentences found in ${to.join(', ')} (${same} as written, ${edited} edited${lost ? `, ${lost} not found` : ''})`]
      : [`removed: none of its ${n} sentences is in B`];
    return { from: s.id, to, score: round2(n ? sum / n : 0), evidence };
  });
  return { entries, added: b.sections.filter((x) => !hit.has(x.id)).map((x) => x.id) };
}
