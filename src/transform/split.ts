import { sha256 } from '../util/hash.js';
import type { SynonymEntry, WordLists } from '../words/types.js';

export const SPLITS = ['train', 'eval'] as const;
export type Split = (typeof SPLITS)[number];

/**
 * The fixed key of the split buckets. It is the same for every run everywhere, so a name's bucket
 * never depends on seed, config or machine: a model trained on any train run never saw a name an
 * eval run can draw.
 */
const SPLIT_KEY = 'hsa-split-v1';

/** The name with case and separators removed: `getItem`, `get_item` and `GET-ITEM` are one name. */
function normalised(name: string): string {
  return name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '');
}

/** The split a name belongs to: a keyed hash of its normalised form into two buckets. */
export function splitOf(name: string): Split {
  return (Number.parseInt(sha256(`${SPLIT_KEY}\u0000${normalised(name)}`).slice(0, 2), 16) & 1) === 0 ? 'train' : 'eval';
}

/**
 * The word lists of one split: every synonym option, affix, server name and distractor is kept
 * only in the split its name hashes to, and every name a transform proposes (renames of tools,
 * parameters, skills and hooks in any style, opaque ids included) must hash to the split too
 * (`accept`, checked in proposeName). Sentence and feedback frames are shared: they carry no names,
 * and transforms also read them to recognise the source's own wording.
 */
export function splitWordLists(words: WordLists, split: Split): WordLists {
  const mine = (w: string) => splitOf(w) === split;
  const synonyms = new Map<string, SynonymEntry>();
  for (const [word, e] of words.synonyms)
    synonyms.set(word, { neutral: e.neutral.filter(mine), senses: e.senses.map((s) => ({ ...s, words: s.words.filter(mine) })) });
  return {
    ...words,
    synonyms,
    prefixes: words.prefixes.filter(mine),
    suffixes: words.suffixes.filter(mine),
    servers: words.servers.filter(mine),
    // Its parameter names must be the split's too, unless the harness has them (tools.distractors checks).
    distractorTools: words.distractorTools.filter((d) => mine(d.name)),
    distractorSkills: words.distractorSkills.filter((d) => mine(d.name)),
    accept: mine,
  };
}
