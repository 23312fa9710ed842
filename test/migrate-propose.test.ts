import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadHarness } from '../src/harness/load.js';
import type { Harness } from '../src/harness/types.js';
import { inferPlan } from '../src/migrate/infer.js';
import { parsePlan, planToYaml } from '../src/migrate/plan-file.js';
import { proposeMatches } from '../src/migrate/propose.js';
import { applyPlan } from '../src/migrate/run.js';
import { readFile } from 'node:fs/promises';
import { REPO } from './helpers/hsa.js';
import { startTeacherServer, type Respond, type TeacherServer } from './helpers/teacher-server.js';
import { makeTmp } from './helpers/tmp.js';

// `migrate plan --model-url`: a real OpenAI-compatible server on 127.0.0.1, through the real
// `openai` client. The model is asked only about what inference left without a counterpart, and
// its answers are proposals: the plan's entries stay as inferred.
const GH = path.join(REPO, 'fixtures/migrate/greenhouse');
let a: Harness;
let b: Harness;
let tmp: { dir: string; cleanup: () => Promise<void> };
const servers: TeacherServer[] = [];
beforeAll(async () => {
  a = (await loadHarness(path.join(GH, 'v1.yaml'))).harness!;
  b = (await loadHarness(path.join(GH, 'v2.yaml'))).harness!;
  tmp = await makeTmp('hsa-migrate-propose-');
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(async () => tmp.cleanup());

async function start(respond: Respond): Promise<TeacherServer> {
  const s = await startTeacherServer(respond);
  servers.push(s);
  return s;
}

describe('migrate plan --model-url', () => {
  it('asks about the removed tool among the added ones, writes the answer as a proposal, never applies it, and caches it', async () => {
    const server = await start(() => ({ kind: 'message', content: '{"match": "list_zones", "reason": "both are console utilities"}' }));
    const cache = path.join(tmp.dir, 'cache-1');
    const warnings: string[] = [];
    const plan = await proposeMatches(inferPlan(a, b), a, b, { url: server.url, model: 'judge-m', cache }, (l) => warnings.push(l));
    expect(server.count()).toBe(1);
    const asked = JSON.stringify(server.requests[0]!.messages);
    expect(asked).toContain('log_note');
    expect(asked).toContain('list_zones');
    expect(server.requests[0]!.temperature).toBe(0);
    expect(plan.proposals).toEqual([{ kind: 'tool', from: 'log_note', to: 'list_zones', reason: 'both are console utilities', model: 'judge-m' }]);
    // Shown, not applied: the entry is still a removal, and apply still rejects the record.
    expect(plan.tools.find((t) => t.from === 'log_note')).toMatchObject({ score: 0 });
    expect(plan.tools.find((t) => t.from === 'log_note')!.map).toBeUndefined();
    const yaml = planToYaml(plan);
    expect(yaml).toContain('proposals:\n  - kind: tool\n    from: log_note\n    to: list_zones');
    const reread = parsePlan('plan.yaml', yaml, a, b);
    const out = path.join(tmp.dir, 'm.jsonl');
    const s = await applyPlan(reread, a, b, [path.join(GH, 'logs-v1.jsonl')], out, path.join(tmp.dir, 'm.rejects.jsonl'), { systemPrompt: 'locate' });
    expect(s.reasons).toEqual({ no_value: 1, removed_tool: 1 });
    expect(warnings).toEqual([]);

    // A rerun is answered from the cache: no request, the same plan.
    const again = await proposeMatches(inferPlan(a, b), a, b, { url: server.url, model: 'judge-m', cache }, () => undefined);
    expect(server.count()).toBe(1);
    expect(planToYaml(again)).toBe(yaml);
  });

  it('an answer that names no unmatched element of B, or is not the JSON asked for, gives no proposal and a warning', async () => {
    let n = 0;
    const server = await start(() => ({ kind: 'message', content: n++ === 0 ? '{"match": "read_sensor", "reason": "x"}' : 'I think so' }));
    const warnings: string[] = [];
    const p1 = await proposeMatches(inferPlan(a, b), a, b, { url: server.url, model: 'm', cache: path.join(tmp.dir, 'cache-2') }, (l) => warnings.push(l));
    expect(p1.proposals).toEqual([]);
    const p2 = await proposeMatches(inferPlan(a, b), a, b, { url: server.url, model: 'm2', cache: path.join(tmp.dir, 'cache-2') }, (l) => warnings.push(l));
    expect(p2.proposals).toEqual([]);
    expect(warnings).toEqual([
      'migrate plan: the model proposed "read_sensor" for tool "log_note", which is not one of B\'s unmatched tools; no proposal',
      'migrate plan: the model\'s answer for tool "log_note" is not the JSON asked for; no proposal',
    ]);
  });

  it('a pair with nothing left open asks nothing', async () => {
    const server = await start(() => ({ kind: 'message', content: '{}' }));
    const lib = path.join(REPO, 'fixtures/migrate/library');
    const la = (await loadHarness(path.join(lib, 'v1'))).harness!;
    const plan = await proposeMatches(inferPlan(la, la), la, la, { url: server.url, model: 'm', cache: path.join(tmp.dir, 'cache-3') }, () => undefined);
    expect(server.count()).toBe(0);
    expect(plan.proposals).toEqual([]);
    expect((await readFile(path.join(GH, 'plan.yaml'), 'utf8')).includes('proposals: []')).toBe(true);
  });
});
