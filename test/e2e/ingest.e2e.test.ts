import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, runHsaAsync, STACK_LINE, type HsaRun } from '../helpers/hsa.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { readJsonl, treeHashes } from '../helpers/tree.js';

/**
 * hsa import / hsa init / validate --summary, end to end with the real binary: each importer's
 * fixture (good records of several shapes and bad lines of several kinds) is imported, a harness
 * is inferred from the output, and the output validates against it; the init fixture (a returns
 * desk with a skill loader) is inferred, validated and augmented.
 */
afterAll(removeTempDirs);

const tmp = () => tempDir('hsa-ingest-');
const hsa = (args: string[], cwd = REPO): Promise<HsaRun> => runHsaAsync(args, { cwd });

function clean(r: HsaRun): void {
  expect(r.stdout).not.toContain(STACK_LINE);
  expect(r.stderr).not.toContain(STACK_LINE);
}

/** `file:line: field: reason` lines of stderr. */
const problemLines = (stderr: string) => stderr.split('\n').filter((l) => /^fixtures\/import\/[^:]+:\d+: /.test(l));

interface Case {
  format: string;
  files: string[];
  converted: number;
  /** line → [field, reason] of every bad line. */
  bad: Record<number, [string, string]>;
  superseded?: number;
}

const CASES: Case[] = [
  {
    format: 'sharegpt',
    files: ['fixtures/import/sharegpt/returns.jsonl', 'fixtures/import/sharegpt/returns-array.json'],
    converted: 8,
    bad: {
      7: ['(json)', 'not valid JSON'],
      8: ['conversations', 'missing'],
      9: ['conversations.1.value', 'a tool result with no call'],
      10: ['conversations.1.value.arguments', 'arguments are not JSON'],
      11: ['conversations.1.value', 'function_call is not JSON'],
      12: ['conversations.0.from', 'unknown speaker "customer"'],
    },
  },
  {
    format: 'hermes',
    files: ['fixtures/import/hermes/returns.jsonl'],
    converted: 6,
    bad: {
      7: ['(json)', 'not valid JSON'],
      8: ['conversations.2.value', 'tool_call 1 is not JSON'],
      9: ['conversations.2.value', 'tool_response 1: a tool result with no call'],
      10: ['conversations', 'missing'],
    },
  },
  {
    format: 'anthropic',
    files: ['fixtures/import/anthropic/returns.jsonl'],
    converted: 6,
    bad: {
      7: ['(json)', 'not valid JSON'],
      8: ['messages.2.content.0', 'a tool result with no call (tool call id "toolu_zzz")'],
      9: ['messages.0.content.0.type', '"image" blocks cannot be imported'],
      10: ['messages', 'missing'],
    },
  },
  {
    format: 'openai-log',
    files: ['fixtures/import/openai-log/returns.jsonl'],
    converted: 6,
    superseded: 2,
    bad: {
      9: ['(json)', 'not valid JSON'],
      10: ['response.choices', 'missing'],
      11: ['request.messages.2', 'a tool result with no call (tool call id "call_9")'],
      12: ['response.choices.0.message.tool_calls.0.function.arguments', 'arguments are not JSON'],
    },
  },
];

describe('hsa import', () => {
  it.concurrent.each(CASES)(
    '$format: converts the good records, reports every bad line as file:line: field: reason, and init + validate pass on the output',
    async (c) => {
      const dir = tmp();
      const out = path.join(dir, 'traj.jsonl');
      const rejects = path.join(dir, 'rejects.jsonl');
      const r = await hsa(['import', '--from', c.format, ...c.files, '--out', out, '--on-error', 'skip', '--rejects', rejects]);
      clean(r);
      expect(r.code).toBe(0);
      const lines = problemLines(r.stderr);
      const expected = Object.entries(c.bad).map(([line, [field, reason]]) => ({ line: Number(line), field, reason }));
      expect(lines).toHaveLength(expected.length);
      for (const e of expected) {
        const hit = lines.find((l) => l.startsWith(`${c.files[0]}:${e.line}: ${e.field}: `));
        expect(hit, `${c.files[0]}:${e.line}: ${e.field}`).toBeDefined();
        expect(hit).toContain(e.reason);
      }
      expect(r.stderr).toContain(`imported ${c.converted} of`);
      // Every bad line is in the rejects file with its problems and its source text.
      const rej = readJsonl(rejects) as { file: string; line: number; problems: { path: string; message: string }[]; source: string }[];
      expect(rej.map((x) => x.line).sort((a, b) => a - b)).toEqual(expected.map((e) => e.line));
      const sourceLines = readFileSync(path.join(REPO, c.files[0]!), 'utf8').split('\n');
      for (const x of rej) expect(x.source).toBe(sourceLines[x.line - 1]);
      // Output: exact Chat Completions shape, arguments JSON strings, every tool message answering a call.
      const recs = readJsonl(out) as {
        id: string;
        messages: { role: string; tool_calls?: { id: string; function: { arguments: unknown } }[]; tool_call_id?: string }[];
        tools?: unknown[];
      }[];
      expect(recs).toHaveLength(c.converted);
      expect(recs.length + rej.length + (c.superseded ?? 0)).toBe(Object.keys(c.bad).length + c.converted + (c.superseded ?? 0));
      expect(new Set(recs.map((x) => x.id)).size).toBe(recs.length);
      for (const rec of recs) {
        const open = new Set<string>();
        for (const m of rec.messages) {
          for (const call of m.tool_calls ?? []) {
            expect(typeof call.function.arguments).toBe('string');
            JSON.parse(call.function.arguments as string);
            open.add(call.id);
          }
          if (m.role === 'tool') expect(open.has(m.tool_call_id!)).toBe(true);
        }
      }
      // Shapes the fixtures hold: parallel calls, several user turns, a record without tools.
      expect(recs.some((x) => x.messages.some((m) => (m.tool_calls?.length ?? 0) > 1))).toBe(true);
      expect(recs.some((x) => x.messages.filter((m) => m.role === 'user').length > 1)).toBe(true);
      expect(recs.some((x) => x.tools === undefined)).toBe(true);

      const harness = path.join(dir, 'harness');
      const init = await hsa(['init', '-t', out, '-o', harness]);
      clean(init);
      expect(init.code, init.stderr).toBe(0);
      const v = await hsa(['validate', harness, '-t', out, '--json']);
      expect(v.code, v.stdout).toBe(0);
      const report = JSON.parse(v.stdout) as { errors: number; files: { records: number; invalid: number }[] };
      expect(report.errors).toBe(0);
      expect(report.files[0]).toMatchObject({ records: c.converted, invalid: 0 });
    },
  );

  it('fail mode reports every bad line, exits 1 and writes nothing', async () => {
    const dir = tmp();
    const out = path.join(dir, 'traj.jsonl');
    const r = await hsa(['import', '--from', 'anthropic', 'fixtures/import/anthropic/returns.jsonl', '--out', out]);
    clean(r);
    expect(r.code).toBe(1);
    expect(problemLines(r.stderr)).toHaveLength(4);
    expect(r.stderr).toContain('not imported: 4 of 10 records');
    expect(existsSync(out)).toBe(false);
    expect(existsSync(`${out}.tmp`)).toBe(false);
  });

  it('gives identical bytes however the input path is spelled, and --json counts every record', async () => {
    const dir = tmp();
    const a = path.join(dir, 'a.jsonl');
    const b = path.join(dir, 'b.jsonl');
    const [ra, rb] = await Promise.all([
      hsa(['import', '--from', 'openai-log', 'fixtures/import/openai-log/returns.jsonl', '-o', a, '--on-error', 'skip', '--json']),
      hsa(['import', '--from', 'openai-log', './fixtures/import/../import/openai-log/returns.jsonl', '-o', b, '--on-error', 'skip', '--json']),
    ]);
    expect([ra.code, rb.code]).toEqual([0, 0]);
    expect(readFileSync(a)).toEqual(readFileSync(b));
    expect(readFileSync(`${dir}/a.rejects.jsonl`)).toEqual(readFileSync(`${dir}/b.rejects.jsonl`));
    const s = JSON.parse(ra.stdout) as { records: number; converted: number; rejected: number; superseded: number; summary: { kind: string; count: number }[] };
    expect(s).toMatchObject({ records: 12, converted: 6, rejected: 4, superseded: 2 });
    expect(s.summary.map((k) => k.count).reduce((x, y) => x + y)).toBe(4);
  });

  it('refuses an unknown format with a usage error', async () => {
    const r = await hsa(['import', '--from', 'csv', 'fixtures/import/hermes/returns.jsonl', '-o', path.join(tmp(), 'x.jsonl')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--from: unknown format "csv" (one of sharegpt, hermes, anthropic, openai-log, responses, xlam, toolace, glaive, gemini)');
  });
});

describe('hsa init', () => {
  const TRAJ = 'fixtures/init/returns-desk/trajectories.jsonl';
  const VARIANTS = 'fixtures/init/returns-desk/variants.jsonl';

  it('infers prompt sections, tools and skills that validate and augment (8 variants, 0 rejects); reports conflicts and other prompts', async () => {
    const dir = tmp();
    const harness = path.join(dir, 'h');
    const r = await hsa(['init', '-t', 'fixtures/init/returns-desk/*.jsonl', '-o', harness, '--json']);
    clean(r);
    expect(r.code, r.stdout).toBe(0);
    const rep = JSON.parse(r.stdout) as {
      prompt: { sections: string[]; matching: number; other: number };
      tools: { written: string[]; conflicts: string[] };
      skills: { loader: unknown; written: string[] };
      check: { valid: number; invalid: number; toolsDiffer: number };
      problems: string[];
      files: string[];
    };
    expect(rep.prompt).toMatchObject({ sections: ['returns_desk', 'skills', 'policy', 'style'], matching: 9, other: 2 });
    expect(rep.tools.conflicts).toEqual(['get_refund_status']);
    expect(rep.problems.find((p) => p.includes('"get_refund_status" is listed with 2 different definitions'))).toContain(`${VARIANTS}:3`);
    expect(rep.problems.some((p) => p.includes('2 records have another system message') && p.includes('--system-prompt locate'))).toBe(true);
    expect(rep.skills).toEqual({ loader: { tool: 'load_skill', argument: 'name' }, written: ['damaged-item', 'exchange-policy', 'refund-timeline'] });
    // The record whose tool list has an older description is counted apart, not checked (under
    // this folder it is invalid: every variant carries the folder's tools).
    expect(rep.check).toMatchObject({ valid: 8, invalid: 0, toolsDiffer: 1 });
    expect(rep.files).toEqual([
      'harness.yaml',
      'prompt/policy.md',
      'prompt/returns_desk.md',
      'prompt/style.md',
      'skills/damaged-item/SKILL.md',
      'skills/exchange-policy/SKILL.md',
      'skills/refund-timeline/SKILL.md',
      'tools/tools.json',
    ]);
    // A skill body is the loaded text; its front matter has name and description.
    const skill = readFileSync(path.join(harness, 'skills/damaged-item/SKILL.md'), 'utf8');
    expect(skill).toMatch(/^---\nname: damaged-item\ndescription: Handle an item that arrived broken or faulty\.\n---\n\n# Damaged item\n/);
    expect(skill).toContain('```json\n{"order_id": "LH-20417"');

    // The rendered harness is the logged system message byte for byte.
    const logged = (readJsonl(path.join(REPO, TRAJ))[0] as { messages: { content: string }[] }).messages[0]!.content;
    const rendered = await hsa(['inspect', harness, '--render']);
    expect(rendered.stdout).toBe(logged);

    const v = await hsa(['validate', harness, '-t', TRAJ]);
    expect(v.code, v.stdout).toBe(0);
    const other = await hsa(['validate', harness, '-t', VARIANTS, '--json']);
    const o = JSON.parse(other.stdout) as { problems: { line: number; path: string }[] };
    expect(o.problems.filter((p) => p.path === 'messages.0.content').map((p) => p.line)).toEqual([1, 2]);

    const out = path.join(dir, 'aug');
    const a = await hsa(['augment', '--no-gzip', '--harness', harness, '-t', TRAJ, '-o', out, '-k', '8', '--seed', '3', '--json', '-q']);
    clean(a);
    expect(a.code, a.stderr).toBe(0);
    const totals = (JSON.parse(a.stdout) as { totals: Record<string, number> }).totals;
    expect(totals).toMatchObject({ input_records: 8, valid_records: 8, variants_written: 64, variants_rejected: 0 });
  });

  it('writes the same bytes twice; refuses a non-empty folder without --force', async () => {
    const dir = tmp();
    const [a, b] = [path.join(dir, 'a'), path.join(dir, 'b')];
    const [ra, rb] = await Promise.all([
      hsa(['init', '-t', TRAJ, '-o', a, '--name', 'returns']),
      hsa(['init', '-t', `./${TRAJ}`, '-o', b, '--name', 'returns']),
    ]);
    expect([ra.code, rb.code]).toEqual([0, 0]);
    expect(treeHashes(a)).toEqual(treeHashes(b));
    const again = await hsa(['init', '-t', TRAJ, '-o', a]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('folder is not empty (use --force');
    writeFileSync(path.join(a, 'prompt', 'stale.md'), '# Stale\n');
    const forced = await hsa(['init', '-t', TRAJ, '-o', a, '--name', 'returns', '--force']);
    expect(forced.code).toBe(0);
    expect(treeHashes(a)).toEqual(treeHashes(b));
  });
});

describe('hsa init on a logged prompt that ends with a newline', () => {
  // The final newline is blank space around the rendered prompt: the record's own text, kept in
  // every variant (issue #11 item 1). init renders the message exactly, and validate passes.
  it('renders it byte for byte; validate and augment keep the newline', async () => {
    const dir = tmp();
    const file = path.join(dir, 't.jsonl');
    const rec = {
      id: 'n1',
      messages: [
        { role: 'system', content: '# Role\nYou help.\n\n# Rules\n- be brief\n' },
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
      ],
    };
    writeFileSync(file, `${JSON.stringify(rec)}\n`);
    const harness = path.join(dir, 'h');
    const r = await hsa(['init', '-t', file, '-o', harness]);
    clean(r);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('byte for byte');
    expect(r.stderr).not.toContain('blank space');
    const v = await hsa(['validate', harness, '-t', file]);
    expect(v.code, v.stderr).toBe(0);
    const out = path.join(dir, 'aug');
    const a = await hsa(['augment', '--no-gzip', '--harness', harness, '-t', file, '-o', out, '-k', '4', '--seed', '1', '--stages', 'sft', '-q']);
    expect(a.code, a.stderr).toBe(0);
    const lines = readFileSync(path.join(out, 'sft', 'part-00000.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(lines).toHaveLength(4);
    // Sections move and restyle; the record's own final newline stays, once.
    for (const l of lines) expect((JSON.parse(l) as { messages: { content: string }[] }).messages[0]!.content).toMatch(/[^\n]\n$/);
  });
});

describe('hsa validate --summary', () => {
  it('reads 200 identical errors as one kind with its count and one example', async () => {
    const dir = tmp();
    const base = readJsonl(path.join(REPO, 'fixtures/init/returns-desk/trajectories.jsonl'))[0] as {
      id: string;
      messages: { tool_calls?: { function: { name: string } }[] }[];
    };
    const lines: string[] = [];
    for (let i = 0; i < 200; i++) {
      const rec = structuredClone(base);
      rec.id = `r-${i}`;
      rec.messages[2]!.tool_calls![0]!.function.name = `no_such_tool_${i % 7}`;
      lines.push(JSON.stringify(rec));
    }
    const file = path.join(dir, 'bad.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const harness = path.join(dir, 'h');
    expect((await hsa(['init', '-t', 'fixtures/init/returns-desk/trajectories.jsonl', '-o', harness])).code).toBe(0);
    const text = await hsa(['validate', harness, '-t', file, '--summary']);
    expect(text.code).toBe(1);
    const table = text.stdout.slice(text.stdout.indexOf('problem kinds'));
    expect(table.split('\n').filter((l) => /^\d/.test(l.trim()) && !l.includes('e.g.'))).toEqual([
      '200  messages.*.tool_calls.*.function.name: tool "…" does not exist in harness h',
    ]);
    expect(table).toContain(`e.g. ${file}:1: r-0: messages.2.tool_calls.0.function.name: tool "no_such_tool_0" does not exist in harness h`);
    const json = JSON.parse((await hsa(['validate', harness, '-t', file, '--json'])).stdout) as { summary: { kind: string; count: number; example: string }[] };
    expect(json.summary.map((k) => k.count)).toEqual([200]);
  });
});
