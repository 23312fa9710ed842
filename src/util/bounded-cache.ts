/**
 * A cache keyed by strings with a budget on total key length (texts dominate the memory a cache
 * keeps), cleared whole when the budget is spent. Enough for caches whose hits come in bursts
 * (the same texts across the variants of one record) and whose memory must not grow with input.
 */
export class TextKeyedCache<V> {
  private readonly map = new Map<string, V>();
  private weight = 0;

  constructor(private readonly maxChars: number) {}

  get(key: string): V | undefined {
    return this.map.get(key);
  }

  set(key: string, value: V): void {
    if (this.weight + key.length > this.maxChars) {
      this.map.clear();
      this.weight = 0;
    }
    this.map.set(key, value);
    this.weight += key.length;
  }
}

/**
 * A cache of at most `maxEntries` entries that drops the least recently used one first (a hit
 * moves its entry to the back of the map's order). For keys that recur over a whole input — the
 * contexts of one live session — where clearing everything at once would lose the frequent ones.
 */
export class LruCache<K, V> {
  private readonly map = new Map<K, V>();

  constructor(private readonly maxEntries: number) {}

  /** The key at the back of the order (the most recently used): a hit on it moves nothing. */
  private newest: K | undefined;

  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined && key !== this.newest) {
      this.map.delete(key);
      this.map.set(key, v);
      this.newest = key;
    }
    return v;
  }

  set(key: K, value: V): void {
    this.map.delete(key);
    if (this.map.size >= this.maxEntries) this.map.delete(this.map.keys().next().value as K);
    this.map.set(key, value);
    this.newest = key;
  }
}
