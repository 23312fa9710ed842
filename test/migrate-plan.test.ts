import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../src/harness/types.js';
import { inferPlan } from '../src/migrate/infer.js';
import { BadPlanError, parsePlan, planToYaml } from '../src/migrate/plan-file.js';
import { countRecords } from '../src/migrate/run.js';
import { makeTmp } from './helpers/tmp.js';
import { GH, LIB, load, matches } from './helpers/migrate.js';

let libA: Harness;
let libB: Harness;
let ghA: Harness;
let ghB: Harness;
let tmp: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  [libA, libB, ghA, ghB] = await Promise.all([
    load(path.join(LIB, 'v1')),
    load(path.join(LIB, 'v2')),
    load(path.join(GH, 'v1.yaml')),
    load(path.join(GH, 'v2.yaml')),
  ]);
  tmp = await makeTmp('hsa-migrate-');
});
afterAll(async () => tmp.cleanup());

describe('migrate plan: inference on the library pair (every kind of change the issue names)', () => {
  it('finds every intended match and no wrong one', () => {
    expect(matches(inferPlan(libA, libB))).toEqual({
      tools: [
        { from: 'load_skill', to: 'load_skill', params: { name: 'name' }, values: {}, fill: {}, needs: [] },
        // A tool split into two by the value of one parameter; its third value has no tool in B.
        {
          from: 'find_book',
          split: {
            by: 'field',
            cases: {
              title: { to: 'search_by_title', params: { query: 'title' }, values: {}, fill: {}, needs: [] },
              author: { to: 'search_by_author', params: { query: 'author' }, values: {}, fill: {}, needs: [] },
              isbn: null,
            },
          },
        },
        // Renamed with a new description, flattened (our own wrap restyle, inverted), a parameter
        // renamed and an enum value renamed.
        {
          from: 'place_hold',
          to: 'reserve_copy',
          shape: { unwrap: 'request' },
          params: { isbn: 'isbn', patron_id: 'patron_card', pickup_branch: 'pickup_branch' },
          values: { pickup_branch: { main: 'central' } },
          fill: {},
          needs: [],
        },
        // Renamed and re-nested under one object.
        { from: 'renew_loan', to: 'extend_loan', shape: { wrap: 'loan' }, params: { loan_id: 'loan_id', days: 'days' }, values: {}, fill: {}, needs: [] },
        // A new required parameter: the match stands, its calls cannot be carried.
        { from: 'get_fines', to: 'list_fines', params: { patron_id: 'patron_card' }, values: {}, fill: {}, needs: ['currency'] },
        { from: 'suggest_reading', to: null },
      ],
      skills: [
        ['fines-explain', 'fines-explain'],
        ['renew-help', 'loan-renewal'],
      ],
      hooks: [['reply_length', 'short_reply']],
      // One flat file cut into markdown sections.
      sections: [
        ['policy', ['role', 'catalogue', 'privacy', 'style']],
        ['skills', ['skills']],
      ],
      added: { tools: ['branch_hours'], skills: [], hooks: [], sections: [] },
    });
  });

  it("finds the MCP server pair's matches: docstring schemas, a boolean that became an enum, a removed and an added tool", () => {
    expect(matches(inferPlan(ghA, ghB))).toEqual({
      tools: [
        { from: 'sensors_read', to: 'read_sensor', params: { sensor_id: 'sensor_id', unit: 'unit' }, values: {}, fill: {}, needs: [] },
        // boolean `open` → enum `state`: a type that cannot be converted, so no parameter match.
        { from: 'valves_set', to: 'set_valve', params: { valve: 'valve', open: null }, values: {}, fill: {}, needs: ['state'] },
        { from: 'log_note', to: null },
      ],
      skills: [],
      hooks: [],
      sections: [['role', ['role', 'safety']]],
      added: { tools: ['list_zones'], skills: [], hooks: [], sections: [] },
    });
  });

  it('is deterministic and independent of the order tools are listed in', () => {
    const yaml = planToYaml(inferPlan(libA, libB));
    expect(planToYaml(inferPlan(libA, libB))).toBe(yaml);
    const shuffled: Harness = { ...libB, tools: [...libB.tools].reverse(), skills: [...libB.skills].reverse() };
    expect(matches(inferPlan(libA, shuffled)).tools).toEqual(matches(inferPlan(libA, libB)).tools);
  });

  it('with logs, counts the records each change touches and each entry stops', async () => {
    const plan = await countRecords(inferPlan(libA, libB), libA, libB, [path.join(LIB, 'logs-v1.jsonl')]);
    expect(plan.records).toBe(12);
    expect(Object.fromEntries(plan.tools.map((t) => [t.from, [t.records, t.stops]]))).toEqual({
      load_skill: [2, 0],
      // lib-003 (field = isbn, no case) and lib-010 (its text names the split tool: the leak check)
      find_book: [5, 2],
      place_hold: [2, 0],
      renew_loan: [2, 0],
      get_fines: [1, 1],
      suggest_reading: [1, 1],
    });
    expect(plan.skills.map((s) => [s.from, s.records])).toEqual([
      ['fines-explain', 1],
      ['renew-help', 1],
    ]);
    expect(plan.hooks.map((h) => [h.from, h.records])).toEqual([['reply_length', 1]]);
  });
});

describe('migrate plan file', () => {
  it('reads back what it writes', () => {
    const plan = inferPlan(libA, libB);
    const back = parsePlan('plan.yaml', planToYaml(plan), libA, libB);
    expect(matches(back)).toEqual(matches(plan));
  });

  const problemsOf = (text: string): string[] => {
    try {
      parsePlan('plan.yaml', text, libA, libB);
    } catch (e) {
      expect(e).toBeInstanceOf(BadPlanError);
      return (e as BadPlanError).problems.map((p) => `${p.file}:${p.line}: ${p.path}: ${p.message}`);
    }
    return [];
  };

  it('an unknown key is named with its file, line and key path', () => {
    const yaml = planToYaml(inferPlan(libA, libB)).replace('    shape:\n      unwrap: request\n', '    shape:\n      unwrap: request\n    renames: {}\n');
    const line = yaml.split('\n').indexOf('    renames: {}') + 1;
    expect(problemsOf(yaml)).toEqual([`plan.yaml:${line}: tools.2.renames: unknown key: renames`]);
  });

  it('a tool missing from B is named with its line', () => {
    const yaml = planToYaml(inferPlan(libA, libB)).replace('to: reserve_copy', 'to: reserve_book');
    const line = yaml.split('\n').indexOf('    to: reserve_book') + 1;
    expect(problemsOf(yaml)).toEqual([`plan.yaml:${line}: tools.2.to: tool "reserve_book" is not in harness B (library-desk 2.0.0)`]);
  });

  it('a parameter neither side has, a tool of A that does not exist and a plan for other versions are each reported, all at once', () => {
    const yaml = planToYaml(inferPlan(libA, libB))
      .replace('      patron_id: patron_card\n      pickup_branch', '      patron_no: patron_card\n      pickup_branch')
      .replace('from: suggest_reading', 'from: suggest_books')
      .replace('version: 2.0.0', 'version: 2.1.0');
    const got = problemsOf(yaml);
    expect(got.map((g) => g.replace(/^plan\.yaml:\d+: /, ''))).toEqual([
      'to: the plan is for library-desk 2.1.0, the harness given is library-desk 2.0.0',
      'tools.2.params.patron_no: parameter "patron_no" is not a parameter of "place_hold" in A',
      'tools.5.from: tool "suggest_books" is not in harness A (library-desk 1.4.0)',
    ]);
    for (const g of got) expect(g).toMatch(/^plan\.yaml:\d+: /);
  });
});

describe('plan file: one entry per tool', () => {
  it('a tool listed twice is reported', () => {
    const yaml = planToYaml(inferPlan(libA, libB)).replace('  - from: suggest_reading', '  - from: renew_loan');
    expect(() => parsePlan('plan.yaml', yaml, libA, libB)).toThrow(/plan\.yaml:\d+: tools\.5\.from: tool "renew_loan" has an entry already/);
  });
});
