import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, runHsaAsync, STACK_LINE } from '../helpers/hsa.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { readJsonl } from '../helpers/tree.js';

afterAll(removeTempDirs);

/** Identifier and prose words of a text: `getLotteryStatus` → get, lottery, status. */
const words = (s: string) =>
  s
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .match(/[a-z]+/g) ?? [];
function collect(v: unknown, out = new Set<string>()): Set<string> {
  if (typeof v === 'string') for (const w of words(v)) out.add(w);
  else if (Array.isArray(v)) for (const x of v) collect(x, out);
  else if (v && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) {
      for (const w of words(k)) out.add(w);
      collect(x, out);
    }
  return out;
}
const files = (d: string): string[] =>
  (existsSync(d) ? readdirSync(d) : []).sort().flatMap((f) => (statSync(path.join(d, f)).isDirectory() ? files(path.join(d, f)) : [path.join(d, f)]));
const pack = (name: string) => parse(readFileSync(path.join(REPO, 'words', `${name}.yaml`), 'utf8')) as Record<string, any>;
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

const DEFAULT = pack('default');
const DEFAULT_WORDS = collect(DEFAULT);
const LIVE_COMMERCE_WORDS = collect(pack('live-commerce'));

/** Every SFT and OPD record of a run. */
function modelRecords(out: string): Record<string, unknown>[] {
  return ['sft', 'opd'].flatMap((stage) => files(path.join(out, stage)).flatMap((f) => readJsonl(f)));
}
/** What the model reads of each record: SFT/OPD messages and tools, RL prompts (meta and extra_info are provenance). */
function modelTexts(out: string): { id: string; seen: unknown }[] {
  return [
    ...modelRecords(out).map((r) => ({ id: String(r.id), seen: [r.messages, r.tools] })),
    ...files(path.join(out, 'rl'))
      .flatMap((f) => readJsonl(f))
      .map((r) => ({ id: String((r.extra_info as { id: string }).id), seen: r.prompt })),
  ];
}
const transformParams = (records: Record<string, unknown>[], id: string) =>
  records.flatMap((r) =>
    ((r.meta as { transforms?: { id: string; params?: Record<string, unknown> }[] })?.transforms ?? []).filter((t) => t.id === id).map((t) => t.params ?? {}),
  );

const manifestOf = (out: string) =>
  JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8')) as { config: { words: { sources: Record<string, unknown>[] } } };

const HARNESSES = [
  { name: 'airline', harness: 'fixtures/airline/harness', trajectories: 'fixtures/airline/trajectories.jsonl', seeds: ['1', '2', '3'], k: '6', stages: [] },
  {
    name: 'support-desk',
    harness: 'fixtures/support-desk/harness',
    trajectories: 'fixtures/support-desk/trajectories.jsonl',
    seeds: ['1'],
    k: '3',
    stages: ['--stages', 'sft,rl'],
  },
];

describe.each(HARNESSES)('a non-commerce harness ($name) with the default config', ({ harness, trajectories, seeds, k, stages }) => {
  const input = collect(files(path.join(REPO, path.dirname(trajectories))).map((f) => readFileSync(f, 'utf8')));
  // Words only the live-commerce pack has: pinyin forms, zhibo, lucky draw, coupon, live room…
  const forbidden = [...LIVE_COMMERCE_WORDS].filter((w) => !DEFAULT_WORDS.has(w) && !input.has(w));

  it.concurrent.each(seeds)('seed %s: no live-commerce word in the output; distractors from the default pack', async (seed) => {
    expect(forbidden).toEqual(expect.arrayContaining(['zhibo', 'shangpin', 'lottery', 'lucky', 'coupon', 'viewer', 'dingdan']));
    const out = tempDir('hsa-words-');
    const r = await runHsaAsync([
      'augment',
      '--no-gzip',
      '--harness',
      harness,
      '-t',
      trajectories,
      '-o',
      out,
      '--seed',
      seed,
      '-k',
      k,
      '--state-pool',
      '0',
      ...stages,
      '-q',
    ]);
    expect(r.stderr).not.toContain(STACK_LINE);
    expect(r.code).toBe(0);
    const records = modelRecords(out);
    const texts = modelTexts(out);
    expect(texts.length).toBeGreaterThan(records.length);
    for (const { id, seen } of texts)
      expect(
        [...collect(seen)].filter((w) => forbidden.includes(w)),
        `record ${id}`,
      ).toEqual([]);
    const toolNames = new Set((DEFAULT.distractor_tools as { name: string }[]).map((t) => t.name));
    const skillIds = new Set((DEFAULT.distractor_skills as { id: string }[]).map((s) => s.id.replace(/-/g, '_')));
    const addedTools = transformParams(records, 'tools.distractors').flatMap((p) => p.added as string[]);
    const addedSkills = transformParams(records, 'skills.distractors').flatMap((p) => p.added as string[]);
    expect(addedTools.length + addedSkills.length).toBeGreaterThan(0);
    for (const t of addedTools) expect(toolNames.has(t), t).toBe(true);
    for (const s of addedSkills) expect(skillIds.has(s.replace(/-/g, '_')), s).toBe(true);
    expect(manifestOf(out).config.words).toEqual({ sources: [{ pack: 'default', sha256: sha(path.join(REPO, 'words', 'default.yaml')) }] });
  });
});

describe('synonym senses in a flight-booking harness', () => {
  it('renames `order` only in its booking sense, never as a rank, a sequence or a purchase', async () => {
    const renamed: string[] = [];
    await Promise.all(
      ['11', '12', '13'].map(async (seed) => {
        const out = tempDir('hsa-words-');
        const r = await runHsaAsync([
          'augment',
          '--no-gzip',
          '--harness',
          HARNESSES[0]!.harness,
          '-t',
          HARNESSES[0]!.trajectories,
          '-o',
          out,
          '--seed',
          seed,
          '-k',
          '8',
          '--state-pool',
          '0',
          '--transforms',
          'tools.rename',
          '--stages',
          'sft',
          '-q',
        ]);
        expect(r.code).toBe(0);
        for (const p of transformParams(modelRecords(out), 'tools.rename')) {
          const map = p.renamed as Record<string, string>;
          for (const old of ['get_order_status', 'cancel_order']) if (map[old]) renamed.push(map[old]);
        }
      }),
    );
    const orderWords: string[][] = renamed.map((n) => words(n));
    for (const w of orderWords)
      expect(
        w.some((x) => ['sequence', 'ranking', 'rank', 'purchase', 'dingdan'].includes(x)),
        w.join('_'),
      ).toBe(false);
    // The booking sense is really used (not only affixes and opaque ids).
    expect(orderWords.some((w) => w.includes('booking') || w.includes('reservation'))).toBe(true);
  });
});

describe('selecting packs', () => {
  const subset = (dir: string) => {
    const lines = readFileSync(path.join(REPO, 'fixtures/live-commerce/trajectories.jsonl'), 'utf8').split('\n').filter(Boolean).slice(0, 6);
    const file = path.join(dir, 'in.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n`);
    return file;
  };

  it('the live-commerce fixture config selects the live-commerce pack (recorded with its sha256)', async () => {
    const dir = tempDir('hsa-words-');
    const r = await runHsaAsync([
      'augment',
      '--no-gzip',
      '--config',
      'fixtures/live-commerce/hsa.yaml',
      '-t',
      subset(dir),
      '-o',
      path.join(dir, 'out'),
      '-k',
      '6',
      '--stages',
      'sft',
      '-q',
    ]);
    expect(r.code).toBe(0);
    expect(manifestOf(path.join(dir, 'out')).config.words.sources[0]).toEqual({
      pack: 'live-commerce',
      sha256: sha(path.join(REPO, 'words', 'live-commerce.yaml')),
    });
    const lcTools = new Set((pack('live-commerce').distractor_tools as { name: string }[]).map((t) => t.name));
    const added = transformParams(modelRecords(path.join(dir, 'out')), 'tools.distractors').flatMap((p) => p.added as string[]);
    expect(added.length).toBeGreaterThan(0);
    for (const t of added) expect(lcTools.has(t), t).toBe(true);
  });

  it('--words replaces the packs; a config list with mode replace is the only source of that list', async () => {
    const dir = tempDir('hsa-words-');
    writeFileSync(
      path.join(dir, 'hsa.yaml'),
      [
        'words:',
        '  packs: [default, ./extra.yaml]',
        '  mode: {distractor_tools: replace}',
        '  distractor_tools:',
        '    - name: get_gate_map',
        '      description: Show the map of an airport terminal with its gates.',
        '      parameters: {type: object, properties: {terminal: {type: string}}, required: [terminal]}',
        '',
      ].join('\n'),
    );
    writeFileSync(path.join(dir, 'extra.yaml'), 'name: extra\nsynonyms:\n  seat: [chair]\n');
    const base = [
      'augment',
      '--no-gzip',
      '--config',
      path.join(dir, 'hsa.yaml'),
      '--harness',
      HARNESSES[0]!.harness,
      '-t',
      HARNESSES[0]!.trajectories,
      '-k',
      '6',
      '--stages',
      'sft',
      '--state-pool',
      '0',
      '-q',
    ];
    const [a, b] = await Promise.all([
      runHsaAsync([...base, '-o', path.join(dir, 'a')]),
      runHsaAsync([...base, '-o', path.join(dir, 'b'), '--words', 'travel']),
    ]);
    expect([a.code, b.code], a.stderr + b.stderr).toEqual([0, 0]);
    const addedA = transformParams(modelRecords(path.join(dir, 'a')), 'tools.distractors').flatMap((p) => p.added as string[]);
    expect(new Set(addedA)).toEqual(new Set(['get_gate_map']));
    const sourcesA = manifestOf(path.join(dir, 'a')).config.words.sources;
    expect(sourcesA.map((s) => s.pack ?? s.file ?? 'inline')).toEqual(['default', path.join(dir, 'extra.yaml'), 'inline']);
    expect(sourcesA[1]!.sha256).toBe(sha(path.join(dir, 'extra.yaml')));
    // --words travel: the travel pack instead of [default, extra.yaml]; the config's own list still replaces the distractors.
    expect(manifestOf(path.join(dir, 'b')).config.words.sources.map((s) => s.pack ?? s.file ?? 'inline')).toEqual(['travel', 'inline']);
    const addedB = transformParams(modelRecords(path.join(dir, 'b')), 'tools.distractors').flatMap((p) => p.added as string[]);
    expect(new Set(addedB)).toEqual(new Set(['get_gate_map']));
  });

  it('a bad pack file or an unknown pack name is an error naming the file, line and key (exit 2)', async () => {
    const dir = tempDir('hsa-words-');
    writeFileSync(
      path.join(dir, 'bad.yaml'),
      'name: bad\ndistractor_tools:\n  - name: ok_tool\n    description: Fine.\n    parameters: {type: object}\n  - name: "bad name!"\n    description: Broken.\n    parameters: {type: string}\n',
    );
    writeFileSync(path.join(dir, 'a.yaml'), 'words:\n  packs: [default, bad.yaml]\n');
    writeFileSync(path.join(dir, 'b.yaml'), 'seed: 1\nwords:\n  packs:\n    - default\n    - travle\n');
    const args = (cfg: string) => [
      'augment',
      '--no-gzip',
      '--config',
      path.join(dir, cfg),
      '--harness',
      HARNESSES[0]!.harness,
      '-t',
      HARNESSES[0]!.trajectories,
      '-o',
      path.join(dir, 'out'),
      '-q',
    ];
    const [a, b, c] = await Promise.all([
      runHsaAsync(args('a.yaml')),
      runHsaAsync(args('b.yaml')),
      runHsaAsync([...args('b.yaml').filter((x, i, all) => x !== '--config' && all[i - 1] !== '--config'), '--words', 'nope']),
    ]);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain(`${path.join(dir, 'bad.yaml')}:6: distractor_tools.1.name: must be a tool name OpenAI accepts`);
    expect(a.stderr).toContain(`${path.join(dir, 'bad.yaml')}:8: distractor_tools.1.parameters: must be a JSON Schema with type: object`);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain(`${path.join(dir, 'b.yaml')}:5: words.packs.1: unknown word pack "travle" (built-in: default, live-commerce, travel, software`);
    expect(c.code).toBe(2);
    expect(c.stderr).toContain('--words: unknown word pack "nope"');
    for (const x of [a, b, c]) expect(x.stderr).not.toContain(STACK_LINE);
  });
});
