import { cachedTokens, countsInProse, IDENT, INCLUDES_BUDGET, tokenize, TOKEN_NAME, type TextScope, type Tokenized } from './identifiers.js';

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
  constructor(map: Record<string, string> | ReadonlyMap<string, string>, owners?: ReadonlyMap<string, ReadonlySet<string>>, others?: () => Iterable<string>) {
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
    const cached = cachedTokens(text, scope);
    if (cached) return cached;
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
    if (lit.length > 0)
      return this.splice(
        text,
        t,
        t.words.flatMap((w, i) => (this.map.has(w) ? [i] : [])),
        lit,
      );
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
  const alt = (ks: string[]) =>
    ks
      .sort((a, b) => b.length - a.length || (a < b ? -1 : 1))
      .map(esc)
      .join('|') || '(?!)';
  const prose = alt([...keys.filter(countsInProse), ...longer]);
  const plain = alt(keys.filter((k) => !countsInProse(k)));
  return new RegExp(
    `(?<![A-Za-z0-9_])(?<![A-Za-z0-9_]-)(${prose})(?![A-Za-z0-9_]|-[A-Za-z0-9])|\`(${plain})(?=[\`(])|"(${plain})"(?=\\s*:)|(?<="name"\\s*:\\s*)"(${plain})"|(?<="required"\\s*:\\s*\\[[^\\][{}]*)"(${plain})"`,
    'g',
  );
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
