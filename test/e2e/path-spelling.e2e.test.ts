import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { canonicalPath } from '../../src/config/augment-config.js';
import { REPO, runHsaAsync } from '../helpers/hsa.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { readJsonl, treeHashes } from '../helpers/tree.js';

afterAll(removeTempDirs);

describe('output does not depend on how an input path is spelled', () => {
  it('./x, x, the absolute path, a/../x, and the same through a config: identical bytes in every file', async () => {
    const cwd = tempDir('hsa-paths-');
    cpSync(path.join(REPO, 'fixtures/live-commerce/harness'), path.join(cwd, 'harness'), { recursive: true });
    mkdirSync(path.join(cwd, 'sub'));
    const lines = readFileSync(path.join(REPO, 'fixtures/live-commerce/trajectories.jsonl'), 'utf8').split('\n').filter(Boolean).slice(0, 6);
    // A bad line, so rejects carry the file name too.
    writeFileSync(path.join(cwd, 'in.jsonl'), `${lines.slice(0, 3).join('\n')}\n{"id":\n${lines.slice(3).join('\n')}\n`);
    cpSync(path.join(REPO, 'fixtures/general/prompts.jsonl'), path.join(cwd, 'general.jsonl'));
    const common = ['-k', '2', '--part-size', '4', '--on-error', 'skip', '-q'];
    const spellings = [
      ['./harness', './in.jsonl', './general.jsonl'],
      ['harness/', 'in.jsonl', 'general.jsonl'],
      [path.join(cwd, 'harness'), path.join(cwd, 'in.jsonl'), path.join(cwd, 'general.jsonl')],
      ['sub/../harness', 'sub/../in.jsonl', './sub/../general.jsonl'],
    ];
    const runs = spellings.map(([h, t, g], i) =>
      runHsaAsync(['augment', '--no-gzip', '--harness', h!, '--trajectories', t!, '--general', g!, '--out', `out${i}`, ...common], { cwd }),
    );
    writeFileSync(
      path.join(cwd, 'hsa.yaml'),
      [
        'harness: ./harness',
        'trajectories: [sub/../in.jsonl]',
        `general: ../${path.basename(cwd)}/general.jsonl`,
        'variants: 2',
        'part_size: 4',
        'on_error: skip',
      ].join('\n'),
    );
    runs.push(
      runHsaAsync(['augment', '--no-gzip', '-c', './hsa.yaml', '--out', 'out4', '-q'], { cwd }),
      runHsaAsync(['augment', '--no-gzip', '-c', path.join(cwd, 'hsa.yaml'), '--out', path.join(cwd, 'out5'), '-q'], { cwd }),
    );
    const results = await Promise.all(runs);
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const trees = results.map((_, i) => treeHashes(path.join(cwd, `out${i}`)));
    for (const t of trees.slice(1)) expect(t).toEqual(trees[0]);
    // The one spelling: relative to the working folder.
    const sft = readJsonl(path.join(cwd, 'out0/sft/part-00000.jsonl'));
    expect(new Set(sft.map((r) => (r.meta as { source_file: string }).source_file))).toEqual(new Set(['in.jsonl']));
    const rejects = readJsonl(path.join(cwd, 'out0/rejects/part-00000.jsonl'));
    expect(rejects.map((r) => r.source_file)).toEqual(['in.jsonl']);
    const manifest = JSON.parse(readFileSync(path.join(cwd, 'out0/manifest.json'), 'utf8'));
    expect(manifest.inputs.trajectories.map((t: { file: string }) => t.file)).toEqual(['in.jsonl']);
    expect(manifest.inputs.harness.path).toBe('harness');
    expect(manifest.inputs.general.file).toBe('general.jsonl');
  });

  it('canonicalPath: inside the working folder relative, outside absolute, never . or .. steps', () => {
    const cwd = path.resolve('/work/project');
    expect(canonicalPath('./data/x.jsonl', cwd)).toBe('data/x.jsonl');
    expect(canonicalPath('data/../data/x.jsonl', cwd)).toBe('data/x.jsonl');
    expect(canonicalPath(path.join(cwd, 'data', 'x.jsonl'), cwd)).toBe('data/x.jsonl');
    expect(canonicalPath('../other/x.jsonl', cwd)).toBe(path.resolve('/work/other/x.jsonl').split(path.sep).join('/'));
    expect(canonicalPath('./data/*.jsonl', cwd)).toBe('data/*.jsonl');
    expect(canonicalPath('.', cwd)).toBe('.');
    expect(canonicalPath('..data/x', cwd)).toBe('..data/x');
  });
});
