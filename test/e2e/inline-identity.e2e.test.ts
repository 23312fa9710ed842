import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, runHsaAsync } from '../helpers/hsa.js';
import { makeTmp } from '../helpers/tmp.js';

// Per-record harnesses: a record's output is a function of that record (and the run), never of
// which other records came before it in the same process — the first record with a tool set used
// to lend its harness (and its JSON key order) to later records with the same tools in another
// key order, so output depended on cache evictions, worker count and shards.

type Json = any;

let tmp: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  tmp = await makeTmp('hsa-inline-id-');
});
afterAll(async () => {
  await tmp.cleanup();
});

/** The same object with its keys in reverse order, all the way down (arrays keep their order). */
function reversedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reversedKeys);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v)
      .reverse()
      .map(([k, x]) => [k, reversedKeys(x)]),
  );
}

async function sftLines(name: string, records: Json[], extra: string[] = []): Promise<Map<string, string>> {
  const file = path.join(tmp.dir, `${name}.jsonl`);
  writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const out = path.join(tmp.dir, `out-${name}`);
  const r = await runHsaAsync(['augment', '--no-gzip', '-t', file, '-o', out, '--variants', '3', '--stages', 'sft', '-q', ...extra]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const lines = new Map<string, string>();
  for (const f of readdirSync(path.join(out, 'sft')).sort()) {
    for (const line of readFileSync(path.join(out, 'sft', f), 'utf8')
      .split('\n')
      .filter(Boolean)) {
      // Where the record came from differs between the two inputs; everything else must not.
      const rec = JSON.parse(line);
      delete rec.meta.source_file;
      delete rec.meta.source_line;
      lines.set(rec.id, JSON.stringify(rec));
    }
  }
  return lines;
}

describe('inline harness identity', () => {
  it('a record with the same tools in another key order gets its own harness, whatever came before', async () => {
    const first = JSON.parse(readFileSync(path.join(REPO, 'fixtures/ingest/inline/records.jsonl'), 'utf8').split('\n')[0]!);
    const twin = {
      ...first,
      id: 'twin',
      tools: first.tools.map((t: Json) => ({ ...t, function: { ...t.function, parameters: reversedKeys(t.function.parameters) } })),
    };
    const together = await sftLines('together', [first, twin]);
    const alone = await sftLines('alone', [twin]);
    const twinIds = [...alone.keys()];
    expect(twinIds).toEqual(['twin~v0', 'twin~v1', 'twin~v2']);
    for (const id of twinIds) expect(together.get(id), id).toBe(alone.get(id));
    // The twin's tools keep its own key order (the first record's never shows up in them).
    // Distractor tools come from the word pack with their own key order (which may be the first
    // record's by chance): only the record's own tools, under their variant names, are compared.
    const ownTools = (rec: Json) => {
      const applied = rec.meta.transforms as { id: string; params: Json }[];
      const added: string[] = applied.find((a) => a.id === 'tools.distractors')?.params.added ?? [];
      const renamed: Record<string, string> = applied.find((a) => a.id === 'tools.rename')?.params.renamed ?? {};
      const distractors = new Set(added.map((n) => renamed[n] ?? n));
      return rec.tools.filter((t: Json) => !distractors.has(t.function.name));
    };
    const orders = (records: Iterable<string>) =>
      new Set([...records].flatMap((line) => ownTools(JSON.parse(line)).map((t: Json) => Object.keys(t.function.parameters).join(','))));
    const firstOrders = new Set(first.tools.map((t: Json) => Object.keys(t.function.parameters).join(',')).filter((o: string) => o.split(',').length > 2));
    const twinOrders = new Set(twin.tools.map((t: Json) => Object.keys(t.function.parameters).join(',')));
    const shown = orders(twinIds.map((id) => together.get(id)!));
    expect([...firstOrders].filter((o) => shown.has(o) && !twinOrders.has(o))).toEqual([]);
    expect([...twinOrders].some((o) => shown.has(o))).toBe(true);
  });

  it('gives the same bytes with one thread and with workers, twins and all', async () => {
    const records = readFileSync(path.join(REPO, 'fixtures/ingest/inline/records.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const twins = records.map((r) => ({ ...r, id: `${r.id}-twin`, tools: r.tools && reversedKeys(r.tools) }));
    // Twins after their originals and, further on, before: a worker meets either first.
    const input = [...records, ...twins, ...records.map((r) => ({ ...r, id: `${r.id}-again` }))];
    const one = await sftLines('w1', input, ['--workers', '1', '--part-size', '7']);
    const two = await sftLines('w2', input, ['--workers', '2', '--part-size', '7']);
    expect(one.size).toBe(input.length * 3);
    expect([...two.entries()]).toEqual([...one.entries()]);
  });
});
