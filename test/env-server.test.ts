import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runHsaAsync } from './helpers/hsa.js';
import { call, create, envOf, readRows, referenceMessages, request, runEpisode, startEnv, truthOf, type EnvServer, type RlRow } from './helpers/env-server.js';
import { removeTempDirs, tempDir } from './helpers/tmp.js';

// Acceptance of the RL environment: the real `hsa env serve` on RL parts written by the real
// `hsa augment` (live-commerce: skills, hooks, renames; support-desk: no skills, no hooks), driven
// over HTTP by a plain client speaking the Open Reward Standard.

let lcDir: string;
let sdDir: string;
let lcRows: RlRow[];
let sdRows: RlRow[];
let env: EnvServer;

beforeAll(async () => {
  const tmp = tempDir('hsa-env-');
  const [lc, sd] = await Promise.all([
    runHsaAsync(['augment', '--no-gzip', '--config', 'fixtures/live-commerce/hsa.yaml', '--out', path.join(tmp, 'lc'), '--stages', 'rl', '-q']),
    runHsaAsync([
      'augment',
      '--no-gzip',
      '--harness',
      'fixtures/support-desk/harness',
      '-t',
      'fixtures/support-desk/trajectories.jsonl',
      '--out',
      path.join(tmp, 'sd'),
      '--stages',
      'rl',
      '--variants',
      '2',
      '-q',
    ]),
  ]);
  expect(lc.code, lc.stderr).toBe(0);
  expect(sd.code, sd.stderr).toBe(0);
  lcDir = path.join(tmp, 'lc', 'rl');
  sdDir = path.join(tmp, 'sd', 'rl');
  lcRows = readRows(lcDir);
  sdRows = readRows(sdDir);
  env = await startEnv(['--rows', `${lcDir}/*.jsonl`, '--tokenizer', 'estimate']);
}, 60_000);

afterAll(async () => {
  const code = await env?.stop();
  expect(code).toBe(0);
  removeTempDirs();
});

async function inBatches<T, R>(items: T[], n: number, f: (x: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += n) out.push(...(await Promise.all(items.slice(i, i + n).map((x, j) => f(x, i + j)))));
  return out;
}

describe('hsa env serve (Open Reward Standard)', () => {
  it('says where it listens, and serves the ORS discovery endpoints', async () => {
    expect(env.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await request(env.url, 'GET', '/health')).body).toEqual({ status: 'ok' });
    expect((await request(env.url, 'GET', '/list_environments')).body).toEqual(['hsa']);
    expect((await request(env.url, 'POST', '/hsa/num_tasks', { split: 'train' })).body).toEqual({ num_tasks: lcRows.length });
    const task = await request(env.url, 'POST', '/hsa/task', { split: 'train', index: 3 });
    expect(task.body.task).toEqual({ index: lcRows[3]!.extra_info.index, id: lcRows[3]!.extra_info.id });
    const s = await request(env.url, 'POST', '/create_session');
    expect(s.body.events).toEqual(['task_id', 'end']);
    const sid = s.body.task_id as string;
    expect((await request(env.url, 'POST', '/create', { split: 'train', index: 3 }, sid)).status).toBe(200);
    const tools = await request(env.url, 'GET', '/hsa/task_tools', undefined, sid);
    expect((await request(env.url, 'GET', '/hsa/tools', undefined, sid)).body).toEqual(tools.body);
    expect((await request(env.url, 'GET', '/hsa/tools')).body).toEqual({ tools: [] });
    expect(tools.body.tools.map((t: { name: string }) => t.name)).toEqual(envOf(lcRows[3]!).tools.map((t: any) => t.function.name));
    const prompt = await request(env.url, 'GET', '/hsa/prompt', undefined, sid);
    expect(prompt.body.map((b: any) => b.text)).toEqual(lcRows[3]!.prompt.map((m) => m.content));
    expect(prompt.body.map((b: any) => b.detail.role)).toEqual(lcRows[3]!.prompt.map((m) => m.role));
    expect(env.stderr()).toContain('bound to 127.0.0.1 only');
  });

  it("replaying every row's reference returns every recorded tool result in the row's names, with full skill and tool scores", async () => {
    const results = await inBatches(lcRows, 16, async (row) => {
      const turns = referenceMessages(row);
      const { answers, final } = await runEpisode(env.url, `ref-${row.extra_info.index}`, { index: row.extra_info.index }, turns.flat());
      const toolResults = answers.flatMap((a) => a.output.metadata.messages.filter((m: any) => m.role === 'tool').map((m: any) => m.content));
      return { row, toolResults, final };
    });
    let withCalls = 0;
    for (const { row, toolResults, final } of results) {
      const recorded = envOf(row).tool_replay.map((r: { result: string }) => r.result);
      expect(toolResults.slice().sort(), row.extra_info.id).toEqual(recorded.slice().sort());
      if (recorded.length) withCalls++;
      expect(final.output.finished, row.extra_info.id).toBe(true);
      const c = final.output.metadata.reward.components;
      expect(c.skill_selection, row.extra_info.id).toBe(1);
      expect(c.tool_rationality, row.extra_info.id).toBe(1);
      expect(c.hook_compliance, row.extra_info.id).toBe(1);
      expect(c.reply_quality, row.extra_info.id).toBe(1);
      expect(final.output.reward).toBe(final.output.metadata.reward.reward);
    }
    expect(withCalls).toBeGreaterThan(lcRows.length / 2);
  }, 120_000);

  it('an old (pre-rename) tool name gets a tool error and a lower tool-rationality score', async () => {
    // A row whose reference calls a tool that its state renamed; the old name comes from the row's provenance.
    const pick = lcRows.find((r) => {
      const renamed = JSON.parse(r.extra_info.transforms).find((t: any) => t.id === 'tools.rename')?.params.renamed ?? {};
      return truthOf(r).expected_calls.some((c: any) => Object.values(renamed).includes(c.name));
    })!;
    expect(pick).toBeDefined();
    const renamed: Record<string, string> = JSON.parse(pick.extra_info.transforms).find((t: any) => t.id === 'tools.rename').params.renamed;
    const oldOf = Object.fromEntries(Object.entries(renamed).map(([o, n]) => [n, o]));
    const turns = referenceMessages(pick);
    let oldName = '';
    const stale = turns.flat().map((m) => {
      if (!m.tool_calls || oldName) return m;
      const calls = (m.tool_calls as any[]).map((c) => {
        if (oldName || !oldOf[c.function.name]) return c;
        oldName = oldOf[c.function.name]!;
        return { ...c, function: { ...c.function, name: oldName } };
      });
      return { ...m, tool_calls: calls };
    });
    expect(oldName).not.toBe('');
    const { answers, final } = await runEpisode(env.url, 'stale-name', { index: pick.extra_info.index }, stale);
    const errors = answers
      .flatMap((a) => a.output.metadata.messages)
      .filter((m: any) => m.role === 'tool' && m.content.startsWith('Error: there is no tool named'));
    expect(errors.map((m: any) => m.content)).toEqual([`Error: there is no tool named "${oldName}". Call one of the tools you were given.`]);
    const r = final.output.metadata.reward;
    expect(r.components.tool_rationality).toBeLessThan(1);
    expect(r.detail.tools.invalid).toBe(1);
    expect(r.detail.tools.stale_names).toEqual([oldName]);
  });

  it("a reply breaking the stop gate gets the gate's feedback on its channel and the episode continues", async () => {
    const pick = lcRows.find(
      (r) => envOf(r).hooks.some((h: any) => h.event === 'stop' && h.checks.some((c: any) => c.type === 'max_chars')) && truthOf(r).turns.length >= 1,
    )!;
    const gate = envOf(pick).hooks.find((h: any) => h.event === 'stop')!;
    const limit = gate.checks.find((c: any) => c.type === 'max_chars').value as number;
    const sid = 'gate';
    expect((await create(env.url, sid, { index: pick.extra_info.index })).status).toBe(200);
    const [first] = referenceMessages(pick);
    for (const m of first!.slice(0, -1)) expect((await call(env.url, sid, 'hsa.message', { message: m })).status).toBe(200);
    const long = await call(env.url, sid, 'hsa.reply', { content: '好'.repeat(limit + 5) });
    expect(long.body.output.finished).toBe(false);
    const fb = long.body.output.metadata.messages;
    expect(fb).toHaveLength(1);
    expect(fb[0]).toMatchObject({ role: gate.channel === 'system' ? 'system' : 'user', name: `${envOf(pick).hook_message_prefix}${gate.id}` });
    expect(fb[0].content).toContain(String(limit + 5));
    expect(long.body.output.blocks[0].detail.name).toBe(`hook:${gate.id}`);
    // The corrected reply passes; the episode goes on to the next turn or ends.
    let last = await call(env.url, sid, 'hsa.reply', { content: first!.at(-1)!.content });
    for (const turn of referenceMessages(pick).slice(1)) for (const m of turn) last = await call(env.url, sid, 'hsa.message', { message: m });
    expect(last.body.output.finished).toBe(true);
    const r = last.body.output.metadata.reward;
    expect(r.detail.hooks.feedback_rounds).toBe(1);
    expect(r.components.hook_compliance).toBeLessThan(1);
  });

  it('64 concurrent sessions end with the same rewards as when run alone', async () => {
    // A mix: references, stale names, gate-breaking replies, wrong skills, reasoning — on different rows.
    const variants = (row: RlRow, i: number): Record<string, unknown>[] => {
      const msgs = referenceMessages(row).flat();
      if (i % 4 === 1) return msgs.map((m) => (m.tool_calls ? m : { ...m, content: `<think>${'想'.repeat(150)}</think>${'长'.repeat(120)}` }));
      if (i % 4 === 2) return msgs.map((m) => (m.tool_calls ? { ...m, tool_calls: (m.tool_calls as any[]).slice(1) } : m));
      if (i % 4 === 3)
        return [{ role: 'assistant', content: '', tool_calls: [{ id: 'x', type: 'function', function: { name: 'nope', arguments: '{}' } }] }, ...msgs];
      return msgs;
    };
    const rows = lcRows.filter((_, i) => i % 13 === 0).slice(0, 64);
    expect(rows).toHaveLength(64);
    const alone: unknown[] = [];
    for (const [i, row] of rows.entries())
      alone.push((await runEpisode(env.url, `alone-${i}`, { index: row.extra_info.index }, variants(row, i))).final.output.metadata.reward);
    const together = await Promise.all(
      rows.map(async (row, i) => (await runEpisode(env.url, `together-${i}`, { index: row.extra_info.index }, variants(row, i))).final.output.metadata.reward),
    );
    expect(together).toEqual(alone);
    expect(new Set(together.map((r) => JSON.stringify(r))).size).toBeGreaterThan(8);
  }, 120_000);

  it('hsa reward on the replayed-reference rollouts gives the same numbers as the server', async () => {
    const rows = lcRows.filter((_, i) => i % 7 === 0);
    const lines: string[] = [];
    const server: unknown[] = [];
    for (const [i, row] of rows.entries()) {
      const msgs = referenceMessages(row).flat();
      // Every other rollout with a mistake, so the numbers are not all 1.
      const policy = i % 2 ? msgs.map((m) => (m.tool_calls ? m : { ...m, content: `${m.content as string} 好的` })) : msgs;
      const sid = `rollout-${i}`;
      await runEpisode(env.url, sid, { index: row.extra_info.index }, policy);
      // The reward as the server scores it (final, or so far when a gate kept the episode open).
      const { final: _final, ...reward } = (await request(env.url, 'GET', '/hsa/reward', undefined, sid)).body;
      server.push(reward);
      // The whole conversation as the server holds it (tool and user messages included).
      const conv = await request(env.url, 'GET', '/hsa/messages', undefined, sid);
      lines.push(JSON.stringify({ index: row.extra_info.index, messages: conv.body.messages }));
    }
    const file = path.join(tempDir('hsa-rollouts-'), 'rollouts.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const r = await runHsaAsync(['reward', '--rows', `${lcDir}/*.jsonl`, '--rollouts', file, '--tokenizer', 'estimate', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const summary = out.pop();
    const offline = out.map(({ reward, components, weights, detail }) => ({ reward, components, weights, detail }));
    expect(offline).toEqual(server);
    expect(summary.summary).toMatchObject({ rollouts: rows.length, scored: rows.length, bad: 0 });
  }, 120_000);

  it('bad input gets a clear 4xx naming the field, and the server keeps serving', async () => {
    const row = lcRows[0]!;
    const idx = row.extra_info.index;
    const out = await create(env.url, 'bad-1', { index: 10_000_000 });
    expect(out.status).toBe(404);
    expect(out.body.error).toMatchObject({ code: 'not_found', field: 'task_spec.index' });
    expect(out.body.detail).toMatch(/no row has index 10000000 \(indices \d+\.\.\d+, \d+ rows\)/);

    expect((await create(env.url, 'bad-2', { index: idx })).status).toBe(200);
    const notChat = await call(env.url, 'bad-2', 'hsa.message', { message: { role: 'user', content: 'hi' } });
    expect(notChat.status).toBe(400);
    expect(notChat.body.error.field).toBe('input.message.role');
    const notObj = await call(env.url, 'bad-2', 'hsa.message', { message: 'hello' });
    expect(notObj.status).toBe(400);
    expect(notObj.body.error.field).toBe('input.message');
    const badContent = await call(env.url, 'bad-2', 'hsa.message', { message: { role: 'assistant', content: 42 } });
    expect(badContent.body.error.field).toBe('input.message.content');
    const badArgs = await call(env.url, 'bad-2', 'hsa.message', {
      message: {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'a', type: 'function', function: { name: envOf(row).tools[0].function.name, arguments: '{"item_id": ' } }],
      },
    });
    expect(badArgs.status).toBe(400);
    expect(badArgs.body.error.field).toBe('input.message.tool_calls[0].function.arguments');
    expect(badArgs.body.detail).toContain('not JSON');
    // A rejected message leaves the episode as it was: the reference still scores full marks.
    let last: any;
    for (const m of referenceMessages(row).flat()) last = await call(env.url, 'bad-2', 'hsa.message', { message: m });
    expect(last.body.output.metadata.reward.components.tool_rationality).toBe(1);
    const afterDone = await call(env.url, 'bad-2', 'hsa.reply', { content: 'more' });
    expect(afterDone.status).toBe(409);

    const noHeader = await request(env.url, 'POST', '/hsa/call', { name: 'hsa.reply', input: { content: 'x' } });
    expect(noHeader.status).toBe(400);
    expect(noHeader.body.error.field).toBe('X-Session-ID');
    const unknown = await call(env.url, 'never-created', 'hsa.reply', { content: 'x' });
    expect(unknown.status).toBe(404);
    const notJson = await request(env.url, 'POST', '/create', undefined, 'bad-3', '{"task_spec": ');
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.field).toBe('body');
    const extra = await request(env.url, 'POST', '/create', { task_spec: { index: idx, colour: 'red' } }, 'bad-4');
    expect(extra.body.error.field).toBe('task_spec.colour');
    const badRow = await create(env.url, 'bad-5', { row: { prompt: [], reward_model: { ground_truth: '{}' }, extra_info: { env: '{"tools": 3}' } } });
    expect(badRow.status).toBe(400);
    expect(badRow.body.error.field).toBe('task_spec.row.extra_info.env.tools');
    expect((await request(env.url, 'GET', '/health')).body).toEqual({ status: 'ok' });
  });

  it('a row sent in the request runs like a loaded one; a non-commerce row without skills or hooks scores its calls', async () => {
    const row = sdRows[1]!;
    const { answers, final } = await runEpisode(env.url, 'sent-row', { row }, referenceMessages(row).flat());
    const recorded = envOf(row).tool_replay.map((r: { result: string }) => r.result);
    const got = answers.flatMap((a) => a.output.metadata.messages.filter((m: any) => m.role === 'tool').map((m: any) => m.content));
    expect(got.sort()).toEqual(recorded.sort());
    expect(final.output.metadata.reward.components).toMatchObject({ skill_selection: 1, tool_rationality: 1, hook_compliance: 1, reply_quality: 1 });
    // A repeated call gets the same result again and costs repeat_penalty.
    const call0 = truthOf(row).expected_calls[0];
    const again = {
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'r1', type: 'function', function: { name: call0.name, arguments: JSON.stringify(call0.arguments) } }],
    };
    const rep = await runEpisode(env.url, 'sent-row-2', { row }, [again, ...referenceMessages(row).flat()]);
    expect(rep.final.output.metadata.reward.detail.tools.repeats).toBe(1);
    expect(rep.final.output.metadata.reward.components.tool_rationality).toBeLessThan(1);
  });
});

describe('session expiry', () => {
  it('an expired session id gets 410 and the server keeps serving', async () => {
    const short = await startEnv(['--rows', `${sdDir}/*.jsonl`, '--ttl', '1', '--tokenizer', 'estimate', '-q']);
    try {
      expect((await create(short.url, 'old', { position: 0 })).status).toBe(200);
      await new Promise((r) => setTimeout(r, 1600));
      const r = await call(short.url, 'old', 'hsa.reply', { content: 'hello' });
      expect(r.status).toBe(410);
      expect(r.body.error).toMatchObject({ code: 'expired', field: 'session_id' });
      expect((await create(short.url, 'new', { position: 0 })).status).toBe(200);
    } finally {
      expect(await short.stop()).toBe(0);
    }
  });
});
