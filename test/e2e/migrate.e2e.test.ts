import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, runHsa, STACK_LINE } from '../helpers/hsa.js';
import { makeTmp } from '../helpers/tmp.js';

// A new user's walk through docs/migrate.md, on copies of the fixture pairs, with the real binary.
let tmp: { dir: string; cleanup: () => Promise<void> };
let lib: string;
let gh: string;
beforeAll(async () => {
  tmp = await makeTmp('hsa-migrate-e2e-');
  lib = path.join(tmp.dir, 'library');
  gh = path.join(tmp.dir, 'greenhouse');
  await cp(path.join(REPO, 'fixtures/migrate/library'), lib, { recursive: true });
  await cp(path.join(REPO, 'fixtures/migrate/greenhouse'), gh, { recursive: true });
});
afterAll(async () => tmp.cleanup());

const lines = async (file: string) =>
  (await readFile(file, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('hsa migrate, as docs/migrate.md walks it', () => {
  it('plan → apply → validate under B → augment under B', async () => {
    const plan = runHsa(['migrate', 'plan', '--from', 'v1', '--to', 'v2', '-t', 'logs-v1.jsonl', '-o', 'out-plan.yaml'], { cwd: lib });
    expect(plan.stderr).toBe('out-plan.yaml: 6 tools (1 removed, 1 added), 2 skills, 1 hooks, 2 sections\n');
    expect(plan.code).toBe(0);
    const yaml = await readFile(path.join(lib, 'out-plan.yaml'), 'utf8');
    // The committed plan of the fixture is what inference gives today.
    expect(yaml.replace(/^records: 12\n/m, '').replace(/^ {4}(records|stops): \d+\n/gm, '')).toBe(await readFile(path.join(lib, 'plan.yaml'), 'utf8'));

    const apply = runHsa(['migrate', 'apply', '--plan', 'out-plan.yaml', '-t', 'logs-v1.jsonl', '-o', 'migrated.jsonl'], { cwd: lib });
    expect(apply.stdout).toBe(
      '12 records: 8 migrated to library-desk 2.0.0 (migrated.jsonl), 4 rejected (migrated.rejects.jsonl: check_leak 1, no_value 2, removed_tool 1)\n',
    );
    expect(apply.code).toBe(0);
    const first = await readFile(path.join(lib, 'migrated.jsonl'));
    // Byte-deterministic: a second run writes the same bytes.
    expect(
      runHsa(['migrate', 'apply', '--plan', 'out-plan.yaml', '--to', 'v2', '-t', 'logs-v1.jsonl', '-o', 'again.jsonl', '--rejects', 'again.rejects.jsonl'], {
        cwd: lib,
      }).code,
    ).toBe(0);
    expect((await readFile(path.join(lib, 'again.jsonl'))).equals(first)).toBe(true);
    expect(await readFile(path.join(lib, 'again.rejects.jsonl'), 'utf8')).toBe(await readFile(path.join(lib, 'migrated.rejects.jsonl'), 'utf8'));

    const validate = runHsa(['validate', 'v2', '-t', 'migrated.jsonl'], { cwd: lib });
    expect(validate.stdout + validate.stderr).toBe('valid: harness library-desk 2.0.0, 8 records in 1 file: 0 errors, 0 warnings\n');
    expect(validate.code).toBe(0);

    const augment = runHsa(['augment', '--no-gzip', '--harness', 'v2', '-t', 'migrated.jsonl', '-o', 'aug', '--quiet'], { cwd: lib });
    expect(augment.stderr).toBe('');
    expect(augment.code).toBe(0);
    const manifest = JSON.parse(await readFile(path.join(lib, 'aug/manifest.json'), 'utf8')) as { stages: Record<string, { records: number }> };
    expect(JSON.stringify(manifest)).toContain('"sft"');
    const rejects = await lines(path.join(lib, 'migrated.rejects.jsonl'));
    expect(rejects.map((r) => [r.id, r.reason_kind, r.plan_entry])).toEqual([
      ['lib-003', 'no_value', 'tools[1] (from: find_book)'],
      ['lib-006', 'no_value', 'tools[4] (from: get_fines)'],
      ['lib-007', 'removed_tool', 'tools[5] (from: suggest_reading)'],
      ['lib-010', 'check_leak', 'tools[1] (from: find_book)'],
    ]);
    // A reject keeps the source record whole.
    expect((rejects[2]!.record as { id: string }).id).toBe('lib-007');
  });

  it('the located prompt pair: --system-prompt locate on both sides', () => {
    expect(runHsa(['migrate', 'plan', '--from', 'v1.yaml', '--to', 'v2.yaml', '-o', 'p.yaml'], { cwd: gh }).code).toBe(0);
    const apply = runHsa(['migrate', 'apply', '--plan', 'p.yaml', '-t', 'logs-v1.jsonl', '-o', 'm.jsonl', '--system-prompt', 'locate', '--json'], { cwd: gh });
    expect(apply.code).toBe(0);
    expect(JSON.parse(apply.stdout)).toEqual({
      records: 5,
      migrated: 3,
      rejected: 2,
      reasons: { no_value: 1, removed_tool: 1 },
      out: 'm.jsonl',
      rejects: 'm.rejects.jsonl',
    });
    const validate = runHsa(['validate', 'v2.yaml', '-t', 'm.jsonl', '--system-prompt', 'locate'], { cwd: gh });
    expect(validate.code).toBe(0);
  });

  it('a plan with an unknown key or a tool B does not have: file, line and key, exit 1, nothing written', async () => {
    const yaml = await readFile(path.join(lib, 'plan.yaml'), 'utf8');
    await writeFile(
      path.join(lib, 'bad.yaml'),
      yaml.replace('to: extend_loan', 'to: extend_loans').replace('    shape:\n      wrap: loan\n', '    shape:\n      wrap: loan\n    strict: true\n'),
    );
    const badLines = (await readFile(path.join(lib, 'bad.yaml'), 'utf8')).split('\n');
    const r = runHsa(['migrate', 'apply', '--plan', 'bad.yaml', '-t', 'logs-v1.jsonl', '-o', 'never.jsonl'], { cwd: lib });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `hsa: bad.yaml:${badLines.indexOf('    to: extend_loans') + 1}: tools.3.to: tool "extend_loans" is not in harness B (library-desk 2.0.0)\n` +
        `bad.yaml:${badLines.indexOf('    strict: true') + 1}: tools.3.strict: unknown key: strict\n`,
    );
    expect(r.stderr).not.toContain(STACK_LINE);
    await expect(readFile(path.join(lib, 'never.jsonl'))).rejects.toThrow();
  });

  it('diff: text, --json and --html', async () => {
    const text = runHsa(['migrate', 'diff', 'v1', 'v2'], { cwd: lib });
    expect(text.code).toBe(0);
    expect(text.stdout.split('\n').filter((l) => /^ {2}\S/.test(l))).toEqual([
      '  split    find_book → search_by_title, search_by_author (score 0.67)',
      '  renamed  place_hold → reserve_copy (score 0.57)',
      '  renamed  renew_loan → extend_loan (score 0.78)',
      '  renamed  get_fines → list_fines (score 0.59)',
      '  removed  suggest_reading',
      '  added    branch_hours',
      '  edited   fines-explain (score 0.94)',
      '  renamed  renew-help → loan-renewal (score 0.7)',
      '  renamed  reply_length → short_reply (score 0.74)',
      '  moved    policy → role, catalogue, privacy, style (score 0.81)',
      '  edited   skills (score 1)',
    ]);
    const json = runHsa(['migrate', 'diff', 'v1', 'v2', '--json', '--html', 'diff.html'], { cwd: lib });
    const view = JSON.parse(json.stdout) as { tools: { kind: string; from: string | null; to: string | null }[] };
    expect(view.tools.map((t) => [t.kind, t.from, t.to])).toEqual([
      ['same', 'load_skill', 'load_skill'],
      ['split', 'find_book', 'search_by_title, search_by_author'],
      ['renamed', 'place_hold', 'reserve_copy'],
      ['renamed', 'renew_loan', 'extend_loan'],
      ['renamed', 'get_fines', 'list_fines'],
      ['removed', 'suggest_reading', null],
      ['added', null, 'branch_hours'],
    ]);
    const html = await readFile(path.join(lib, 'diff.html'), 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<del>place_hold</del>');
    expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/);
  });

  it('a harness with errors is refused with its problems', async () => {
    await writeFile(path.join(tmp.dir, 'broken.yaml'), 'name: x\n');
    const r = runHsa(['migrate', 'diff', path.join(tmp.dir, 'broken.yaml'), 'v2'], { cwd: lib });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^hsa: .*broken\.yaml: harness A has errors:\n.*broken\.yaml.*version/);
  });
});
