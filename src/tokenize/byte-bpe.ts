/**
 * Token counts for byte-level BPE tokenizers of the Qwen2/2.5/3 kind (NFC, the split regex of
 * `LINE_SAFE_SPLITS`, byte-level mapping, BPE merges), for text without added tokens. The general
 * tokenizer (`@lenml/tokenizers`) builds token strings and ids through a generic pipeline and
 * ranks merges through `JSON.stringify` keys; counting needs none of that: pre-tokenise, map each
 * piece's UTF-8 bytes to the byte-level alphabet, apply the merges, count the parts — with each
 * piece's count cached, since words recur. Tests hold it to the general tokenizer's counts.
 */

/** GPT-2's byte → printable-character table, used by every byte-level BPE. */
function byteAlphabet(): string[] {
  const keep: number[] = [];
  for (let b = 33; b <= 126; b++) keep.push(b);
  for (let b = 161; b <= 172; b++) keep.push(b);
  for (let b = 174; b <= 255; b++) keep.push(b);
  const table = new Array<string>(256);
  let extra = 0;
  for (let b = 0; b < 256; b++) table[b] = keep.includes(b) ? String.fromCharCode(b) : String.fromCharCode(256 + extra++);
  return table;
}

/** The split regex, with the `(?i:…)` group (which JavaScript lacks before V8 12.5) spelled out. */
const PRE_TOKENIZE = /'(?:[sS]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+/gu;

/** Pieces longer than this (in byte-level characters) go to the general tokenizer's BPE (a heap, not O(n²)). */
const LONG_PIECE = 96;
const PIECE_CACHE = 100_000;

export class ByteBpeCounter {
  private readonly ranks: Map<string, number>;
  private readonly bytes = byteAlphabet();
  private readonly pieces = new Map<string, number>();
  private readonly utf8 = new TextEncoder();

  constructor(
    merges: readonly (string | readonly [string, string])[],
    /** The general tokenizer's BPE for long pieces: byte-level text → parts. */
    private readonly longPiece: (mapped: string) => number,
  ) {
    this.ranks = new Map();
    merges.forEach((m, i) => {
      const key = typeof m === 'string' ? m : `${m[0]} ${m[1]}`;
      if (!this.ranks.has(key)) this.ranks.set(key, i);
    });
  }

  /** Tokens of a text that holds no added token. */
  count(text: string): number {
    // eslint-disable-next-line no-control-regex
    const s = /[^\x00-\x7f]/.test(text) ? text.normalize('NFC') : text;
    let n = 0;
    PRE_TOKENIZE.lastIndex = 0;
    for (let m = PRE_TOKENIZE.exec(s); m; m = PRE_TOKENIZE.exec(s)) {
      const piece = m[0];
      let c = this.pieces.get(piece);
      if (c === undefined) {
        c = this.countPiece(piece);
        if (this.pieces.size >= PIECE_CACHE) this.pieces.clear();
        this.pieces.set(piece, c);
      }
      n += c;
    }
    return n;
  }

  private countPiece(piece: string): number {
    const raw = this.utf8.encode(piece);
    let parts: string[] = new Array(raw.length);
    for (let i = 0; i < raw.length; i++) parts[i] = this.bytes[raw[i]!]!;
    if (parts.length === 1) return 1;
    if (parts.length > LONG_PIECE) return this.longPiece(parts.join(''));
    // Merge the lowest-ranked adjacent pair everywhere it occurs (left to right), until none is left.
    for (;;) {
      let best = Infinity;
      let at = -1;
      for (let i = 0; i < parts.length - 1; i++) {
        const r = this.ranks.get(`${parts[i]} ${parts[i + 1]}`);
        if (r !== undefined && r < best) {
          best = r;
          at = i;
        }
      }
      if (at < 0) return parts.length;
      const a = parts[at]!;
      const b = parts[at + 1]!;
      const next: string[] = [];
      for (let i = 0; i < parts.length; ) {
        if (i < parts.length - 1 && parts[i] === a && parts[i + 1] === b) {
          next.push(a + b);
          i += 2;
        } else next.push(parts[i++]!);
      }
      parts = next;
      if (parts.length === 1) return 1;
    }
  }
}
