import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtinTransforms } from '../transforms/index.js';
import { builtinTransformsModule } from '../src/transform/builtins.js';
import { loadRegistry, optionDefaults, optionsJsonSchema } from '../src/transform/registry.js';
import { REPO } from './helpers/hsa.js';

const entries = Object.entries(builtinTransforms);

describe('the transform registry', () => {
  it('keys every transform by its own id, families in application order', () => {
    for (const [key, t] of entries) expect(t.id).toBe(key);
    const families = entries.map(([, t]) => t.family);
    const order = ['skills', 'tools', 'prompt', 'hooks'];
    const firstIndex = families.map((f) => order.indexOf(f));
    expect([...firstIndex].sort((a, b) => a - b)).toEqual(firstIndex);
  });

  it('has one module per transform at transforms/<family>/<name>.ts', () => {
    for (const [, t] of entries) {
      const [family, name] = t.id.split('.');
      expect(family).toBe(t.family);
      expect(existsSync(path.join(REPO, 'transforms', family!, `${name}.ts`)), t.id).toBe(true);
    }
  });

  it('documents every transform and gives every option a default, a description and a probability p', () => {
    for (const [, t] of entries) {
      expect(t.description.length, t.id).toBeGreaterThan(20);
      expect(Number.isInteger(t.version) && t.version >= 1).toBe(true);
      const defaults = optionDefaults(t);
      expect(typeof defaults.p, t.id).toBe('number');
      const schema = optionsJsonSchema(t) as { properties: Record<string, { description?: string }> };
      for (const [key, prop] of Object.entries(schema.properties)) expect(prop.description, `${t.id}.${key}`).toBeTruthy();
      expect(t.options.safeParse({ p: 2 }).success, `${t.id} rejects p > 1`).toBe(false);
      expect(t.options.safeParse({ nope: 1 }).success, `${t.id} rejects unknown options`).toBe(false);
    }
  });

  it('pins every options JSON Schema (a change of options is a visible diff)', async () => {
    const schemas = Object.fromEntries(entries.map(([id, t]) => [id, { class: t.class, version: t.version, options: optionsJsonSchema(t) }]));
    await expect(JSON.stringify(schemas, null, 2)).toMatchFileSnapshot('./__snapshots__/transform-options.json');
  });

  it('loads the built-ins the caller handed in (test/helpers/builtins.ts), then the plugins in order', async () => {
    const handed = builtinTransformsModule();
    expect(handed).toBe(new URL('../transforms/index.js', import.meta.url).href);
    expect(Object.keys(await loadRegistry())).toEqual(Object.keys(builtinTransforms));
    // The plugin imports the public API (src/index.ts), which hands in only when nobody has.
    const withPlugin = await loadRegistry([path.join(REPO, 'fixtures/plugins/skill-suffix.mjs')]);
    expect(Object.keys(withPlugin)).toEqual([...Object.keys(builtinTransforms), 'tools.suffix-plugin']);
    expect(builtinTransformsModule()).toBe(handed);
  });

  it('has a test file per family, and every transform is exercised by one of its family test files', () => {
    const dir = path.join(REPO, 'test', 'transforms');
    for (const [, t] of entries) {
      const file = path.join(dir, `${t.family}.test.ts`);
      expect(existsSync(file), file).toBe(true);
      // A family's tests may be split by subject: <family>.test.ts, <family>-<subject>.test.ts, <family>.property.test.ts.
      const files = readdirSync(dir).filter((f) => f === `${t.family}.test.ts` || f.startsWith(`${t.family}-`) || f.startsWith(`${t.family}.`));
      const [, name] = t.id.split('.');
      const texts = files.map((f) => readFileSync(path.join(dir, f), 'utf8')).join('\n');
      expect(texts, `${t.id} in ${files.join(', ')}`).toContain(`transforms/${t.family}/${name}.js`);
    }
  });
});
