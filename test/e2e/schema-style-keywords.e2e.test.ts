import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, describe, expect, it } from 'vitest';
import { runChecker } from '../helpers/checker.js';
import { REPO } from '../helpers/hsa.js';
import { augmentWith } from '../helpers/one-transform.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

/**
 * `tools.schema-style`'s wrap and flatten on schemas with more than properties and required at
 * their root: `$defs` with `$ref`s into them, a description, a top-level wrapper whose inner object
 * has `minProperties` (fixtures/clinic, an outpatient desk written for this project), and the
 * live-commerce harness's `anyOf` of required lists ("pass campaign_id, item_id, or both"). The
 * wrapper used to keep only properties, required and additionalProperties: the `$ref` pointed
 * nowhere (the run died with an internal error) and the anyOf was dropped (a weaker schema that
 * every check accepted). The tests read the written tools and calls with their own ajv.
 */

afterAll(() => removeTempDirs());

type Schema = Record<string, unknown>;
interface Out {
  id: string;
  tools: { function: { name: string; parameters: Schema } }[];
  messages: { tool_calls?: { function: { name: string; arguments: unknown } }[] }[];
  meta: { source_id: string; transforms: { id: string; params?: { restyled?: Record<string, string> } }[] };
}

const readJsonl = <T>(f: string) =>
  readFileSync(f, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as T);
const ROOT = ['$schema', '$id', '$defs', 'definitions'];
const without = (s: Schema, keys: string[]) => Object.fromEntries(Object.entries(s).filter(([k]) => !keys.includes(k)));

async function wrapAll(harness: string, trajectories: string, transform = 'tools.schema-style: { p: 1, intensity: 1, styles: [wrap] }'): Promise<Out[]> {
  const a = await augmentWith(transform, ['--harness', harness, '-t', trajectories, '-k', '6', '--seed', '9', '--stages', 'sft', '--json'], 'hsa-schema-');
  expect(a.code, a.stderr).toBe(0);
  const out = a.out;
  expect((JSON.parse(a.stdout) as { totals: Record<string, number> }).totals.variants_rejected).toBe(0);
  expect(runChecker(out, [trajectories], harness).failures).toEqual({});
  return readJsonl<Out>(path.join(out, 'sft/part-00000.jsonl'));
}

describe('tools.schema-style keeps every keyword of the parameters', () => {
  it('wrapping moves them all into the wrapper and leaves $defs at the root; flattening keeps the inner ones', async () => {
    const harness = path.join(REPO, 'fixtures/clinic/harness');
    const records = await wrapAll(harness, path.join(REPO, 'fixtures/clinic/trajectories.jsonl'));
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const source = JSON.parse(JSON.stringify((await import('yaml')).parse(readFileSync(path.join(harness, 'tools/tools.yaml'), 'utf8')))) as {
      function: { name: string; parameters: Schema };
    }[];
    const src = new Map(source.map((t) => [t.function.name.replace('.', '_'), t.function.parameters]));
    const seen = { wrap: 0, flatten: 0, defs: 0 };
    for (const r of records) {
      const restyled = r.meta.transforms.find((t) => t.id === 'tools.schema-style')?.params?.restyled ?? {};
      for (const t of r.tools) {
        const how = restyled[t.function.name];
        const before = src.get(t.function.name)!;
        const now = t.function.parameters;
        // Every schema compiles (its references resolve) and every call of the tool validates.
        const validate = ajv.compile(now);
        for (const m of r.messages)
          for (const c of m.tool_calls ?? [])
            if (c.function.name === t.function.name) expect(validate(c.function.arguments), `${r.id} ${t.function.name}`).toBe(true);
        if (how?.startsWith('wrap:')) {
          seen.wrap++;
          const key = how.slice(5);
          expect((now.properties as Record<string, Schema>)[key]).toEqual({ type: 'object', ...without(before, ['type', ...ROOT]) });
          for (const k of ROOT) if (k in before) expect(now[k]).toEqual(before[k]);
          if ('$defs' in before) seen.defs++;
        } else if (how?.startsWith('flatten:')) {
          seen.flatten++;
          const inner = (before.properties as Record<string, Schema>)[how.slice(8)]!;
          expect(now).toEqual({ ...inner, description: before.description });
        }
      }
    }
    expect(seen.wrap).toBeGreaterThan(0);
    expect(seen.flatten).toBeGreaterThan(0);
    expect(seen.defs).toBeGreaterThan(0);
  }, 60_000);

  it('a top-level anyOf of required lists (live-commerce get_campaign_conditions) stays with the parameters', async () => {
    const dir = tempDir('hsa-schema-anyof-');
    const slice = path.join(dir, 'campaign.jsonl');
    const lines = readFileSync(path.join(REPO, 'fixtures/live-commerce/trajectories.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('"get_campaign_conditions"'));
    writeFileSync(slice, lines.slice(0, 4).join('\n') + '\n');
    const records = await wrapAll(path.join(REPO, 'fixtures/live-commerce/harness'), slice);
    let wrapped = 0;
    for (const r of records) {
      const how = r.meta.transforms.find((t) => t.id === 'tools.schema-style')?.params?.restyled?.get_campaign_conditions;
      if (!how?.startsWith('wrap:')) continue;
      wrapped++;
      const now = r.tools.find((t) => t.function.name === 'get_campaign_conditions')!.function.parameters;
      const inner = (now.properties as Record<string, Schema>)[how.slice(5)]!;
      expect(inner.anyOf).toEqual([{ required: ['campaign_id'] }, { required: ['item_id'] }]);
      // Neither id given: refused, as the source schema refuses it.
      const ajv = new Ajv2020({ strict: false, validateFormats: false });
      expect(ajv.compile(now)({ [how.slice(5)]: { include_buyer_resources: true } })).toBe(false);
    }
    expect(wrapped).toBeGreaterThan(0);
  }, 60_000);

  it('tools.param-rename follows a $ref into the parameters, and keeps the names it reuses', async () => {
    const records = await wrapAll(
      path.join(REPO, 'fixtures/clinic/harness'),
      path.join(REPO, 'fixtures/clinic/trajectories.jsonl'),
      'tools.param-rename: { p: 1, intensity: 1 }',
    );
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    let moved = 0;
    for (const r of records) {
      const t = r.tools.find((x) => x.function.name === 'move_patient')!.function.parameters;
      const props = t.properties as Record<string, Schema>;
      const to = Object.keys(props).find((k) => '$ref' in props[k]!)!;
      const from = (props[to]!.$ref as string).replace('#/properties/', '');
      // The reference names the (renamed) property it reuses, whose inner names stay.
      expect(Object.keys(props[from]!.properties as Schema)).toEqual(['ward', 'bed']);
      const validate = ajv.compile(t);
      for (const m of r.messages)
        for (const c of m.tool_calls ?? []) {
          if (c.function.name !== 'move_patient') continue;
          moved++;
          expect(validate(c.function.arguments)).toBe(true);
          expect((c.function.arguments as Record<string, unknown>)[to]).toEqual({ ward: 'C', bed: 12 });
        }
    }
    expect(moved).toBe(6);
  }, 60_000);
});
