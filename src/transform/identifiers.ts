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

/** Characters that continue an identifier: a mention must not be preceded or followed by one. */
const WORD = 'A-Za-z0-9_\\-';

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

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A compiled simultaneous replacement of identifiers in text. `map` entries whose key is not
 * distinctive are applied only inside backtick code spans.
 */
export class TextRewriter {
  private readonly wide: RegExp | null;
  private readonly code: RegExp | null;
  private readonly map: ReadonlyMap<string, string>;
  readonly size: number;

  constructor(map: Record<string, string> | ReadonlyMap<string, string>) {
    const entries = (map instanceof Map ? [...map.entries()] : Object.entries(map)).filter(([a, b]) => a !== b && a !== '');
    this.map = new Map(entries);
    this.size = entries.length;
    const keys = entries.map(([k]) => k).sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
    const alt = (ks: string[]) => ks.map(escapeRegex).join('|');
    const distinct = keys.filter(isDistinctive);
    this.wide = distinct.length ? new RegExp(`(?<![${WORD}])(?:${alt(distinct)})(?![${WORD}])`, 'g') : null;
    this.code = keys.length ? new RegExp(`(?<![${WORD}])(?:${alt(keys)})(?![${WORD}])`, 'g') : null;
  }

  /** True when some identifier occurs in `text` as a substring (a cheap test before the regex pass). */
  private mayMention(text: string): boolean {
    for (const k of this.map.keys()) if (text.includes(k)) return true;
    return false;
  }

  /** Rewrite every mention in `text`. */
  rewrite(text: string): string {
    if (this.size === 0 || !this.mayMention(text)) return text;
    const swap = (m: string) => this.map.get(m) ?? m;
    // Inside code spans every identifier is replaced; outside, only distinctive ones; template
    // slots ({{path}}) name context data, not harness identifiers, and are left alone.
    let out = '';
    let last = 0;
    for (const m of text.matchAll(SPANS)) {
      out += this.outside(text.slice(last, m.index), swap);
      if (!m[0].startsWith('{{')) out += this.code ? m[0].replace(this.code, swap) : m[0];
      else out += m[0];
      last = m.index + m[0].length;
    }
    return out + this.outside(text.slice(last), swap);
  }

  private outside(text: string, swap: (m: string) => string): string {
    return this.wide ? text.replace(this.wide, swap) : text;
  }

  /** The identifiers (keys) mentioned in `text`, under the same rules as `rewrite`. */
  mentions(text: string): string[] {
    const found = new Set<string>();
    if (this.size === 0 || !this.mayMention(text)) return [];
    let last = 0;
    const scan = (t: string, re: RegExp | null) => {
      if (!re) return;
      for (const m of t.matchAll(re)) found.add(m[0]);
    };
    for (const m of text.matchAll(SPANS)) {
      scan(text.slice(last, m.index), this.wide);
      if (!m[0].startsWith('{{')) scan(m[0], this.code);
      last = m.index + m[0].length;
    }
    scan(text.slice(last), this.wide);
    return [...found].sort();
  }
}
