import { LruCache } from '../util/bounded-cache.js';
import type { Harness } from './types.js';

/**
 * What is kept of one context (by its JSON): section fills by defaults and template text, and the
 * renders (`R`) of its first few states (weakly: a per-record harness is not kept alive by them).
 */
export interface ContextEntry<R> {
  fills: Map<string, Map<string, string>>;
  renders: WeakMap<Harness, R>;
  kept: number;
}

/** Context keys seen lately are kept in a set until their length passes this. */
const SIGHTING_CHARS = 2_000_000;

/** The render cache of trajectory contexts, keyed by their JSON. */
export class ContextCache<R> {
  private readonly contexts: LruCache<string, ContextEntry<R>>;
  /** Context keys seen lately (cleared when their length passes SIGHTING_CHARS). */
  private readonly sightings = new Set<string>();
  private sightingChars = 0;
  // A record's context is keyed (and sighted) once for its source render and each variant's.
  private lastContext: unknown;
  private last: { key: string; entry: ContextEntry<R> | undefined } = { key: '', entry: undefined };

  constructor(size: number) {
    this.contexts = new LruCache<string, ContextEntry<R>>(size);
  }

  /**
   * A context's JSON, the key of everything rendered from it ('' for none), and its kept entry. By
   * object: the renders of one record ask with the same context object.
   */
  of(context: unknown): { key: string; entry: ContextEntry<R> | undefined } {
    if (context !== this.lastContext || context === undefined) {
      const key = context === undefined ? '' : JSON.stringify(context);
      this.last = { key, entry: this.entry(key) };
      this.lastContext = context;
    }
    return this.last;
  }

  /**
   * The kept entry of a context, made at its second sighting: a context seen once (logs whose every
   * record has its own) costs its key in a set, not an entry of renders that lives long enough to be
   * promoted and collected as old. Undefined while a context is new.
   */
  private entry(key: string): ContextEntry<R> | undefined {
    let entry = this.contexts.get(key);
    if (entry === undefined) {
      if (this.sightings.has(key)) this.contexts.set(key, (entry = { fills: new Map(), renders: new WeakMap(), kept: 0 }));
      else {
        if (this.sightingChars + key.length > SIGHTING_CHARS) {
          this.sightings.clear();
          this.sightingChars = 0;
        }
        this.sightings.add(key);
        this.sightingChars += key.length;
      }
    }
    return entry;
  }
}
