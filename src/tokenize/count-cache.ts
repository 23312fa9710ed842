/**
 * Token counts by text, with a budget on the characters kept (cleared whole when spent) and a
 * longest text worth keeping; longer texts are counted every time.
 */
export class CountCache {
  private readonly map = new Map<string, number>();
  private chars = 0;

  constructor(
    private readonly maxText: number,
    private readonly maxChars: number,
    /** Characters kept by a group of caches that share a budget (their owner clears them all when it is spent). */
    private readonly shared: { n: number } | null = null,
  ) {}

  count(text: string, compute: (t: string) => number): number {
    if (text.length > this.maxText) return compute(text);
    const hit = this.map.get(text);
    if (hit !== undefined) return hit;
    const n = compute(text);
    if (this.chars + text.length > this.maxChars) {
      this.map.clear();
      this.chars = 0;
    }
    this.map.set(text, n);
    this.chars += text.length;
    if (this.shared) this.shared.n += text.length;
    return n;
  }

  clear(): void {
    this.map.clear();
    this.chars = 0;
  }
}
