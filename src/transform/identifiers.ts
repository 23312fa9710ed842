import { TextKeyedCache } from '../util/bounded-cache.js';
import { isDistinctive, splitWords } from '../words/identifier-words.js';
/**
 * Identifiers in text: the words and naming style of a name, which names count in prose, and the
 * token tables of texts (cached) that TextRewriter (text-rewriter.ts) rewrites.
 */

/**
 * Code spans and JSON keys (`"name":`), where every identifier is rewritten, and template slots
 * (`{{path}}`), which name context data and are never rewritten. A tool list written out as JSON in
 * a prompt (Hermes-style `<tools>[…]</tools>`) names its parameters in `"required": [...]` arrays
 * and its tools as `"name": "…"` values too: those strings are code as well, or a renamed plain
 * parameter or tool would stay behind in them.
 */
const SPANS = /`[^`\n]+`|"required"\s*:\s*\[[^\][{}]*\]|"[A-Za-z_][A-Za-z0-9_-]*"(?=\s*:)|"(?<="name"\s*:\s*")[A-Za-z_][A-Za-z0-9_-]*"|\{\{[^{}\n]*\}\}/g;

/**
 * A name found in prose too: a distinctive one, a namespaced one (`plants.find`, see pushCompounds),
 * or one that is no identifier token and not only lower-case words (`Get Weather`, `Get Prices (v2)`;
 * `get weather` is plain words, found only in code).
 */
export function countsInProse(name: string): boolean {
  return isDistinctive(name) || /[.:/]/.test(name) || (!TOKEN_NAME.test(name) && /[^a-z ]/.test(name));
}

/**
 * True when a name derived from prose (an XML tag, a slug) spells one of `names`: for a name of
 * several words, its words stand together in the derived name's words, in any case style
 * (`cancel_pending_order` in `how_to_cancel_pending_order`, `cancelPendingOrder` in
 * `cancel_pending_order`); a one-word name only when it is the whole derived name.
 */
export function spellsName(derived: string, names: Iterable<string>): boolean {
  const words = splitWords(derived);
  const whole = words.join('_');
  for (const name of names) {
    const nw = splitWords(name);
    if (nw.length === 0) continue;
    if (nw.length === 1) {
      if (whole === nw[0]) return true;
      continue;
    }
    const joined = nw.join('_');
    if (whole === joined || whole.startsWith(`${joined}_`) || whole.endsWith(`_${joined}`) || whole.includes(`_${joined}_`)) return true;
  }
  return false;
}

export type CaseStyle = 'snake' | 'camel' | 'pascal' | 'kebab';

export function joinWords(words: readonly string[], style: CaseStyle): string {
  const cap = (w: string) => (w === '' ? w : w[0]!.toUpperCase() + w.slice(1));
  switch (style) {
    case 'snake':
      return words.join('_');
    case 'kebab':
      return words.join('-');
    case 'camel':
      return words.map((w, i) => (i === 0 ? w : cap(w))).join('');
    case 'pascal':
      return words.map(cap).join('');
  }
}

/** The case style an identifier is written in (snake when it cannot tell). */
export function caseStyleOf(name: string): CaseStyle {
  if (name.includes('-')) return 'kebab';
  if (/^[A-Z]/.test(name) && /[a-z]/.test(name)) return 'pascal';
  if (/[a-z][A-Z]/.test(name)) return 'camel';
  return 'snake';
}

/**
 * A text cut into identifier tokens (maximal runs of identifier characters), each marked with
 * where it stands: plain prose, a code span or JSON key (`code`), or a template slot (never
 * rewritten). Matching a key to a whole token is exactly "token-boundary aware": `item_qa` is
 * never found inside `item_qa_v2`. Texts are shared between variants, so analyses are cached.
 */
export interface Tokenized {
  starts: number[];
  ends: number[];
  words: string[];
  code: boolean[];
  /** Tokens a rewrite may touch: distinctive ones in prose, every one in code. */
  eligible: Set<string>;
}

// About 1.5 M characters: the harness texts of a few variants; token tables cost a few times that.
const tokenCache = new TextKeyedCache<Tokenized>(1_500_000);
export const IDENT = /[A-Za-z0-9_-]+/g;
/** See TextRewriter.mayMention: about the work of compiling and first running a ~20-key expression. */
export const INCLUDES_BUDGET = 200_000;

/**
 * A record's own texts (assistant turns, hook feedback) are met once per variant of that record
 * and never again: they go to a small cache that is cleared often, so they die young instead of
 * filling the state-text cache (which made every young-generation collection copy them).
 */
const recordTokenCache = new Map<string, Tokenized>();
const RECORD_TEXTS = 32;
/** Shorter texts are tokenised again when met again (cheaper than keeping them). */
const CACHED_LENGTH = 64;

export type TextScope = 'state' | 'record';

/** The token table of a text kept in the cache of its scope, if any (never for texts shorter than CACHED_LENGTH). */
export function cachedTokens(text: string, scope: TextScope): Tokenized | undefined {
  if (text.length < CACHED_LENGTH) return undefined;
  return scope === 'state' ? tokenCache.get(text) : recordTokenCache.get(text);
}

export function tokenize(text: string, scope: TextScope = 'state'): Tokenized {
  if (text.length < CACHED_LENGTH) return computeTokens(text);
  if (scope === 'record') {
    const hit = recordTokenCache.get(text);
    if (hit) return hit;
    const t = computeTokens(text);
    if (recordTokenCache.size >= RECORD_TEXTS) recordTokenCache.clear();
    recordTokenCache.set(text, t);
    return t;
  }
  const hit = tokenCache.get(text);
  if (hit) return hit;
  const t = computeTokens(text);
  tokenCache.set(text, t);
  return t;
}

function computeTokens(text: string): Tokenized {
  const spans: { start: number; end: number; slot: boolean }[] = [];
  for (const m of text.matchAll(SPANS)) spans.push({ start: m.index, end: m.index + m[0].length, slot: m[0].startsWith('{{') });
  const t: Tokenized = { starts: [], ends: [], words: [], code: [], eligible: new Set() };
  let si = 0;
  for (const m of text.matchAll(IDENT)) {
    const start = m.index;
    while (si < spans.length && spans[si]!.end <= start) si++;
    const span = spans[si];
    const inSpan = span !== undefined && span.start <= start && start < span.end;
    if (inSpan && span.slot) continue;
    const word = m[0];
    const code = inSpan;
    const end = start + word.length;
    // A namespaced name (`plants.find_by_zone`, an MCP `tracker.search`) is a token as well, ahead
    // of its first part, so a rename of that name finds it; its parts stay tokens for other names.
    if (JOINERS.has(text.charCodeAt(end))) pushCompounds(t, text, start, code);
    if (!code && !isDistinctive(word)) continue;
    t.starts.push(start);
    t.ends.push(start + word.length);
    t.words.push(word);
    t.code.push(code);
    t.eligible.add(word);
  }
  return t;
}

/** `.`, `:` and `/`: the characters that join the parts of a namespaced tool name. */
const JOINERS = new Set([46, 58, 47]);
const CHAIN = /[A-Za-z0-9_-]+(?:[.:/][A-Za-z0-9_-]+)+/y;

/**
 * The namespaced name from `start` to the end of its chain (`plants.find` in `lib.plants.find`,
 * never in `plants.find.v2`: token-boundary aware, as `item_qa` is never found in `item_qa_v2`).
 * It is eligible wherever it stands: a name with a joiner is recognisable in prose.
 */
function pushCompounds(t: Tokenized, text: string, start: number, code: boolean): void {
  CHAIN.lastIndex = start;
  const m = CHAIN.exec(text);
  if (m === null) return;
  t.starts.push(start);
  t.ends.push(start + m[0].length);
  t.words.push(m[0]);
  t.code.push(code);
  t.eligible.add(m[0]);
}

/**
 * The identifiers in `text` a rewrite or a mention check may match (distinctive tokens in prose,
 * every token in code spans and JSON keys), uncached: for callers that keep their own cache.
 */
export function eligibleIdentifiers(text: string): ReadonlySet<string> {
  return computeTokens(text).eligible;
}

/** A name an identifier token can be: OpenAI-name characters, parts joined by `.`, `:` or `/`. */
export const TOKEN_NAME = /^[A-Za-z0-9_-]+(?:[.:/][A-Za-z0-9_-]+)*$/;
