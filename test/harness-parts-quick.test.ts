import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { quickHook, quickSkillFrontMatter } from '../src/harness/parts-quick.js';
import { hookSchema, skillFrontMatterSchema } from '../src/harness/schema.js';
import { isParseFailure, parseLocated } from '../src/util/located.js';
import { REPO } from './helpers/hsa.js';
import { check, spoilEach, spoilRandomly, type Twin } from './helpers/quick-twin.js';

/** A hook and a front matter read by hand (parts-quick.ts) against their schemas (see helpers/quick-twin.ts). */
const hooks: Twin = { quick: quickHook, schema: hookSchema };
const frontMatters: Twin = { quick: quickSkillFrontMatter, schema: skillFrontMatterSchema };

function files(dir: string, test: (name: string) => boolean, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) files(p, test, out);
    else if (test(name)) out.push(p);
  }
  return out;
}
const yamlOf = (file: string, text: string): unknown => {
  const doc = parseLocated(file, text);
  return isParseFailure(doc) ? undefined : doc.value;
};

/** Every hsa hook in fixtures/: the lists of hooks files and of harness.yaml's `hooks:`. */
function fixtureHooks(): unknown[] {
  const out: unknown[] = [];
  for (const f of files(path.join(REPO, 'fixtures'), (n) => /^(hooks\.(ya?ml|json)|harness\.yaml)$/.test(n))) {
    const v = yamlOf(f, readFileSync(f, 'utf8')) as { hooks?: unknown } | undefined;
    if (v && Array.isArray(v.hooks)) out.push(...v.hooks);
  }
  return out;
}

/** Every SKILL.md front matter in fixtures/. */
function fixtureFrontMatters(): unknown[] {
  const out: unknown[] = [];
  for (const f of files(path.join(REPO, 'fixtures'), (n) => n === 'SKILL.md')) {
    const m = /^---\r?\n([\s\S]*?)\r?\n---/.exec(readFileSync(f, 'utf8'));
    if (m) out.push(yamlOf(f, m[1]!) ?? {});
  }
  return out;
}

const FULL_HOOK = {
  id: 'full.hook-1',
  event: 'PreToolUse',
  description: 'Every part.',
  matcher: ['a', 'b'],
  checks: [
    { max_chars: 100 },
    { forbid: { phrases: ['x'], regex: ['^y'], target: 'arguments' } },
    { require_tool: { tools: ['t'], intents: ['book'], when_reply_matches: 'done' } },
    { schema_valid: true },
    { max_tool_rounds: 3 },
    { forbid: {} },
  ],
  action: 'retry',
  channel: 'system',
  feedback: 'Try again.',
  max_rounds: 2,
  command: 'true',
  timeout: 1.5,
};
const FULL_FRONT_MATTER = {
  license: 'MIT',
  name: 'full',
  description: 'Every part.',
  kind: 'strategy',
  tools: ['t1', 't2'],
  metadata: { a: [1] },
  'allowed-tools': 'Read',
};

describe('hooks and front matter read by hand against their schemas', () => {
  it('every fixture hook and front matter is read as the schema reads it', () => {
    const failures: string[] = [];
    const h = fixtureHooks();
    const f = fixtureFrontMatters();
    expect(h.length).toBeGreaterThan(10);
    expect(f.length).toBeGreaterThan(20);
    let taken = 0;
    h.forEach((v, i) => (taken += check(hooks, v, 'exact', `hook ${i}`, failures) ? 1 : 0));
    f.forEach((v, i) => (taken += check(frontMatters, v, 'exact', `front matter ${i}`, failures) ? 1 : 0));
    expect(failures).toEqual([]);
    expect(taken).toBeGreaterThan(0.8 * (h.length + f.length));
  });

  it('a hook and a front matter with every part; a matcher as text; an event named like an Object member', () => {
    const failures: string[] = [];
    expect(check(hooks, FULL_HOOK, 'exact', 'full hook', failures)).toBe(true);
    expect(check(hooks, { ...FULL_HOOK, matcher: 'Write|Edit' }, 'exact', 'text matcher', failures)).toBe(true);
    expect(check(frontMatters, FULL_FRONT_MATTER, 'exact', 'full front matter', failures)).toBe(true);
    // The schema's event test takes inherited names; the hand reading leaves them to it.
    expect(check(hooks, { ...FULL_HOOK, event: 'toString' }, 'safe', 'toString', failures)).toBe(false);
    expect(failures).toEqual([]);
  });

  it('every value spoilt in every way, every key dropped, an unknown key added to every object', () => {
    const failures: string[] = [];
    const h = spoilEach(hooks, FULL_HOOK, failures);
    const f = spoilEach(frontMatters, FULL_FRONT_MATTER, failures);
    expect(failures.slice(0, 10)).toEqual([]);
    expect(h.taken).toBeGreaterThan(20);
    expect(h.refused).toBeGreaterThan(200);
    expect(f.taken).toBeGreaterThan(20);
    expect(f.refused).toBeGreaterThan(50);
  });

  it('random multiple spoils agree (seeded)', () => {
    const failures: string[] = [];
    spoilRandomly(hooks, FULL_HOOK, 'hook-quick', 1000, failures);
    spoilRandomly(frontMatters, FULL_FRONT_MATTER, 'front-matter-quick', 500, failures);
    expect(failures.slice(0, 10)).toEqual([]);
  });
});
