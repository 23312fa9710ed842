import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILTIN_PACKS, builtinPackDir, compilePacks, COMPILED_PACKS, listsOf, parsePack, readPackFile, type CompiledPacks } from '../src/words/packs.js';
import { sha256 } from '../src/util/hash.js';

const REPO = path.resolve(import.meta.dirname, '..');
const compiledFile = () => JSON.parse(readFileSync(path.join(REPO, 'words', COMPILED_PACKS), 'utf8')) as CompiledPacks;

describe('words/compiled.json (the built-in packs parsed at build time)', () => {
  it('equals the parse of the YAML packs as they are now (run `npm run words:compile` after editing a pack)', () => {
    expect(builtinPackDir()).toBe(path.join(REPO, 'words'));
    const fresh = compilePacks();
    expect(Object.keys(fresh.packs)).toEqual([...BUILTIN_PACKS]);
    expect(compiledFile()).toStrictEqual(JSON.parse(JSON.stringify(fresh)));
  });

  it.each(BUILTIN_PACKS)('%s: its compiled copy holds the sha256 of the YAML and loses nothing through JSON', (name) => {
    const text = readFileSync(path.join(REPO, 'words', `${name}.yaml`), 'utf8');
    const entry = compiledFile().packs[name]!;
    expect(entry.sha256).toBe(sha256(text));
    const parsed = parsePack(`words/${name}.yaml`, text);
    // toStrictEqual also tells an undefined-valued key from a missing one (JSON keeps neither).
    expect(entry.pack).toStrictEqual(parsed);
    expect(listsOf(entry.pack)).toStrictEqual(listsOf(parsed));
    expect(readPackFile(path.join(REPO, 'words', `${name}.yaml`)).lists).toStrictEqual(listsOf(parsed));
  });

  it('a pack whose text differs from every compiled copy is read from its YAML (an edit is never hidden)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hsa-compiled-'));
    const text = readFileSync(path.join(REPO, 'words', 'software.yaml'), 'utf8');
    const edited = path.join(dir, 'edited.yaml');
    writeFileSync(edited, `${text}\nservers: [zzcompiledcheck]\n`.replace(/^servers:.*\n(?:\s+-.*\n)*/m, ''));
    expect(readPackFile(edited).lists.servers).toEqual(['zzcompiledcheck']);
    // An invalid edit still names its file, line and key.
    const bad = path.join(dir, 'bad.yaml');
    writeFileSync(bad, `${text}\nprefixes: [Not-A-Word]\n`.replace(/^prefixes:.*\n(?:\s+-.*\n)*/m, ''));
    expect(() => readPackFile(bad)).toThrow(new RegExp(`${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+: prefixes\\.0: `));
  });
});
