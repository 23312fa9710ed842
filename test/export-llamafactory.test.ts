import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lfQwen3Elements } from '../src/export/formats/llamafactory.js';
import { toolsList } from '../src/export/messages.js';
import { loadTokenCounter, type TokenCounter } from '../src/tokenize/tokenizer.js';
import { ODD_SHAPES, runConsumer, sftFolder, summary, unjoin, type Joined } from './consumers/consumer.js';
import { filesUnder, fromSharegpt, renderedView, sourceRecords } from './helpers/export-map.js';
import { runHsaAsync } from './helpers/hsa.js';
import { removeTempDirs, tempDir } from './helpers/tmp.js';
import { readJsonl } from './helpers/tree.js';

/**
 * LLaMA-Factory reads `hsa export --to llamafactory` as it is: its loading path and its qwen3
 * template, re-implemented in test/consumers/llamafactory_sft.py from hiyouga/LLaMA-Factory at
 * ff6d4d12eeb035d6ce06805a5733dd7b29f2ac30 (converter.py:135-181 skips a conversation that does not
 * alternate; template.py:483-516 adds an empty think block to every assistant turn; each element
 * is tokenised on its own, template.py:113; cutoff_len truncates, processor/supervised.py:52 and
 * processor_utils.py:76), drops no row, and the lengths it builds are the export manifest's — so
 * `cutoff_len` = `tokens.sft.max` truncates nothing.
 */

afterAll(removeTempDirs);

let demo = '';
let odd = '';
let counter: TokenCounter;

beforeAll(async () => {
  demo = tempDir('hsa-lf-demo-');
  odd = sftFolder(ODD_SHAPES);
  const [r] = await Promise.all([
    runHsaAsync(['augment', '--no-gzip', '--config', 'fixtures/live-commerce/hsa.yaml', '--out', demo, '--force', '-q', '--stages', 'sft']),
    loadTokenCounter('qwen3').then((c) => (counter = c)),
  ]);
  expect(r.code, r.stderr).toBe(0);
}, 120_000);

interface Emulated {
  id: string;
  dropped: string | null;
  pairs: [string[], string[]][] | null;
}

type Row = { id: string; conversations: { from: string; value: string }[]; system: string; tools: string; hsa_joined?: Joined[] };

async function exportLf(source: string, extra: string[] = []) {
  const out = path.join(tempDir('hsa-lf-'), 'x');
  const r = await runHsaAsync(['export', source, '--to', 'llamafactory', '--out', out, '--tokenizer', 'qwen3', ...extra]);
  expect(r.code, r.stderr).toBe(0);
  const manifest = JSON.parse(readFileSync(path.join(out, 'export-manifest.json'), 'utf8')) as Record<string, any>;
  const rows = filesUnder(out, '.jsonl')
    .filter((f) => f !== 'rejects.jsonl')
    .flatMap((f) => readJsonl(path.join(out, f))) as unknown as Row[];
  return { out, manifest, rows, rejects: readJsonl(path.join(out, 'rejects.jsonl')) };
}

/** Ids LLaMA-Factory builds for a row: each element encoded on its own, pairs cut to cutoff_len (infer_seqlen). */
function lfLength(e: Emulated, cutoff: number): { total: number; kept: number } {
  let total = 0;
  let kept = 0;
  for (const [source, target] of e.pairs!) {
    const s = source.reduce((n, x) => n + counter.countText(x), 0);
    const t = target.reduce((n, x) => n + counter.countText(x), 0);
    total += s + t;
    if (kept >= cutoff) continue;
    // processor_utils.py:76 infer_seqlen, for the room left.
    const room = cutoff - kept;
    const maxT = t * 2 < room ? room : s * 2 < room ? room - s : Math.floor(room * (t / (s + t)));
    const newT = Math.min(maxT, t);
    const newS = Math.min(Math.max(room - newT, 0), s);
    kept += newS + newT;
  }
  return { total, kept };
}

describe('LLaMA-Factory loads hsa export --to llamafactory as it is', () => {
  for (const which of ['demo', 'odd shapes'] as const) {
    for (const merge of [false, true]) {
      it(`drops no row, and cutoff_len = tokens.sft.max keeps every id (${which}${merge ? ', --merge-turns' : ''})`, async () => {
        const source = which === 'demo' ? demo : odd;
        const { out, manifest, rows, rejects } = await exportLf(source, merge ? ['--merge-turns'] : []);
        const emulated = runConsumer<Emulated>('llamafactory_sft.py', [out, 'hsa']);
        expect(emulated.filter((e) => e.dropped !== null).map((e) => `${e.id}: ${e.dropped}`)).toEqual([]);
        expect(emulated.length).toBe(manifest.counts.written);
        expect(manifest.counts.read).toBe(manifest.counts.written + manifest.counts.skipped);
        expect(manifest.counts.skipped).toBe(rejects.length);
        // Row by row: the strings hsa counted are the ones LLaMA-Factory encodes, one by one.
        rows.forEach((row, i) => expect(lfQwen3Elements(row as never), row.id).toEqual(emulated[i]!.pairs!.flat(2)));
        const cutoff = manifest.tokens.sft.max as number;
        const lengths = emulated.map((e) => lfLength(e, cutoff));
        expect(manifest.tokens.sft).toEqual(summary(lengths.map((l) => l.total)));
        expect(lengths.filter((l) => l.kept !== l.total).length).toBe(0);
        // One token less and LLaMA-Factory would cut the longest record.
        expect(emulated.map((e) => lfLength(e, cutoff - 1)).filter((l) => l.kept !== l.total).length).toBeGreaterThan(0);
        // Joined turns (and later system messages as user turns) map back to the source exactly.
        const src = new Map(sourceRecords(source, 'sft').map((s) => [String(s.record.id), s.record]));
        for (const row of rows) {
          const conversations = unjoin(
            row.conversations,
            row.hsa_joined,
            (t) => t.value,
            (role, value) => ({ from: role === 'user' ? 'human' : role, value }),
          );
          const back = fromSharegpt({ ...row, conversations: conversations.filter((t) => t.from !== 'system') }).messages;
          // A later system message comes back in its place.
          expect(rebuild(back, conversations, row.system), row.id).toEqual(renderedView(src.get(row.id)!.messages as Record<string, unknown>[]));
        }
        if (which === 'odd shapes') {
          const kinds = Object.fromEntries(rejects.map((r) => [String(r.id), r.kind]));
          // Reasoning is written as a leading thought (with and without text before the calls).
          expect(rows.map((r) => r.id)).toEqual(expect.arrayContaining(['clinic-004~src', 'clinic-005~src']));
          expect(kinds['clinic-003~src']).toBe('ambiguous parallel results');
          if (!merge) expect(kinds['clinic-001~v1']).toBe('system message not first');
          // The long tool result, float arguments, and text before calls (written as text + <tool_call>…).
          expect(rows.map((r) => r.id)).toEqual(expect.arrayContaining(['ship-001~src', 'ship-002~src', 'ship-003~src']));
        }
      }, 120_000);
    }
  }

  // Before the fix, --max-tokens counted with Qwen3's chat template, which writes the empty think
  // block on the last assistant turn only: LLaMA-Factory's ids were longer than the budget said.
  it('counts what the chat template count missed: an empty think block on every assistant turn', async () => {
    const { out, manifest, rows } = await exportLf(demo, ['--merge-turns']);
    const emulated = new Map(runConsumer<Emulated>('llamafactory_sft.py', [out]).map((e) => [e.id, lfLength(e, Infinity).total]));
    // Rows written turn for turn (a joined row has other turns than its source).
    const plain = new Set(rows.filter((r) => !r.hsa_joined).map((r) => r.id));
    const over = [];
    for (const s of sourceRecords(demo, 'sft').filter((s) => plain.has(String(s.record.id)))) {
      const chat = counter.count(s.record.messages as unknown[], toolsList(s.record.tools) as unknown[], false);
      const lf = emulated.get(String(s.record.id))!;
      if (lf !== chat) over.push(lf - chat);
    }
    expect(over.length).toBe(plain.size);
    expect(Math.min(...over)).toBeGreaterThan(0);
    expect(manifest.tokens.sft.max).toBe(Math.max(...emulated.values()));
  }, 120_000);
});

/** The source view of a row whose turns were taken apart: later system messages back in their place. */
function rebuild(
  back: ReturnType<typeof fromSharegpt>['messages'],
  turns: { from: string; value: string }[],
  system: string,
): ReturnType<typeof fromSharegpt>['messages'] {
  const out = system ? [back[0]!] : [];
  let b = system ? 1 : 0;
  for (const t of turns) {
    if (t.from === 'system') out.push({ role: 'system', content: t.value });
    else if (t.from === 'observation') {
      const n = t.value.split('\n</tool_response>\n<tool_response>\n').length;
      for (let i = 0; i < n; i++) out.push(back[b++]!);
    } else out.push(back[b++]!);
  }
  return out;
}
