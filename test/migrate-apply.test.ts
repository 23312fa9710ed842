import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../src/harness/types.js';
import { migrateRecord } from '../src/migrate/apply.js';
import { compilePlan } from '../src/migrate/compile.js';
import { inferPlan } from '../src/migrate/infer.js';
import { parsePlan, planToYaml } from '../src/migrate/plan-file.js';
import { applyPlan } from '../src/migrate/run.js';
import { checkTrajectory } from '../src/trajectory/check.js';
import type { Trajectory } from '../src/trajectory/types.js';
import { makeTmp } from './helpers/tmp.js';
import { GH, LIB, load, records } from './helpers/migrate.js';

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
