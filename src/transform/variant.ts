import type { z } from 'zod';
import { HsaError } from '../errors.js';
import { promptLayout } from '../harness/render.js';
import type { Harness } from '../harness/types.js';
import { hashState } from '../util/hash.js';
import type { AnyTransform, VariantMessage, VariantRecord, TransformContext } from './define.js';
import type { AppliedTransform, ResolvedTransform, Variant } from './variant-types.js';
import { directApplies, directVariant } from './direct.js';
import { composePlans, emptyPlan, type RewritePlan } from './plan.js';
import { createRng } from './rng.js';
import { eligibleIdentifiers } from './identifiers.js';
import { stateIdentifiers } from './state.js';
import type { WordLists } from '../words/types.js';

export type { AppliedTransform, ResolvedTransform, Variant } from './variant-types.js';

export class TransformRefusedError extends HsaError {
  constructor(message: string) {
    super('HSA_TRANSFORM_REFUSED', message, 2);
    this.name = 'TransformRefusedError';
  }
}

/**
 * Resolve a transform selection against the registry: `selection` maps transform ids to options
 * (or `true` for defaults, `false` to switch off). Unknown ids and invalid options are errors naming
 * the id and key; behavioural transforms are refused in rewrite mode.
 */
export function resolveTransforms(
  registry: Readonly<Record<string, AnyTransform>>,
  selection: Record<string, unknown> | undefined,
  mode: 'rewrite' | 'teacher',
): ResolvedTransform[] {
  const out: ResolvedTransform[] = [];
  const problems: string[] = [];
  for (const id of Object.keys(selection ?? {})) {
    if (!(id in registry)) problems.push(`transforms.${id}: unknown transform (run hsa transforms to list them)`);
  }
  for (const [id, def] of Object.entries(registry)) {
    const raw = selection === undefined ? (def.class === 'behavioural' ? false : true) : selection[id];
    if (raw === undefined || raw === false) continue;
    const parsed = def.options.safeParse(raw === true || raw === null ? {} : raw);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) problems.push(`transforms.${id}.${issue.path.join('.')}: ${issue.message}`);
      continue;
    }
    if (def.class === 'behavioural' && mode === 'rewrite') {
      problems.push(`transform ${id} is behavioural (it changes what the right trajectory is) and needs a teacher re-run; rewrite mode cannot use it`);
      continue;
    }
    out.push({ def, options: parsed.data as ResolvedTransform['options'] });
  }
  if (problems.length) throw new TransformRefusedError(problems.join('\n'));
  return out;
}

const recordWords = new WeakMap<object, Set<string>>();
const NO_WORDS: ReadonlySet<string> = new Set();

/** Plain text of a message content (the same as trajectory/types.ts's `textOf`). */
function textOf(content: VariantMessage['content']): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  return content.map((p) => p.text).join('');
}

/** Identifier-like words of a record's text, so new names never collide with words already there. */
function wordsOf(rec: VariantRecord | undefined): ReadonlySet<string> {
  if (!rec) return NO_WORDS;
  const hit = recordWords.get(rec);
  if (hit) return hit;
  const words = new Set<string>();
  const add = (t: string) => {
    for (const m of t.matchAll(/[A-Za-z][A-Za-z0-9_-]*/g)) words.add(m[0]);
  };
  for (const m of rec.messages) {
    if (m.role === 'tool' || m.role === 'user' || m.role === 'assistant') add(textOf(m.content));
    if (m.role === 'assistant') for (const c of m.tool_calls ?? []) add(c.function.arguments);
  }
  recordWords.set(rec, words);
  return words;
}

const NOTHING_KEPT = new Set<string>();

/** A map entry that maps a name to itself (composePlans drops those). */
function hasIdentityEntries(p: RewritePlan): boolean {
  for (const m of [p.tools, p.skills, p.hooks, p.sections]) for (const k of Object.keys(m)) if (m[k] === k) return true;
  return false;
}
/** The plan of a transform that changes only the state (composePlans never changes its inputs). */
const NO_EDITS: RewritePlan = Object.freeze(emptyPlan());

/**
 * Names the record's own prompt text mentions (the text around the harness's sections, kept
 * verbatim under `--system-prompt locate`): renames leave them, or the variant would show them
 * under their old names. A tool whose source spelling (a dotted name) is mentioned counts too.
 */
function keptNames(source: Harness, rec: VariantRecord | undefined): ReadonlySet<string> {
  const layout = rec ? promptLayout(rec.messages[0]) : undefined;
  if (layout?.kind !== 'slots') return NOTHING_KEPT;
  const kept = new Set<string>();
  for (const text of layout.outer) for (const name of eligibleIdentifiers(text)) kept.add(name);
  for (const t of source.tools) if (t.sourceName !== t.name && kept.has(t.sourceName)) kept.add(t.name);
  // A source name that is no identifier token (`Get Weather`) is never among them: looked for as written.
  for (const t of source.tools)
    if (t.sourceName !== t.name && !kept.has(t.name) && /[^\w.:/-]/.test(t.sourceName) && layout.outer.some((x) => x.includes(t.sourceName))) kept.add(t.name);
  return kept;
}

/**
 * Sample one harness state for (source record, variant index): every transform in registry order,
 * each with its own generator seeded from (seed, source id, variant index, transform id@version),
 * applied with its probability. Returns the state, the composed plan and what was applied.
 */
export function sampleVariant(
  source: Harness,
  record: VariantRecord | undefined,
  transforms: readonly ResolvedTransform[],
  seed: string | number,
  variantIndex: number,
  words: WordLists,
  sourceId: string = record?.id ?? '',
): Variant {
  let state = source;
  const start = emptyPlan();
  let plan = start;
  const applied: AppliedTransform[] = [];
  const sourceNames = stateIdentifiers(source);
  const recWords = wordsOf(record);
  const kept = keptNames(source, record);
  const keep = kept.size > 0 ? (name: string) => kept.has(name) : undefined;
  if (directApplies(source, transforms)) {
    const isTaken = (name: string) => sourceNames.has(name) || recWords.has(name);
    const direct = directVariant(source, transforms, seed, variantIndex, words, sourceId, keep ? { isTaken, keep } : { isTaken });
    if (direct) return direct;
  }
  for (const t of transforms) {
    if (t.def.appliesTo && !t.def.appliesTo(state)) continue;
    const rng = createRng(seed, sourceId, variantIndex, `${t.def.id}@${t.def.version}`);
    if (!rng.chance(t.options.p)) continue;
    const current = state;
    const options = t.options as z.output<typeof t.def.options>;
    const isTaken = (name: string) => sourceNames.has(name) || recWords.has(name) || stateIdentifiers(current).has(name);
    // (Literals rather than spreads: a spread in an object literal is a runtime call, per transform per state.)
    const ctx: TransformContext<typeof options> = record
      ? { options, rng, words, source, plan, record, isTaken }
      : { options, rng, words, source, plan, isTaken };
    if (keep !== undefined) ctx.keep = keep;
    const result = t.def.apply(state, ctx);
    if (!result) continue;
    state = result.state;
    const step = result.plan ? { ...emptyPlan(), ...result.plan } : NO_EDITS;
    // The first plan composed onto the empty one is that plan (composePlans would copy it entry for
    // entry), unless it holds identity entries, which composing drops.
    plan = plan === start && step !== NO_EDITS && !hasIdentityEntries(step) ? step : composePlans(plan, step);
    applied.push({ id: t.def.id, version: t.def.version, class: t.def.class, params: result.params });
  }
  return { state, plan, applied, stateHash: hashState(state) };
}
