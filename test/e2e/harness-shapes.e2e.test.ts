import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, runHsa } from '../helpers/hsa.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

// Issue 23's acceptance, tried as a new user would: `hsa augment -k 8`, then `hsa verify --harness
// … --sources …` sound on the output, and the independent checker (scripts/audit/check-output.mjs,
// which shares no code with the engine) finding no leak, no invalid call and no mismatch — on
// fixtures in the shapes real harnesses are written in.

afterAll(removeTempDirs);

function augmentVerifyAudit(harness: string, trajectories: string, more: string[] = []): { out: string; sft: Record<string, any>[] } {
  const out = path.join(tempDir('hsa-shapes-'), 'out');
  const a = runHsa(['augment', '--no-gzip', '--harness', harness, '-t', trajectories, '-o', out, '-k', '8', '-q', ...more]);
  expect(a.code, a.stderr).toBe(0);
  const v = runHsa(['verify', out, '--harness', harness, '--sources', trajectories, '--json', '-q']);
  expect(v.code, v.stdout + v.stderr).toBe(0);
  expect(JSON.parse(v.stdout).problems ?? []).toEqual([]);
  const audit = spawnSync(
    process.execPath,
    [path.join(REPO, 'scripts/audit/check-output.mjs'), '--out', out, '--sources', trajectories, '--harness', harness],
    { cwd: REPO, encoding: 'utf8' },
  );
  expect(audit.status, audit.stdout + audit.stderr).toBe(0);
  expect(audit.stdout).toContain('all checks passed');
  const sftDir = path.join(out, 'sft');
  const sft = readdirSync(sftDir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .flatMap((f) =>
      readFileSync(path.join(sftDir, f), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    );
  const manifest = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8'));
  expect(manifest.reject_reasons).toEqual({});
  return { out, sft };
}

describe('real harness shapes: augment -k 8, verify and the independent checker agree', () => {
  it('RapidAPI / JavaScript / Java type spellings (a holiday-rental desk): every variant is written, sound, with JSON Schema types only', () => {
    const { sft } = augmentVerifyAudit('fixtures/rentals/harness', 'fixtures/rentals/trajectories.jsonl');
    expect(sft).toHaveLength(6 * 8);
    const JSON_TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);
    const types = new Set<string>();
    JSON.stringify(
      sft.map((r) => r.tools),
      (k, v) => {
        if (k === 'type' && typeof v === 'string' && v !== 'function') types.add(v);
        return v;
      },
    );
    expect([...types].filter((t) => !JSON_TYPES.has(t))).toEqual([]);
    // ENUM with its values became an enum of strings, under whatever name the variant gave the parameter.
    const sortEnums = sft
      .flatMap((r) => r.tools)
      .flatMap((t: any) => JSON.stringify(t.function.parameters).match(/"enum":\["price","rating","distance"\]/g) ?? []);
    expect(sortEnums.length).toBeGreaterThan(0);
  });

  it("a Claude Code hooks.json (SessionStart, a | list and a regex matcher, a prompt hook) in a docs-site harness: refusals named on load, mapped hooks in every RL row under the variant's tool names", () => {
    const h = 'fixtures/docs-desk/harness';
    const loadWarnings = runHsa(['validate', h]);
    expect(loadWarnings.code, loadWarnings.stdout).toBe(0);
    expect(loadWarnings.stdout).toMatch(/hooks\.SessionStart: warning: SessionStart: 1 hook not read/);
    expect(loadWarnings.stdout).toMatch(/hooks\.Stop\.0\.hooks\.0\.type: warning: Stop: a prompt hook is not read/);
    const { out, sft } = augmentVerifyAudit(h, 'fixtures/docs-desk/trajectories.jsonl');
    expect(sft).toHaveLength(6 * 8);
    const rlDir = path.join(out, 'rl');
    const rows = readdirSync(rlDir)
      .filter((f) => f.endsWith('.jsonl'))
      .flatMap((f) =>
        readFileSync(path.join(rlDir, f), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l)),
      );
    expect(rows).toHaveLength(6 * 8);
    for (const row of rows) {
      const env = JSON.parse(row.extra_info.env);
      const names = new Set(env.tools.map((t: any) => t.function.name));
      const hooks = env.hooks.filter((x: any) => /^(PreToolUse|PostToolUse|UserPromptSubmit|Stop|SessionStart)-/.test(x.id) || x.command !== undefined);
      expect(hooks.map((x: any) => x.event).sort()).toEqual(['post_tool_use', 'pre_inference', 'pre_tool_use', 'pre_tool_use']);
      // Every matcher names a tool of the variant (renames followed the resolved matcher).
      for (const x of hooks) for (const m of x.matcher ?? []) expect(names.has(m), `${row.extra_info.id}: ${m}`).toBe(true);
    }
  });
});
