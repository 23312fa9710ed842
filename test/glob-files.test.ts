import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fg from 'fast-glob';
import { describe, expect, it } from 'vitest';
import { globFiles } from '../src/util/inputs.js';

/** A folder with every kind of entry a `tools/*.json` pattern could meet. */
function tree(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'hsa-glob-'));
  const t = path.join(root, 'tools');
  mkdirSync(path.join(t, 'sub.json'), { recursive: true });
  mkdirSync(path.join(t, 'deep'), { recursive: true });
  for (const f of ['a.json', 'b c.json', '.hidden.json', 'x.JSON', 'y.yaml', 'z.yml', 'notjson', 'deep/d.json', 'sub.json/e.json', 'a.json.bak'])
    writeFileSync(path.join(t, f), '{}');
  symlinkSync(path.join(t, 'a.json'), path.join(t, 'link.json'));
  symlinkSync(path.join(t, 'missing.json'), path.join(t, 'broken.json'));
  symlinkSync(path.join(t, 'deep'), path.join(t, 'dirlink.json'));
  return root;
}

describe('globFiles (the readdir path for dir/*.ext patterns, the stat path for plain paths)', () => {
  const cases: string[][] = [
    ['tools/*.json', 'tools/*.yaml', 'tools/*.yml'],
    ['tools/*.json'],
    ['tools/deep/*.json'],
    ['nothere/*.json'],
    ['tools/*.json', 'tools/*.json'],
    // Plain paths (the stat path): a file, a link to one, a broken link, folders, a link to a folder,
    // one that is not there, one given twice; mixed with a dir/*.ext pattern.
    ['tools/a.json', 'tools/link.json', 'tools/broken.json', 'tools/deep', 'tools/sub.json', 'tools/nothere.json', 'tools/a.json'],
    ['tools/deep/d.json', 'tools/*.yaml', 'tools/dirlink.json', 'tools/notjson'],
    // Not plain (a dot file, a space): fast-glob answers these.
    ['tools/.hidden.json', 'tools/a.json'],
    ['tools/b c.json'],
    // Not the simple shape: fast-glob answers these itself.
    ['tools/**/*.json'],
    ['tools/{a,z}.*'],
  ];
  it.each(cases)('%s gives what fast-glob gives', (...patterns) => {
    const root = tree();
    const want = fg.sync(patterns, { cwd: root, onlyFiles: true, dot: false }).sort();
    return globFiles(patterns, root).then((got) => expect(got.sort()).toEqual(want));
  });

  it('the readdir path finds files, links to files, no dot files, folders or broken links', async () => {
    const root = tree();
    expect((await globFiles(['tools/*.json'], root)).sort()).toEqual(['tools/a.json', 'tools/b c.json', 'tools/link.json']);
  });
});
