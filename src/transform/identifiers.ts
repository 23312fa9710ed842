import { TextKeyedCache } from '../util/bounded-cache.js';
/**
 * Identifiers in text: tokenising names, naming styles, and rewriting mentions of identifiers in
 * free text token-boundary aware (`item_qa` never touches `item_qa_v2`), longest match first, in a
 * single simultaneous pass (so swaps a→b, b→a need no placeholders).
 */

/**
 * Code spans and JSON keys (`"name":`), where every identifier is rewritten, and template slots
 * (`{{path}}`), which name context data and are never rewritten.
 */
const SPANS = /`[^`\n]+`|"[A-Za-z_][A-Za-z0-9_-]*"(?=\s*:)|\{\{[^{}\n]*\}\}/g;

/**
 * A distinctive identifier (has `_`, `-`, a digit or an inner capital) is recognisable in prose and
 * is rewritten everywhere in text. A plain word (`query`, `greet`) is rewritten only in structural
 * places and inside `code spans`, so natural language is never touched.
 */
export function isDistinctive(name: string): boolean {
  return /[_\-0-9]/.test(name) || /[a-z][A-Z]/.test(name);
}

/** Split an identifier into lower-case words: `calculateOptimal_promo-v2` → calculate, optimal, promo, v2. */
export function splitWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== '')
    .map((w) => w.toLowerCase());
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
interface Tokenized {
  starts: number[];
  ends: number[];
  words: string[];
  code: boolean[];
  /** Tokens a rewrite may touch: distinctive ones in prose, every one in code. */
  eligible: Set<string>;
}

// About 1.5 M characters: the harness texts of a few variants; token tables cost a few times that.
const tokenCache = new TextKeyedCache<Tokenized>(1_500_000);
const IDENT = /[A-Za-z0-9_-]+/g;

/**
 * A record's own texts (assistant turns, hook feedback) are met once per variant of that record
 * and never again: they go to a small cache that is cleared often, so they die young instead of
 * filling the state-text cache (which made every young-generation collection copy them).
 */
const recordTokenCache = new Map<string, Tokenized>();
const RECORD_TEXTS = 32;

export type TextScope = 'state' | 'record';

function tokenize(text: string, scope: TextScope = 'state'): Tokenized {
  if (scope === 'record') {
    const hit = recordTokenCache.get(text);
    if (hit) return hit;
    const t = computeTokens(text);
    if (text.length >= 64) {
      if (recordTokenCache.size >= RECORD_TEXTS) recordTokenCache.clear();
      recordTokenCache.set(text, t);
    }
    return t;
  }
  const hit = tokenCache.get(text);
  if (hit) return hit;
  const t = computeTokens(text);
  if (text.length >= 64) tokenCache.set(text, t);
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
    if (!code && !isDistinctive(word)) continue;
    t.starts.push(start);
    t.ends.push(start + word.length);
    t.words.push(word);
    t.code.push(code);
    t.eligible.add(word);
  }
  return t;
}

/**
 * A simultaneous replacement of identifiers in text (so swaps a→b, b→a need no placeholders).
 * Distinctive identifiers are replaced wherever they stand as whole tokens; plain-word ones only
 * inside code spans and JSON keys; template slots ({{path}}) are left alone.
 */
export class TextRewriter {
  private readonly map: ReadonlyMap<string, string>;
  private readonly keys: string[];
  private anyKey: RegExp | undefined;
  readonly size: number;

  constructor(map: Record<string, string> | ReadonlyMap<string, string>) {
    const entries = (map instanceof Map ? [...map.entries()] : Object.entries(map)).filter(([a, b]) => a !== b && a !== '');
    this.map = new Map(entries);
    this.keys = entries.map(([k]) => k);
    this.size = entries.length;
  }

  private touches(t: Tokenized): boolean {
    if (t.eligible.size === 0) return false;
    for (const k of this.keys) if (t.eligible.has(k)) return true;
    return false;
  }

  /**
   * The text's tokens, or null when no key occurs in it even as a substring (then no token can be
   * a key, and the text need not be tokenised: most texts a rename meets do not mention it).
   */
  private tokens(text: string, scope: TextScope): Tokenized | null {
    const cached = scope === 'state' ? tokenCache.get(text) : recordTokenCache.get(text);
    if (cached) return cached;
    // One regular expression over all keys: V8 scans the text once (~5× faster than a loop of
    // includes over ~20 keys; this runs ~45 times per output record).
    this.anyKey ??= new RegExp(this.keys.map((k) => k.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|'));
    return this.anyKey.test(text) ? tokenize(text, scope) : null;
  }

  /** Rewrite every mention in `text` (`scope`: whose text it is, for caching only). */
  rewrite(text: string, scope: TextScope = 'state'): string {
    if (this.size === 0) return text;
    const t = this.tokens(text, scope);
    if (t === null) return text;
    if (!this.touches(t)) return text;
    let out = '';
    let last = 0;
    for (let i = 0; i < t.words.length; i++) {
      const next = this.map.get(t.words[i]!);
      if (next === undefined) continue;
      out += text.slice(last, t.starts[i]) + next;
      last = t.ends[i]!;
    }
    return out + text.slice(last);
  }

  /** The identifiers (keys) mentioned in `text`, under the same rules as `rewrite`. */
  mentions(text: string, scope: TextScope = 'state'): string[] {
    if (this.size === 0) return [];
    const t = this.tokens(text, scope);
    if (t === null || !this.touches(t)) return [];
    return this.keys.filter((k) => t.eligible.has(k)).sort();
  }
}
