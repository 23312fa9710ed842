import { existsSync } from 'node:fs';
import path from 'node:path';
import { canonicalJson } from '../util/canonical-json.js';
import { emptyWordLists, mergeInto } from './lists.js';
import {
  BUILTIN_PACKS,
  builtinPack,
  builtinPackFile,
  LIST_KEYS,
  listsOf,
  readPackFile,
  WordPackError,
  type BuiltinPack,
  type ModeSpec,
  type PackLists,
  type WordsConfig,
} from './packs.js';
import { WORD_LIST_KEYS, type MergeMode, type WordListKey, type WordLists } from './types.js';

/**
 * Selections: which packs (built-in names or files) and inline lists make a run's word lists, as
 * `words:` in hsa.yaml or `--words` names them and the manifest records them, and the merged lists.
 */

/** One source of a selection, as the manifest records it. */
export type WordSource =
  { pack: BuiltinPack; sha256: string; mode?: ModeSpec } | { file: string; sha256: string; mode?: ModeSpec } | { inline: PackLists; mode?: ModeSpec };

/** Which packs (and the config's own lists) make a run's word lists, merged in this order. */
export interface WordsSelection {
  sources: WordSource[];
}

export function isWordsSelection(x: unknown): x is WordsSelection {
  return typeof x === 'object' && x !== null && Array.isArray((x as { sources?: unknown }).sources);
}

/** A pack reference is a file when it has a path separator or a YAML/JSON extension; else a built-in name. */
function isFileRef(ref: string): boolean {
  return /[\\/]/.test(ref) || /\.(ya?ml|json)$/i.test(ref);
}

function normalise(p: string): string {
  return path.normalize(p).split(path.sep).join('/');
}

/**
 * One pack reference → a source: a built-in name, or a file (relative to `base`). Unknown names
 * and unreadable or invalid files throw with `where` (the config file, line and key) in front.
 */
export function packSource(ref: string, base: string, where: string, mode?: ModeSpec): WordSource {
  if (!isFileRef(ref)) {
    if (!(BUILTIN_PACKS as readonly string[]).includes(ref)) {
      throw new WordPackError(`${where}: unknown word pack "${ref}" (built-in: ${BUILTIN_PACKS.join(', ')}; a file needs a path or a .yaml/.yml/.json name)`);
    }
    const name = ref as BuiltinPack;
    return { pack: name, sha256: readPackFile(builtinPackFile(name), `words/${name}.yaml`).sha256, ...(mode !== undefined ? { mode } : {}) };
  }
  // Relative to the working folder (absolute outside it) however the config or the flag spelled it
  // (`./p.yaml`, `dir/../p.yaml`, an absolute path): the manifest does not depend on the spelling.
  const abs = path.resolve(base, ref);
  const rel = path.relative(process.cwd(), abs);
  const file = normalise(rel === '' || rel.startsWith('..') || path.isAbsolute(rel) ? abs : rel);
  if (!existsSync(file)) throw new WordPackError(`${where}: word pack file ${file} does not exist`);
  return { file, sha256: readPackFile(file).sha256, ...(mode !== undefined ? { mode } : {}) };
}

/** The selection with no `words:`: the default pack alone. */
export function defaultSelection(): WordsSelection {
  return { sources: [packSource('default', '.', '(default)')] };
}

/**
 * A validated `words:` config (paths relative to `base`) → its selection. `refs` replaces the
 * config's `packs` and `file` (the `--words` flag, paths relative to the working folder). Packs come
 * first, in order, then the config's own lists with its `mode`. No packs named: the default pack.
 */
export function resolveWordsConfig(
  words: WordsConfig | undefined,
  base: string,
  where: (key: (string | number)[]) => string,
  refs?: readonly string[],
): WordsSelection {
  const sources: WordSource[] = [];
  if (refs && refs.length) {
    for (const ref of refs) sources.push(packSource(ref, '.', '--words'));
  } else {
    (words?.packs ?? []).forEach((p, i) => {
      const ref = typeof p === 'string' ? p : p.pack;
      sources.push(packSource(ref, base, where(['words', 'packs', i]), typeof p === 'string' ? undefined : p.mode));
    });
    const files = words?.file === undefined ? [] : Array.isArray(words.file) ? words.file : [words.file];
    files.forEach((f, i) => sources.push(packSource(f, base, where(Array.isArray(words?.file) ? ['words', 'file', i] : ['words', 'file']))));
  }
  if (sources.length === 0) sources.push(packSource('default', base, '(default)'));
  if (words) {
    const inline: Record<string, unknown> = {};
    for (const key of Object.values(LIST_KEYS)) if (words[key] !== undefined) inline[key] = words[key];
    if (Object.keys(inline).length) sources.push({ inline: inline, ...(words.mode !== undefined ? { mode: words.mode } : {}) });
  }
  return { sources };
}

function modeOf(spec: ModeSpec | undefined): (key: WordListKey) => MergeMode {
  if (spec === undefined) return () => 'add';
  if (typeof spec === 'string') return () => spec;
  return (key) => spec[LIST_KEYS[key]] ?? 'add';
}

const listsCache = new Map<string, WordLists>();

/**
 * The word lists of a selection: its sources merged in order. A recorded file must still have the
 * sha256 the selection names (a run never silently uses another pack). The lists that are about
 * language rather than domain — description and feedback frames, opaque-id styles — start from
 * the default pack's (a source adds to them or replaces them); every other list starts empty.
 */
export function wordListsOf(selection: WordsSelection): WordLists {
  const key = canonicalJson(selection);
  const hit = listsCache.get(key);
  if (hit) return hit;
  const base = builtinPack('default');
  let lists: WordLists = {
    ...emptyWordLists(),
    descriptionFrames: { ...emptyWordLists().descriptionFrames, ...base.descriptionFrames },
    idStyles: [...(base.idStyles ?? [])],
    feedbackFrames: [...(base.feedbackFrames ?? [])],
  };
  for (const src of selection.sources) {
    let add: Partial<WordLists>;
    if ('inline' in src) add = listsOf(src.inline);
    else {
      const shown = 'pack' in src ? `words/${src.pack}.yaml` : src.file;
      const pack = 'pack' in src ? readPackFile(builtinPackFile(src.pack), shown) : readPackFile(src.file);
      if (pack.sha256 !== src.sha256) throw new WordPackError(`${shown}: changed while in use (sha256 ${pack.sha256}, expected ${src.sha256})`);
      add = pack.lists;
    }
    lists = mergeInto(lists, add, modeOf(src.mode));
  }
  listsCache.set(key, lists);
  return lists;
}

/** Every list of a built-in pack merged onto empty lists, frames filled from the default pack. */
export function builtinWordLists(name: BuiltinPack = 'default'): WordLists {
  return wordListsOf({ sources: [packSource(name, '.', '(built-in)')] });
}

/**
 * Merge extra word lists into `base` (every list added), or — when `extra` is a word selection
 * from the config (`words:` as readConfigFile and resolveRunConfig resolve it) — the lists that
 * selection names, read from its packs (`base` is then not used: the selection names every pack).
 */
export function mergeWordLists(base: WordLists, extra: Partial<WordLists> | WordsSelection | undefined | null): WordLists {
  if (!extra) return base;
  if (isWordsSelection(extra)) return wordListsOf(extra);
  return mergeInto(base, extra);
}

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
