/**
 * The pre-tokenizer of the Qwen2/2.5/3 byte-level BPE tokenizers, written as a scanner: it finds
 * the same pieces as their split regex (`PRE_TOKENIZE`, JavaScript's reading of it — Unicode
 * letters, numbers and `\s`) at a fraction of the regular expression's cost, which with its
 * Unicode classes was most of the time spent counting new text. A test holds the two to the same
 * pieces on the fixtures and on generated strings of every character class.
 *
 * The regex's alternatives, tried in order at each position:
 *   1. `'(?:[sS]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD])`  a contraction
 *   2. `[^\r\n\p{L}\p{N}]?\p{L}+`  letters, with one preceding character that is not a line break, letter or number
 *   3. `\p{N}`  one number character
 *   4. ` ?[^\s\p{L}\p{N}]+[\r\n]*`  a run of other characters (after an optional space), then line breaks
 *   5. `\s*[\r\n]+`  white space up to its last line break
 *   6. `\s+(?!\S)`  white space not followed by other text (the run but its last character, unless it ends the text)
 *   7. `\s+`  one white-space character before other text
 */

/** The split regex, with the `(?i:…)` group (which JavaScript lacks before V8 12.5) spelled out. */
export const PRE_TOKENIZE =
  /'(?:[sS]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+/gu;

const LETTER = 1;
const NUMBER = 2;
const SPACE = 3;
const OTHER = 4;

const IS_LETTER = /^\p{L}$/u;
const IS_NUMBER = /^\p{N}$/u;
const IS_SPACE = /^\s$/u;

/** Classes of the UTF-16 code units (0: not yet known), filled as characters are met. */
const bmp = new Uint8Array(65536);
const astral = new Map<number, number>();

function classify(ch: string): number {
  return IS_LETTER.test(ch) ? LETTER : IS_NUMBER.test(ch) ? NUMBER : IS_SPACE.test(ch) ? SPACE : OTHER;
}

/** The class of the code point starting at `i` (a lone surrogate is OTHER, as for the regex). */
function classAt(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c < 0xd800 || c > 0xdfff) {
    let k = bmp[c]!;
    if (k === 0) bmp[c] = k = classify(String.fromCharCode(c));
    return k;
  }
  const cp = s.codePointAt(i)!;
  if (cp <= 0xffff) return OTHER;
  let k = astral.get(cp);
  if (k === undefined) astral.set(cp, (k = classify(String.fromCodePoint(cp))));
  return k;
}

/** Length in code units of the code point at `i`. */
function width(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
    const d = s.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return 2;
  }
  return 1;
}

const isBreak = (c: number): boolean => c === 10 || c === 13;

/** After letters from `i`: the end of the run. */
function letters(s: string, i: number): number {
  while (i < s.length && classAt(s, i) === LETTER) i += width(s, i);
  return i;
}

/** Whether `'` at `i` starts a contraction; its length if so. */
function contraction(s: string, i: number): number {
  const a = s.charCodeAt(i + 1) | 0x20;
  if (a === 0x73 || a === 0x74 || a === 0x6d || a === 0x64) return 2; // s t m d
  const b = s.charCodeAt(i + 2) | 0x20;
  if ((a === 0x72 || a === 0x76) && b === 0x65) return 3; // re ve
  if (a === 0x6c && b === 0x6c) return 3; // ll
  return 0;
}

/**
 * The end of the piece that starts at `i` (which is < s.length). The pieces from 0, each starting
 * where the last ended, are the regex's matches.
 */
export function pieceEnd(s: string, i: number): number {
  const n = s.length;
  const c = s.charCodeAt(i);
  // Plain ASCII letters, digits and spaces first: most text.
  if (c === 0x27) {
    const k = contraction(s, i);
    if (k) return i + k;
  }
  const k = classAt(s, i);
  const w = width(s, i);
  if (k === LETTER) return letters(s, i + w);
  if (k === NUMBER) return i + w;
  if (k === OTHER || (k === SPACE && !isBreak(c))) {
    // 2: one character that is not a line break, letter or number, then letters.
    if (i + w < n && classAt(s, i + w) === LETTER) return letters(s, i + w);
  }
  if (k === OTHER || (c === 0x20 && i + 1 < n && classAt(s, i + 1) === OTHER)) {
    // 4: other characters (after one space), then line breaks.
    let j = k === OTHER ? i : i + 1;
    while (j < n && classAt(s, j) === OTHER) j += width(s, j);
    while (j < n && isBreak(s.charCodeAt(j))) j++;
    return j;
  }
  // White space (every white-space character is one code unit).
  let j = i + 1;
  let lastBreak = isBreak(c) ? i : -1;
  while (j < n && classAt(s, j) === SPACE) {
    if (isBreak(s.charCodeAt(j))) lastBreak = j;
    j++;
  }
  if (lastBreak >= 0) return lastBreak + 1; // 5
  if (j === n) return j; // 6, at the end of the text
  return j - i >= 2 ? j - 1 : j; // 6: all but the last; 7: the one character
}
