/**
 * The words of an identifier, and whether it is distinctive: shared by the vocabulary code
 * (rewording, suggestions) and the transform engine above it (naming, the text rewriter).
 */

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
