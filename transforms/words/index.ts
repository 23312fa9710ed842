import { builtinWordLists } from '../../src/transform/word-packs.js';
import { WORD_LIST_KEYS, type WordLists } from '../../src/transform/words.js';

let lists: WordLists | undefined;
const load = (): WordLists => (lists ??= builtinWordLists('default'));

/**
 * The default word lists: the domain-neutral pack `words/default.yaml`. A run's lists come from
 * the packs its config selects (`words:` in hsa.yaml, `--words`); this is what it gets without.
 * Read on first use, so commands that never rename anything (validate, inspect) do not parse it.
 */
export const builtinWords: WordLists = Object.defineProperties(
  {} as WordLists,
  Object.fromEntries(WORD_LIST_KEYS.map((key) => [key, { enumerable: true, get: () => load()[key] }])),
);
