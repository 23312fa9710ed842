import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { quickHarnessFile } from '../src/harness/harness-file-quick.js';
import { harnessFileSchema } from '../src/harness/schema.js';
import { isParseFailure, parseLocated } from '../src/util/located.js';
import { REPO } from './helpers/hsa.js';
import { check, spoilEach, spoilRandomly, type Twin } from './helpers/quick-twin.js';

/** harness.yaml read by hand (harness-file-quick.ts) against harnessFileSchema (see helpers/quick-twin.ts). */
const twin: Twin = { quick: quickHarnessFile, schema: harnessFileSchema };

/** Every harness.yaml under fixtures/ that parses as YAML (the bad ones too), by path. */
function fixtureHarnessFiles(): [string, unknown][] {
  const out: [string, unknown][] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = path.join(dir, name);
      if (!statSync(p).isDirectory()) continue;
      const file = path.join(p, 'harness.yaml');
      if (existsSync(file)) {
        const doc = parseLocated(file, readFileSync(file, 'utf8'));
        if (!isParseFailure(doc)) out.push([path.relative(REPO, file), doc.value ?? {}]);
      }
      walk(p);
    }
  };
  walk(path.join(REPO, 'fixtures'));
  return out;
}

/** A harness file using every part of the format. */
const FULL = {
  name: 'full',
  version: 1.5,
  description: 'Every part.',
  prompt: {
    dir: 'prompt',
    order: ['role', 'skills'],
    pinned: ['role'],
    unordered: ['rules'],
    user_sections: ['ctx'],
    separator: '\n\n',
    sections: [{ id: 'rules', text: 'Be brief.' }],
    catalog: { id: 'skills', title: 'Skills', intro: 'Load one.' },
  },
  variables: { 'host.name': { description: 'Persona', default: 'Ava' }, 'shop.name': null, n: { default: { deep: [1, null] } }, e: {} },
  skills: {
    dir: 'skills',
    naming: 'snake',
    loader: { tool: 'load_skill', argument: 'name' },
    items: [
      { name: 'greet', description: 'Say hi.', kind: 'reply', tools: [], body: 'Hi.' },
      { name: 'look', description: '' },
    ],
    unordered_lists: ['steps'],
  },
  tools: { sources: ['tools/a.json'], items: [{ type: 'function', function: { name: 'f' } }, 5] },
  hooks: [{ id: 'h', event: 'stop', checks: [{ max_chars: 10 }] }],
  hook_messages: { name_prefix: 'hook:' },
};

describe('harness.yaml read by hand against harnessFileSchema', () => {
  it('reads every fixture harness.yaml as the schema does (and takes the valid ones)', () => {
    const failures: string[] = [];
    const files = fixtureHarnessFiles();
    expect(files.length).toBeGreaterThan(30);
    let taken = 0;
    for (const [rel, v] of files) if (check(twin, v, 'exact', rel, failures)) taken++;
    expect(failures).toEqual([]);
    expect(taken).toBeGreaterThan(25);
  });

  it('a file with every part, and the other forms of version, skills.loader and hooks', () => {
    const failures: string[] = [];
    for (const v of [
      FULL,
      { ...FULL, version: '2.0.0', hooks: 'hooks.yaml', skills: { loader: null } },
      { ...FULL, version: 3, hooks: { PreToolUse: [] } },
      { name: 'n', version: 0 },
    ])
      expect(check(twin, v, 'exact', JSON.stringify(v).slice(0, 60), failures)).toBe(true);
    expect(failures).toEqual([]);
  });

  it('every value spoilt in every way, every key dropped, an unknown key added to every object', () => {
    const failures: string[] = [];
    const r = spoilEach(twin, FULL, failures);
    expect(failures.slice(0, 10)).toEqual([]);
    expect(r.slots).toBeGreaterThan(60);
    expect(r.taken).toBeGreaterThan(60);
    expect(r.refused).toBeGreaterThan(300);
  });

  it('random multiple spoils agree (seeded)', () => {
    const failures: string[] = [];
    spoilRandomly(twin, FULL, 'harness-file-quick', 1500, failures);
    expect(failures.slice(0, 10)).toEqual([]);
  });
});
