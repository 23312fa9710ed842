import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, runHsa, runHsaAsync, STACK_LINE, type HsaRun } from './helpers/hsa.js';

/**
 * Table-driven over fixtures/bad: every folder with an expect.json is one kind of bad input. The
 * real CLI runs on it (cwd = repo root); the exit code, each expected problem (file, :line, record
 * id, key path and message on ONE output line) and the plain fragments are checked, then the same
 * run with --json is checked field by field.
 */
interface ExpectedProblem {
  file: string;
  line?: number;
  id?: string;
  path: string;
  message: string;
}
interface Case {
  kind: string;
  description: string;
  args: string[];
  exit: 1 | 2;
  errors?: number;
  warnings?: number;
  problems?: ExpectedProblem[];
  stdout?: string[];
  stderr?: string[];
}
interface JsonProblem {
  file: string;
  line?: number;
  id?: string;
  path: string;
  message: string;
  severity: 'error' | 'warning';
}

const BAD = path.join(REPO, 'fixtures', 'bad');
const cases: Case[] = readdirSync(BAD, { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(path.join(BAD, d.name, 'expect.json')))
  .map((d) => d.name)
  .sort()
  .map((name) => JSON.parse(readFileSync(path.join(BAD, name, 'expect.json'), 'utf8')) as Case);

/** The printed form of a problem's location: `file:line: id: path: `. */
function prefixOf(p: ExpectedProblem): string {
  return `${p.file}${p.line !== undefined ? `:${p.line}` : ''}: ${p.id !== undefined ? `${p.id}: ` : ''}${p.path}: `;
}

function noStackTrace(r: HsaRun): void {
  expect(r.stdout).not.toContain(STACK_LINE);
  expect(r.stderr).not.toContain(STACK_LINE);
  expect(r.stderr).not.toContain('internal error');
}

describe.concurrent('fixtures/bad', () => {
  it('has at least 24 kinds of bad input, harness and trajectory side', () => {
    expect(cases.length).toBeGreaterThanOrEqual(24);
    const kinds = cases.map((c) => c.kind);
    expect(new Set(kinds).size).toBe(kinds.length);
    expect(cases.filter((c) => c.kind.startsWith('traj-')).length).toBeGreaterThanOrEqual(6);
    expect(cases.filter((c) => c.exit === 2).length).toBeGreaterThanOrEqual(4);
    for (const c of cases) {
      expect(c.description.length, c.kind).toBeGreaterThan(10);
      expect((c.problems?.length ?? 0) + (c.stderr?.length ?? 0) + (c.stdout?.length ?? 0), c.kind).toBeGreaterThan(0);
      if (c.exit === 1) expect(c.problems?.length ?? 0, c.kind).toBeGreaterThan(0);
    }
  });

  it('names its own line for every bad record that shares a JSONL file', () => {
    for (const c of cases.filter((x) => x.kind.startsWith('traj-') && (x.problems?.length ?? 0) > 1)) {
      const lines = c.problems!.map((p) => `${p.file}:${p.line}`);
      expect(new Set(lines).size, c.kind).toBe(lines.length);
    }
  });

  it('the base harness for trajectory cases is itself valid', () => {
    const r = runHsa(['validate', 'fixtures/bad/_harness']);
    expect(r.stderr).toBe('valid: harness bad-base 1.0.0: 0 errors, 0 warnings\n');
    expect(r.stdout).toBe('');
    expect(r.code).toBe(0);
  });

  describe.each(cases.map((c) => [c.kind, c] as const))('%s', (_kind, c) => {
    it.concurrent(`text report: exit ${c.exit}, every problem on one line`, async () => {
      const r = await runHsaAsync(c.args);
      noStackTrace(r);
      expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: c.exit });
      const out = r.stdout.split('\n');
      for (const p of c.problems ?? []) {
        const prefix = prefixOf(p);
        const hit = out.find((l) => l.startsWith(prefix) && l.slice(prefix.length).includes(p.message));
        expect(hit, `no stdout line starts with ${JSON.stringify(prefix)} and contains ${JSON.stringify(p.message)}\n${r.stdout}`).toBeDefined();
        // A problem with a line must not be printed without it, and the other way round.
        if (p.line === undefined) expect(hit!.startsWith(`${p.file}: `)).toBe(true);
      }
      for (const f of c.stdout ?? []) expect(r.stdout).toContain(f);
      for (const f of c.stderr ?? []) expect(r.stderr).toContain(f);
      if (c.exit === 2) {
        expect(r.stdout).toBe('');
        expect(r.stderr.startsWith('hsa: ')).toBe(true);
      } else {
        const errors = c.errors ?? c.problems!.length;
        expect(r.stderr).toMatch(new RegExp(`^invalid: .*: ${errors} errors?, ${c.warnings ?? 0} warnings?$`, 'm'));
        // Every printed problem line is `file[:line]: path: message`.
        const printed = out.filter((l) => l !== '');
        expect(printed.length).toBe(errors + (c.warnings ?? 0));
        for (const l of printed) expect(l).toMatch(/^fixtures\/bad\/[^:]+(:\d+)?: \S.*: .+$/);
      }
    });

    if (c.exit === 1) {
      it.concurrent('--json report: counts and problems field by field', async () => {
        const r = await runHsaAsync([...c.args, '--json']);
        noStackTrace(r);
        expect(r.code).toBe(1);
        const report = JSON.parse(r.stdout) as { ok: boolean; errors: number; warnings: number; problems: JsonProblem[]; truncated: number };
        expect(report.ok).toBe(false);
        expect(report.errors).toBe(c.errors ?? c.problems!.length);
        expect(report.warnings).toBe(c.warnings ?? 0);
        expect(report.truncated).toBe(0);
        expect(report.problems.length).toBe(report.errors + report.warnings);
        for (const p of c.problems!) {
          // The text report prints an empty key path as "(root)".
          const jsonPath = p.path === '(root)' ? '' : p.path;
          const hit = report.problems.find(
            (q) => q.file === p.file && q.path === jsonPath && q.line === p.line && q.id === p.id && q.message.includes(p.message),
          );
          expect(hit, `${JSON.stringify(p)} not in\n${JSON.stringify(report.problems, null, 2)}`).toBeDefined();
          expect(hit!.severity).toBe('error');
        }
      });
    }
  });
});
