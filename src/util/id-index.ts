/**
 * The record ids seen so far and where each was first seen, for duplicate detection over inputs of
 * any size. This is the one thing a run keeps per input record, so it is kept compact and off the
 * JavaScript heap: the ids' UTF-8 bytes in one growing arena, and per id its offset, length, hash,
 * file and line in typed arrays, found through an open-addressing table. About 45 bytes per record
 * for a 20-character id (a Map of id → "file:line" strings took ~200), and nothing for the garbage
 * collector to trace.
 */
export class IdIndex {
  private files: string[] = [];
  private fileIndex = new Map<string, number>();
  private arena = Buffer.allocUnsafe(64 << 10);
  private used = 0;
  private count = 0;
  private offsets = new Float64Array(1024);
  private lengths = new Uint32Array(1024);
  private hashes = new Uint32Array(1024);
  private lines = new Uint32Array(1024);
  private fileOf = new Uint16Array(1024);
  /** Slot → entry index + 1 (0: empty). Its size is a power of two, at most half full. */
  private table = new Uint32Array(2048);

  /** How many ids are held. */
  get size(): number {
    return this.count;
  }

  /**
   * Remember `id` as seen at `file:line`, or — when it was seen before — return where it was first
   * seen (`file:line`) and keep the first place.
   */
  note(id: string, file: string, line: number): string | undefined {
    // UTF-8 keeps ids short; an id with a lone surrogate (which UTF-8 cannot carry: it would become
    // U+FFFD, like a real U+FFFD) is kept as UTF-16 code units, flagged in its length.
    const wellFormed = isWellFormed(id);
    // The id is encoded straight into the arena's free space (no buffer per id); it stays there
    // only when it is new.
    const room = id.length * (wellFormed ? 3 : 2);
    if (this.used + room > this.arena.length) {
      const bigger = Buffer.allocUnsafe(Math.max(this.arena.length * 2, this.used + room));
      this.arena.copy(bigger, 0, 0, this.used);
      this.arena = bigger;
    }
    const at = this.used;
    const n = this.arena.write(id, at, wellFormed ? 'utf8' : 'utf16le');
    const len = wellFormed ? n : (n | UTF16) >>> 0;
    const h = hashBytes(this.arena, at, at + n);
    const mask = this.table.length - 1;
    let slot = h & mask;
    for (;;) {
      const e = this.table[slot]!;
      if (e === 0) break;
      const i = e - 1;
      if (this.hashes[i] === h && this.lengths[i] === len && this.arena.compare(this.arena, at, at + n, this.offsets[i], this.offsets[i]! + n) === 0) {
        return `${this.files[this.fileOf[i]!]}:${this.lines[i]}`;
      }
      slot = (slot + 1) & mask;
    }
    this.add(n, len, h, file, line, slot);
    return undefined;
  }

  /** Keep the id just encoded at the arena's end (`n` bytes) as entry `count`. */
  private add(n: number, len: number, h: number, file: string, line: number, slot: number): void {
    let f = this.fileIndex.get(file);
    if (f === undefined) {
      f = this.files.length;
      if (f > 0xffff) throw new Error('more than 65,535 input files');
      this.files.push(file);
      this.fileIndex.set(file, f);
    }
    if (this.count === this.lengths.length) this.growEntries();
    const i = this.count++;
    this.offsets[i] = this.used;
    this.used += n;
    this.lengths[i] = len;
    this.hashes[i] = h;
    this.lines[i] = line;
    this.fileOf[i] = f;
    this.table[slot] = i + 1;
    if (this.count * 2 > this.table.length) this.rehash();
  }

  private growEntries(): void {
    const n = this.lengths.length * 2;
    const grow = <T extends Float64Array | Uint32Array | Uint16Array>(a: T, make: (n: number) => T): T => {
      const b = make(n);
      b.set(a);
      return b;
    };
    this.offsets = grow(this.offsets, (k) => new Float64Array(k));
    this.lengths = grow(this.lengths, (k) => new Uint32Array(k));
    this.hashes = grow(this.hashes, (k) => new Uint32Array(k));
    this.lines = grow(this.lines, (k) => new Uint32Array(k));
    this.fileOf = grow(this.fileOf, (k) => new Uint16Array(k));
  }

  private rehash(): void {
    const table = new Uint32Array(this.table.length * 2);
    const mask = table.length - 1;
    for (let i = 0; i < this.count; i++) {
      let slot = this.hashes[i]! & mask;
      while (table[slot] !== 0) slot = (slot + 1) & mask;
      table[slot] = i + 1;
    }
    this.table = table;
  }
}

/** Whether every surrogate in `s` is half of a pair (so UTF-8 carries the text exactly). */
function isWellFormed(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c > 0xdbff) return false;
    const d = s.charCodeAt(i + 1);
    if (!(d >= 0xdc00 && d <= 0xdfff)) return false;
    i++;
  }
  return true;
}

/** Marks an id stored as UTF-16 code units (in its length). */
const UTF16 = 0x80000000;

/** FNV-1a over the bytes, with a final mix so that the low bits (the table slot) depend on all of them. */
function hashBytes(b: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}
