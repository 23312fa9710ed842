import type { WordLists } from '../../src/transform/words.js';
import { distractorSkills, distractorTools } from './distractors.js';
import { descriptionFrames, feedbackFrames, prefixes, servers, suffixes } from './frames.js';
import { synonyms } from './synonyms.js';

/** The built-in word lists. A config extends them with `words:`. */
export const builtinWords: WordLists = {
  synonyms,
  prefixes,
  suffixes,
  servers,
  distractorTools,
  distractorSkills,
  descriptionFrames,
  feedbackFrames,
};
