// `$ref` / `$defs` / `definitions` in every schema walk (issue #23 item 1), on schemas as pydantic's
// model_json_schema() writes them (pydantic/pydantic: a field typed with a model becomes
// `{"$ref": "#/$defs/Model"}`, a list of models `{"items": {"$ref": …}, "type": "array"}`, an
// Optional model `{"anyOf": [{"$ref": …}, {"type": "null"}]}`; pydantic v1 wrote `definitions`).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadHarness } from '../../src/harness/load.js';
import type { Harness, JsonSchema } from '../../src/harness/types.js';
import { checkTrajectory } from '../../src/trajectory/check.js';
import { checkVariant, reportFailures } from '../../src/trajectory/invariants.js';
import { readTrajectories } from '../../src/trajectory/read.js';
import { rewriteTrajectory } from '../../src/trajectory/rewrite.js';
import type { Trajectory } from '../../src/trajectory/types.js';
import { emptyPlan } from '../../src/transform/plan.js';
import { createRng } from '../../src/transform/rng.js';
import { recursivePropertyNames, renameSchemaProperties, unwalkedPropertyNames, walkProperties } from '../../src/transform/schema-walk.js';
import { keysLeftUnrenamed } from '../../src/transform/unrenamed-keys.js';
import { schemaPropertyNames, stateIdentifiers } from '../../src/transform/state.js';
import paramRename from '../../transforms/tools/param-rename.js';
import { builtinWords } from '../../src/words/selection.js';
import { REPO } from '../helpers/hsa.js';

const BOOKING: JsonSchema = {
  $defs: {
    Flight: {
      properties: { flight_number: { type: 'string' }, date: { type: 'string' } },
      required: ['flight_number', 'date'],
      title: 'Flight',
      type: 'object',
    },
    Contact: { properties: { email: { type: 'string' } }, title: 'Contact', type: 'object' },
    Passenger: {
      properties: { name: { type: 'string' }, contact: { anyOf: [{ $ref: '#/$defs/Contact' }, { type: 'null' }] } },
      title: 'Passenger',
      type: 'object',
    },
  },
  properties: {
    flights: { items: { $ref: '#/$defs/Flight' }, type: 'array' },
    standby: { anyOf: [{ $ref: '#/$defs/Flight' }, { type: 'null' }], default: null },
    passengers: { items: { $ref: '#/$defs/Passenger' }, type: 'array' },
  },
  required: ['flights'],
  type: 'object',
};

const TREE: JsonSchema = {
  definitions: { Stop: { properties: { code: { type: 'string' }, onward: { items: { $ref: '#/definitions/Stop' }, type: 'array' } }, type: 'object' } },
  properties: { user_id: { type: 'string' }, first: { $ref: '#/definitions/Stop' } },
  type: 'object',
};

const paths = (schema: unknown) => {
  const out: string[] = [];
  walkProperties(schema, (p) => out.push(p));
  return out;
};

describe('schema walks through references', () => {
  it.each([
    [
      'arrays of referenced models, an Optional model, a model in a model',
      BOOKING,
      [
        'flights',
        'flights.flight_number',
        'flights.date',
        'standby',
        'standby.flight_number',
        'standby.date',
        'passengers',
        'passengers.name',
        'passengers.contact',
        'passengers.contact.email',
      ],
    ],
    ['a recursive model (pydantic v1 definitions) is walked once', TREE, ['user_id', 'first', 'first.code', 'first.onward']],
    ['a reference to the root ends too', { properties: { next: { $ref: '#' }, v: { type: 'string' } }, type: 'object' }, ['next', 'v']],
    ['a reference to nothing is left alone', { properties: { a: { $ref: '#/$defs/Missing' } }, type: 'object' }, ['a']],
  ])('walkProperties: %s', (_what, schema, expected) => {
    expect(paths(schema)).toEqual(expected);
  });

  it('every model under $defs and definitions declares its names (schemaPropertyNames: the leak checks read them)', () => {
    expect(schemaPropertyNames(BOOKING).sort()).toEqual(['contact', 'date', 'email', 'flight_number', 'flights', 'name', 'passengers', 'standby'].sort());
    expect(schemaPropertyNames(TREE).sort()).toEqual(['code', 'first', 'onward', 'user_id']);
  });

  it('recursivePropertyNames: the names of a model that reaches itself (and what it reaches); none without a cycle', () => {
    expect([...recursivePropertyNames(TREE)].sort()).toEqual(['code', 'onward']);
    expect(recursivePropertyNames(BOOKING).size).toBe(0);
  });

  it('unwalkedPropertyNames: names declared where no argument path reaches (a map of objects, a tuple) keep their names', () => {
    const schema = {
      properties: {
        tags: { additionalProperties: { properties: { label: { type: 'string' } }, type: 'object' }, type: 'object' },
        pair: { items: [{ properties: { left: {} } }], type: 'array' },
        label: { type: 'string' },
      },
      type: 'object',
    };
    expect([...unwalkedPropertyNames(schema)].sort()).toEqual(['label', 'left']);
    expect(unwalkedPropertyNames(BOOKING).size).toBe(0);
  });

  it('renameSchemaProperties renames a name in every model that declares it; references keep pointing at the one shared model', () => {
    const out = renameSchemaProperties(BOOKING, { 'flights.flight_number': 'flight_no', 'standby.flight_number': 'flight_no' }, { flight_number: 'flight_no' });
    const flight = (out.$defs as Record<string, JsonSchema>).Flight!;
    expect(Object.keys(flight.properties as object)).toEqual(['flight_no', 'date']);
    expect(flight.required).toEqual(['flight_no', 'date']);
    expect(JSON.stringify(out).match(/#\/\$defs\/Flight"/g)).toHaveLength(2);
    // A value that spells the name is data (an enum, a default), never renamed.
    const withEnum = renameSchemaProperties(
      { $defs: { M: { properties: { kind: { enum: ['flight_number'] }, flight_number: { type: 'string' } } } }, properties: {} },
      {},
      { flight_number: 'flight_no' },
    );
    expect(JSON.stringify(withEnum)).toBe('{"$defs":{"M":{"properties":{"kind":{"enum":["flight_number"]},"flight_no":{"type":"string"}}}},"properties":{}}');
    // Schemas are replaced, never changed in place.
    expect(Object.keys((BOOKING.$defs as Record<string, JsonSchema>).Flight!.properties as object)).toEqual(['flight_number', 'date']);
  });

  it.each([
    ['a key left under its old name inside an array of referenced models', { flights: [{ flight_number: 'HAT1', date: 'd' }] }, ['flight_number']],
    ['inside an Optional model (anyOf)', { standby: { flight_number: 'HAT1' } }, ['flight_number']],
    ['a key the schema does not declare at its place is data', { flight_number: 'HAT1', flights: [{ flight_no: 'HAT1' }] }, []],
    ['renamed keys are no leak', { flights: [{ flight_no: 'HAT1' }], standby: null }, []],
  ])('keysLeftUnrenamed: %s', (_what, args, expected) => {
    const schema = renameSchemaProperties(
      BOOKING,
      { 'flights.flight_number': 'flight_no', 'standby.flight_number': 'flight_no' },
      { flight_number: 'flight_no' },
    );
    expect(keysLeftUnrenamed(args, schema, (k) => (k === 'flight_number' ? 'flight_no' : undefined))).toEqual(expected);
  });
});

describe('tools.param-rename on the pydantic-airline fixture', () => {
  async function fixture(): Promise<{ harness: Harness; records: Trajectory[] }> {
    const dir = path.join(REPO, 'fixtures/pydantic-airline');
    const { harness } = await loadHarness(path.join(dir, 'harness'));
    const records: Trajectory[] = [];
    for await (const item of readTrajectories(path.join(dir, 'trajectories.jsonl'))) if (item.ok) records.push(item.record);
    for (const r of records) expect(checkTrajectory(r, harness!, { file: 'f', line: 1 }).filter((p) => p.severity === 'error')).toEqual([]);
    return { harness: harness!, records };
  }

  it('renames model fields in every tool and every call; recursive model fields are never drawn; every record round-trips', async () => {
    const { harness, records } = await fixture();
    let modelFieldRenamed = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const names = stateIdentifiers(harness);
      const r = paramRename.apply(harness, {
        options: paramRename.options.parse({ intensity: 1 }),
        rng: createRng(seed, 'x', 0, paramRename.id),
        words: builtinWords,
        source: harness,
        plan: emptyPlan(),
        isTaken: (n) => names.has(n),
      })!;
      const map = r.params.renamed as Record<string, string>;
      for (const kept of ['airport_code', 'nights', 'onward']) expect(map[kept], `seed ${seed}: ${kept}`).toBeUndefined();
      if (map.flight_number) modelFieldRenamed++;
      const gone = Object.keys(map).filter((k) => !Object.values(map).includes(k));
      for (const t of r.state.tools) for (const old of gone) expect(schemaPropertyNames(t.parameters), `seed ${seed}: ${t.name}`).not.toContain(old);
      const plan = { ...emptyPlan(), ...r.plan, args: r.plan!.args ?? {} };
      for (const rec of records) {
        const out = rewriteTrajectory(rec, plan, harness, r.state);
        expect(reportFailures(checkVariant(rec, out, plan, harness, r.state, { roundTrip: true, rules: false })), `seed ${seed}: ${rec.id}`).toEqual([]);
      }
    }
    expect(modelFieldRenamed).toBeGreaterThan(6);
  });
});
