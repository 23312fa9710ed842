/**
 * A seeded random source. Every random choice in hsa comes from one of these, seeded from
 * (run seed, source id, variant index, transform id and version), so output never depends on
 * processing order, concurrency or the clock.
 */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [0, n). */
  int(n: number): number;
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** A shuffled copy (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[];
  /** `k` distinct items in random order. */
  sample<T>(items: readonly T[], k: number): T[];
}

/**
 * The generator of `seedrandom(seed).quick()` (ARC4 keyed by seedrandom's key mixing, the first 256
 * bytes dropped, four bytes per draw), written out on a typed array. Every sampled state makes one
 * of these per transform (tens per output record with per-record harnesses); the library's version
 * also stringifies its whole state into a global entropy pool on every construction, which we never
 * read. The sequence is the same number for number (test/rng.test.ts compares with seedrandom).
 */
/** Scratch space for a key: used only inside the constructor, which never reenters. */
const KEY = new Uint8Array(256);

/**
 * Generator states are views on shared slabs: allocating one 256-byte typed array per generator
 * (a backing store each) cost about as much as the key schedule itself. A slab is never reused,
 * only dropped when full, so a long-lived generator keeps its bytes.
 */
const SLAB_STATES = 256;
let slab = new ArrayBuffer(256 * SLAB_STATES);
let slabNext = 0;

function newState(): Uint8Array {
  if (slabNext === SLAB_STATES) {
    slab = new ArrayBuffer(256 * SLAB_STATES);
    slabNext = 0;
  }
  return new Uint8Array(slab, 256 * slabNext++, 256);
}

class Arc4 implements Rng {
  private readonly s = newState();
  private i = 0;
  private j = 0;

  constructor(seed: string) {
    // seedrandom's mixkey: a key of min(256, length) bytes, each slot smeared with the one before.
    const key = KEY;
    key.fill(0);
    const keylen = Math.min(256, seed.length) || 1;
    let smear = 0;
    for (let n = 0; n < seed.length; n++) {
      // A slot not yet written reads as undefined there, and `undefined * 19` xors as 0.
      smear ^= (n < 256 ? 0 : key[n & 255]!) * 19;
      key[n & 255] = (smear + seed.charCodeAt(n)) & 255;
    }
    // The key repeated to 256 bytes, so the schedule reads key[n] instead of key[n % keylen].
    for (let n = keylen; n < 256; n++) key[n] = key[n - keylen]!;
    const s = this.s;
    for (let n = 0; n < 256; n++) s[n] = n;
    for (let n = 0, j = 0; n < 256; n++) {
      const t = s[n]!;
      j = (j + key[n]! + t) & 255;
      s[n] = s[j]!;
      s[j] = t;
    }
    this.bytes(256);
  }

  /** The next `count` bytes as one big-endian number (count ≤ 6 stays exact). */
  bytes(count: number): number {
    const s = this.s;
    let i = this.i;
    let j = this.j;
    let r = 0;
    while (count-- > 0) {
      i = (i + 1) & 255;
      const t = s[i]!;
      j = (j + t) & 255;
      const u = s[j]!;
      s[i] = u;
      s[j] = t;
      r = r * 256 + s[(u + t) & 255]!;
    }
    this.i = i;
    this.j = j;
    return r;
  }

  next(): number {
    return this.bytes(4) / 0x100000000;
  }

  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  chance(p: number): boolean {
    return p >= 1 || (p > 0 && this.next() < p);
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('rng.pick on an empty list');
    return items[this.int(items.length)]!;
  }

  shuffle<T>(items: readonly T[]): T[] {
    const a = [...items];
    for (let i = a.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const t = a[i]!;
      a[i] = a[j]!;
      a[j] = t;
    }
    return a;
  }

  sample<T>(items: readonly T[], k: number): T[] {
    return this.shuffle(items).slice(0, Math.max(0, Math.min(k, items.length)));
  }
}

/** A generator seeded by the parts joined with U+241F (methods are called on it, never detached). */
export function createRng(...parts: (string | number)[]): Rng {
  return new Arc4(parts.length === 1 ? String(parts[0]) : parts.map(String).join('\u241f'));
}
