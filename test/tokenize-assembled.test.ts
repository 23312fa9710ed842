import { afterAll, describe, expect, it, vi } from 'vitest';
import { resolveRunConfig } from '../src/config/augment-config.js';
import { runAugment } from '../src/output/run.js';
import { joinBlocks, renderQwen3, toolsPart } from '../src/tokenize/qwen3-template.js';
import { PRE_TOKENIZE, pieceEnd } from '../src/tokenize/pre-tokenize.js';
import { TokenCounter } from '../src/tokenize/tokenizer.js';
import { promptTextPieces } from '../src/harness/render.js';
import { removeTempDirs, tempDir } from './helpers/tmp.js';

afterAll(removeTempDirs);
// version.ts reads package.json relative to dist/ (the run's manifest states the version).
vi.mock('../src/version.js', () => ({ HSA_VERSION: '0.0.0-test', ENGINE_VERSION: 0 }));

interface Seen {
  counter: TokenCounter;
  messages: unknown[];
  tools: unknown[] | undefined;
  prompt: boolean;
  n: number;
}

/**
 * Runs `hsa augment` in this process with `--max-tokens`, keeping every count it made together
 * with the very objects it counted (system prompts carry their sections, messages are shared
 * between variants, tool lists belong to states), so the assembled counts can be checked against
 * the rendered text afterwards.
 */
async function countsOfRun(flags: Parameters<typeof resolveRunConfig>[0]): Promise<Seen[]> {
  const seen: Seen[] = [];
  const proto = TokenCounter.prototype;
  const original = proto.count;
  proto.count = function (this: TokenCounter, messages, tools, prompt) {
    const n = original.call(this, messages, tools, prompt);
    seen.push({ counter: this, messages: messages as unknown[], tools: tools as unknown[] | undefined, prompt, n });
    return n;
  };
  try {
    // Every OPD prefix (not the default one per output), for many prompts of every length.
    const cfg = await resolveRunConfig({ opdPrompts: 'all', ...flags, out: tempDir('hsa-assembled-'), maxTokens: 100_000, quiet: true });
    await runAugment(cfg, { force: true });
  } finally {
    proto.count = original;
  }
  return seen;
}

/** The count of the whole text the template renders (the native rendering equals Jinja's: tokenize.test.ts). */
function wholeCount(s: Seen): number {
  const list = s.tools && s.tools.length ? s.tools : null;
  return s.counter.countText(joinBlocks(renderQwen3(s.messages as never, list ? toolsPart(list) : null, s.prompt)));
}

describe('token counts assembled from a record’s pieces', () => {
  it('equal the count of the fully rendered template for every SFT and OPD record of the demo', async () => {
    const seen = await countsOfRun({ config: 'fixtures/live-commerce/hsa.yaml', stages: 'sft,opd' });
    expect(seen.filter((s) => !s.prompt).length).toBe(890);
    expect(seen.filter((s) => s.prompt).length).toBeGreaterThan(4000);
    for (const [i, s] of seen.entries()) expect(s.n, `record ${i}`).toBe(wholeCount(s));
    // The system prompts were counted by their sections (not as one text) for the variants.
    const bySections = seen.filter((s) => (promptTextPieces(s.messages[0] as object)?.length ?? 0) > 1).length;
    expect(bySections).toBeGreaterThan(seen.length / 2);
    // And against the general tokenizer encoding the whole text at once, on a sample.
    for (const s of seen.filter((_, i) => i % 97 === 0)) {
      expect(s.n).toBe(s.counter.countWhole(s.counter.render(s.messages, s.tools, s.prompt)));
    }
  }, 300_000);

  it('equal it for records that carry their own tools and system prompt (inline harnesses)', async () => {
    const seen = await countsOfRun({ trajectories: ['fixtures/ingest/inline/records.jsonl'], stages: 'sft,opd' });
    expect(seen.length).toBeGreaterThan(400);
    for (const [i, s] of seen.entries()) expect(s.n, `record ${i}`).toBe(wholeCount(s));
    for (const s of seen.filter((_, i) => i % 41 === 0)) {
      expect(s.n).toBe(s.counter.countWhole(s.counter.render(s.messages, s.tools, s.prompt)));
    }
  }, 300_000);
});

describe('the pre-tokenizer scanner', () => {
  /** A fixed pseudo-random sequence (no Math.random in tests either). */
  function lcg(seed: number): () => number {
    let x = seed;
    return () => {
      x = (Math.imul(x, 1103515245) + 12345) & 0x7fffffff;
      return x / 0x80000000;
    };
  }
  const regexPieces = (s: string): string[] => {
    const out: string[] = [];
    PRE_TOKENIZE.lastIndex = 0;
    let last = 0;
    for (let m = PRE_TOKENIZE.exec(s); m; m = PRE_TOKENIZE.exec(s)) {
      if (m.index !== last) out.push(`<gap at ${last}>`);
      out.push(m[0]);
      last = m.index + m[0].length;
    }
    return out;
  };
  const scannedPieces = (s: string): string[] => {
    const out: string[] = [];
    for (let i = 0; i < s.length;) {
      const j = pieceEnd(s, i);
      out.push(s.slice(i, j));
      i = j;
    }
    return out;
  };

  it('finds the pieces the split regex finds, on strings of every character class', () => {
    // Letters (ASCII, accented, CJK, astral), numbers (ASCII, full-width, Roman, superscript,
    // astral), every kind of white space and line break, apostrophes and contraction letters in
    // both cases, punctuation, combining marks, emoji, lone surrogates, characters JavaScript's
    // \s does not include (U+0085).
    const alphabet = [
      'a',
      'Z',
      's',
      'S',
      't',
      'r',
      'e',
      'E',
      'v',
      'm',
      'l',
      'L',
      'd',
      'D',
      '0',
      '9',
      ' ',
      ' ',
      ' ',
      '\t',
      '\n',
      '\r',
      '\u00a0',
      '\u3000',
      '\u2028',
      '\ufeff',
      '\u0085',
      '\v',
      '\f',
      "'",
      "'",
      '.',
      ',',
      '!',
      '-',
      '_',
      '{',
      '"',
      '中',
      '文',
      '\u0301',
      '🤖',
      '𝐀',
      '𝟎',
      '\ud800',
      '\udc00',
      '１',
      'Ⅻ',
      '²',
      'é',
      'ß',
      'ﬁ',
    ];
    const rnd = lcg(20261201);
    for (let k = 0; k < 20_000; k++) {
      const len = Math.floor(rnd() * 24);
      let s = '';
      for (let i = 0; i < len; i++) s += alphabet[Math.floor(rnd() * alphabet.length)];
      expect(scannedPieces(s), JSON.stringify(s)).toEqual(regexPieces(s));
    }
    for (const s of ["I'LL say it's 'Dd' they'RE", 'a.\n\n  b', 'x  \n\n# y', '   \n \t  x\u00a0y  ', '{"a": [1, 2]}\n', '燕麦奶。\n燕麦 oat-milk!!\r\n\r\n']) {
      expect(scannedPieces(s)).toEqual(regexPieces(s));
    }
  });
});
