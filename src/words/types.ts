import type { JsonSchema } from '../harness/types.js';

/** Shapes a description's first sentence can have; each has its own frames (see reword.ts). */
export const DESCRIPTION_SHAPES = ['verb', 'verb3', 'clause', 'noun', 'for', 'when', 'zh_verb', 'zh_noun'] as const;
export type DescriptionShape = (typeof DESCRIPTION_SHAPES)[number];

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
 * folder, or the user's files) selected by `words:` in hsa.yaml; see packs.ts and selection.ts.
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

export const WORD_LIST_KEYS = [
  'synonyms',
  'prefixes',
  'suffixes',
  'servers',
  'idStyles',
  'distractorTools',
  'distractorSkills',
  'descriptionFrames',
  'feedbackFrames',
] as const;
export type WordListKey = (typeof WORD_LIST_KEYS)[number];
export type MergeMode = 'add' | 'replace';
