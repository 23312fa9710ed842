import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runHsaAsync, STACK_LINE } from './helpers/hsa.js';
import { readRows, referenceMessages, type RlRow } from './helpers/env-server.js';
import { removeTempDirs, tempDir } from './helpers/tmp.js';

// `hsa env serve` and `hsa reward` as a user meets them on the command line: exit codes,
// messages naming file, line and field, and the server stopping by itself.

let dir: string;
let rowsGlob: string;
let rows: RlRow[];

beforeAll(async () => {
  dir = tempDir('hsa-env-cli-');
  const r = await runHsaAsync([
    'augment',
    '--no-gzip',
    '--harness',
    'fixtures/support-desk/harness',
    '-t',
    'fixtures/support-desk/trajectories.jsonl',
    '--out',
    path.join(dir, 'out'),
    '--stages',
    'rl',
    '--variants',
    '1',
    '-q',
  ]);
  expect(r.code, r.stderr).toBe(0);
  rowsGlob = path.join(dir, 'out', 'rl', '*.jsonl');
  rows = readRows(path.join(dir, 'out', 'rl'));
}, 60_000);

afterAll(() => removeTempDirs());

describe('hsa env serve on the command line', () => {
  it('stops by itself after --idle-exit seconds without a request, exit 0', async () => {
    const r = await runHsaAsync(['env', 'serve', '--rows', rowsGlob, '--port', '0', '--idle-exit', '1', '--tokenizer', 'estimate']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/Open Reward Standard on http:\/\/127\.0\.0\.1:\d+/);
    expect(r.stderr).toContain('bound to 127.0.0.1 only');
    expect(r.stderr).toContain('no request for 1 s, stopping');
  });

  it('names the file, line and field of a bad row, and a glob that matches nothing', async () => {
    const bad = path.join(dir, 'bad.jsonl');
    const good = JSON.stringify(rows[0]);
    const broken = {
      ...rows[0]!,
      extra_info: { ...rows[0]!.extra_info, env: JSON.stringify({ ...JSON.parse(rows[0]!.extra_info.env), tool_replay: [{ name: 3 }] }) },
    };
    writeFileSync(bad, `${good}\n\n${JSON.stringify(broken)}\n`);
    const r = await runHsaAsync(['env', 'serve', '--rows', bad, '--port', '0', '--tokenizer', 'estimate']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${bad}:3: extra_info.env.tool_replay[0].name: expected a string`);
    expect(r.stderr).not.toContain(STACK_LINE);
    const none = await runHsaAsync(['env', 'serve', '--rows', path.join(dir, 'nothing-*.jsonl')]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--rows: no file matches');
    const port = await runHsaAsync(['env', 'serve', '--rows', bad, '--port', '70000']);
    expect(port.code).toBe(2);
  });
});

describe('hsa reward on the command line', () => {
  it('scores each rollout, reports bad lines with line and field, loses none, and exits 1', async () => {
    const file = path.join(dir, 'rollouts.jsonl');
    const ref = referenceMessages(rows[0]!).flat();
    const lines = [
      JSON.stringify({ index: rows[0]!.extra_info.index, messages: ref }),
      '{"index": ',
      JSON.stringify({ index: 999_999, messages: ref }),
      JSON.stringify({
        id: rows[1]!.extra_info.id,
        messages: [{ role: 'assistant', content: '', tool_calls: [{ id: 'a', type: 'function', function: { name: 'x', arguments: '{nope' } }] }],
      }),
      JSON.stringify({ position: 1, messages: [] }),
      JSON.stringify({ extra_info: { index: rows[0]!.extra_info.index }, messages: ref }),
    ];
    writeFileSync(file, `${lines.join('\n')}\n`);
    const r = await runHsaAsync(['reward', '--rows', rowsGlob, '--rollouts', file, '--tokenizer', 'estimate']);
    expect(r.code).toBe(1);
    const out = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(out.map((o) => o.rollout)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(out[5]).toMatchObject({ index: rows[0]!.extra_info.index, reward: out[0].reward });
    expect(out[0]).toMatchObject({ index: rows[0]!.extra_info.index, finished: true, components: { tool_rationality: 1, skill_selection: 1 } });
    expect(Object.keys(out[0].components).sort()).toEqual(['hook_compliance', 'reasoning_penalty', 'reply_quality', 'skill_selection', 'tool_rationality']);
    expect(out[1].error).toMatch(/^not valid JSON/);
    expect(out[2].error).toMatch(/^index: no row has index 999999/);
    expect(out[3].error).toMatch(/^messages\[0\]\.tool_calls\[0\]\.function\.arguments: not JSON \(/);
    // An empty rollout is scored as an episode that never started its turns.
    expect(out[4]).toMatchObject({ finished: false, components: { reply_quality: 0, hook_compliance: 0 } });
    expect(r.stderr).toContain(`${file}:2: not valid JSON`);
    expect(r.stderr).toContain('hsa reward: 3 of 6 rollouts scored, 3 bad');
    // With the policy's bad JSON counted as its mistake, line 4 is scored too.
    const lenient = await runHsaAsync([
      'reward',
      '--rows',
      rowsGlob,
      '--rollouts',
      file,
      '--tokenizer',
      'estimate',
      '--invalid-arguments',
      'tool_error',
      '--json',
    ]);
    const lo = lenient.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lo[3].detail.tools.invalid).toBe(1);
    expect(lo.at(-1).summary).toMatchObject({ rollouts: 6, scored: 4, bad: 2 });
  });
});
