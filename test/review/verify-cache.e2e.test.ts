import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runHsa } from '../helpers/hsa.js';
import { removeTempDirs } from '../helpers/tmp.js';
import { smallRun, type SmallRun } from './setup.js';

interface Rec {
  id: string;
  messages: { role: string; content: string; name?: string }[];
  tools: { function: { name: string; description?: string } }[];
  meta: { variant: unknown; harness?: { state_hash?: string }; transforms: { id: string; params?: { renamed?: Record<string, string> } }[] };
}

describe('verify on records that share a pooled state', () => {
  let run: SmallRun;
  beforeAll(async () => {
    // Two states for every variant: each state's texts reach verify many times, so its caches are warm.
    run = await smallRun({ records: 8, extra: ['--state-pool', '2', '--variants', '2', '--stages', 'sft'] });
  });
  afterAll(removeTempDirs);

  it('finds one old name put into a static section of one record whose state-mates came first', () => {
    const file = path.join(run.out, 'sft', 'part-00000.jsonl');
    const lines = readFileSync(file, 'utf8').split('\n');
    const recs = lines.map((l) => (l ? (JSON.parse(l) as Rec) : undefined));
    const mates = new Map<string, number>();
    let hit = -1;
    let old = '';
    for (let i = 0; i < recs.length && hit < 0; i++) {
      const r = recs[i];
      const hash = r?.meta.harness?.state_hash;
      if (!r || r.meta.variant === 'src' || !hash) continue;
      mates.set(hash, (mates.get(hash) ?? 0) + 1);
      const renamed = r.meta.transforms.find((t) => t.id === 'tools.rename')?.params?.renamed ?? {};
      const current = new Set(r.tools.map((t) => t.function.name));
      old = Object.keys(renamed).find((k) => !current.has(k) && !Object.values(renamed).includes(k)) ?? '';
      // The third record of a state, or later: its state-mates' sections were read (and cached) before it.
      if (old && mates.get(hash)! >= 3 && r.messages[0]!.content.split('\n\n').length > 2) hit = i;
    }
    expect(hit).toBeGreaterThanOrEqual(0);
    const r = recs[hit]!;
    // Into the second section: a paragraph every record of the state shares.
    const parts = r.messages[0]!.content.split('\n\n');
    parts[1] = parts[1]!.replace('\n', `\nAsk \`${old}\` first.\n`);
    r.messages[0]!.content = parts.join('\n\n');
    lines[hit] = JSON.stringify(r);
    writeFileSync(file, lines.join('\n'));
    const v = runHsa(['verify', run.out, '-q']);
    expect(v.code).toBe(1);
    const leaks = v.stdout.split('\n').filter((l) => l.includes('mentions old name'));
    expect(leaks).toEqual([`${file}:${hit + 1}: ${r.id}: messages.0.content: mentions old name "${old}"`]);
  });
});
