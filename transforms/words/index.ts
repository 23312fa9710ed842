import { builtinWordLists } from '../../src/transform/word-packs.js';
import type { WordLists } from '../../src/transform/words.js';

/**
 * The default word lists: the domain-neutral pack `words/default.yaml`. A run's lists come from
 * the packs its config selects (`words:` in hsa.yaml, `--words`); this is what it gets without.
 */
export const builtinWords: WordLists = builtinWordLists('default');
