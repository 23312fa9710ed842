// Issue #23 audit findings: a union's discriminator, the objects of default/examples/const/enum
// values, and FastMCP's "<tool>Arguments" titles follow the renames, and the leak check flags each
// leftover. Where the shapes come from (fixtures/pydantic-unions holds them):
// - pydantic/pydantic@2151025, pydantic/json_schema.py:1410-1419: a tagged union is written as
//   {"oneOf": [...], "discriminator": {"propertyName": <field>, "mapping": {<tag>: <$ref>}}};
// - sierra-research/tau2-bench@a2c0247, src/tau2/domains/airline/data_model.py:48-76: the payment
//   models (CreditCard, GiftCard) whose `source` literal tells them apart;
// - modelcontextprotocol/python-sdk@57394b0, src/mcp/server/mcpserver/utilities/func_metadata.py:326-327:
//   the argument model is create_model(f"{func.__name__}Arguments", ...), so its title spells the tool.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadHarness } from '../../src/harness/load.js';
import type { Harness, JsonSchema } from '../../src/harness/types.js';
import { checkVariant, reportFailures } from '../../src/trajectory/invariants.js';
import { readTrajectories } from '../../src/trajectory/read.js';
import { rewriteTrajectory } from '../../src/trajectory/rewrite.js';
import type { Trajectory } from '../../src/trajectory/types.js';
import { emptyPlan, type RewritePlan } from '../../src/transform/plan.js';
import { createRng } from '../../src/transform/rng.js';
import { renameSchemaProperties, renameSchemaValueKeys } from '../../src/transform/schema-walk.js';
import { valueKeysLeftUnrenamed } from '../../src/transform/unrenamed-keys.js';
import { stateIdentifiers } from '../../src/transform/state.js';
import paramRename from '../../transforms/tools/param-rename.js';
import toolRename from '../../transforms/tools/rename.js';
import { builtinWords } from '../../src/words/selection.js';
import { REPO } from '../helpers/hsa.js';

const DIR = path.join(REPO, 'fixtures/pydantic-unions');

async function fixture(): Promise<{ harness: Harness; records: Trajectory[] }> {
  const { harness } = await loadHarness(path.join(DIR, 'harness'));
  const records: Trajectory[] = [];
  for await (const item of readTrajectories(path.join(DIR, 'trajectories.jsonl'))) if (item.ok) records.push(item.record);
  return { harness: harness!, records };
}

function run(t: typeof paramRename | typeof toolRename, harness: Harness, seed: number) {
  const names = stateIdentifiers(harness);
  const r = t.apply(harness, {
    options: t.options.parse({ p: 1, intensity: 1 }) as never,
    rng: createRng(seed, 'x', 0, t.id),
    words: builtinWords,
    source: harness,
    plan: emptyPlan(),
    isTaken: (n) => names.has(n),
  })!;
  const plan: RewritePlan = { ...emptyPlan(), ...r.plan, args: r.plan!.args ?? {} };
  return { r, plan, map: r.params.renamed as Record<string, string> };
}

describe('schema values and discriminators under a parameter rename', () => {
  const schema: JsonSchema = {
    $defs: { Seat: { properties: { seat_type: { type: 'string' }, legroom: { type: 'boolean' } }, type: 'object' } },
    properties: {
      pref: { $ref: '#/$defs/Seat', default: { seat_type: 'aisle', note: 'kept: not declared' } },
      picks: { items: { $ref: '#/$defs/Seat' }, type: 'array', examples: [[{ seat_type: 'window', legroom: true }]] },
      fixed: { const: { seat_type: 'middle' }, allOf: [{ $ref: '#/$defs/Seat' }] },
      label: { type: 'string', enum: ['seat_type', 'legroom'] },
    },
    type: 'object',
  };
  const names = { seat_type: 'seatKind', legroom: 'legroom' };
  const paths = { 'pref.seat_type': 'seatKind', 'picks.seat_type': 'seatKind', 'fixed.seat_type': 'seatKind' };

  it.each([
    ['default of a $ref model (undeclared key kept as data)', 'pref', 'default', { seatKind: 'aisle', note: 'kept: not declared' }],
    ['examples of an array of models', 'picks', 'examples', [[{ seatKind: 'window', legroom: true }]]],
    ['const beside allOf', 'fixed', 'const', { seatKind: 'middle' }],
    ['enum of strings: values, not keys', 'label', 'enum', ['seat_type', 'legroom']],
  ] as const)('%s', (_what, prop, key, expected) => {
    const out = renameSchemaValueKeys(renameSchemaProperties(schema, paths, names), names);
    expect((out.properties as Record<string, Record<string, unknown>>)[prop]![key]).toEqual(expected);
    expect(valueKeysLeftUnrenamed(out, (k) => (k === 'seat_type' ? 'seatKind' : undefined))).toEqual([]);
    // Before the fix (properties renamed, values not) the check finds them.
    expect(valueKeysLeftUnrenamed(renameSchemaProperties(schema, paths, names), (k) => (k === 'seat_type' ? 'seatKind' : undefined)).length).toBe(3);
  });

  it('a discriminator inside a $defs model (a nested union) is renamed by name; its mapping is kept', () => {
    const nested: JsonSchema = {
      $defs: {
        A: { properties: { kind: { const: 'a' } }, type: 'object' },
        Holder: {
          properties: { item: { oneOf: [{ $ref: '#/$defs/A' }], discriminator: { propertyName: 'kind', mapping: { a: '#/$defs/A' } } } },
          type: 'object',
        },
      },
      properties: { h: { $ref: '#/$defs/Holder' } },
      type: 'object',
    };
    const out = renameSchemaProperties(nested, { 'h.item.kind': 'variant' }, { kind: 'variant' }) as {
      $defs: { Holder: { properties: { item: { discriminator: unknown } } } };
    };
    expect(out.$defs.Holder.properties.item.discriminator).toEqual({ propertyName: 'variant', mapping: { a: '#/$defs/A' } });
  });
});

describe('on fixtures/pydantic-unions', () => {
  it('tools.param-rename: every variant sound; the discriminator and schema values follow; a leftover put back is a leak', async () => {
    const { harness, records } = await fixture();
    let followed = 0;
    for (let seed = 1; seed <= 8; seed++) {
      const { r, plan, map } = run(paramRename, harness, seed);
      for (const rec of records) {
        const out = rewriteTrajectory(rec, plan, harness, r.state);
        expect(reportFailures(checkVariant(rec, out, plan, harness, r.state, { roundTrip: true, rules: false })), `seed ${seed}: ${rec.id}`).toEqual([]);
      }
      if (!map.source || !map.seat_type) continue;
      followed++;
      // Put the old names back where the audit found them: the engine's leak check must say so.
      const tools = r.state.tools.map((t) => {
        const text = JSON.stringify(t.parameters)
          .replace(`"propertyName":"${map.source}"`, '"propertyName":"source"')
          .replace(`"default":{"${map.seat_type}"`, '"default":{"seat_type"');
        return { ...t, parameters: JSON.parse(text) as JsonSchema };
      });
      const bad: Harness = { ...r.state, tools };
      const rec = records[0]!;
      const leaks = checkVariant(rec, rewriteTrajectory(rec, plan, harness, bad), plan, harness, bad, { roundTrip: false, rules: false }).leaks;
      expect(leaks).toContain(`tools.add_payment_method: discriminator names old parameter "source"`);
      expect(
        leaks.some((l) => /set_default_seat.*default value keeps old parameter "seat_type"/.test(l)),
        leaks.join('\n'),
      ).toBe(true);
    }
    expect(followed).toBeGreaterThan(2);
  });

  it('tools.rename: FastMCP "<tool>Arguments" titles follow; pydantic field titles stay plain words; a leftover is a leak', async () => {
    const { harness, records } = await fixture();
    for (let seed = 1; seed <= 6; seed++) {
      const { r, plan, map } = run(toolRename, harness, seed);
      for (const rec of records) {
        const out = rewriteTrajectory(rec, plan, harness, r.state);
        expect(reportFailures(checkVariant(rec, out, plan, harness, r.state, { roundTrip: true, rules: false })), `seed ${seed}: ${rec.id}`).toEqual([]);
      }
      for (const old of ['name_shrimp', 'feed-shrimp2']) {
        const now = r.state.tools.find((t) => t.name === (map[old] ?? old))!;
        expect(now.parameters.title).toBe(`${map[old] ?? old}Arguments`);
      }
      const seat = r.state.tools.find((t) => t.name === (map.set_default_seat ?? 'set_default_seat'))!;
      expect(JSON.stringify(seat.parameters)).toContain('"title":"Flight Number"');
      if (map.name_shrimp === undefined || map.name_shrimp === 'name_shrimp') continue;
      const bad: Harness = {
        ...r.state,
        tools: r.state.tools.map((t) => (t.name === map.name_shrimp ? { ...t, parameters: { ...t.parameters, title: 'name_shrimpArguments' } } : t)),
      };
      const leaks = checkVariant(records[3]!, rewriteTrajectory(records[3]!, plan, harness, bad), plan, harness, bad, { roundTrip: false, rules: false }).leaks;
      expect(leaks).toContain(`tools.${map.name_shrimp}: title "name_shrimpArguments" spells old tool name "name_shrimp"`);
    }
  });
});
