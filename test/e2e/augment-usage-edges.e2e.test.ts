import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, runHsa } from '../helpers/hsa.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

// Small things a newcomer hit (issue 23, item 7), each tried the way they tried it: the real
// binary on the clinic harness (a front desk, not live commerce) and on inline records.

afterAll(removeTempDirs);

const CLINIC = 'fixtures/clinic/harness';
const clinicLines = () => readFileSync(path.join(REPO, 'fixtures/clinic/trajectories.jsonl'), 'utf8').trim().split('\n');

/** The clinic records with the first one's system message wrapped in text of the log's own. */
function wrappedFirst(dir: string): string {
  const lines = clinicLines();
  const rec = JSON.parse(lines[0]!);
  rec.messages[0].content = `Session 4411 · operator desk B\n\n${rec.messages[0].content}\n\n(Logged by the desk app v3.2.)`;
  lines[0] = JSON.stringify(rec);
  const file = path.join(dir, 'wrapped.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

function rejectsOf(out: string): Record<string, unknown>[] {
  const dir = path.join(out, 'rejects');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .flatMap((f) =>
      readFileSync(path.join(dir, f), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    );
}

describe('small things a newcomer hit', () => {
  it('match mode: a differing system message that holds every harness section suggests --system-prompt locate; one that does not, does not', () => {
    const dir = tempDir('hsa-newcomer-');
    const file = wrappedFirst(dir);
    const r = runHsa(['augment', '--no-gzip', '--harness', CLINIC, '-t', file, '-o', path.join(dir, 'out'), '-q']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/wrapped\.jsonl:1: cl-1: messages\.0\.content: system message differs from the rendered harness: .*--system-prompt locate/);
    // The suggestion holds: locate takes the record.
    const located = runHsa(['augment', '--no-gzip', '--harness', CLINIC, '-t', file, '-o', path.join(dir, 'located'), '--system-prompt', 'locate', '-q']);
    expect(located.code, located.stderr).toBe(0);
    // A system message that lost a section is not one locate would take: no suggestion.
    const lines = clinicLines();
    const rec = JSON.parse(lines[0]!);
    rec.messages[0].content = rec.messages[0].content.replace(/# Style[\s\S]*?(?=\n# Skills)/, '# Style\n\n- Be brief.\n');
    writeFileSync(path.join(dir, 'cut.jsonl'), `${JSON.stringify(rec)}\n`);
    const cut = runHsa(['augment', '--no-gzip', '--harness', CLINIC, '-t', path.join(dir, 'cut.jsonl'), '-o', path.join(dir, 'cut'), '-q']);
    expect(cut.code).toBe(1);
    expect(cut.stderr).toContain('system message differs from the rendered harness');
    expect(cut.stderr).not.toContain('--system-prompt locate');
  });

  it('a run that failed before writing any part is rerun with another --on-error without --force; a run with finished parts still asks for --force', () => {
    const dir = tempDir('hsa-newcomer-');
    const lines = clinicLines();
    const file = path.join(dir, 'one-bad.jsonl');
    writeFileSync(file, `${[...lines, '{"id":"cl-bad","messages":[{"role":"user","content":"hi"}],"colour":"red"}'].join('\n')}\n`);
    const out = path.join(dir, 'out');
    const failed = runHsa(['augment', '--no-gzip', '--harness', CLINIC, '-t', file, '-o', out, '-q']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('unknown key: colour');
    const skipped = runHsa(['augment', '--no-gzip', '--harness', CLINIC, '-t', file, '-o', out, '--on-error', 'skip', '-q']);
    expect(skipped.code, skipped.stderr).toBe(0);
    expect(rejectsOf(out).map((r) => [r.source_line, r.reason_kind])).toEqual([[lines.length + 1, 'input_malformed']]);
    // Now the folder holds finished parts: another config is refused, naming what changed.
    const again = runHsa(['augment', '--no-gzip', '--harness', CLINIC, '-t', file, '-o', out, '--on-error', 'fail', '-q']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('changed: config.on_error');
    expect(again.stderr).toContain('--force');
    expect(existsSync(path.join(out, 'manifest.json'))).toBe(true);
  });

  it('inline mode: a record whose own tool has an invalid schema is rejected as a tool-schema problem, not a harness mismatch', () => {
    const dir = tempDir('hsa-newcomer-');
    const tool = (name: string, parameters: unknown) => ({ type: 'function', function: { name, description: `The ${name} tool.`, parameters } });
    const rec = (id: string, tools: unknown[]) => ({
      id,
      tools,
      messages: [
        { role: 'system', content: 'You look up train times. Use `timetable`.' },
        { role: 'user', content: 'next train to Lund?' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'timetable', arguments: '{"to":"Lund"}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: '{"departs":"10:42"}' },
        { role: 'assistant', content: 'The next one leaves at 10:42.' },
      ],
    });
    const good = rec('rail-1', [tool('timetable', { type: 'object', properties: { to: { type: 'string' } }, required: ['to'] })]);
    const badSchema = rec('rail-2', [tool('timetable', { type: 'object', properties: { to: { type: 'string', minLength: 'two' } } })]);
    const badType = rec('rail-3', [tool('timetable', { type: 'object', properties: { to: { type: 'string' }, units: { type: 'Decimal' } } })]);
    const file = path.join(dir, 'rail.jsonl');
    writeFileSync(file, `${[good, badSchema, badType].map((r) => JSON.stringify(r)).join('\n')}\n`);
    const out = path.join(dir, 'out');
    const r = runHsa(['augment', '--no-gzip', '-t', file, '-o', out, '--on-error', 'skip', '-q']);
    expect(r.code, r.stderr).toBe(0);
    const rejects = rejectsOf(out);
    expect(rejects.map((x) => [x.id, x.reason_kind])).toEqual([
      ['rail-2', 'input_tool_schema'],
      ['rail-3', 'input_tool_schema'],
    ]);
    expect(rejects[0]!.reason).toMatch(/rail\.jsonl:2: rail-2: tools\.0\.function\.parameters/);
    expect(rejects[1]!.reason).toMatch(/rail\.jsonl:3: rail-3: tools\.0\.function\.parameters\.properties\.units\.type: "Decimal" is not a type hsa knows/);
    const manifest = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8'));
    expect(JSON.stringify(manifest)).toContain('"input_tool_schema":2');
  });

  it('hsa augment --check DIR needs no --out', () => {
    const dir = tempDir('hsa-newcomer-');
    const out = path.join(dir, 'out');
    const args = ['augment', '--no-gzip', '--harness', CLINIC, '-t', 'fixtures/clinic/trajectories.jsonl', '-k', '2'];
    expect(runHsa([...args, '-o', out, '-q']).code).toBe(0);
    const same = runHsa([...args, '--check', out]);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toContain(`${out}: up to date`);
    const drift = runHsa([...args, '--seed', '9', '--check', out]);
    expect(drift.code).toBe(1);
    expect(drift.stdout).toContain('drifted');
  });

  it("the README's command table shows the flag-only augment form beside --config, and that form runs as written", () => {
    const readme = readFileSync(path.join(REPO, 'README.md'), 'utf8');
    const table = readme.slice(readme.indexOf('## Commands'), readme.indexOf('\n## ', readme.indexOf('## Commands') + 1));
    const row = table.split('\n').find((l) => l.startsWith('| `hsa augment --harness '));
    expect(row, 'a row for hsa augment --harness … -t … -o … -k …').toBeDefined();
    expect(row).toContain('`hsa augment --config hsa.yaml [flags]`');
    const form = /^\| `([^`]+)`/.exec(row!)![1]!;
    expect(form).toMatch(/^hsa augment --harness DIR -t traj\.jsonl -o OUT \[-k K\]/);
    const out = path.join(tempDir('hsa-newcomer-'), 'out');
    const args = form
      .replace(/ \[.*$/, '')
      .split(' ')
      .slice(1)
      .map((w) => (w === 'DIR' ? 'fixtures/support-desk/harness' : w === 'traj.jsonl' ? 'fixtures/support-desk/trajectories.jsonl' : w === 'OUT' ? out : w));
    const r = runHsa([...args, '-k', '2', '-q']);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(path.join(out, 'manifest.json'))).toBe(true);
  });
});
