import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { swiftQwen3Text } from '../src/export/formats/swift.js';
import { loadTokenCounter, type TokenCounter } from '../src/tokenize/tokenizer.js';
import { ODD_SHAPES, runConsumer, sftFolder, summary, unjoin, type Joined } from './consumers/consumer.js';
import { filesUnder, fromSwift, renderedView, sourceRecords } from './helpers/export-map.js';
import { runHsaAsync } from './helpers/hsa.js';
import { removeTempDirs, tempDir } from './helpers/tmp.js';
import { readJsonl, treeHashes } from './helpers/tree.js';

/**
 * ms-swift reads `hsa export --to swift` as it is: its loading and encoding path, re-implemented
 * in test/consumers/swift_sft.py from modelscope/ms-swift at 3602360a562313afbf2ef6065fdf61f271a2c5b9
 * (the places it follows are listed there: core.py:175 deletes a row that raises, with the default
 * strict=False; base.py:1369 asserts the query role; base.py:1319 glues consecutive user messages),
 * deletes no row, glues no turns, and builds ids whose count is the count in the export manifest.
 */

afterAll(removeTempDirs);

let demo = '';
let odd = '';
let counter: TokenCounter;

beforeAll(async () => {
  demo = tempDir('hsa-swift-demo-');
  odd = sftFolder(ODD_SHAPES);
  const [r] = await Promise.all([
    runHsaAsync(['augment', '--no-gzip', '--config', 'fixtures/live-commerce/hsa.yaml', '--out', demo, '--force', '-q', '--stages', 'sft']),
    loadTokenCounter('qwen3').then((c) => (counter = c)),
  ]);
  expect(r.code, r.stderr).toBe(0);
}, 120_000);

interface Emulated {
  id: string;
  deleted: string | null;
  glued: string[];
  text: string | null;
}

async function exportSwift(source: string, extra: string[] = []) {
  const out = path.join(tempDir('hsa-swift-'), 'x');
  const r = await runHsaAsync(['export', source, '--to', 'swift', '--out', out, '--tokenizer', 'qwen3', ...extra]);
  expect(r.code, r.stderr).toBe(0);
  const manifest = JSON.parse(readFileSync(path.join(out, 'export-manifest.json'), 'utf8')) as Record<string, any>;
  const files = filesUnder(out, '.jsonl')
    .filter((f) => f !== 'rejects.jsonl')
    .map((f) => path.join(out, f));
  return { out, manifest, files, rows: files.flatMap((f) => readJsonl(f)), rejects: readJsonl(path.join(out, 'rejects.jsonl')) };
}

type Row = { id: string; messages: { role: string; content: string }[]; tools: string; hsa_joined?: Joined[] };

describe('ms-swift loads hsa export --to swift as it is', () => {
  for (const which of ['demo', 'odd shapes'] as const) {
    for (const merge of [false, true]) {
      it(`deletes and glues nothing, and trains on the ids hsa counted (${which}${merge ? ', --merge-turns' : ''})`, async () => {
        const source = which === 'demo' ? demo : odd;
        const { manifest, files, rows, rejects } = await exportSwift(source, merge ? ['--merge-turns'] : []);
        const emulated = runConsumer<Emulated>('swift_sft.py', files);
        expect(emulated.filter((e) => e.deleted !== null).map((e) => `${e.id}: ${e.deleted}`)).toEqual([]);
        expect(emulated.filter((e) => e.glued.length).map((e) => `${e.id}: ${e.glued.join('; ')}`)).toEqual([]);
        // The manifest's counts are the trainer's: every written row reaches training, the rest are rejects with a reason.
        expect(emulated.length).toBe(manifest.counts.written);
        expect(manifest.counts.skipped).toBe(rejects.length);
        expect(manifest.counts.read).toBe(manifest.counts.written + manifest.counts.skipped);
        for (const r of rejects) expect(String(r.reason)).not.toBe('');
        // Token statistics are those of the text ms-swift encodes (its added tokens cut it where its contexts meet).
        // Row by row: the text hsa counted is the text ms-swift builds.
        rows.forEach((row, i) => expect(swiftQwen3Text(row as never), String(row.id)).toBe(emulated[i]!.text));
        const counts = emulated.map((e) => counter.countText(e.text!));
        expect(manifest.tokens.sft).toEqual(summary(counts));
        expect(manifest.tokens_counted_as).toMatch(/^ms-swift template qwen3/);
        // A joined turn maps back to the source messages exactly (hsa_joined, docs/export.md).
        const src = new Map(sourceRecords(source, 'sft').map((s) => [String(s.record.id), s.record]));
        let joined = 0;
        for (const row of rows as unknown as Row[]) {
          if (row.hsa_joined) joined++;
          const messages = unjoin(
            row.messages,
            row.hsa_joined,
            (m) => m.content,
            (role, content) => ({ role, content }),
          );
          expect(fromSwift({ ...row, messages }).messages, row.id).toEqual(renderedView(src.get(row.id)!.messages as Record<string, unknown>[]));
        }
        if (merge) {
          expect(joined).toBe(manifest.merged_turns.records);
          expect(joined).toBeGreaterThan(0);
        } else expect(joined).toBe(0);
        if (which === 'odd shapes') {
          const kinds = Object.fromEntries(rejects.map((r) => [String(r.id), r.kind]));
          // Reasoning is written as a leading thought (with and without text before the calls).
          expect(rows.map((r) => r.id)).toEqual(expect.arrayContaining(['clinic-004~src', 'clinic-005~src']));
          expect(kinds['ship-004~src']).toBe('user turn after tool results');
          if (!merge) {
            expect(kinds['clinic-001~v1']).toBe('system message not first');
            expect(kinds['clinic-002~src']).toBe('consecutive user turns');
          }
          expect(rows.map((r) => r.id)).toContain('ship-001~src'); // the long tool result
        }
      }, 120_000);
    }
  }

  it('gives byte-identical folders for the same source and options, --merge-turns included', async () => {
    for (const format of ['swift', 'llamafactory']) {
      const [a, b] = await Promise.all(
        [odd, `${odd}/../${path.basename(odd)}/`].map(async (source) => {
          const out = path.join(tempDir('hsa-swift-det-'), 'x');
          const r = await runHsaAsync(['export', source, '--to', format, '--out', out, '--merge-turns', '--tokenizer', 'qwen3']);
          expect(r.code, r.stderr).toBe(0);
          return treeHashes(out);
        }),
      );
      expect(b, format).toEqual(a);
    }
  }, 120_000);

  it('puts a record over --max-tokens in rejects with the count ms-swift would see', async () => {
    const all = await exportSwift(odd, ['--merge-turns']);
    const byId = new Map(runConsumer<Emulated>('swift_sft.py', all.files).map((e) => [e.id, counter.countText(e.text!)]));
    const limit = all.manifest.tokens.sft.p50 as number;
    const { rejects, manifest } = await exportSwift(odd, ['--merge-turns', '--max-tokens', String(limit)]);
    const tooLong = rejects.filter((r) => r.kind === 'too_long');
    expect(tooLong.length).toBe(manifest.counts.too_long);
    expect(tooLong.length).toBeGreaterThan(0);
    for (const r of tooLong) expect(r.tokens, String(r.id)).toBe(byId.get(String(r.id)));
    expect([...byId.values()].filter((n) => n > limit).length).toBe(tooLong.length);
  }, 120_000);

  // Before the fix, the swift export wrote later system messages and consecutive user turns as they
  // were: the emulation must show what the issue reported (21 and 208 of the demo's 890 records).
  it('catches what the earlier export let ms-swift do: rows deleted, user turns glued', () => {
    const dir = tempDir('hsa-swift-old-');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'old.jsonl');
    const records = sourceRecords(demo, 'sft').map((s) => s.record);
    const rows = records.map((r) => ({
      id: r.id,
      tools: JSON.stringify(r.tools),
      messages: (r.messages as Record<string, any>[]).flatMap((m) =>
        m.role === 'assistant' && m.tool_calls
          ? [
              ...(m.content ? [{ role: 'assistant', content: m.content }] : []),
              ...m.tool_calls.map((c: any) => ({ role: 'tool_call', content: JSON.stringify({ name: c.function.name, arguments: c.function.arguments }) })),
            ]
          : [{ role: m.role === 'tool' ? 'tool_response' : m.role, content: m.content }],
      ),
    }));
    writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const emulated = runConsumer<Emulated>('swift_sft.py', [file]);
    const laterSystem = records.filter((r) => (r.messages as { role: string }[]).some((m, i) => i > 0 && m.role === 'system')).length;
    expect(laterSystem).toBeGreaterThan(0);
    expect(emulated.filter((e) => e.deleted).length).toBe(laterSystem);
    expect(emulated.filter((e) => e.deleted).every((e) => /query_role: "system"/.test(e.deleted!))).toBe(true);
    expect(emulated.filter((e) => e.glued.length).length).toBeGreaterThan(0);
  }, 60_000);
});
