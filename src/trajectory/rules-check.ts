import { normaliseUnit, restyleSection, sectionLists, sectionUnits } from '../harness/markdown.js';
import type { Harness } from '../harness/types.js';
import type { TextRewriter } from '../transform/text-rewriter.js';
import type { RewritePlan } from '../transform/plan.js';
import { textRewriterFor } from './rewrite.js';
import { ownMemo, pairMemo } from '../util/derived.js';
import { clip } from '../util/clip.js';

/**
 * Semantic transforms keep the prompt's rules: the multiset of normalised rules (list items and
 * paragraphs of prompt sections, before template filling, identifiers renamed) is the same in both
 * states, every ordered list (any list outside an unordered section, and every procedure) is the
 * same sequence, and every rule of the new state without template tags is visible in the state's rendered
 * sections. Both depend on the state and plan only, so they are computed once per state.
 */
export function checkRules(from: Harness, to: Harness, plan: RewritePlan): string[] {
  return pairMemo(RULES, plan, to, () => computeRules(from, to, plan));
}

const RULES = Symbol('hsa.checkRules');

function computeRules(from: Harness, to: Harness, plan: RewritePlan): string[] {
  const before = renamedUnits(from, plan);
  const after = stateUnits(to);
  const out: string[] = [];
  const count = (xs: readonly string[]) => xs.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map<string, number>());
  const cb = count(before);
  const ca = count(after);
  const listDiffs: string[] = [];
  for (const [u, n] of cb) {
    if ((ca.get(u) ?? 0) === n) continue;
    if (u.startsWith('list:')) listDiffs.push(u);
    else out.push(`rule ${clip(u)} appears ${ca.get(u) ?? 0}× (was ${n}×)`);
  }
  for (const [u, n] of ca) if (!cb.has(u) && !u.startsWith('list:')) out.push(`new rule ${clip(u)} (${n}×)`);
  // Same rules, but a list no longer in its order.
  if (out.length === 0) for (const u of listDiffs) out.push(`ordered list ${clip(u.slice(5).replace(/\u0001/g, ' | '))} lost its order`);
  const shown = normaliseUnit(to.sections.map((s) => (s.kind === 'text' ? (to.promptStyle ? restyleSection(s.text, to.promptStyle) : s.text) : '')).join('\n'));
  for (const u of new Set(after)) {
    if (u.includes('{{') || u.startsWith('list:')) continue;
    const body = u.slice(u.indexOf(':') + 1);
    if (!shown.includes(body)) out.push(`rule ${clip(u)} is not in the rendered prompt`);
  }
  return out;
}
/**
 * Rules of a state's text sections (titles excluded), sorted. Not kept: the rules check is cached
 * per state and plan, and the source state's own units are the only ones asked for again.
 */
function stateUnits(h: Harness, rename?: TextRewriter): string[] {
  if (!rename && h === lastUnits?.h) return lastUnits.units;
  const out: string[] = [];
  const unordered = new Set(h.unordered);
  for (const s of h.sections) {
    if (s.kind !== 'text') continue;
    const text = rename ? rename.rewrite(s.text) : s.text;
    for (const u of sectionUnits(text)) if (!u.startsWith('title:')) out.push(u);
    // Each list once more as a whole: in order, unless its section is unordered and it is no
    // procedure (numbered, or items that read as steps), when only its items count.
    for (const l of sectionLists(text)) {
      const free = unordered.has(s.id) && !l.procedure;
      out.push(`list:${(free ? [...l.items].sort() : l.items).join('\u0001')}`);
    }
  }
  out.sort();
  if (!rename) lastUnits = { h, units: out };
  return out;
}

let lastUnits: { h: Harness; units: string[] } | undefined;

function renamedUnits(from: Harness, plan: RewritePlan): string[] {
  const rename = textRewriterFor(plan, from);
  // A plan that changes no section text leaves the source state's own rules, worked out once for
  // all the plans from it (the variants of a record with its own harness).
  if (from.sections.every((s) => s.kind !== 'text' || rename.rewrite(s.text) === s.text)) {
    return ownMemo(OWN_UNITS, from, () => stateUnits(from));
  }
  return stateUnits(from, rename);
}

const OWN_UNITS = Symbol('hsa.ownUnits');
