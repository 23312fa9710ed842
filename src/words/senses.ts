import type { SynonymEntry, SynonymSense, WordLists } from './types.js';

/** Senses: which synonyms of a word fit an identifier, given the words around it (its description, its name). */

/** The words around an identifier (its description, its name's other words), ready for cue matching. */
export interface WordContext {
  stems: Set<string>;
  /** Lower-cased text, for cues in scripts without spaces (Chinese). */
  text: string;
}

const NO_CONTEXT: WordContext = { stems: new Set(), text: '' };

/** A context from free texts (descriptions) and extra words (the identifier's other name words). */
export function wordContext(texts: readonly string[], words: readonly string[] = []): WordContext {
  const text = texts.join('\n').toLowerCase();
  const stems = new Set<string>();
  for (const w of text.match(/[a-z][a-z0-9]*/g) ?? []) stems.add(stem(w));
  for (const w of words) stems.add(stem(w.toLowerCase()));
  return { stems, text };
}

/**
 * A context whose stems are worked out on first use: only a word with senses in the pack reads its
 * context, and most names have none (a parameter's context holds every text of every tool that has it).
 */
export class LazyWordContext implements WordContext {
  private made: WordContext | undefined;

  constructor(
    private readonly texts: readonly string[],
    private readonly words: readonly string[] = [],
  ) {}

  get stems(): Set<string> {
    return (this.made ??= wordContext(this.texts, this.words)).stems;
  }

  get text(): string {
    return (this.made ??= wordContext(this.texts, this.words)).text;
  }
}

/** A light, deterministic English stem: plural and verb endings off, so "flights" meets "flight". */
export function stem(word: string): string {
  const w = word.toLowerCase();
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.length > 4 && /(?:ches|shes|sses|xes)$/.test(w)) return w.slice(0, -2);
  if (w.length > 5 && w.endsWith('ing')) return w.slice(0, -3);
  if (w.length > 4 && w.endsWith('ed')) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us')) return w.slice(0, -1);
  return w;
}

function cueMatches(cue: string, ctx: WordContext): boolean {
  const c = cueForm(cue);
  if (typeof c === 'string') return ctx.text.includes(c);
  return c.length > 0 && c.every((p) => ctx.stems.has(p));
}

/** A cue's lower-cased text (scripts without spaces) or its word stems: a pack's cues are met for every name of every state. */
const cueForms = new Map<string, string | string[]>();

function cueForm(cue: string): string | string[] {
  let f = cueForms.get(cue);
  if (f === undefined) {
    f = /[^\x00-\x7f]/.test(cue)
      ? cue.toLowerCase()
      : cue
          .toLowerCase()
          .split(/[^a-z0-9]+/)
          .filter(Boolean)
          .map(stem);
    // Cues come from word packs (a few thousand at most); a bound keeps odd packs from growing it.
    if (cueForms.size >= 65_536) cueForms.clear();
    cueForms.set(cue, f);
  }
  return f;
}

/**
 * The sense of an entry that fits the context: the one whose cues match most (distinct cues
 * counted), or none on no match or a tie — then only sense-neutral words may be used.
 */
export function chooseSense(entry: SynonymEntry, ctx: WordContext): SynonymSense | undefined {
  let best: SynonymSense | undefined;
  let bestScore = 0;
  let tie = false;
  for (const sense of entry.senses) {
    // Distinct cues by stem: "flight" and "flights" are one piece of evidence.
    const score = new Set(sense.cues.filter((c) => cueMatches(c, ctx)).map((c) => stem(c))).size;
    if (score > bestScore) {
      best = sense;
      bestScore = score;
      tie = false;
    } else if (score === bestScore && score > 0) tie = true;
  }
  return tie ? undefined : best;
}

/** Words that may replace `word` in an identifier with this context (sense-neutral ones first; a shared list, not to be changed). */
export function synonymsFor(words: WordLists, word: string, ctx: WordContext = NO_CONTEXT): string[] {
  const entry = words.synonyms.get(word);
  if (!entry) return [];
  const sense = entry.senses.length ? chooseSense(entry, ctx) : undefined;
  // A sense with no words means "not renamed in this sense": neutral words would not fit either.
  if (sense && sense.words.length === 0) return [];
  // Lists are made once per (entry, sense): every name of every state asks again.
  let made = synonymLists.get(entry);
  if (made === undefined || made.word !== word) synonymLists.set(entry, (made = { word, bySense: new Map() }));
  let list = made.bySense.get(sense);
  if (list === undefined) made.bySense.set(sense, (list = [...new Set([...entry.neutral, ...(sense?.words ?? [])])].filter((w) => w !== word)));
  return list;
}

/** Synonym lists by entry, for the word the entry was asked about (read-only for callers). */
const synonymLists = new WeakMap<SynonymEntry, { word: string; bySense: Map<SynonymSense | undefined, string[]> }>();
