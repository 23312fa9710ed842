import { TextKeyedCache } from '../util/bounded-cache.js';
import { isDistinctive, splitWords } from '../words/identifier-words.js';
/**
 * Identifiers in text: tokenising names, naming styles, and rewriting mentions of identifiers in
 * free text token-boundary aware (`item_qa` never touches `item_qa_v2`), longest match first, in a
 * single simultaneous pass (so swaps a→b, b→a need no placeholders).
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
function countsInProse(name: string): boolean {
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
/** See TextRewriter.mayMention: about the work of compiling and first running a ~20-key expression. */
const INCLUDES_BUDGET = 200_000;

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

function tokenize(text: string, scope: TextScope = 'state'): Tokenized {
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

/**
 * A simultaneous replacement of identifiers in text (so swaps a→b, b→a need no placeholders).
 * Distinctive identifiers are replaced wherever they stand as whole tokens; plain-word ones only
 * inside code spans and JSON keys; template slots ({{path}}) are left alone.
 */
export class TextRewriter {
  private readonly map: ReadonlyMap<string, string>;
  private readonly keys: string[];
  private readonly owners: ReadonlyMap<string, ReadonlySet<string>>;
  readonly size: number;

  /**
   * `owners`: for parameter names among the keys, the names of the tools that have them (every
   * spelling a text may use). Only the reference rules (rewriteReferences) read it.
   */
  constructor(
    map: Record<string, string> | ReadonlyMap<string, string>,
    owners?: ReadonlyMap<string, ReadonlySet<string>>,
    others?: () => Iterable<string>,
  ) {
    const entries = (map instanceof Map ? [...map.entries()] : Object.entries(map)).filter(([a, b]) => a !== b && a !== '');
    this.map = new Map(entries);
    this.keys = entries.map(([k]) => k);
    const distinctive = this.keys.filter(countsInProse);
    this.anyKey = new KeyFinder(this.keys);
    this.anyDistinctive = distinctive.length < this.keys.length ? new KeyFinder(distinctive) : null;
    this.size = entries.length;
    this.owners = owners ?? new Map();
    const literal = this.keys.filter((k) => !TOKEN_NAME.test(k));
    this.literal = literal.length === 0 ? null : literalFinder(literal, others ? longerNames(literal, others(), this.map) : []);
  }

  /**
   * Keys that no identifier token can be (a tool named `Get Weather` or `Get Prices (v2)`, as
   * public function-calling sets name them), found under the rules of the other keys: one that
   * counts in prose wherever it stands as a whole (not inside a longer identifier, and, for a name
   * of several words, not inside a longer name — see literalFinder); one of plain
   * lower-case words only as a whole string in code — a code span, a JSON key, a `"name"` value, a
   * `"required"` item (in a text about other things, a skill body: a code span only). Null for the
   * usual rewriter, which then does no more work than before such names were accepted.
   */
  private readonly literal: RegExp | null;

  /** Where literal keys stand in `text` (inner string positions, in order). */
  private literalHits(text: string, spansOnly: boolean): readonly LiteralHit[] {
    if (this.literal === null) return NO_HITS;
    const out: LiteralHit[] = [];
    for (const m of text.matchAll(this.literal)) {
      const k = m.findIndex((g, i) => i > 0 && g !== undefined);
      if (spansOnly && k > 2) continue;
      const key = m[k]!;
      // A longer name that stays (see longerNames): matched only so that no key is found inside it.
      if (!this.map.has(key)) continue;
      const start = k === 1 ? m.index : m.index + 1;
      out.push({ start, end: start + key.length, key });
    }
    return out;
  }

  /** `text` with the token edits at `hits` (increasing token indices) and the literal edits `lit`, in one pass. */
  private splice(text: string, t: Tokenized, hits: readonly number[], lit: readonly LiteralHit[]): string {
    let out = '';
    let last = 0;
    let li = 0;
    const take = (start: number, end: number, key: string) => {
      if (start < last) return;
      out += text.slice(last, start) + this.map.get(key)!;
      last = end;
    };
    for (const i of hits) {
      while (li < lit.length && lit[li]!.start <= t.starts[i]!) take(lit[li]!.start, lit[li]!.end, lit[li++]!.key);
      take(t.starts[i]!, t.ends[i]!, t.words[i]!);
    }
    while (li < lit.length) take(lit[li]!.start, lit[li]!.end, lit[li++]!.key);
    return out + text.slice(last);
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
    // (A text shorter than CACHED_LENGTH is never kept: no lookup.)
    if (text.length >= CACHED_LENGTH) {
      const cached = scope === 'state' ? tokenCache.get(text) : recordTokenCache.get(text);
      if (cached) return cached;
    }
    return this.mayMention(text) ? tokenize(text, scope) : null;
  }

  /** Finds any key in a text; for texts without code, one over the distinctive keys only. */
  private readonly anyKey: KeyFinder;
  private readonly anyDistinctive: KeyFinder | null;

  /**
   * True when some key occurs in `text` as a substring — of those that could count there: a text
   * without a backtick or a quote has no code span and no JSON key, so only distinctive keys can be
   * tokens a rewrite touches (descriptions such as "The email." meet renames of plain parameter
   * names in every state).
   */
  private mayMention(text: string): boolean {
    // Quotes first: JSON texts (tool results) have one near the start, and the test ends there.
    if (this.anyDistinctive !== null && !text.includes('"') && !text.includes('`')) return this.anyDistinctive.test(text);
    return this.anyKey.test(text);
  }

  /** Rewrite every mention in `text` (`scope`: whose text it is, for caching only). */
  rewrite(text: string, scope: TextScope = 'state'): string {
    if (this.size === 0) return text;
    const t = this.tokens(text, scope);
    if (t === null) return text;
    const lit = this.literalHits(text, false);
    if (lit.length > 0) return this.splice(text, t, t.words.flatMap((w, i) => (this.map.has(w) ? [i] : [])), lit);
    if (!this.touches(t)) return text;
    let out = '';
    let last = 0;
    for (let i = 0; i < t.words.length; i++) {
      // A part of a namespaced name already replaced as a whole is not replaced again.
      if (t.starts[i]! < last) continue;
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
    if (t === null) return [];
    const lit = this.literalHits(text, false);
    if (lit.length > 0) return this.keys.filter((k) => t.eligible.has(k) || lit.some((h) => h.key === k)).sort();
    if (!this.touches(t)) return [];
    return this.keys.filter((k) => t.eligible.has(k)).sort();
  }

  /**
   * Rewrite the mentions in a text that is about other things too (a skill body: API references,
   * code examples): distinctive identifiers wherever they stand, a plain word only where the text
   * refers to that harness element (see referenceTokens).
   */
  rewriteReferences(text: string, scope: TextScope = 'state'): string {
    if (this.size === 0) return text;
    const t = this.tokens(text, scope);
    if (t === null) return text;
    const lit = this.literalHits(text, true);
    if (lit.length > 0) return this.splice(text, t, this.referenceTokens(text, t), lit);
    if (!this.touches(t)) return text;
    let out = '';
    let last = 0;
    for (const i of this.referenceTokens(text, t)) {
      if (t.starts[i]! < last) continue;
      out += text.slice(last, t.starts[i]) + this.map.get(t.words[i]!)!;
      last = t.ends[i]!;
    }
    return out + text.slice(last);
  }

  /** The identifiers mentioned in `text` under the rules of `rewriteReferences`. */
  referenceMentions(text: string, scope: TextScope = 'state'): string[] {
    if (this.size === 0) return [];
    const t = this.tokens(text, scope);
    if (t === null) return [];
    const lit = this.literalHits(text, true);
    if (lit.length === 0 && !this.touches(t)) return [];
    const found = new Set<string>(lit.map((h) => h.key));
    if (this.touches(t)) for (const i of this.referenceTokens(text, t)) found.add(t.words[i]!);
    return [...found].sort();
  }

  /**
   * Indices of the tokens that refer to a key. A distinctive key counts wherever it stands. A
   * plain-word key counts only in code, and only where it names the harness element:
   * - a parameter (a key with owners): in a block (paragraph, list, or fenced code block with the
   *   paragraph before it) that also names one of its tools (any spelling, as any word) —
   *   except a JSON key whose value is the tool's name (`"name": "load_skill"` is the call's
   *   name field, not the parameter);
   * - a tool, skill or hook: a code span that is exactly the name (`` `search` ``, `` `search(…)` ``).
   * Everything else (a `name` key in an unrelated JSON example) is text about something else.
   */
  private referenceTokens(text: string, t: Tokenized): number[] {
    const out: number[] = [];
    let blocks: Blocks | undefined;
    for (let i = 0; i < t.words.length; i++) {
      const word = t.words[i]!;
      if (!this.map.has(word)) continue;
      if (countsInProse(word)) {
        out.push(i);
        continue;
      }
      const start = t.starts[i]!;
      const end = t.ends[i]!;
      const owners = this.owners.get(word);
      if (owners === undefined) {
        if (text[start - 1] === '`' && (text[end] === '`' || text[end] === '(') && opensSpan(text, start - 1)) out.push(i);
        continue;
      }
      const value = /^"\s*:\s*"([^"\n]*)"/.exec(text.slice(end, end + 200));
      if (text[start - 1] === '"' && value && owners.has(value[1]!)) continue;
      blocks ??= blocksOf(text);
      const [from, to] = blocks.context(start);
      // Any word of the block counts as naming the tool (a rename may have made it a plain word).
      for (const m of text.slice(from, to).matchAll(IDENT)) {
        if (owners.has(m[0]) && from + m.index !== start) {
          out.push(i);
          break;
        }
      }
    }
    return out;
  }
}

/** A name an identifier token can be: OpenAI-name characters, parts joined by `.`, `:` or `/`. */
const TOKEN_NAME = /^[A-Za-z0-9_-]+(?:[.:/][A-Za-z0-9_-]+)*$/;

interface LiteralHit {
  start: number;
  end: number;
  key: string;
}
const NO_HITS: readonly LiteralHit[] = [];

/**
 * The names among `others` (the names a harness's texts spell, renamed or not) that hold a literal
 * key inside them and are no key themselves: `Get Weather Forecast` beside a renamed `Get Weather`,
 * `Get Prices (v2)` beside `Get Prices`. The finder matches them first, so the shorter key is
 * never found at their start and a text naming the longer tool keeps naming it.
 */
function longerNames(literal: readonly string[], others: Iterable<string>, map: ReadonlyMap<string, string>): string[] {
  const out = new Set<string>();
  for (const o of others) if (!map.has(o) && countsInProse(o) && literal.some((k) => o.length > k.length && o.includes(k))) out.add(o);
  return [...out];
}

/**
 * One expression finding literal keys (longest first; see TextRewriter.literal): group 1 a key that
 * counts in prose, standing as a whole; for the others, group 2 a code span (`` `get weather` ``,
 * `` `get weather(city)` ``) and groups 3–5 the JSON places SPANS names: a key, a `"name"` value, a
 * `"required"` item, bounded by the quotes. `longer` (see longerNames) join group 1, so that a key
 * is never found inside one of them.
 *
 * A name of several words written for people (`Get Weather`) stands as a whole phrase only: not
 * when the next word is capitalised too (`Get Weather Forecast`, `Get Weather API`), which makes
 * it the start of a longer name the harness does not hold (a retired service, another product).
 * A lower-case word after it (`Get Weather for today`), punctuation or the end of the text end the
 * name. Renaming such a phrase would name a tool that does not exist (`fetch_conditions Forecast`);
 * the leak check reads with the same expression, so the phrase left as written is no leak.
 */
function literalFinder(keys: readonly string[], longer: readonly string[]): RegExp {
  const esc = (k: string) => k.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&') + (k.includes(' ') ? '(?![ \\t]+[A-Z])' : '');
  const alt = (ks: string[]) => ks.sort((a, b) => b.length - a.length || (a < b ? -1 : 1)).map(esc).join('|') || '(?!)';
  const prose = alt([...keys.filter(countsInProse), ...longer]);
  const plain = alt(keys.filter((k) => !countsInProse(k)));
  return new RegExp(`(?<![A-Za-z0-9_])(?<![A-Za-z0-9_]-)(${prose})(?![A-Za-z0-9_]|-[A-Za-z0-9])|\`(${plain})(?=[\`(])|"(${plain})"(?=\\s*:)|(?<="name"\\s*:\\s*)"(${plain})"|(?<="required"\\s*:\\s*\\[[^\\][{}]*)"(${plain})"`, 'g');
}

/** Whether a text holds one of some keys as a substring. */
class KeyFinder {
  private any: RegExp | undefined;
  /** Characters × keys scanned with `includes` before this finder compiles its one expression. */
  private scanned = 0;

  constructor(private readonly keys: readonly string[]) {}

  test(text: string): boolean {
    if (this.keys.length === 0) return false;
    if (this.any === undefined) {
      // A rewriter of a pooled state meets thousands of texts: one regular expression over all
      // keys scans each once (~5× faster than a loop of includes over ~20 keys). One that lives
      // for a single record (per-record harnesses) meets a few dozen short texts, and compiling
      // the expression would cost more than all its scans: until the loop of includes has done
      // about as much work as compiling, it is used instead (the answer is the same).
      const cost = (text.length + 16) * this.keys.length;
      if (this.scanned + cost <= INCLUDES_BUDGET) {
        this.scanned += cost;
        for (const k of this.keys) if (text.includes(k)) return true;
        return false;
      }
      this.any = new RegExp(this.keys.map((k) => k.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|'));
    }
    return this.any.test(text);
  }
}

/** True when the backtick at `tick` opens a code span (an even number of backticks before it on its line). */
function opensSpan(text: string, tick: number): boolean {
  const lineStart = text.lastIndexOf('\n', tick - 1) + 1;
  return (text.slice(lineStart, tick).split('`').length - 1) % 2 === 0;
}

interface Blocks {
  /** The character range whose identifiers are read as context for a token at `pos`. */
  context(pos: number): [number, number];
}

/**
 * A text cut into blocks: paragraphs and lists (runs of non-blank lines) and fenced code blocks
 * (fence to fence). A fenced block's context includes the paragraph right before it ("Call
 * `load_skill` like this:" followed by the example).
 */
function blocksOf(text: string): Blocks {
  const ranges: { start: number; end: number; fence: boolean }[] = [];
  let fence: string | null = null;
  let cur: { start: number; end: number; fence: boolean } | null = null;
  let pos = 0;
  for (const line of text.split('\n')) {
    const lineEnd = pos + line.length;
    const f = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence !== null) {
      cur!.end = lineEnd;
      if (f && f[1]![0] === fence[0] && f[1]!.length >= fence.length && line.trim() === f[1]) {
        fence = null;
        cur = null;
      }
    } else if (f) {
      cur = { start: pos, end: lineEnd, fence: true };
      ranges.push(cur);
      fence = f[1]!;
    } else if (line.trim() === '') {
      cur = null;
    } else {
      if (cur === null || cur.fence) ranges.push((cur = { start: pos, end: lineEnd, fence: false }));
      cur.end = lineEnd;
    }
    pos = lineEnd + 1;
  }
  return {
    context(p: number): [number, number] {
      const k = ranges.findIndex((r) => r.start <= p && p <= r.end);
      if (k === -1) return [p, p];
      const r = ranges[k]!;
      const prev = ranges[k - 1];
      return r.fence && prev && !prev.fence ? [prev.start, r.end] : [r.start, r.end];
    },
  };
}
