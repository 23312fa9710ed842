import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { CONFIG_FLAGS } from '../src/config/flags.js';
import { augmentConfigSchema } from '../src/config/schema.js';

interface Node {
  description?: string;
  properties?: Record<string, Node>;
  anyOf?: Node[];
}

const schema = z.toJSONSchema(augmentConfigSchema) as Node;

/** Every key of hsa.yaml as a dotted path with its JSON Schema node (sections entered, `teacher` in its section form). */
function keys(node: Node, prefix = ''): [string, Node][] {
  const out: [string, Node][] = [];
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    const key = prefix ? `${prefix}.${name}` : name;
    out.push([key, child]);
    const section = child.properties ? child : child.anyOf?.find((b) => b.properties);
    if (section) out.push(...keys(section, key));
  }
  return out;
}

describe('hsa.yaml: one typed, described option table', () => {
  it('the JSON Schema of hsa.yaml is the one committed (a key, bound or description changed on purpose: update the snapshot and docs/config.md)', async () => {
    await expect(`${JSON.stringify(schema, null, 2)}\n`).toMatchFileSnapshot('./__snapshots__/hsa-yaml.schema.json');
  });

  it('every key says what it does, and every key that holds a value its default', () => {
    const all = keys(schema);
    expect(all.filter(([, n]) => !n.description).map(([k]) => k)).toEqual([]);
    const leaves = all.filter(([k, n]) => !n.properties && !['teacher.recovery'].includes(k));
    expect(leaves.filter(([, n]) => !/Default: |No default/.test(n.description ?? '')).map(([k]) => k)).toEqual([]);
  });

  it('the flag table names schema keys, and every flag it names is an option of hsa augment', async () => {
    const known = new Set(keys(schema).map(([k]) => k));
    expect(Object.keys(CONFIG_FLAGS).filter((k) => !known.has(k))).toEqual([]);
    // The built CLI (src/version.ts reads package.json beside dist/): its `hsa augment` options.
    const main = (await import(pathToFileURL(path.resolve('dist/src/cli/main.js')).href)) as {
      buildProgram(io: unknown, setCode: (c: number) => void): Command;
    };
    const io = { out: () => {}, err: () => {}, errIsTty: false };
    const augment = main.buildProgram(io, () => {}).commands.find((c) => c.name() === 'augment')!;
    const options = new Set(augment.options.map((o) => o.attributeName()));
    const named = Object.values(CONFIG_FLAGS).filter((f): f is NonNullable<typeof f> => f !== null);
    expect(named.filter((f) => !options.has(f))).toEqual([]);
  });

  it('docs/config.md is what scripts/docs-config.mjs makes of the schema', () => {
    const r = spawnSync(process.execPath, ['scripts/docs-config.mjs', '--check'], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
