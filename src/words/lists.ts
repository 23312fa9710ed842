import { DESCRIPTION_SHAPES, WORD_LIST_KEYS, type DescriptionShape, type MergeMode, type SynonymEntry, type WordListKey, type WordLists } from './types.js';

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
        out.synonyms = replace ? new Map(next.synonyms) : mergeSynonyms(base.synonyms, next.synonyms!);
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
