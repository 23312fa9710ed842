import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadHarness } from '../src/harness/load.js';
import type { Harness } from '../src/harness/types.js';
import { migrateRecord } from '../src/migrate/apply.js';
import { compilePlan } from '../src/migrate/compile.js';
import { inferPlan } from '../src/migrate/infer.js';
import { BadPlanError, parsePlan, planToYaml } from '../src/migrate/plan-file.js';
import { applyPlan, countRecords } from '../src/migrate/run.js';
import type { MigrationPlan } from '../src/migrate/types.js';
import { checkTrajectory } from '../src/trajectory/check.js';
import { parseTrajectoryLine } from '../src/trajectory/read.js';
import type { Trajectory } from '../src/trajectory/types.js';
import { REPO } from './helpers/hsa.js';
import { makeTmp } from './helpers/tmp.js';

const LIB = path.join(REPO, 'fixtures/migrate/library');
const GH = path.join(REPO, 'fixtures/migrate/greenhouse');

async function load(p: string): Promise<Harness> {
  const r = await loadHarness(p);
  expect(r.problems.filter((x) => x.severity === 'error')).toEqual([]);
  return r.harness!;
}

async function records(file: string): Promise<Trajectory[]> {
  const text = await readFile(file, 'utf8');
  return text
    .trim()
    .split('\n')
    .map((l, i) => {
      const item = parseTrajectoryLine(file, i + 1, l);
      if (!item.ok) throw new Error('fixture line does not parse');
      return item.record;
    });
}

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

/** The matches of a plan without scores and evidence: what a reviewer checks first. */
function matches(plan: MigrationPlan) {
  return {
    tools: plan.tools.map((t) => (t.split ? { from: t.from, split: t.split } : t.map ? { from: t.from, ...t.map } : { from: t.from, to: null })),
    skills: plan.skills.map((s) => [s.from, s.to]),
    hooks: plan.hooks.map((h) => [h.from, h.to]),
    sections: plan.sections.map((s) => [s.from, s.to]),
    added: plan.added,
  };
}

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

describe('migrate apply on the library logs', () => {
  it('writes every record that can be carried and rejects exactly the others, with reasons and plan entries', async () => {
    const out = path.join(tmp.dir, 'lib.jsonl');
    const rej = path.join(tmp.dir, 'lib.rejects.jsonl');
    const summary = await applyPlan(inferPlan(libA, libB), libA, libB, [path.join(LIB, 'logs-v1.jsonl')], out, rej);
    expect(summary).toMatchObject({ records: 12, migrated: 8, rejected: 4 });
    const migrated = await records(out);
    expect(migrated.map((r) => r.id)).toEqual(['lib-001', 'lib-002', 'lib-004', 'lib-005', 'lib-008', 'lib-009', 'lib-011', 'lib-012']);
    const rejects = (await readFile(rej, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, string>);
    expect(rejects.map((r) => [r.id, r.reason_kind, r.plan_entry])).toEqual([
      ['lib-003', 'no_value', 'tools[1] (from: find_book)'], // field = isbn: no case
      ['lib-006', 'no_value', 'tools[4] (from: get_fines)'], // currency is new and required
      ['lib-007', 'removed_tool', 'tools[5] (from: suggest_reading)'],
      ['lib-010', 'check_leak', 'tools[1] (from: find_book)'], // the assistant names the split tool in its text
    ]);
    expect(rejects[3]!.reason).toBe('messages.2: mentions old name "find_book"');
    // Every migrated record is what `hsa validate --harness B` accepts.
    for (const r of migrated) expect(checkTrajectory(r, libB, { file: out, line: 0 }).filter((p) => p.severity === 'error')).toEqual([]);
  });

  it("carries calls, skill loads and hook feedback in B's names and shapes, user and tool bytes as they were", async () => {
    const src = await records(path.join(LIB, 'logs-v1.jsonl'));
    const cp = compilePlan(inferPlan(libA, libB), libA, libB);
    const run = (id: string) => {
      const r = migrateRecord(structuredClone(src.find((x) => x.id === id)!), cp, libA, libB, { file: 'logs', line: 1 });
      if (!r.ok) throw new Error(`${id}: ${r.reject.reason}`);
      return r.record;
    };
    const calls = (r: Trajectory) =>
      r.messages.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => [c.function.name, JSON.parse(c.function.arguments)]) : []));
    expect(calls(run('lib-002'))).toEqual([['search_by_author', { author: 'Ines Okafor' }]]);
    expect(calls(run('lib-012'))).toEqual([
      ['reserve_copy', { isbn: '9780345816023', patron_card: '1999-007', pickup_branch: 'west' }],
      ['extend_loan', { loan: { loan_id: 'L-100233', days: 7 } }],
    ]);
    expect(calls(run('lib-004'))).toEqual([['reserve_copy', { isbn: '9780141036144', patron_card: '2004-118', pickup_branch: 'central' }]]);
    const renew = run('lib-005');
    expect(calls(renew)[0]).toEqual(['load_skill', { name: 'loan-renewal' }]);
    // The skill load returns B's body (renamed and edited), not A's.
    expect(renew.messages[3]).toMatchObject({ role: 'tool', content: libB.skills.find((s) => s.id === 'loan-renewal')!.body });
    const hook = run('lib-008').messages.find((m) => m.role === 'user' && m.name?.startsWith('hook:'))!;
    expect(hook).toMatchObject({ name: 'hook:short_reply' });
    expect(hook.content).toMatch(/^\[short_reply\] Too long: \d+ characters, the desk allows 240\. Please shorten the reply\.$/);
    // The system prompt is B's, rendered.
    expect(renew.messages[0]!.content).toContain('# Catalogue, holds and loans');
    expect(renew.harness).toEqual({ name: 'library-desk', version: '2.0.0' });
    const source = src.find((x) => x.id === 'lib-012')!;
    const migrated = run('lib-012');
    for (const [i, m] of source.messages.entries()) if (m.role === 'user' || m.role === 'tool') expect(migrated.messages[i]).toEqual(m);
  });

  it('an edited plan (a value supplied for the new required parameter) carries the record it stopped', async () => {
    const yaml = planToYaml(inferPlan(libA, libB)).replace('    needs:\n      - currency\n', '    fill:\n      currency: EUR\n');
    const plan = parsePlan('plan.yaml', yaml, libA, libB);
    const cp = compilePlan(plan, libA, libB);
    const src = (await records(path.join(LIB, 'logs-v1.jsonl'))).find((r) => r.id === 'lib-006')!;
    const r = migrateRecord(src, cp, libA, libB, { file: 'logs', line: 6 });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const call = r.record.messages.find((m) => m.role === 'assistant' && m.tool_calls)!;
    expect(call.role === 'assistant' && JSON.parse(call.tool_calls![0]!.function.arguments)).toEqual({ patron_card: '2004-118', currency: 'EUR' });
  });

  it('a plan that maps a value B does not allow is caught by the checks, not written', async () => {
    const yaml = planToYaml(inferPlan(libA, libB)).replace('main: central', 'main: north');
    const cp = compilePlan(parsePlan('plan.yaml', yaml, libA, libB), libA, libB);
    const src = (await records(path.join(LIB, 'logs-v1.jsonl'))).find((r) => r.id === 'lib-004')!;
    const r = migrateRecord(src, cp, libA, libB, { file: 'logs', line: 4 });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.reject.kind).toBe('check_invalid_call');
    expect(r.reject.reason).toMatch(/pickup_branch/);
    expect(r.reject.entry).toBe('tools[2] (from: place_hold)');
  });

  it('is byte-deterministic', async () => {
    const plan = inferPlan(libA, libB);
    const outs: string[] = [];
    for (const k of [1, 2]) {
      const out = path.join(tmp.dir, `det-${k}.jsonl`);
      await applyPlan(plan, libA, libB, [path.join(LIB, 'logs-v1.jsonl')], out, path.join(tmp.dir, `det-${k}.rejects.jsonl`));
      outs.push((await readFile(out, 'utf8')) + (await readFile(path.join(tmp.dir, `det-${k}.rejects.jsonl`), 'utf8')));
    }
    expect(outs[0]).toBe(outs[1]);
  });

  it('a malformed line goes to rejects with its line, and nothing is lost', async () => {
    const logs = path.join(tmp.dir, 'mixed.jsonl');
    const good = (await readFile(path.join(LIB, 'logs-v1.jsonl'), 'utf8')).split('\n')[0]!;
    await writeFile(logs, `${good}\n{"id": "broken", "messages": 3}\nnot json\n`);
    const rej = path.join(tmp.dir, 'mixed.rejects.jsonl');
    const s = await applyPlan(inferPlan(libA, libB), libA, libB, [logs], path.join(tmp.dir, 'mixed.out.jsonl'), rej);
    expect(s).toMatchObject({ records: 3, migrated: 1, rejected: 2, reasons: { input_malformed: 2 } });
    const lines = (await readFile(rej, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { line: number; reason: string });
    expect(lines.map((l) => l.line)).toEqual([2, 3]);
    expect(lines[0]!.reason).toMatch(/mixed\.jsonl:2: broken: messages/);
  });
});

describe('migrate apply on the greenhouse logs (MCP names, a located prompt)', () => {
  it("keeps the console text around the prompt, puts B's sections in place of A's, and rejects what cannot be carried", async () => {
    const out = path.join(tmp.dir, 'gh.jsonl');
    const rej = path.join(tmp.dir, 'gh.rejects.jsonl');
    const s = await applyPlan(inferPlan(ghA, ghB), ghA, ghB, [path.join(GH, 'logs-v1.jsonl')], out, rej, { systemPrompt: 'locate' });
    expect(s).toMatchObject({ records: 5, migrated: 3, rejected: 2, reasons: { no_value: 1, removed_tool: 1 } });
    const migrated = await records(out);
    expect(migrated.map((r) => r.id)).toEqual(['gh-01', 'gh-02', 'gh-05']);
    const system = String(migrated[0]!.messages[0]!.content);
    expect(system.startsWith('Console session 2026-11-30, operator on shift: R. Alves\n\n# Role\n')).toBe(true);
    expect(system.endsWith('above 60 %.\n\n[console build 3.2]')).toBe(true);
    // The call logged under the MCP spelling (`sensors.read`) comes out under B's name.
    const first = migrated[0]!.messages[2]!;
    expect(first.role === 'assistant' && first.tool_calls![0]!.function.name).toBe('read_sensor');
    for (const r of migrated) expect(checkTrajectory(r, ghB, { file: out, line: 0, systemPrompt: 'locate' }).filter((p) => p.severity === 'error')).toEqual([]);
    // A's names appear nowhere in what the model reads.
    for (const r of migrated)
      for (const old of ['sensors.read', 'sensors_read', 'valves.set', 'log.note']) expect(String(r.messages[0]!.content)).not.toContain(old);
  });
});

describe('docstring-derived schemas (as a benchmark rewrite makes them)', () => {
  // The shape tau2-bench's tools take (sierra-research/tau2-bench a2c02472, src/tau2/environment/tool.py:113,147:
  // pydantic create_model(...).model_json_schema(): a `title` per property, `$defs` with `$ref`),
  // against hand-written schemas like tau-bench's (sierra-research/tau-bench 59a200c6,
  // tau_bench/envs/airline/tools/send_certificate.py: `amount` a number, there an integer).
  const pair = async () => {
    const dir = path.join(tmp.dir, 'docstring');
    const { writeTree } = await import('./helpers/tmp.js');
    await writeTree(dir, {
      'a.yaml': `name: desk\nversion: "1"\nprompt:\n  sections:\n    - id: policy\n      text: Send certificates with \`send_certificate\`.\ntools:\n  items:\n    - type: function\n      function:\n        name: send_certificate\n        description: Send a certificate to a user. Be careful!\n        parameters:\n          type: object\n          properties:\n            user_id: { type: string, description: "The ID of the user." }\n            amount: { type: number, description: "Certificate amount to send." }\n            reason: { type: object, properties: { code: { type: string } } }\n          required: [user_id, amount]\n`,
      'b.yaml': `name: desk\nversion: "2"\nprompt:\n  sections:\n    - id: policy\n      text: "# Policy\\n\\nSend certificates with \`send_certificate\`."\ntools:\n  items:\n    - type: function\n      function:\n        name: send_certificate\n        description: |-\n          Send a certificate to a user. Be careful!\n\n          Returns a confirmation.\n        parameters:\n          $defs:\n            Reason: { title: Reason, type: object, properties: { code: { title: Code, type: string } } }\n          title: parameters\n          type: object\n          properties:\n            user_id: { title: User Id, type: string, description: "The ID of the user." }\n            amount: { title: Amount, type: integer, description: "The amount of the certificate to send." }\n            reason: { $ref: "#/$defs/Reason" }\n          required: [user_id, amount]\n`,
    });
    return [await load(path.join(dir, 'a.yaml')), await load(path.join(dir, 'b.yaml'))] as const;
  };

  it("number → integer stays the same parameter; a value B's type refuses is stopped by the check under B", async () => {
    const [a, b] = await pair();
    const plan = inferPlan(a, b);
    expect(matches(plan).tools).toEqual([
      { from: 'send_certificate', to: 'send_certificate', params: { user_id: 'user_id', amount: 'amount', reason: 'reason' }, values: {}, fill: {}, needs: [] },
    ]);
    const cp = compilePlan(plan, a, b);
    const rec = (amount: number): Trajectory => ({
      id: `r-${amount}`,
      messages: [
        { role: 'system', content: 'Send certificates with `send_certificate`.' },
        { role: 'user', content: 'send one' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'c1',
              type: 'function',
              function: { name: 'send_certificate', arguments: JSON.stringify({ user_id: 'u1', amount, reason: { code: 'late' } }) },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'ok' },
      ],
    });
    const whole = migrateRecord(rec(100), cp, a, b, { file: 'x', line: 1 });
    expect(whole.ok).toBe(true);
    if (whole.ok) expect(whole.record.messages[0]!.content).toBe('# Policy\n\nSend certificates with `send_certificate`.');
    const frac = migrateRecord(rec(12.5), cp, a, b, { file: 'x', line: 2 });
    expect(frac.ok ? null : frac.reject.kind).toBe('check_invalid_call');
  });
});

describe('names of A alone', () => {
  it('a carried record whose text still names a removed tool or skill is rejected as a leak', async () => {
    const cp = compilePlan(inferPlan(libA, libB), libA, libB);
    const src = (await records(path.join(LIB, 'logs-v1.jsonl'))).find((r) => r.id === 'lib-009')!;
    const said = (text: string): Trajectory => ({
      ...structuredClone(src),
      messages: [...structuredClone(src.messages.slice(0, -1)), { role: 'assistant', content: text }],
    });
    const removed = migrateRecord(said('Loans are three weeks; for picks ask me to run `suggest_reading`.'), cp, libA, libB, { file: 'x', line: 1 });
    expect(removed.ok ? null : [removed.reject.kind, removed.reject.reason, removed.reject.entry]).toEqual([
      'check_leak',
      'messages.2: mentions old name "suggest_reading"',
      'tools[5] (from: suggest_reading)',
    ]);
    // A renamed one is rewritten, not rejected.
    const renamed = migrateRecord(said('Loans are three weeks; I renew them with `renew_loan`.'), cp, libA, libB, { file: 'x', line: 1 });
    expect(renamed.ok && renamed.record.messages[2]!.content).toBe('Loans are three weeks; I renew them with `extend_loan`.');
  });
});

describe('plan file: one entry per tool', () => {
  it('a tool listed twice is reported', () => {
    const yaml = planToYaml(inferPlan(libA, libB)).replace('  - from: suggest_reading', '  - from: renew_loan');
    expect(() => parsePlan('plan.yaml', yaml, libA, libB)).toThrow(/plan\.yaml:\d+: tools\.5\.from: tool "renew_loan" has an entry already/);
  });
});

describe('tools merged into one (as an MCP server consolidates them)', () => {
  // The shape of github/github-mcp-server's "Issues consolidation" (3ba8d4a1, pkg/github/__toolsnaps__/):
  // get_issue, get_issue_comments, list_sub_issues became issue_read with a required `method` enum;
  // add_sub_issue and remove_sub_issue became sub_issue_write, whose `method` lists its options only
  // in its description; update_issue became issue_write. Descriptions here are our own.
  const pair = async () => {
    const dir = path.join(tmp.dir, 'merge');
    const { writeTree } = await import('./helpers/tmp.js');
    const tool = (name: string, description: string, properties: Record<string, unknown>, required: string[]) => ({
      name,
      description,
      inputSchema: { type: 'object', properties, required },
    });
    const repo = { owner: { type: 'string', description: 'Repository owner' }, repo: { type: 'string', description: 'Repository name' } };
    const issue = { issue_number: { type: 'number', description: 'The issue number' } };
    const v1 = [
      tool('get_issue', 'Read one issue of a repository.', { ...repo, ...issue }, ['owner', 'repo', 'issue_number']),
      tool('get_issue_comments', 'Read the comments of an issue.', { ...repo, ...issue, page: { type: 'number' } }, ['owner', 'repo', 'issue_number']),
      tool('list_sub_issues', 'List the sub-issues of an issue.', { ...repo, ...issue, per_page: { type: 'number', description: 'Results per page' } }, [
        'owner',
        'repo',
        'issue_number',
      ]),
      tool('add_sub_issue', 'Attach a sub-issue to an issue.', { ...repo, ...issue, sub_issue_id: { type: 'number' } }, [
        'owner',
        'repo',
        'issue_number',
        'sub_issue_id',
      ]),
      tool('remove_sub_issue', 'Detach a sub-issue from an issue.', { ...repo, ...issue, sub_issue_id: { type: 'number' } }, [
        'owner',
        'repo',
        'issue_number',
        'sub_issue_id',
      ]),
      tool('update_issue', 'Change the title, body or state of an issue.', { ...repo, ...issue, state: { type: 'string', enum: ['open', 'closed'] } }, [
        'owner',
        'repo',
        'issue_number',
      ]),
      tool('create_issue', 'Open a new issue.', { ...repo, title: { type: 'string' } }, ['owner', 'repo', 'title']),
    ];
    const v2 = [
      tool(
        'issue_read',
        'Read an issue of a repository.',
        {
          method: { type: 'string', enum: ['get', 'get_comments', 'get_sub_issues', 'get_labels'], description: 'What to read.' },
          ...repo,
          ...issue,
          page: { type: 'number' },
          perPage: { type: 'number', description: 'Results per page' },
        },
        ['method', 'owner', 'repo', 'issue_number'],
      ),
      tool(
        'sub_issue_write',
        'Change the sub-issues of an issue.',
        {
          method: {
            type: 'string',
            description: "The change to make:\n- 'add' - attach a sub-issue.\n- 'remove' - detach a sub-issue.\n- 'reprioritize' - move a sub-issue.",
          },
          ...repo,
          ...issue,
          sub_issue_id: { type: 'number' },
        },
        ['method', 'owner', 'repo', 'issue_number', 'sub_issue_id'],
      ),
      tool(
        'issue_write',
        'Create or change an issue.',
        { method: { type: 'string', enum: ['create', 'update'] }, ...repo, ...issue, state: { type: 'string', enum: ['open', 'closed'] } },
        ['method', 'owner', 'repo'],
      ),
      // B's own text still names a tool of A: B's business, not the migration's.
      tool('create_issue', 'Open a new issue (close one with update_issue).', { ...repo, title: { type: 'string' } }, ['owner', 'repo', 'title']),
    ];
    const yaml = (v: string, tools: unknown[]) =>
      `name: gh\nversion: "${v}"\nprompt:\n  sections:\n    - id: role\n      text: You work on GitHub issues.\ntools:\n  items: ${JSON.stringify(tools)}\n`;
    await writeTree(dir, { 'a.yaml': yaml('1', v1), 'b.yaml': yaml('2', v2) });
    return [await load(path.join(dir, 'a.yaml')), await load(path.join(dir, 'b.yaml'))] as const;
  };

  it('infers each merged tool with the value of the new mode parameter it fills, and carries its calls both ways', async () => {
    const [a, b] = await pair();
    const plan = inferPlan(a, b);
    const fills = Object.fromEntries(plan.tools.map((t) => [t.from, t.map ? [t.map.to, t.map.fill, t.map.needs] : null]));
    expect(fills).toEqual({
      get_issue: ['issue_read', { method: 'get' }, []],
      get_issue_comments: ['issue_read', { method: 'get_comments' }, []],
      list_sub_issues: ['issue_read', { method: 'get_sub_issues' }, []],
      add_sub_issue: ['sub_issue_write', { method: 'add' }, []],
      remove_sub_issue: ['sub_issue_write', { method: 'remove' }, []],
      update_issue: ['issue_write', { method: 'update' }, []],
      create_issue: ['create_issue', {}, []],
    });
    expect(plan.tools.find((t) => t.from === 'list_sub_issues')!.map!.params).toMatchObject({ per_page: 'perPage' });
    const cp = compilePlan(parsePlan('plan.yaml', planToYaml(plan), a, b), a, b);
    const call = (id: string, name: string, args: object) => ({
      role: 'assistant' as const,
      content: null,
      tool_calls: [{ id, type: 'function' as const, function: { name, arguments: JSON.stringify(args) } }],
    });
    const rec: Trajectory = {
      id: 'm1',
      messages: [
        { role: 'system', content: 'You work on GitHub issues.' },
        { role: 'user', content: 'read 12, list its sub-issues, detach 400, close it' },
        call('c1', 'get_issue', { owner: 'acme', repo: 'rocket', issue_number: 12 }),
        { role: 'tool', tool_call_id: 'c1', content: '{"title":"leak"}' },
        call('c2', 'list_sub_issues', { owner: 'acme', repo: 'rocket', issue_number: 12, per_page: 5 }),
        { role: 'tool', tool_call_id: 'c2', content: '[400]' },
        call('c3', 'remove_sub_issue', { owner: 'acme', repo: 'rocket', issue_number: 12, sub_issue_id: 400 }),
        { role: 'tool', tool_call_id: 'c3', content: 'ok' },
        call('c4', 'update_issue', { owner: 'acme', repo: 'rocket', issue_number: 12, state: 'closed' }),
        { role: 'tool', tool_call_id: 'c4', content: 'ok' },
        { role: 'assistant', content: 'Done.' },
      ],
    };
    const r = migrateRecord(rec, cp, a, b, { file: 'x', line: 1 });
    if (!r.ok) throw new Error(r.reject.reason);
    const calls = r.record.messages.flatMap((m) =>
      m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => [c.function.name, JSON.parse(c.function.arguments)]) : [],
    );
    expect(calls).toEqual([
      ['issue_read', { owner: 'acme', repo: 'rocket', issue_number: 12, method: 'get' }],
      ['issue_read', { owner: 'acme', repo: 'rocket', issue_number: 12, perPage: 5, method: 'get_sub_issues' }],
      ['sub_issue_write', { owner: 'acme', repo: 'rocket', issue_number: 12, sub_issue_id: 400, method: 'remove' }],
      ['issue_write', { owner: 'acme', repo: 'rocket', issue_number: 12, state: 'closed', method: 'update' }],
    ]);
    // Two A tools mapped to one B tool with the same value could not be told apart on the way back.
    const clash = planToYaml(plan).replace('method: get_comments', 'method: get');
    expect(() => parsePlan('plan.yaml', clash, a, b)).toThrow(
      /tool "issue_read" is the target of .*: merged tools must each fill one parameter with a value of its own/,
    );
  });
});

describe("a located prompt's own text", () => {
  it('is kept as written, so a record whose own text around the prompt names a renamed tool is rejected', async () => {
    const cp = compilePlan(inferPlan(ghA, ghB), ghA, ghB);
    const src = (await records(path.join(GH, 'logs-v1.jsonl'))).find((r) => r.id === 'gh-05')!;
    const first = src.messages[0]!;
    const rec: Trajectory = {
      ...src,
      messages: [{ ...first, content: `${String(first.content)}\nhotkeys: F2 runs \`sensors.read\`` }, ...src.messages.slice(1)],
    };
    const r = migrateRecord(rec, cp, ghA, ghB, { file: 'x', line: 5, systemPrompt: 'locate' });
    expect(r.ok ? null : [r.reject.kind, r.reject.reason, r.reject.entry]).toEqual([
      'check_leak',
      'messages.0: the record\'s own text around the prompt mentions old name "sensors.read"',
      'tools[0] (from: sensors_read)',
    ]);
  });
});
