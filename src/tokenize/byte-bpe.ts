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

import { pieceEnd } from './pre-tokenize.js';

/** Pieces longer than this (in byte-level characters) are merged with a heap (O(n log n), not O(n²)). */
const LONG_PIECE = 96;
/** Slots of the piece-count table (a power of two); it is emptied when half full. */
const PIECE_SLOTS = 1 << 18;

type Merges = readonly (string | readonly [string, string])[];

/** What the counter needs of a `tokenizer.json` BPE model. */
export interface ByteBpeModel {
  vocab: Record<string, unknown>;
  merges: Merges;
}

/**
 * A `tokenizer.json` model of the kind this counter reproduces — a BPE with the byte-level alphabet
 * in its vocabulary and none of the options that change how merges apply (dropout, byte fallback,
 * ignore_merges, word prefixes or suffixes) — or null. (`ByteBpeCounter.of` checks the merges.)
 */
export function plainByteBpe(model: unknown): ByteBpeModel | null {
  const m = model as
    | {
        type?: unknown;
        dropout?: unknown;
        byte_fallback?: unknown;
        ignore_merges?: unknown;
        continuing_subword_prefix?: unknown;
        end_of_word_suffix?: unknown;
        vocab?: unknown;
        merges?: unknown;
      }
    | undefined;
  if (!m || m.type !== 'BPE' || !Array.isArray(m.merges) || !m.vocab || typeof m.vocab !== 'object') return null;
  if (
    (m.dropout ?? null) !== null ||
    m.byte_fallback === true ||
    m.ignore_merges === true ||
    (m.continuing_subword_prefix ?? '') !== '' ||
    (m.end_of_word_suffix ?? '') !== ''
  )
    return null;
  const vocab = m.vocab as Record<string, unknown>;
  if (!byteAlphabet().every((c) => idOf(vocab, c) !== undefined)) return null;
  return { vocab, merges: m.merges as Merges };
}

/** A token's id (inherited members of the vocabulary object are never numbers). */
function idOf(vocab: Record<string, unknown>, token: string): number | undefined {
  const id = vocab[token];
  return typeof id === 'number' && id >= 0 && (id | 0) === id ? id : undefined;
}

function mergePair(x: unknown): readonly [string, string] | null {
  if (typeof x === 'string') {
    const parts = x.split(' ');
    return parts.length === 2 ? [parts[0]!, parts[1]!] : null;
  }
  return Array.isArray(x) && x.length === 2 && typeof x[0] === 'string' && typeof x[1] === 'string' ? [x[0], x[1]] : null;
}

/**
 * Merges by token ids, in an open-addressing table: (left id, right id) → rank and merged id.
 * Looking a pair up costs no string (the merges are applied to ids, not token texts).
 */
class MergeTable {
  private readonly left: Int32Array;
  private readonly right: Int32Array;
  readonly rank: Int32Array;
  readonly merged: Int32Array;
  private readonly mask: number;

  /** Null when a merge is not two tokens of the vocabulary whose join is one too. */
  static of(model: ByteBpeModel): MergeTable | null {
    try {
      return new MergeTable(model);
    } catch (e) {
      if (e instanceof BadMerge) return null;
      throw e;
    }
  }

  private constructor(model: ByteBpeModel) {
    let size = 1024;
    while (size < model.merges.length * 2) size *= 2;
    this.mask = size - 1;
    this.left = new Int32Array(size).fill(-1);
    this.right = new Int32Array(size);
    this.rank = new Int32Array(size);
    this.merged = new Int32Array(size);
    model.merges.forEach((x, i) => {
      const pair = mergePair(x);
      if (!pair) throw new BadMerge();
      const [a, b] = pair;
      const l = idOf(model.vocab, a);
      const r = idOf(model.vocab, b);
      const m = idOf(model.vocab, a + b);
      if (l === undefined || r === undefined || m === undefined) throw new BadMerge();
      let slot = this.hash(l, r);
      while (this.left[slot] !== -1) {
        // A pair listed twice keeps its first (lowest) rank.
        if (this.left[slot] === l && this.right[slot] === r) return;
        slot = (slot + 1) & this.mask;
      }
      this.left[slot] = l;
      this.right[slot] = r;
      this.rank[slot] = i;
      this.merged[slot] = m;
    });
  }

  /** The slot of the merge of (l, r), or -1. */
  find(l: number, r: number): number {
    let slot = this.hash(l, r);
    for (;;) {
      const x = this.left[slot]!;
      if (x === -1) return -1;
      if (x === l && this.right[slot] === r) return slot;
      slot = (slot + 1) & this.mask;
    }
  }

  private hash(l: number, r: number): number {
    let h = Math.imul(l, 0x9e3779b1) ^ Math.imul(r + 0x7f4a7c15, 0x85ebca77);
    h ^= h >>> 15;
    return h & this.mask;
  }
}

class BadMerge extends Error {}

export class ByteBpeCounter {
  /** The token id of each byte (its byte-level character). */
  private readonly byteIds: Int32Array;
  /**
   * Piece counts in an open-addressing table keyed by the piece's text, looked up by a hash of the
   * characters where they stand in the text: a piece seen before costs no substring and no Map
   * lookup (most pieces are words seen before).
   */
  private readonly keys: (string | undefined)[] = new Array<string | undefined>(PIECE_SLOTS).fill(undefined);
  private readonly values = new Int32Array(PIECE_SLOTS);
  private used = 0;
  private readonly utf8 = new TextEncoder();

  /** A counter for a model `plainByteBpe` accepted, or null when one of its merges is not in its vocabulary. */
  static of(model: ByteBpeModel): ByteBpeCounter | null {
    const merges = MergeTable.of(model);
    return merges ? new ByteBpeCounter(model, merges) : null;
  }

  private constructor(
    model: ByteBpeModel,
    private readonly merges: MergeTable,
  ) {
    this.byteIds = Int32Array.from(byteAlphabet(), (c) => idOf(model.vocab, c)!);
  }

  /** Tokens of a text that holds no added token. */
  count(text: string): number {
    const s = /[^\x00-\x7f]/.test(text) ? text.normalize('NFC') : text;
    let n = 0;
    for (let i = 0; i < s.length;) {
      const j = pieceEnd(s, i);
      // One ASCII character is one byte: one token of the byte-level alphabet.
      if (j === i + 1 && s.charCodeAt(i) < 128) n++;
      else n += this.pieceCount(s, i, j);
      i = j;
    }
    return n;
  }

  /** The count of the piece s[i, j), from the table or counted and kept. */
  private pieceCount(s: string, i: number, j: number): number {
    let h = 0x811c9dc5;
    for (let k = i; k < j; k++) h = Math.imul(h ^ s.charCodeAt(k), 0x01000193);
    const mask = PIECE_SLOTS - 1;
    let slot = (h ^ (h >>> 15)) & mask;
    const len = j - i;
    for (;;) {
      const key = this.keys[slot];
      if (key === undefined) break;
      if (key.length === len) {
        let k = 0;
        while (k < len && key.charCodeAt(k) === s.charCodeAt(i + k)) k++;
        if (k === len) return this.values[slot]!;
      }
      slot = (slot + 1) & mask;
    }
    const piece = s.slice(i, j);
    const c = this.countPiece(piece);
    if (this.used >= PIECE_SLOTS >> 1) {
      this.keys.fill(undefined);
      this.used = 0;
      slot = (h ^ (h >>> 15)) & mask;
      while (this.keys[slot] !== undefined) slot = (slot + 1) & mask;
    }
    this.keys[slot] = piece;
    this.values[slot] = c;
    this.used++;
    return c;
  }

  private countPiece(piece: string): number {
    const raw = this.utf8.encode(piece);
    if (raw.length === 1) return 1;
    const ids: number[] = new Array(raw.length);
    for (let i = 0; i < raw.length; i++) ids[i] = this.byteIds[raw[i]!]!;
    if (ids.length > LONG_PIECE) return this.countLong(ids);
    // The lowest-ranked adjacent pair is merged (the leftmost of equals), until none is left; only
    // the pairs next to a merge are looked up again.
    const t = this.merges;
    const slots: number[] = new Array(ids.length - 1);
    const rankOf = (slot: number) => (slot < 0 ? Infinity : t.rank[slot]!);
    for (let i = 0; i < ids.length - 1; i++) slots[i] = t.find(ids[i]!, ids[i + 1]!);
    while (ids.length > 1) {
      let at = 0;
      let best = rankOf(slots[0]!);
      for (let i = 1; i < slots.length; i++) {
        const r = rankOf(slots[i]!);
        if (r < best) {
          best = r;
          at = i;
        }
      }
      if (best === Infinity) break;
      ids[at] = t.merged[slots[at]!]!;
      ids.splice(at + 1, 1);
      slots.splice(at, 1);
      if (at > 0) slots[at - 1] = t.find(ids[at - 1]!, ids[at]!);
      if (at < ids.length - 1) slots[at] = t.find(ids[at]!, ids[at + 1]!);
    }
    return ids.length;
  }

  /**
   * The same merges for a long piece, as Hugging Face's BPE does them: a queue of adjacent pairs by
   * (rank, position), the lowest taken first; a pair whose symbols changed since it was queued is
   * dropped, and the pairs a merge creates with its neighbours are queued.
   */
  private countLong(ids: number[]): number {
    const t = this.merges;
    const sym = ids.slice();
    const next = sym.map((_, i) => (i + 1 < sym.length ? i + 1 : -1));
    const prev = sym.map((_, i) => i - 1);
    const heap = new PairQueue();
    const push = (i: number) => {
      const j = next[i]!;
      if (j < 0) return;
      const slot = t.find(sym[i]!, sym[j]!);
      if (slot >= 0) heap.push(t.rank[slot]!, i, sym[i]!, sym[j]!);
    };
    for (let i = 0; i < sym.length - 1; i++) push(i);
    let n = sym.length;
    for (let top = heap.pop(); top; top = heap.pop()) {
      const i = top.pos;
      const j = next[i]!;
      // Stale: the left symbol was merged away or changed, or its right neighbour did.
      if (sym[i] !== top.left || j < 0 || sym[j] !== top.right) continue;
      sym[i] = t.merged[t.find(top.left, top.right)]!;
      sym[j] = -1;
      const k = next[j]!;
      next[i] = k;
      if (k >= 0) prev[k] = i;
      n--;
      if (prev[i]! >= 0) push(prev[i]!);
      push(i);
    }
    return n;
  }
}

/** A binary min-heap of pairs by (rank, position). */
class PairQueue {
  private readonly items: { rank: number; pos: number; left: number; right: number }[] = [];

  push(rank: number, pos: number, left: number, right: number): void {
    const a = this.items;
    a.push({ rank, pos, left, right });
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(a[i]!, a[p]!)) break;
      [a[i], a[p]] = [a[p]!, a[i]!];
      i = p;
    }
  }

  pop(): { rank: number; pos: number; left: number; right: number } | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && less(a[l]!, a[m]!)) m = l;
        if (r < a.length && less(a[r]!, a[m]!)) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m]!, a[i]!];
        i = m;
      }
    }
    return top;
  }
}

const less = (x: { rank: number; pos: number }, y: { rank: number; pos: number }): boolean => x.rank < y.rank || (x.rank === y.rank && x.pos < y.pos);
