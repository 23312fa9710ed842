import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO, runHsa } from './helpers/hsa.js';
import { makeTmp } from './helpers/tmp.js';

// `augment --split train|eval`: the new names of a train run and an eval run with the same seed
// never meet. Read from the output bytes: every JSON key, every `name` value and every
// distinctive identifier (with `_`, `-`, a digit or an inner capital) in the records' text, minus
// what the inputs and an un-augmented run already hold.
let tmp: { dir: string; cleanup: () => Promise<void> };
const TOKEN = /[\p{L}\p{N}_-]+/gu;
const distinctive = (t: string) => !/^\d+$/.test(t) && (/[_\d]/.test(t) || /\p{L}-\p{L}/u.test(t) || /\p{Ll}\p{Lu}/u.test(t));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

function namesOf(out: string): Set<string> {
  const names = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        names.add(k);
        if (k === 'name' && typeof x === 'string') names.add(x);
        walk(x);
      }
    } else if (typeof v === 'string') {
      const s = v.trim();
      if (s.startsWith('{') || s.startsWith('[')) {
        try {
          return walk(JSON.parse(s));
        } catch {
          // prose that starts with a bracket
        }
      }
      // Headings styled as tags (`<global_constraints>`) are the source's section titles, restyled.
      for (const t of v.replace(/<\/?[\w-]+>/g, ' ').match(TOKEN) ?? []) if (distinctive(t)) names.add(t);
    }
  };
  for (const f of files(out).filter((f) => f.endsWith('.jsonl') && !f.includes(`${path.sep}rejects${path.sep}`))) {
    for (const line of readFileSync(f, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const r = JSON.parse(line);
      // Provenance (meta, extra_info ids and transform parameters) is about the record, not in it.
      delete r.meta;
      delete r.id;
      if (r.extra_info) {
        const env = r.extra_info.env;
        r.extra_info = { env };
      }
      walk(r);
    }
  }
  return names;
}

beforeAll(async () => {
  tmp = await makeTmp('hsa-split-');
  writeFileSync(
    path.join(tmp.dir, 'dev.jsonl'),
    `${readFileSync(path.join(REPO, 'fixtures/live-commerce/trajectories.jsonl'), 'utf8').split('\n').slice(0, 24).join('\n')}\n`,
  );
});
afterAll(() => tmp?.cleanup());

describe('augment --split', () => {
  it('train and eval runs with the same seed share no new name, over several seeds; the manifest says which split', () => {
    const dev = path.join(tmp.dir, 'dev.jsonl');
    const inputs = new Set(files(path.join(REPO, 'fixtures/live-commerce')).flatMap((f) => readFileSync(f, 'utf8').match(TOKEN) ?? []));
    const common = ['augment', '--no-gzip', '--config', 'fixtures/live-commerce/hsa.yaml', '-t', dev, '--stages', 'rl', '--quiet', '--force'];
    const base = path.join(tmp.dir, 'base');
    const b0 = runHsa([...common, '--variants', '0', '--out', base]);
    expect(b0.code, b0.stderr).toBe(0);
    // Sentence and feedback frames are shared by design (styles without names, docs/eval.md);
    // schema keywords are JSON Schema's own; harness:preamble is hsa's name for a moved section.
    const frames = files(path.join(REPO, 'words')).flatMap((f) => {
      const pack = parse(readFileSync(f, 'utf8'));
      return JSON.stringify([pack.description_frames ?? {}, pack.feedback_frames ?? []]).match(TOKEN) ?? [];
    });
    const known = new Set([...inputs, ...namesOf(base), ...frames, 'oneOf', 'const', 'harness:preamble']);
    for (const seed of ['1', '2']) {
      const fresh: Record<string, Set<string>> = {};
      for (const split of ['train', 'eval']) {
        const out = path.join(tmp.dir, `${split}-${seed}`);
        const r = runHsa([...common, '--seed', seed, '--split', split, '--out', out]);
        expect(r.code, r.stderr).toBe(0);
        expect(JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8')).config.split).toBe(split);
        fresh[split] = new Set([...namesOf(out)].filter((n) => !known.has(n)));
      }
      expect(fresh.train!.size).toBeGreaterThan(50);
      expect(fresh.eval!.size).toBeGreaterThan(50);
      expect([...fresh.train!].filter((n) => fresh.eval!.has(n))).toEqual([]);
    }
    // Without --split the runs share names (the check above can fail).
    const a = path.join(tmp.dir, 'plain-a');
    const b = path.join(tmp.dir, 'plain-b');
    expect(runHsa([...common, '--seed', '1', '--out', a]).code).toBe(0);
    expect(runHsa([...common, '--seed', '2', '--out', b]).code).toBe(0);
    const fa = [...namesOf(a)].filter((n) => !known.has(n));
    const fb = new Set([...namesOf(b)].filter((n) => !known.has(n)));
    expect(fa.filter((n) => fb.has(n)).length).toBeGreaterThan(10);
  }, 120_000);

  it('a held-out transform is off in train and on in eval; a bad split is an error', async () => {
    const cfg = path.join(tmp.dir, 'holdout.yaml');
    writeFileSync(
      cfg,
      `${readFileSync(path.join(REPO, 'fixtures/live-commerce/hsa.yaml'), 'utf8')
        .replace(/^harness: harness/m, `harness: ${path.join(REPO, 'fixtures/live-commerce/harness')}`)
        .replace(/^trajectories:\n {2}- "\*\.jsonl"/m, `trajectories:\n  - ${path.join(tmp.dir, 'dev.jsonl')}`)
        .replace(/^general: .*$/m, 'general: null')
        .replace(/^out: .*$/m, `out: ${path.join(tmp.dir, 'h')}`)}\nsplit_holdout: [tools.schema-style]\n`,
    );
    for (const split of ['train', 'eval']) {
      const out = path.join(tmp.dir, `h-${split}`);
      const r = runHsa(['augment', '--no-gzip', '--config', cfg, '--split', split, '--out', out, '--stages', 'rl', '--quiet', '--force']);
      expect(r.code, r.stderr).toBe(0);
      const rl = files(path.join(out, 'rl'))
        .map((f) => readFileSync(f, 'utf8'))
        .join('');
      expect(rl.includes('tools.schema-style'), split).toBe(split === 'eval');
    }
    const bad = runHsa(['augment', '--no-gzip', '--config', cfg, '--split', 'test', '--out', path.join(tmp.dir, 'x'), '--quiet']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--split: must be train or eval');
  }, 60_000);
});
