import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../src/util/canonical-json.js';
import { REPO, runHsaAsync, STACK_LINE, type HsaRun } from './helpers/hsa.js';
import { makeTmp, openAiTool, writeTree } from './helpers/tmp.js';

/**
 * End to end: the built CLI (bin/hsa → dist/) run as a child process from a temporary working
 * folder, so nothing depends on the repo root being the cwd.
 */
const LC = path.join(REPO, 'fixtures', 'live-commerce');
const LC_HARNESS = path.join(LC, 'harness');
const LC_TRAJECTORIES = path.join(LC, 'trajectories.jsonl');
const PKG = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string };

interface Rec {
  id: string;
  context?: unknown;
  messages: { role: string; content: unknown }[];
  tools?: unknown[];
}
function readRecords(file: string): Rec[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Rec);
}

let tmp: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  tmp = await makeTmp('hsa-e2e-');
});
afterAll(async () => {
  await tmp.cleanup();
});

const hsa = (args: string[], cwd = tmp.dir): Promise<HsaRun> => runHsaAsync(args, { cwd });
function clean(r: HsaRun): void {
  expect(r.stdout).not.toContain(STACK_LINE);
  expect(r.stderr).not.toContain(STACK_LINE);
}

describe('hsa --version / --help', () => {
  it('--version and -V print the package version', async () => {
    for (const flag of ['--version', '-V']) {
      const r = await hsa([flag]);
      expect(r).toEqual({ code: 0, stdout: `${PKG.version}\n`, stderr: '' });
    }
    expect(PKG.version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('--help lists the commands; a command --help lists its options', async () => {
    const r = await hsa(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: hsa \[options\] \[command\]/);
    expect(r.stdout).toMatch(/^\s+validate \[options\] \[harness\]/m);
    expect(r.stdout).toMatch(/^\s+inspect \[options\] <harness>/m);
    expect(r.stderr).toBe('');
    const v = await hsa(['validate', '--help']);
    expect(v.code).toBe(0);
    expect(v.stdout).toContain('Usage: hsa validate [options] [harness]');
    expect(v.stdout).toContain('--system-prompt <mode>');
    expect(v.stdout).toContain('-t, --trajectories <glob...>');
    expect(v.stdout).toContain('--json');
    const i = await hsa(['inspect', '--help']);
    expect(i.code).toBe(0);
    expect(i.stdout).toContain('--render');
    expect(i.stdout).toContain('--context <file.json>');
  });
});

describe('usage errors exit 2', () => {
  it.each([
    [[], 'Usage: hsa'],
    [['validate'], 'validate: give a harness, or trajectories (-t)'],
    [['inspect'], "error: missing required argument 'harness'"],
    [['frobnicate'], "error: unknown command 'frobnicate'"],
    [['validate', 'x', '--bogus'], "error: unknown option '--bogus'"],
    [['validate', 'x', '--trajectories'], "error: option '-t, --trajectories <glob...>' argument missing"],
  ])('hsa %j', async (args, fragment) => {
    const r = await hsa(args);
    clean(r);
    expect(r.code).toBe(2);
    expect(r.stdout + r.stderr).toContain(fragment);
  });
});

describe('live-commerce fixtures', () => {
  const records = () => readRecords(LC_TRAJECTORIES);

  it('validate <harness> --trajectories <glob>: exit 0, every record counted', async () => {
    const n = records().length;
    expect(n).toBeGreaterThan(0);
    const r = await hsa(['validate', LC_HARNESS, '--trajectories', path.join(LC, '*.jsonl')]);
    clean(r);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`valid: harness live-commerce 2026.08.2, ${n} record${n === 1 ? '' : 's'} in 1 file: 0 errors, 0 warnings\n`);
    expect(r.code).toBe(0);
  });

  it('validate --json prints one parseable report', async () => {
    const n = records().length;
    const r = await hsa(['validate', LC_HARNESS, '-t', LC_TRAJECTORIES, '--json']);
    clean(r);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({
      ok: true,
      harness: { name: 'live-commerce', version: '2026.08.2' },
      errors: 0,
      warnings: 0,
      files: [{ file: LC_TRAJECTORIES, records: n, invalid: 0 }],
      problems: [],
      truncated: 0,
      summary: [],
      system_prompt: { mode: 'match', matched: n, located: 0, replaced: 0, chars_discarded: 0 },
      reused_call_ids: 0,
    });
  });

  it('inspect --render --context <file> equals the system message of the first trajectory with that context, byte for byte', async () => {
    const recs = records();
    const dir = path.join(LC, 'contexts');
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort();
    expect(files.length).toBeGreaterThan(0);
    let matched = 0;
    for (const f of files) {
      const ctxFile = path.join(dir, f);
      const ctx = canonicalJson(JSON.parse(readFileSync(ctxFile, 'utf8')));
      const rec = recs.find((x) => canonicalJson(x.context ?? {}) === ctx);
      const r = await hsa(['inspect', LC_HARNESS, '--render', '--context', ctxFile]);
      clean(r);
      expect(r.code, `${f}: ${r.stderr}`).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout.startsWith('# ')).toBe(true);
      expect(rec, `no trajectory in ${LC_TRAJECTORIES} has the context of ${f}`).toBeDefined();
      if (!rec) continue;
      matched++;
      const system = rec.messages[0]!;
      expect(system.role).toBe('system');
      expect(typeof system.content).toBe('string');
      expect(Buffer.from(r.stdout, 'utf8').equals(Buffer.from(system.content as string, 'utf8')), `${f} vs record ${rec.id}`).toBe(true);
      // --json carries the same text, and the tools the record was made with when it lists them.
      const j = await hsa(['inspect', LC_HARNESS, '--render', '--json', '--context', ctxFile]);
      const rendered = JSON.parse(j.stdout) as { system: string; preamble: string; tools: { function: { name: string } }[] };
      expect(rendered.system).toBe(system.content);
      expect(rendered.preamble).toBe('');
      if (rec.tools) expect(canonicalJson(rendered.tools)).toBe(canonicalJson(rec.tools));
    }
    expect(matched).toBe(files.length);
  });

  it('inspect --json counts 14 skills: 8 reply, 6 strategy', async () => {
    const r = await hsa(['inspect', LC_HARNESS, '--json']);
    clean(r);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout) as {
      harness: { name: string; version: string };
      skills: { total: number; reply: number; strategy: number; ids: string[] };
      skillLoader: { tool: string; argument: string };
      sections: { order: string[]; pinned: string[]; unordered: string[]; catalog: string };
    };
    expect(s.harness).toEqual({ name: 'live-commerce', version: '2026.08.2' });
    expect(s.skills.total).toBe(14);
    expect(s.skills.reply).toBe(8);
    expect(s.skills.strategy).toBe(6);
    expect(s.skills.ids).toHaveLength(14);
    expect([...s.skills.ids].sort()).toEqual(s.skills.ids);
    expect(s.skillLoader).toEqual({ tool: 'load_skill', argument: 'name' });
    expect(s.sections).toEqual({
      order: ['role', 'constraints', 'skills', 'output_format', 'room_context'],
      pinned: ['role', 'room_context'],
      unordered: ['constraints'],
      catalog: 'skills',
    });
  });
});

describe('a minimal harness written into the temp folder', () => {
  const policy = '# Policy\nAnswer support questions for {{company}}.\n';
  const tools = [openAiTool('search_kb', { q: { type: 'string' } }, ['q']), openAiTool('open_ticket', { title: { type: 'string' } }, ['title'])];
  const system = '# Policy\nAnswer support questions for Acme.';
  const record = (id: string, args: unknown) =>
    JSON.stringify({
      id,
      context: { company: 'Acme' },
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: 'My order is late.' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'search_kb', arguments: JSON.stringify(args) } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'Late orders: open a ticket.' },
        { role: 'assistant', content: 'I have opened a ticket for you.' },
      ],
    });

  beforeAll(async () => {
    await writeTree(tmp.dir, {
      'mini/harness.yaml': 'name: mini\nversion: 0.1\n',
      'mini/prompt/policy.md': policy,
      'mini/tools/tools.json': JSON.stringify(tools, null, 2),
      'ctx.json': '{"company": "Acme"}',
      'data/good.jsonl': `${record('t1', { q: 'late order' })}\n${record('t2', { q: 'refund' })}\n`,
      'data/bad.jsonl': `${record('t3', { q: 'x' })}\n${record('t4', { query: 'late order' })}\n`,
    });
  });

  it('validates (relative paths, cwd = temp folder)', async () => {
    const r = await hsa(['validate', 'mini']);
    clean(r);
    expect(r).toEqual({ code: 0, stdout: '', stderr: 'valid: harness mini 0.1: 0 errors, 0 warnings\n' });
  });

  it('renders exactly the prompt file with the context filled in, no trailing newline added', async () => {
    const r = await hsa(['inspect', 'mini', '--render', '--context', 'ctx.json']);
    expect(r).toEqual({ code: 0, stdout: system, stderr: '' });
  });

  it('inspect summarises it', async () => {
    const r = await hsa(['inspect', 'mini']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'harness   mini 0.1',
        'skills    0 (0 reply, 0 strategy)',
        'tools     2: search_kb, open_ticket',
        'hooks     0',
        'sections  1: policy',
        'variables 1: company',
        '',
      ].join('\n'),
    );
  });

  it('checks its trajectories: a relative glob, the good file passes, the bad record is named by file and line', async () => {
    const good = await hsa(['validate', 'mini', '-t', 'data/good.jsonl']);
    expect(good.code).toBe(0);
    expect(good.stderr).toBe('valid: harness mini 0.1, 2 records in 1 file: 0 errors, 0 warnings\n');
    const all = await hsa(['validate', 'mini', '-t', 'data/*.jsonl']);
    clean(all);
    expect(all.code).toBe(1);
    expect(all.stdout).toBe('data/bad.jsonl:2: t4: messages.2.tool_calls.0.function.arguments: missing required property "q"\n');
    expect(all.stderr).toBe('invalid: harness mini 0.1, 4 records in 2 files: 1 error, 0 warnings\n');
  });

  it('a render with a missing variable fails with exit 1 and names context.<path>', async () => {
    const r = await hsa(['inspect', 'mini', '--render']);
    clean(r);
    expect(r).toEqual({ code: 1, stdout: '', stderr: '(empty context): context.company: missing template variable\n' });
  });

  it('an unreadable --context is exit 2; a context that is not JSON is exit 1', async () => {
    await writeTree(tmp.dir, { 'broken.json': '{company: Acme}' });
    const missing = await hsa(['inspect', 'mini', '--render', '--context', 'nope.json']);
    expect(missing).toEqual({ code: 2, stdout: '', stderr: 'hsa: nope.json: cannot read\n' });
    const broken = await hsa(['inspect', 'mini', '--render', '--context', 'broken.json']);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/^broken\.json: not valid JSON: /);
  });

  it('inspect refuses a harness with errors (exit 1) and lists them', async () => {
    await writeTree(tmp.dir, { 'broken/harness.yaml': 'name: broken\nversion: "1"\nprompt:\n  order: [nope]\n' });
    const r = await hsa(['inspect', 'broken']);
    clean(r);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `${path.join('broken', 'harness.yaml')}:4: prompt.order.0: no section "nope" (no prompt/nope.md and no inline section)\ncannot inspect broken: the harness has errors (run hsa validate)\n`,
    );
  });
});
