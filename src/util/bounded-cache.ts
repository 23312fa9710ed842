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
