import { splitWords } from '../words/identifier-words.js';
import { caseStyleOf, joinWords, type CaseStyle } from './identifiers.js';
import { TextKeyedCache } from '../util/bounded-cache.js';
import type { Rng } from './rng.js';
import { LazyWordContext, synonymsFor, wordContext, type WordContext } from '../words/senses.js';
import type { WordLists } from '../words/types.js';
import { dict } from '../util/dict.js';
import { OPENAI_TOOL_NAME } from '../harness/types.js';

export const NAME_STYLES = ['synonym', 'case', 'affix', 'opaque', 'mcp'] as const;
export type NameStyle = (typeof NAME_STYLES)[number];

export interface NamingRules {
  /** A name is valid for this namespace. */
  valid(name: string): boolean;
  /** Case styles allowed, in preference order. */
  cases: CaseStyle[];
  /** Prefix of opaque names (`t` → `t_3fa9`). */
  opaquePrefix: string;
}

/** Tool names as OpenAI allows them, in any case style (`tools.rename` and the direct state builder). */
export const TOOL_NAME_RULES: NamingRules = { valid: (n) => OPENAI_TOOL_NAME.test(n), cases: ['snake', 'camel', 'kebab', 'pascal'], opaquePrefix: 'tool' };

/**
 * Propose a new name for `old` in one of `styles`, valid for the namespace and not taken.
 * Styles are tried in random order; returns `null` when no style gives a fresh valid name.
 * `context` (the element's description, see `namingContext`) decides which sense of a word's
 * synonyms fit: with no cue of a sense in it, only sense-neutral synonyms are used.
 */
export function proposeName(
  old: string,
  styles: readonly NameStyle[],
  rules: NamingRules,
  rng: Rng,
  words: WordLists,
  taken: (name: string) => boolean,
  context?: WordContext,
): { name: string; style: NameStyle } | null {
  const base = nameWords(old);
  const ctx = context ?? wordContext([], base);
  const current = caseStyleOf(old);
  const style0: CaseStyle = rules.cases.includes(current) ? current : rules.cases[0]!;
  // Each word's synonyms, worked out on the first synonym attempt (they are the same for every attempt).
  const synonyms: { options?: string[][]; replaceable?: number[] } = {};
  for (const style of rng.shuffle(styles)) {
    for (let attempt = 0; attempt < 4; attempt++) {
      const name = candidate(style, base, style0, current, rules, rng, words, ctx, synonyms);
      if (name !== null && name !== old && rules.valid(name) && !taken(name) && (words.accept?.(name) ?? true)) return { name, style };
    }
  }
  return null;
}

function candidate(
  style: NameStyle,
  base: string[],
  caseStyle: CaseStyle,
  current: CaseStyle,
  rules: NamingRules,
  rng: Rng,
  words: WordLists,
  ctx: WordContext,
  synonyms: { options?: string[][]; replaceable?: number[] },
): string | null {
  switch (style) {
    case 'synonym': {
      const options = (synonyms.options ??= base.map((w) => synonymsFor(words, w, ctx)));
      const replaceable = (synonyms.replaceable ??= options.map((o, i) => (o.length ? i : -1)).filter((i) => i >= 0));
      if (replaceable.length === 0) return null;
      const must = rng.pick(replaceable);
      const out = base.map((w, i) => (i === must || (options[i]!.length && rng.chance(0.4)) ? rng.pick(options[i]!) : w));
      return joinWords(out.flatMap(nameWords), caseStyle);
    }
    case 'case': {
      const others = rules.cases.filter((c) => c !== current);
      if (others.length === 0 || base.length < 2) return null;
      return joinWords(base, rng.pick(others));
    }
    case 'affix': {
      const { prefixes, suffixes } = rules.opaquePrefix === 'tool' ? words : plainAffixes(words);
      const pre = suffixes.length === 0 || (prefixes.length > 0 && rng.chance(0.5));
      if ((pre ? prefixes : suffixes).length === 0) return null;
      const word = pre ? rng.pick(prefixes) : rng.pick(suffixes);
      return joinWords(pre ? [word, ...base] : [...base, word], caseStyle);
    }
    case 'opaque': {
      if (words.idStyles.length === 0) return null;
      const raw = fillIdStyle(rng.pick(words.idStyles), rules.opaquePrefix, rng);
      return joinWords(splitWords(raw), caseStyle === 'camel' || caseStyle === 'pascal' ? 'snake' : caseStyle);
    }
    case 'mcp': {
      if (words.servers.length === 0) return null;
      const server = rng.pick(words.servers);
      return `${server}__${joinWords(base, caseStyle)}`;
    }
  }
}

/**
 * Affix words that say "a callable thing" (`tool`, `fn`, `api`, `call`, `action`, `op`, `task`):
 * right for a tool's name (`search_flights_fn`), wrong for anything else — a parameter
 * `urgency_tool` or `phone_call` reads as naming a tool or an action, a skill `triage-api` as an API.
 */
const CALLABLE = new Set(['tool', 'tools', 'fn', 'func', 'function', 'api', 'call', 'action', 'op', 'task', 'method', 'endpoint']);
const plainAffixCache = new WeakMap<WordLists, { prefixes: string[]; suffixes: string[] }>();

/** The prefixes and suffixes of a word list fit for names other than tools' (parameters, skills, hooks). */
function plainAffixes(words: WordLists): { prefixes: readonly string[]; suffixes: readonly string[] } {
  let a = plainAffixCache.get(words);
  if (!a) {
    a = { prefixes: words.prefixes.filter((w) => !CALLABLE.has(w)), suffixes: words.suffixes.filter((w) => !CALLABLE.has(w)) };
    plainAffixCache.set(words, a);
  }
  return a;
}

const HEX = '0123456789abcdef';
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** An opaque id from a template: `{prefix}` the namespace's prefix, `{hex:N}`, `{digits:N}`, `{letters:N}` random characters. */
export function fillIdStyle(template: string, prefix: string, rng: Rng): string {
  return template.replace(/\{(prefix|hex|digits|letters)(?::(\d))?\}/g, (_, kind: string, n?: string) => {
    if (kind === 'prefix') return prefix;
    const chars = kind === 'hex' ? HEX : kind === 'digits' ? HEX.slice(0, 10) : LETTERS;
    let out = '';
    for (let i = 0; i < Number(n ?? 4); i++) out += chars[rng.int(chars.length)];
    return out;
  });
}

/** The context that decides synonym senses for an element: its descriptions and its name's words. */
export function namingContext(name: string, ...texts: (string | undefined)[]): WordContext {
  return new LazyWordContext(
    texts.filter((t): t is string => typeof t === 'string'),
    nameWords(name),
  );
}

// Names repeat: a state's names are its source's names, met again in every variant, and parameter
// names recur across tools and records. About 200k characters of names.
const wordsOfName = new TextKeyedCache<readonly string[]>(200_000);

/** splitWords of a name, cached by content (a shared array: callers only read it). */
export function nameWords(name: string): string[] {
  let w = wordsOfName.get(name);
  if (w === undefined) wordsOfName.set(name, (w = splitWords(name)));
  return w as string[];
}

/**
 * The names a rename may choose among: all of them, unless the record's own text mentions some
 * (TransformContext.keep). The same array when nothing is kept, so draws stay as they were.
 */
export function renameable(names: readonly string[], ctx: { keep?(name: string): boolean }): readonly string[] {
  const keep = ctx.keep;
  if (!keep || !names.some((n) => keep(n))) return names;
  return names.filter((n) => !keep(n));
}

/**
 * Pick `intensity` of `candidates` (at least one) and propose a new name for each: fresh, valid
 * for the namespace and distinct from one another; names the record's own text mentions are never
 * picked (see renameable). Returns old → new for the names that got one.
 */
export function renameSome(
  candidates: readonly string[],
  options: { intensity: number; styles: readonly NameStyle[] },
  rules: NamingRules,
  ctx: { rng: Rng; words: WordLists; isTaken(name: string): boolean; keep?(name: string): boolean },
  alsoTaken: (name: string) => boolean = () => false,
  contextOf?: (name: string) => WordContext,
): Record<string, string> {
  const map = dict();
  candidates = renameable(candidates, ctx);
  if (candidates.length === 0) return map;
  const chosen = ctx.rng.sample(candidates, Math.max(1, Math.round(candidates.length * options.intensity))).sort();
  const used = new Set<string>();
  for (const old of chosen) {
    const next = proposeName(old, options.styles, rules, ctx.rng, ctx.words, (n) => ctx.isTaken(n) || used.has(n) || alsoTaken(n), contextOf?.(old));
    if (!next) continue;
    map[old] = next.name;
    used.add(next.name);
  }
  return map;
}
