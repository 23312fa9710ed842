import type { OpenAiTool } from '../harness/types.js';
import { eligibleIdentifiers } from '../transform/identifiers.js';
import { TextRewriter } from '../transform/text-rewriter.js';
import { callArgs, NOT_JSON } from '../util/call-args.js';
import { jsonEqual } from '../util/json-equal.js';
import { keysLeftUnrenamed } from '../transform/unrenamed-keys.js';
import { schemaPropertyNames } from '../transform/state.js';
import type { Trajectory } from '../trajectory/types.js';
import { isObj, type RecordProblem, type RenameTables } from './record-checks.js';

/**
 * No renamed identifier survives, judged from the record alone with the rename tables its meta
 * carries: no old tool, parameter, skill or hook name in structural places (tool list, call names,
 * argument keys, loaded skill names, hook message names), and no mention of one in what the model
 * reads of the harness (system and preamble messages, tool and schema descriptions, assistant text,
 * hook feedback), under the engine's rule: distinctive identifiers anywhere, plain words only in
 * code spans and JSON keys. User words and tool results are data and are not scanned. A name that
 * is current again (a swap, or a parameter another tool still has) is not an old name.
 * `cache` carries what records of one state share from record to record (see LeakScanCache).
 */
export function metaLeaks(rec: Trajectory, tables: RenameTables, hookPrefix = 'hook:', cache = new LeakScanCache()): RecordProblem[] {
  const tools = rec.tools ?? [];
  const facts = cache.toolFacts(tools);
  const old = cache.oldNames(tables, facts);
  const out: RecordProblem[] = [...cache.toolLeaks(tools, facts, old)];
  // What the model reads of the harness repeats across a state's records: scanned through the cache.
  const scanHarness = (path: string, text: string) => {
    for (const name of cache.mentions(old, text)) out.push({ path, message: `mentions old name "${name}"` });
  };
  // The record's own texts (assistant turns, hook feedback) are met once.
  const scan = (path: string, text: string) => {
    if (old.keys.length === 0) return;
    for (const name of old.finder().mentions(text, 'record')) out.push({ path, message: `mentions old name "${name}"` });
  };
  rec.messages.forEach((m, i) => {
    const content = typeof m.content === 'string' ? m.content : '';
    if (m.role === 'system' || m.role === 'developer' || (m.role === 'user' && m.name === 'harness:preamble')) scanHarness(`messages.${i}.content`, content);
    if ((m.role === 'user' || m.role === 'system') && m.name?.startsWith(hookPrefix)) {
      const hook = m.name.slice(hookPrefix.length);
      if (old.hooks.has(hook)) out.push({ path: `messages.${i}.name`, message: `old hook name "${m.name}"` });
      scan(`messages.${i}.content`, content);
    }
    if (m.role !== 'assistant') return;
    scan(`messages.${i}.content`, content);
    m.tool_calls?.forEach((c, k) => {
      const at = `messages.${i}.tool_calls.${k}.function`;
      if (old.tools.has(c.function.name)) out.push({ path: `${at}.name`, message: `old tool name "${c.function.name}"` });
      if (old.params.size === 0 && old.skills.size === 0) return;
      const args = callArgs(c.function);
      if (args === NOT_JSON) return;
      // An old parameter name is a leak as a key where the tool's schema declares its new name
      // (keysLeftUnrenamed, augment's leak check too): a key the source's call carried where its
      // schema does not declare it is the source's data, left as written.
      if (old.params.size > 0) {
        const schema = facts.schemas.get(c.function.name);
        for (const key of keysLeftUnrenamed(args, schema, (k) => (old.params.has(k) ? tables.params[k] : undefined)))
          out.push({ path: `${at}.arguments`, message: `old parameter "${key}"` });
      }
      if (old.skills.size > 0) {
        walk(args, (_key, value) => {
          if (typeof value === 'string' && old.skills.has(value)) out.push({ path: `${at}.arguments`, message: `loads old skill name "${value}"` });
        });
      }
    });
  });
  return out;
}

/** A tool list's current names, and its leak findings per set of old names. */
interface ToolFacts {
  tools: ReadonlySet<string>;
  params: ReadonlySet<string>;
  /** Per tool name: its parameters' schema (the first tool of the name). */
  schemas: ReadonlyMap<string, unknown>;
  leaks: Map<string, readonly RecordProblem[]>;
}

/** The old names of a record by kind (renamed away and not current again), and a finder over all of them. */
interface OldNames {
  signature: string;
  tools: ReadonlySet<string>;
  params: ReadonlySet<string>;
  skills: ReadonlySet<string>;
  hooks: ReadonlySet<string>;
  keys: readonly string[];
  keySet: ReadonlySet<string>;
  finder: () => TextRewriter;
}

const EMPTY: ReadonlySet<string> = new Set();
// Bounds: memory stays flat whatever the number of states (every cache is cleared whole when full).
const TOOL_LISTS = 256;
const OLD_NAME_SETS = 1_024;
const CHUNK_CHARS = 4_000_000;
const SPLIT_AT = 512;
const SAME_LENGTH = 64;

/**
 * What a verifier keeps from record to record so that the parts records of one pooled state share
 * are checked once, without trusting that they are shared:
 * - tool lists: a record's list is swapped for an equal one (deep JSON equality) met before under
 *   the same state hash and tool names, so that the schema validators and the tool-list leak scan
 *   cached per list object serve all of a state's records;
 * - old-name sets, by their contents (records of one state share their rename tables);
 * - the identifiers of harness texts (system prompt, preamble, descriptions), by paragraph text: a
 *   record's prompt is its state's static sections plus a few per-record ones (the room context),
 *   so every paragraph it shares with a state-mate is looked up, and only the rest is tokenised.
 * Every cache is keyed by content and compared in full, so a record that differs from its
 * state-mates by one character is scanned on its own. Keys are flat copies (never slices of a
 * record's strings, which would keep whole records alive), and each cache is bounded.
 */
export class LeakScanCache {
  private lists = new Map<string, OpenAiTool[] | null>();
  private facts = new WeakMap<readonly OpenAiTool[], ToolFacts>();
  private olds = new Map<string, OldNames>();
  private chunks = new Map<number, { text: string; words: ReadonlySet<string> }[]>();
  private chunkChars = 0;

  /**
   * `tools`, or an equal list met before under the same `stateKey` and tool names. A key is
   * remembered at its first sighting and its list at the second, so per-record states (no pool)
   * keep nothing but keys.
   */
  sharedTools(tools: OpenAiTool[], stateKey: string): OpenAiTool[] {
    let key = stateKey;
    for (const t of tools) key += `\u0000${t?.function?.name}`;
    const seen = this.lists.get(key);
    if (seen) return jsonEqual(seen, tools) ? seen : tools;
    if (seen === undefined && this.lists.size >= TOOL_LISTS) this.lists.clear();
    this.lists.set(key, seen === null ? tools : null);
    return tools;
  }

  /** The current tool and parameter names of a tool list (once per list object). */
  toolFacts(tools: readonly OpenAiTool[]): ToolFacts {
    let f = this.facts.get(tools);
    if (!f) {
      const schemas = new Map<string, unknown>();
      for (const t of tools) if (!schemas.has(t.function.name)) schemas.set(t.function.name, t.function.parameters ?? {});
      f = {
        tools: new Set(tools.map((t) => t.function.name)),
        params: new Set(tools.flatMap((t) => schemaPropertyNames(t.function.parameters ?? {}))),
        schemas,
        leaks: new Map(),
      };
      this.facts.set(tools, f);
    }
    return f;
  }

  /** The old names under `tables` for a record with these tools (shared by records whose sets are equal). */
  oldNames(tables: RenameTables, facts: ToolFacts): OldNames {
    const gone = (table: Record<string, string>, current: ReadonlySet<string>) => {
      const now = new Set(Object.values(table));
      return Object.keys(table).filter((k) => !now.has(k) && !current.has(k));
    };
    const sets = [gone(tables.tools, facts.tools), gone(tables.params, facts.params), gone(tables.skills, EMPTY), gone(tables.hooks, EMPTY)];
    const signature = JSON.stringify(sets);
    let o = this.olds.get(signature);
    if (!o) {
      const all = new Map<string, string>();
      for (const set of sets) for (const n of set) all.set(n, '');
      let finder: TextRewriter | undefined;
      const keys = [...all.keys()].filter((k) => k !== '');
      o = {
        signature,
        tools: new Set(sets[0]),
        params: new Set(sets[1]),
        skills: new Set(sets[2]),
        hooks: new Set(sets[3]),
        keys,
        keySet: new Set(keys),
        finder: () => (finder ??= new TextRewriter(all)),
      };
      if (this.olds.size >= OLD_NAME_SETS) this.olds.clear();
      this.olds.set(signature, o);
    }
    return o;
  }

  /** Old names in a tool list: names, parameters, and mentions in descriptions (once per list and old-name set). */
  toolLeaks(tools: readonly OpenAiTool[], facts: ToolFacts, old: OldNames): readonly RecordProblem[] {
    const hit = facts.leaks.get(old.signature);
    if (hit) return hit;
    const out: RecordProblem[] = [];
    tools.forEach((t, i) => {
      if (old.tools.has(t.function.name)) out.push({ path: `tools.${i}.function.name`, message: `old tool name "${t.function.name}"` });
      for (const p of schemaPropertyNames(t.function.parameters ?? {}))
        if (old.params.has(p)) out.push({ path: `tools.${i}.function.parameters`, message: `old parameter "${p}"` });
    });
    const scan = (path: string, text: unknown) => {
      if (typeof text !== 'string') return;
      for (const name of this.mentions(old, text)) out.push({ path, message: `mentions old name "${name}"` });
    };
    tools.forEach((t, i) => {
      scan(`tools.${i}.function.description`, t.function.description);
      scan(`tools.${i}.function.parameters`, descriptions(t.function.parameters).join('\n'));
    });
    if (facts.leaks.size >= 64) facts.leaks.clear();
    facts.leaks.set(old.signature, out);
    return out;
  }

  /** The old names `text` mentions (sorted), as `TextRewriter.mentions` finds them. */
  mentions(old: OldNames, text: string): string[] {
    if (old.keys.length === 0 || text === '') return [];
    const found = new Set<string>();
    for (const chunk of chunksOf(text)) {
      const words = this.identifiers(chunk, text);
      if (words.size === 0) continue;
      if (words.size < old.keys.length) {
        for (const w of words) if (old.keySet.has(w)) found.add(w);
      } else for (const k of old.keys) if (words.has(k)) found.add(k);
    }
    return [...found].sort();
  }

  private identifiers(chunk: string, whole: string): ReadonlySet<string> {
    // Found by length, then compared in full: cheaper than hashing every piece of every prompt.
    let same = this.chunks.get(chunk.length);
    if (same) for (const c of same) if (c.text === chunk) return c.words;
    // A slice would keep the record's whole string alive: the key is a flat copy.
    const text = chunk.length === whole.length ? chunk : Buffer.from(chunk, 'utf16le').toString('utf16le');
    const found = eligibleIdentifiers(text);
    const words = found.size === 0 ? EMPTY : found;
    if (this.chunkChars + text.length > CHUNK_CHARS) {
      this.chunks.clear();
      this.chunkChars = 0;
      same = undefined;
    }
    if (!same || same.length >= SAME_LENGTH) this.chunks.set(text.length, (same = []));
    same.push({ text, words });
    this.chunkChars += text.length;
    return words;
  }
}

/**
 * A text cut at paragraph breaks where no token, code span, JSON key or template slot can reach
 * across (TextRewriter's spans never cross a newline followed by a character that is not space,
 * ':' or '"'; a `"required": [...]` list may, so a text with one is kept whole). The identifiers
 * of the whole text are then exactly those of its pieces.
 */
function chunksOf(text: string): string[] {
  if (text.length < SPLIT_AT || text.includes('"required"')) return [text];
  const out: string[] = [];
  let from = 0;
  for (let i = text.indexOf('\n\n'); i !== -1; i = text.indexOf('\n\n', i + 1)) {
    const p = i + 2;
    const c = text.charCodeAt(p);
    // Printable ASCII other than '"' and ':' at once; the rest by the rule (JavaScript's \s).
    if (p >= text.length || (c > 32 && c < 127 ? c === 34 || c === 58 : UNSAFE_START.test(text[p]!))) continue;
    out.push(text.slice(from, p));
    from = p;
  }
  out.push(text.slice(from));
  return out;
}

const UNSAFE_START = /[\s:"]/;

function walk(v: unknown, visit: (key: string | undefined, value: unknown) => void, key?: string): void {
  visit(key, v);
  if (Array.isArray(v)) for (const x of v) walk(x, visit);
  else if (isObj(v)) for (const [k, x] of Object.entries(v)) walk(x, visit, k);
}

function descriptions(schema: unknown): string[] {
  const out: string[] = [];
  const go = (s: unknown) => {
    if (Array.isArray(s)) return s.forEach(go);
    if (!isObj(s)) return;
    for (const [k, v] of Object.entries(s)) {
      if ((k === 'description' || k === 'title') && typeof v === 'string') out.push(v);
      else if (k !== 'enum' && k !== 'const' && k !== 'default' && k !== 'examples') go(v);
    }
  };
  go(schema);
  return out;
}
