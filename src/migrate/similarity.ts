import { splitWords } from '../words/identifier-words.js';

/**
 * The similarity measures plan inference scores matches with. All are set overlaps (Dice
 * coefficients) of normalised words, so they are symmetric, in [0, 1], and independent of order.
 */

const STOP = new Set(
  'the and for with from that this its are was were has have had not but any all can may must will into onto than then them they their there what when where which who whom why how you your our out per via one two use used using each also only more most less such very just about over under after before'.split(
    ' ',
  ),
);

/** A crude stem: plural and common suffixes off, so `renewal`/`renewed`/`renew` meet. */
export function stem(w: string): string {
  for (const suffix of ['ing', 'als', 'al', 'ed', 'es', 's']) {
    if (w.endsWith(suffix) && w.length - suffix.length >= 4) return w.slice(0, -suffix.length);
  }
  return w;
}

/** The words of an identifier (`place_hold`, `renewLoan`), lower-cased and stemmed. */
export function nameWords(name: string): Set<string> {
  return new Set(splitWords(name).map((w) => stem(w.toLowerCase())));
}

/** The content words of prose: letters and digits, lower-cased, stop words and short words out, stemmed. */
export function textWords(text: string): Set<string> {
  const out = new Set<string>();
  for (const raw of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (raw.length < 3 || STOP.has(raw)) continue;
    out.add(stem(raw));
  }
  return out;
}

/** Dice coefficient of two sets (1 for two empty sets: nothing differs). */
export function dice(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let common = 0;
  for (const x of a) if (b.has(x)) common++;
  return (2 * common) / (a.size + b.size);
}

/** Dice of two texts' content words; 0 when either is empty and the other is not. */
export function textSimilarity(a: string, b: string): number {
  return dice(textWords(a), textWords(b));
}

export function nameSimilarity(a: string, b: string): number {
  return a === b ? 1 : dice(nameWords(a), nameWords(b));
}

/** A score as the plan writes it: two decimals, so a plan is byte-stable. */
export function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
