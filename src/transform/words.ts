import type { JsonSchema } from '../harness/types.js';
// A cycle by design: packs are merged with mergeInto, and mergeWordLists reads packs; neither
// module uses the other while it loads.
import { DESCRIPTION_SHAPES, isWordsSelection, wordListsOf, type DescriptionShape, type WordsSelection } from './word-packs.js';

/** One sense of a word: its words are used only where its cues match the identifier's context. */
export interface SynonymSense {
  sense: string;
  cues: string[];
  /** Empty: in this sense the word is not renamed at all ("check" in "check_in"). */
  words: string[];
}

/** Interchangeable words for one word: those that fit in any sense, and sense-bound ones. */
export interface SynonymEntry {
  neutral: string[];
  senses: SynonymSense[];
}

export { DESCRIPTION_SHAPES, type DescriptionShape } from './word-packs.js';

export interface DistractorTool {
  name: string;
  description: string;
  parameters: JsonSchema;
}

export interface DistractorSkill {
  name: string;
  description: string;
  kind: 'reply' | 'strategy';
  body: string;
}

/**
 * Word lists that transforms draw names and wordings from. They come from word packs (`words/`
 * folder, or the user's files) selected by `words:` in hsa.yaml; see src/transform/word-packs.ts.
 */
export interface WordLists {
  /** word → interchangeable words, used to rename identifiers word by word (a Map: no prototype keys). */
  synonyms: Map<string, SynonymEntry>;
  /** Prefixes and suffixes for the affix naming style (identifier words, no separators). */
  prefixes: string[];
  suffixes: string[];
  /** MCP server names for `server__tool` names. */
  servers: string[];
  /** Opaque id templates: `{prefix}` and random `{hex:N}`, `{digits:N}`, `{letters:N}`. */
  idStyles: string[];
  /** Plausible tools a harness may list without ever calling. */
  distractorTools: DistractorTool[];
  /** Plausible skills a catalog may list without ever loading. */
  distractorSkills: DistractorSkill[];
  /** Sentence frames for rewording descriptions, by the shape of the first sentence. */
  descriptionFrames: Record<DescriptionShape, string[]>;
  /** Hook feedback formats; `{tag}` is the hook id, `{reason}` the original feedback without its tag. */
  feedbackFrames: string[];
  /** Set for a split run (`augment --split`): a proposed name must pass it (src/transform/split.ts). */
  accept?: (name: string) => boolean;
}

export const WORD_LIST_KEYS = ['synonyms', 'prefixes', 'suffixes', 'servers', 'idStyles', 'distractorTools', 'distractorSkills', 'descriptionFrames', 'feedbackFrames'] as const;
export type WordListKey = (typeof WORD_LIST_KEYS)[number];
export type MergeMode = 'add' | 'replace';

/** Empty lists: the start of a merge. */
export function emptyWordLists(): WordLists {
  return {
    synonyms: new Map(),
    prefixes: [],
    suffixes: [],
    servers: [],
    idStyles: [],
    distractorTools: [],
    distractorSkills: [],
    descriptionFrames: Object.fromEntries(DESCRIPTION_SHAPES.map((s) => [s, []])) as unknown as Record<DescriptionShape, string[]>,
    feedbackFrames: [],
  };
}

/**
 * `next` merged into `base`, list by list: `add` appends what is new (synonyms merge per word and
 * per sense name; distractors by name, the first one kept), `replace` takes `next`'s list instead.
 * A list `next` does not have is kept as it is in either mode.
 */
export function mergeInto(base: WordLists, next: Partial<WordLists>, mode: (key: WordListKey) => MergeMode = () => 'add'): WordLists {
  const out: WordLists = { ...base };
  for (const key of WORD_LIST_KEYS) {
    const value = next[key];
    if (value === undefined) continue;
    const replace = mode(key) === 'replace';
    switch (key) {
      case 'synonyms':
        out.synonyms = replace ? new Map(next.synonyms!) : mergeSynonyms(base.synonyms, next.synonyms!);
        break;
      case 'distractorTools':
        out.distractorTools = replace ? [...next.distractorTools!] : uniqBy([...base.distractorTools, ...next.distractorTools!], (t) => t.name);
        break;
      case 'distractorSkills':
        out.distractorSkills = replace ? [...next.distractorSkills!] : uniqBy([...base.distractorSkills, ...next.distractorSkills!], (s) => s.name);
        break;
      case 'descriptionFrames': {
        const frames = { ...base.descriptionFrames };
        for (const shape of DESCRIPTION_SHAPES) {
          const add = next.descriptionFrames![shape];
          if (add !== undefined) frames[shape] = replace ? [...add] : uniq([...frames[shape], ...add]);
        }
        out.descriptionFrames = frames;
        break;
      }
      default:
        out[key] = replace ? [...next[key]!] : uniq([...base[key], ...next[key]!]);
    }
  }
  return out;
}

function mergeSynonyms(a: Map<string, SynonymEntry>, b: Map<string, SynonymEntry>): Map<string, SynonymEntry> {
  const out = new Map(a);
  for (const [word, entry] of b) {
    const old = out.get(word);
    if (!old) {
      out.set(word, entry);
      continue;
    }
    const senses = old.senses.map((s) => ({ ...s }));
    for (const s of entry.senses) {
      const same = senses.find((x) => x.sense === s.sense);
      if (same) {
        same.cues = uniq([...same.cues, ...s.cues]);
        same.words = uniq([...same.words, ...s.words]);
      } else senses.push(s);
    }
    out.set(word, { neutral: uniq([...old.neutral, ...entry.neutral]), senses });
  }
  return out;
}

/**
 * Merge extra word lists into `base` (every list added), or — when `extra` is a word selection
 * from the config (`words:` as readConfigFile and resolveRunConfig resolve it) — the lists that
 * selection names, read from its packs (`base` is then not used: the selection names every pack).
 */
export function mergeWordLists(base: WordLists, extra: Partial<WordLists> | WordsSelection | undefined | null): WordLists {
  if (!extra) return base;
  if (isWordsSelection(extra)) return wordListsOf(extra);
  return mergeInto(base, extra as Partial<WordLists>);
}

// ---------------------------------------------------------------------------------------------
// Senses: which synonyms fit an identifier, given its description
// ---------------------------------------------------------------------------------------------

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
    f = /[^\x00-\x7f]/.test(cue) ? cue.toLowerCase() : cue.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean).map(stem);
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
  if (list === undefined) made.bySense.set(sense, (list = uniq([...entry.neutral, ...(sense?.words ?? [])]).filter((w) => w !== word)));
  return list;
}

/** Synonym lists by entry, for the word the entry was asked about (read-only for callers). */
const synonymLists = new WeakMap<SynonymEntry, { word: string; bySense: Map<SynonymSense | undefined, string[]> }>();

function uniq<T>(xs: T[]): T[] {
  return [...new Set(xs)];
}

function uniqBy<T>(xs: T[], key: (x: T) => string): T[] {
  const seen = new Set<string>();
  return xs.filter((x) => {
    const k = key(x);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
