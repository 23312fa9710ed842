import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Ajv } from 'ajv';
import { createRequire } from 'node:module';
import { z } from 'zod';
import { HsaError } from '../errors.js';
import { describeIssue } from '../harness/schema.js';
import { OPENAI_TOOL_NAME } from '../harness/types.js';
import { sha256 } from '../util/hash.js';
import { isParseFailure, parseLocated } from '../util/located.js';
import { emptyWordLists } from './lists.js';
import { DESCRIPTION_SHAPES, type SynonymEntry, type WordListKey, type WordLists } from './types.js';

/**
 * Word packs: YAML (or JSON) files of synonyms, affixes, opaque-id styles, distractor tools and
 * skills and description frames (format: docs/words.md). The built-in packs live in the package's
 * top-level `words/` folder; `words:` in hsa.yaml (or `--words`) selects packs and files and may
 * add to or replace any list (selection.ts). The selection, with each pack's sha256, is what the
 * manifest records.
 */

/** A bad pack file or selection: exit 2, the message names the file, line and key path. */
export class WordPackError extends HsaError {
  constructor(message: string) {
    super('HSA_BAD_CONFIG', message, 2);
    this.name = 'WordPackError';
  }
}

/** The packs shipped in `words/`, by name (an explicit list: data is found by name, never by scanning). */
export const BUILTIN_PACKS = ['default', 'live-commerce', 'travel', 'software'] as const;
export type BuiltinPack = (typeof BUILTIN_PACKS)[number];

const IDENT_WORD = /^[a-z][a-z0-9]*$/;
const SYNONYM_WORD = /^[a-z][a-z0-9]*(?:[_-][a-z0-9]+)*$/;
const ID_STYLE_TOKEN = /\{(prefix|hex:[1-9]|digits:[1-9]|letters:[1-9])\}/g;

const word = z.string().regex(IDENT_WORD, 'must be one lower-case word (a-z, 0-9, starting with a letter)');
const synonymWord = z.string().regex(SYNONYM_WORD, 'must be lower-case identifier words (a-z, 0-9, joined by _ or -)');
const senseSchema = z.strictObject({
  sense: z.string().min(1),
  cues: z.array(z.string().min(1)).min(1),
  words: z.array(synonymWord),
});
const idStyle = z
  .string()
  .refine((s) => /^[A-Za-z0-9_-]*$/.test(s.replace(ID_STYLE_TOKEN, '')), 'only {prefix}, {hex:N}, {digits:N}, {letters:N} (N 1-9) and identifier characters')
  .refine((s) => /\{(hex|digits|letters):/.test(s), 'needs at least one random part ({hex:N}, {digits:N} or {letters:N})');
const objectSchema = z
  .record(z.string(), z.unknown())
  .refine((s) => s.type === 'object', 'must be a JSON Schema with type: object')
  .refine(
    (s) => s.properties === undefined || (typeof s.properties === 'object' && s.properties !== null && !Array.isArray(s.properties)),
    'properties must be an object',
  );
// A distractor tool is shown to the model as written, so its schema must be one a strict reader
// accepts: ajv's strict mode refuses unknown keywords. (An unquoted comma in a YAML flow mapping,
// `{ description: City name, optionally with its country. }`, parses as a second key with a null
// value: valid YAML, a valid lax JSON Schema, and a broken tool in every variant that adds it.)
let strictAjv: Ajv | undefined;
function strictSchemaProblem(schema: unknown): { message: string; path: (string | number)[] } | undefined {
  // (ajv is loaded here, for a word pack read from YAML, not with this module.)
  const AjvClass = (createRequire(import.meta.url)('ajv') as typeof import('ajv')).Ajv;
  strictAjv ??= new AjvClass({ strict: true, strictTypes: false, strictTuples: false, strictRequired: false, validateFormats: false, logger: false });
  try {
    strictAjv.compile(schema as object);
    return undefined;
  } catch (e) {
    const message = (e as Error).message;
    const keyword = /unknown keyword: "(.*)"/.exec(message)?.[1];
    const at = keyword === undefined ? undefined : pathToKey(schema, keyword);
    const hint = at && at.value === null ? ' (a null value: an unquoted comma in a YAML flow mapping splits a text into a second key; quote the text)' : '';
    return { message: `not a strict JSON Schema: ${message}${hint}`, path: at?.path ?? [] };
  } finally {
    strictAjv.removeSchema();
  }
}
/** The path of the first key named `key` inside `value` (depth first), and its value. */
function pathToKey(value: unknown, key: string, at: (string | number)[] = []): { path: (string | number)[]; value: unknown } | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  for (const [k, v] of Object.entries(value)) {
    if (k === key) return { path: [...at, k], value: v };
    const inner = pathToKey(v, key, [...at, Array.isArray(value) ? Number(k) : k]);
    if (inner) return inner;
  }
  return undefined;
}
const toolSchema = z.strictObject({
  name: z.string().regex(OPENAI_TOOL_NAME, 'must be a tool name OpenAI accepts (a-z, A-Z, 0-9, _ and -, at most 64)'),
  description: z.string().trim().min(1),
  parameters: objectSchema.superRefine((schema, ctx) => {
    const problem = strictSchemaProblem(schema);
    if (problem) ctx.addIssue({ code: 'custom', message: problem.message, path: problem.path });
  }),
});
const skillSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9]+(?:[_-][a-z0-9]+)*$/, 'must be lower-case words joined by _ or -'),
  description: z.string().trim().min(1).max(1024),
  kind: z.enum(['reply', 'strategy']).default('reply'),
  body: z.string().trim().min(1),
});
const frame = z
  .string()
  .refine((f) => (f.match(/\{core\}|\{Core\}/g) ?? []).length === 1, 'needs exactly one {core} or {Core}')
  .refine((f) => f.replace(/\{(?:core|Core|thing)\}/g, '').match(/[{}]/) === null, 'only {core}, {Core} and {thing} are filled');
const feedbackFrame = z.string().refine((f) => f.includes('{tag}') && f.includes('{reason}'), 'needs {tag} and {reason}');

/** The lists a pack (or the config's `words:`) may hold, with their YAML keys. */
export const packListsShape = {
  synonyms: z
    .record(z.string().regex(/^[a-z0-9]+$/, 'a synonym key is one lower-case word'), z.array(z.union([synonymWord, senseSchema])).min(1))
    .optional()
    .describe(
      "Synonyms per lower-case word (plain words, or senses with the context words that choose them), for renames and rewording. Default: the selected packs' synonyms.",
    ),
  prefixes: z.array(word).optional().describe("Words a rename may put before a name. Default: the selected packs' prefixes."),
  suffixes: z.array(word).optional().describe("Words a rename may put after a name. Default: the selected packs' suffixes."),
  servers: z.array(word).optional().describe("Server names for namespaced tool names (server__tool). Default: the selected packs' servers."),
  id_styles: z.array(idStyle).optional().describe("Forms of generated ids (call ids, tags). Default: the default pack's id styles."),
  distractor_tools: z
    .array(toolSchema)
    .optional()
    .describe("Tools the distractor transform may add (name, description, parameters). Default: the selected packs' distractor tools."),
  distractor_skills: z
    .array(skillSchema)
    .optional()
    .describe("Skills the distractor transform may add (id, description, body). Default: the selected packs' distractor skills."),
  description_frames: z
    .strictObject(
      Object.fromEntries(
        DESCRIPTION_SHAPES.map((s) => [
          s,
          z.array(frame).optional().describe(`Frames of the ${s} description shape, each with one {core} or {Core}. Default: the default pack's.`),
        ]),
      ) as Record<(typeof DESCRIPTION_SHAPES)[number], z.ZodOptional<z.ZodArray<typeof frame>>>,
    )
    .optional()
    .describe("Frames that reword descriptions, per description shape. Default: the default pack's frames."),
  feedback_frames: z.array(feedbackFrame).optional().describe("Formats of hook feedback, each with {tag} and {reason}. Default: the default pack's formats."),
};

export const packSchema = z.strictObject({ name: z.string().min(1).optional(), description: z.string().optional(), ...packListsShape });
export type PackFile = z.infer<typeof packSchema>;
export type PackLists = Omit<PackFile, 'name' | 'description'>;

/** YAML key of each list. */
export const LIST_KEYS: Record<WordListKey, keyof PackLists> = {
  synonyms: 'synonyms',
  prefixes: 'prefixes',
  suffixes: 'suffixes',
  servers: 'servers',
  idStyles: 'id_styles',
  distractorTools: 'distractor_tools',
  distractorSkills: 'distractor_skills',
  descriptionFrames: 'description_frames',
  feedbackFrames: 'feedback_frames',
};
const LIST_NAMES = Object.values(LIST_KEYS) as [string, ...string[]];

/** `add` | `replace` for every list, or per list by its YAML key. */
export const modeSchema = z.union([z.enum(['add', 'replace']), z.partialRecord(z.enum(LIST_NAMES), z.enum(['add', 'replace']))]);
export type ModeSpec = z.infer<typeof modeSchema>;

/** `words:` in hsa.yaml. */
export const wordsConfigSchema = z.strictObject({
  packs: z
    .array(z.union([z.string().min(1), z.strictObject({ pack: z.string().min(1), mode: modeSchema.optional() })]))
    .optional()
    .describe(
      'Word packs merged in order: built-in names (default, live-commerce, travel, software) or files relative to hsa.yaml, each optionally {pack, mode}. Default: [default].',
    ),
  file: z
    .union([z.string().min(1), z.array(z.string().min(1))])
    .optional()
    .describe('One pack file or a list, merged after `packs`. No default.'),
  mode: modeSchema.optional().describe("How the lists given here combine with the packs': add or replace, for every list or per list. Default: add."),
  ...packListsShape,
});
export type WordsConfig = z.infer<typeof wordsConfigSchema>;

// ---------------------------------------------------------------------------------------------
// Reading packs
// ---------------------------------------------------------------------------------------------

let packDir: string | undefined;

/**
 * The package's `words/` folder: the nearest ancestor of this module that has `words/default.yaml`
 * (src/words/ in a checkout, dist/src/words/ when built, the same in an installed package).
 */
export function builtinPackDir(): string {
  if (packDir) return packDir;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(path.join(dir, 'words', 'default.yaml'))) return (packDir = path.join(dir, 'words'));
    dir = path.dirname(dir);
  }
  throw new WordPackError(`cannot find the built-in word packs (words/default.yaml) above ${fileURLToPath(import.meta.url)}`);
}

export function builtinPackFile(name: BuiltinPack): string {
  return path.join(builtinPackDir(), `${name}.yaml`);
}

interface ReadPack {
  text: string;
  sha256: string;
  lists: Partial<WordLists>;
}

const readCache = new Map<string, ReadPack>();

/** Read and validate one pack file; every problem at once, each as `file:line: key.path: message`. */
export function readPackFile(file: string, shown = file): ReadPack {
  const cached = readCache.get(file);
  if (cached) return cached;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new WordPackError(`${shown}: cannot read word pack`);
  }
  const hash = sha256(text);
  const pack: ReadPack = { text, sha256: hash, lists: listsOf(compiledPack(hash) ?? parsePack(shown, text)) };
  readCache.set(file, pack);
  return pack;
}

/** A pack's text parsed and validated (what `readPackFile` does when no compiled copy matches). */
export function parsePack(shown: string, text: string): PackFile {
  const doc = parseLocated(shown, text);
  if (isParseFailure(doc)) throw new WordPackError(`${shown}:${doc.line ?? 1}: YAML syntax: ${doc.message}`);
  const r = packSchema.safeParse(doc.value ?? {});
  if (!r.success) throw new WordPackError(formatIssues(shown, r.error.issues, doc.lineOf));
  return r.data;
}

/**
 * `words/compiled.json`: every built-in pack as `parsePack` returns it, keyed by name with the
 * sha256 of the YAML it came from (written by `npm run words:compile`, checked by
 * test/word-packs-compiled.test.ts). Parsing and checking the YAML of the default pack cost a run
 * 0.1-0.25 s of CPU (in every worker thread too); JSON.parse of the same data about a millisecond.
 * A copy is used only for a text with exactly its sha256, so an edited pack is read as YAML.
 */
export const COMPILED_PACKS = 'compiled.json';

export interface CompiledPacks {
  packs: Partial<Record<BuiltinPack, { sha256: string; pack: PackFile }>>;
}

let compiled: CompiledPacks | null | undefined;

/** The compiled copy of a pack whose text has sha256 `hash` (the same bytes parse the same, wherever the file is). */
function compiledPack(hash: string): PackFile | undefined {
  if (compiled === undefined) {
    try {
      compiled = JSON.parse(readFileSync(path.join(builtinPackDir(), COMPILED_PACKS), 'utf8')) as CompiledPacks;
    } catch {
      compiled = null;
    }
  }
  return Object.values(compiled?.packs ?? {}).find((p) => p.sha256 === hash)?.pack;
}

/** The content of `words/compiled.json` for the built-in packs' YAML as it is now. */
export function compilePacks(): CompiledPacks {
  const packs: CompiledPacks['packs'] = {};
  for (const name of BUILTIN_PACKS) {
    const text = readFileSync(builtinPackFile(name), 'utf8');
    packs[name] = { sha256: sha256(text), pack: parsePack(`words/${name}.yaml`, text) };
  }
  return { packs };
}

/** zod issues as `file:line: key.path: message` lines. */
export function formatIssues(
  file: string,
  issues: readonly z.core.$ZodIssue[],
  lineOf: (p: readonly (string | number)[]) => number | undefined,
  prefix: (string | number)[] = [],
): string {
  return issues
    .map((issue) => {
      const d = describeIssue(issue);
      // A bad record key: zod reports "Invalid key in record"; the key schema's own message says why.
      if (issue.code === 'invalid_key' && issue.issues[0]) d.message = issue.issues[0].message;
      const at = issue.code === 'unrecognized_keys' && issue.keys[0] !== undefined ? [...d.path, issue.keys[0]] : d.path;
      const full = [...prefix, ...d.path];
      const line = lineOf([...prefix, ...at]);
      return `${file}${line ? `:${line}` : ''}: ${full.join('.') || '(root)'}: ${d.message}`;
    })
    .join('\n');
}

/** Validated YAML lists → the engine's lists. */
export function listsOf(p: PackLists): Partial<WordLists> {
  const out: Partial<WordLists> = {};
  if (p.synonyms) {
    const m = new Map<string, SynonymEntry>();
    for (const [k, values] of Object.entries(p.synonyms)) {
      const entry: SynonymEntry = { neutral: [], senses: [] };
      for (const v of values) {
        if (typeof v === 'string') entry.neutral.push(v);
        else entry.senses.push({ sense: v.sense, cues: v.cues.map((c) => c.toLowerCase()), words: v.words });
      }
      m.set(k, entry);
    }
    out.synonyms = m;
  }
  if (p.prefixes) out.prefixes = p.prefixes;
  if (p.suffixes) out.suffixes = p.suffixes;
  if (p.servers) out.servers = p.servers;
  if (p.id_styles) out.idStyles = p.id_styles;
  if (p.distractor_tools) out.distractorTools = p.distractor_tools.map((t) => ({ name: t.name, description: t.description.trim(), parameters: t.parameters }));
  if (p.distractor_skills)
    out.distractorSkills = p.distractor_skills.map((s) => ({ name: s.id, description: s.description.trim(), kind: s.kind, body: s.body.trim() }));
  if (p.description_frames) {
    const frames = emptyWordLists().descriptionFrames;
    const given: Partial<Record<string, string[]>> = p.description_frames;
    for (const shape of DESCRIPTION_SHAPES) if (given[shape]) frames[shape] = given[shape]!;
    // Shapes a pack leaves out are not touched by the merge.
    out.descriptionFrames = Object.fromEntries(DESCRIPTION_SHAPES.filter((s) => given[s]).map((s) => [s, frames[s]])) as WordLists['descriptionFrames'];
  }
  if (p.feedback_frames) out.feedbackFrames = p.feedback_frames;
  return out;
}

/** The lists of a built-in pack. */
export function builtinPack(name: BuiltinPack): Partial<WordLists> {
  return readPackFile(builtinPackFile(name), `words/${name}.yaml`).lists;
}
