import type { JsonSchema } from '../harness/types.js';

/**
 * Word lists that transforms draw names and wordings from. The built-in lists live in
 * `transforms/words/`; a config can extend them (`words:` in hsa.yaml), never shrink them.
 */
export interface WordLists {
  /** word → interchangeable words, used to rename identifiers word by word. */
  synonyms: Record<string, string[]>;
  /** Prefixes and suffixes for the affix naming style (identifier words, no separators). */
  prefixes: string[];
  suffixes: string[];
  /** MCP server names for `server__tool` names. */
  servers: string[];
  /** Plausible tools a harness may list without ever calling. */
  distractorTools: { name: string; description: string; parameters: JsonSchema }[];
  /** Plausible skills a catalog may list without ever loading. */
  distractorSkills: { name: string; description: string; kind: 'reply' | 'strategy'; body: string }[];
  /** Sentence frames for rewording descriptions; `{text}` is the original, `{lower}` it lower-cased at the start. */
  descriptionFrames: string[];
  /** Hook feedback formats; `{tag}` is the hook id, `{reason}` the original feedback without its tag. */
  feedbackFrames: string[];
}

export function mergeWordLists(base: WordLists, extra: Partial<WordLists> | undefined): WordLists {
  if (!extra) return base;
  const synonyms: Record<string, string[]> = { ...base.synonyms };
  for (const [k, v] of Object.entries(extra.synonyms ?? {})) synonyms[k] = uniq([...(synonyms[k] ?? []), ...v]);
  return {
    synonyms,
    prefixes: uniq([...base.prefixes, ...(extra.prefixes ?? [])]),
    suffixes: uniq([...base.suffixes, ...(extra.suffixes ?? [])]),
    servers: uniq([...base.servers, ...(extra.servers ?? [])]),
    distractorTools: [...base.distractorTools, ...(extra.distractorTools ?? [])],
    distractorSkills: [...base.distractorSkills, ...(extra.distractorSkills ?? [])],
    descriptionFrames: uniq([...base.descriptionFrames, ...(extra.descriptionFrames ?? [])]),
    feedbackFrames: uniq([...base.feedbackFrames, ...(extra.feedbackFrames ?? [])]),
  };
}

function uniq<T>(xs: T[]): T[] {
  return [...new Set(xs)];
}
