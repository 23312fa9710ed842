import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, runHsaAsync } from '../helpers/hsa.js';

/**
 * A tool schema written in YAML where an unquoted comma in a flow mapping split a description into
 * a shorter text and a key with no value (fixtures/warnings/yaml-comma): JSON Schema ignores
 * unknown keywords, so only this warning tells the author the description was cut short. Vendor
 * keywords are real-world and draw no warning.
 */

const FIXTURE = path.join('fixtures', 'warnings', 'yaml-comma');
const TOOLS = path.join(FIXTURE, 'tools', 'tools.yaml');

describe('hsa validate warns about a schema key that reads as a YAML slip', () => {
  it('names file, line and key path; exits 0; vendor keywords pass in silence', async () => {
    const r = await runHsaAsync(['validate', FIXTURE], { cwd: REPO });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('valid: harness slip 1: 0 errors, 2 warnings\n');
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(
      `${TOOLS}:12: 0.function.parameters.properties.city.optionally with its country.: warning: "optionally with its country." is no JSON Schema keyword and has no value: in a YAML flow mapping ({ … }) an unquoted comma ends the text before it; quote that text`,
    );
    expect(lines[1]).toMatch(
      new RegExp(
        `^${TOOLS.replace(/[./]/g, '\\$&')}:16: 0\\.function\\.parameters\\.properties\\.zones\\.items\\.local: warning: "local" is no JSON Schema keyword and has no value`,
      ),
    );
    expect(r.stdout).not.toMatch(/x-order|nullable|example|x-vendor-hint/);
  });

  it('--json reports them as warnings, the harness as valid', async () => {
    const r = await runHsaAsync(['validate', FIXTURE, '--json'], { cwd: REPO });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { ok: boolean; errors: number; warnings: number; problems: { line: number; severity: string }[] };
    expect(report).toMatchObject({ ok: true, errors: 0, warnings: 2 });
    expect(report.problems.map((p) => [p.line, p.severity])).toEqual([
      [12, 'warning'],
      [16, 'warning'],
    ]);
  });
});
