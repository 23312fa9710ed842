import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, runHsaAsync } from '../helpers/hsa.js';
import { makeTmp } from '../helpers/tmp.js';

// Real logs as given (fixtures/ingest/, written for this project): the real binary validates them
// and augments them with 8 variants; the output is checked here by reading its bytes, with an ajv
// of its own against each record's own tools and a token scan for names renamed away.

const F = path.join(REPO, 'fixtures', 'ingest');
const HELPDESK = path.join(F, 'helpdesk');
const ONE_FILE = path.join(F, 'one-file');
const log = (name: string) => path.join(HELPDESK, `${name}.jsonl`);
const INLINE = path.join(F, 'inline', 'records.jsonl');

type Json = Record<string, any>;
const jsonl = (file: string): Json[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Json);
const outputs = (dir: string, stage: string): Json[] =>
  readdirSync(path.join(dir, stage))
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .flatMap((f) => jsonl(path.join(dir, stage, f)));

let tmp: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  tmp = await makeTmp('hsa-ingest-');
});
afterAll(async () => {
  await tmp.cleanup();
});

type Run = { out: string; manifest: Json; sft: Json[]; rejects: Json[] };
const runs = new Map<string, Promise<Run>>();

/** One augment run per name (tests that read the same run share it). */
function augment(name: string, args: string[]): Promise<Run> {
  if (!runs.has(name)) runs.set(name, augmentOnce(name, args));
  return runs.get(name)!;
}

async function augmentOnce(name: string, args: string[]): Promise<Run> {
  const out = path.join(tmp.dir, name);
  const r = await runHsaAsync(['augment', '--no-gzip', ...args, '--out', out, '-k', '8', '--stages', 'sft', '--quiet']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const manifest = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8')) as Json;
  return { out, manifest, sft: outputs(out, 'sft'), rejects: outputs(out, 'rejects') };
}

const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });

/** Independent checks of final records: every call names one of the record's tools and its arguments validate; ids pair up. */
function checkCalls(records: Json[]): string[] {
  const bad: string[] = [];
  for (const r of records) {
    const schemas = new Map<string, object>(r.tools.map((t: Json) => [t.function.name, t.function.parameters]));
    const ids = new Set<string>();
    const called = new Map<string, string>();
    let open = new Set<string>();
    for (const m of r.messages) {
      if (m.role === 'assistant') {
        open = new Set();
        for (const c of m.tool_calls ?? []) {
          if (ids.has(c.id)) bad.push(`${r.id}: call id ${c.id} used twice`);
          ids.add(c.id);
          open.add(c.id);
          called.set(c.id, c.function.name);
          const schema = schemas.get(c.function.name);
          if (!schema) bad.push(`${r.id}: ${c.function.name} is not in the record's tools`);
          else if (!ajv.validate(schema, c.function.arguments)) bad.push(`${r.id}: ${c.function.name} ${ajv.errorsText()}`);
        }
      } else if (m.role === 'tool') {
        if (!open.delete(m.tool_call_id)) bad.push(`${r.id}: tool result ${m.tool_call_id} answers no open call`);
        if (m.name !== undefined && m.name !== called.get(m.tool_call_id))
          bad.push(`${r.id}: tool result names ${m.name}, the call was ${called.get(m.tool_call_id)}`);
      }
    }
  }
  return bad;
}

/** Names of the source's tools that a variant no longer has must not appear in what the model reads of the harness or says. */
function leaks(sources: Map<string, Json>, records: Json[]): string[] {
  const bad: string[] = [];
  for (const r of records) {
    const src = sources.get(r.meta.source_id)!;
    const now = new Set(r.tools.map((t: Json) => t.function.name));
    const gone = (src.tools ?? []).map((t: Json) => t.function?.name ?? t.name).filter((n: string) => !now.has(n));
    for (const [i, m] of r.messages.entries()) {
      if (m.role === 'user' || m.role === 'tool') continue; // user words and tool data stay as written
      const text = `${typeof m.content === 'string' ? m.content : ''} ${(m.tool_calls ?? []).map((c: Json) => c.function.name).join(' ')}`;
      for (const name of gone) if (new RegExp(`(^|[^A-Za-z0-9_])${name}($|[^A-Za-z0-9_])`).test(text)) bad.push(`${r.id}: messages.${i} mentions ${name}`);
    }
  }
  return bad;
}

const byId = (file: string) => new Map(jsonl(file).map((r) => [r.id as string, r]));
const systemOf = (r: Json): string => (r.messages[0]?.role === 'system' ? r.messages[0].content : '');

describe('validate accepts the logs as given', () => {
  it.concurrent.each([
    ['prompt files ending with a newline', [HELPDESK, '-t', log('matched')]],
    ['one file holding the logged prompt, final newline included', [ONE_FILE, '-t', log('matched')]],
    ['reused call ids', [HELPDESK, '-t', log('reused-ids')]],
    ['appended rules (locate)', [HELPDESK, '-t', log('appended'), '--system-prompt', 'locate']],
    ['an outer wrapper and a dynamic line (locate)', [HELPDESK, '-t', log('wrapped'), '--system-prompt', 'locate']],
    ['records with their own tools (inline)', ['-t', INLINE]],
  ])('%s', async (_name, args) => {
    const r = await runHsaAsync(['validate', ...args, '--json']);
    const report = JSON.parse(r.stdout) as Json;
    expect(report.problems.filter((p: Json) => p.severity === 'error')).toEqual([]);
    expect(r.code).toBe(0);
    expect(report.files[0].invalid).toBe(0);
  });

  it('counts outcomes and reused ids', async () => {
    const located = JSON.parse(
      (await runHsaAsync(['validate', HELPDESK, '-t', log('wrapped'), log('matched'), '--system-prompt', 'locate', '--json'])).stdout,
    ) as Json;
    expect(located.system_prompt).toEqual({ mode: 'locate', matched: 12, located: 10, replaced: 0, chars_discarded: 0 });
    const reused = JSON.parse((await runHsaAsync(['validate', HELPDESK, '-t', log('reused-ids'), '--json'])).stdout) as Json;
    expect(reused.reused_call_ids).toBeGreaterThan(0);
    expect(reused.warnings).toBe(reused.reused_call_ids);
    expect(reused.problems[0].message).toMatch(/^tool call id "call_\d" is used again \(first at messages\.\d+\.tool_calls\.\d\); written as "call_\d~\d"$/);
  });

  it('match refuses appended rules naming the line; replace takes the rendered harness and counts what it dropped', async () => {
    const m = await runHsaAsync(['validate', HELPDESK, '-t', log('appended')]);
    expect(m.code).toBe(1);
    expect(m.stdout).toContain(
      `${log('appended')}:1: hd-appended-001: messages.0.content: system message differs from the rendered harness: line 11: expected (end of text), got ""`,
    );
    const r = JSON.parse((await runHsaAsync(['validate', HELPDESK, '-t', log('appended'), '--system-prompt', 'replace', '--json'])).stdout) as Json;
    expect(r.ok).toBe(true);
    expect(r.system_prompt).toMatchObject({ replaced: 10, located: 0 });
    expect(r.system_prompt.chars_discarded).toBe(jsonl(log('appended')).reduce((n, x) => n + systemOf(x).length, 0));
  });

  it('format is an annotation unless asked: --formats assert reports free-text dates', async () => {
    const r = await runHsaAsync(['validate', HELPDESK, '-t', log('matched'), '--formats', 'assert']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/function\.arguments\.due: .*format "date"/);
  });
});

describe('augment with 8 variants: 0 invalid calls, 0 leaks, nothing rejected', () => {
  it.concurrent.each([
    ['matched', [log('matched')], HELPDESK],
    ['one-file', [log('matched')], ONE_FILE],
    ['reused-ids', [log('reused-ids')], HELPDESK],
    ['located', [log('appended'), log('wrapped')], HELPDESK],
  ])('%s', async (name, files, harness) => {
    const { manifest, sft, rejects } = await augment(name, ['--harness', harness, '-t', ...files, '--system-prompt', 'locate']);
    const sources = new Map(files.flatMap((f) => [...byId(f)]));
    expect(rejects).toEqual([]); // every variant passed the round trip, leak, call and rule checks
    expect(manifest.totals.variants_written).toBe(sources.size * 8);
    expect(checkCalls(sft)).toEqual([]);
    expect(leaks(sources, sft)).toEqual([]);
    if (name === 'reused-ids') expect(manifest.totals.reused_call_ids).toBeGreaterThan(0);
    if (name === 'located') expect(manifest.totals).toMatchObject({ prompts_located: 20, prompts_matched: 0 });
  });

  it('a prompt file ending with a newline gives variants ending with that newline; a log without it, variants without', async () => {
    const { sft } = await augment('one-file', ['--harness', ONE_FILE, '-t', log('matched'), '--system-prompt', 'locate']);
    const sources = byId(log('matched'));
    for (const r of sft) {
      const src = systemOf(sources.get(r.meta.source_id)!);
      expect(/[^\s]\n$/.test(systemOf(r))).toBe(src.endsWith('\n'));
      expect(/[^\s]$/.test(systemOf(r))).toBe(!src.endsWith('\n'));
    }
  });

  it("located records keep their own text byte for byte around the state's sections", async () => {
    const { sft } = await augment('located', ['--harness', HELPDESK, '-t', log('appended'), log('wrapped'), '--system-prompt', 'locate']);
    const sources = new Map([...byId(log('appended')), ...byId(log('wrapped'))]);
    const role = readFileSync(path.join(HELPDESK, 'prompt', 'role.md'), 'utf8').trim();
    const policy = readFileSync(path.join(HELPDESK, 'prompt', 'policy.md'), 'utf8').trim();
    let changed = 0;
    for (const r of sft) {
      const src = systemOf(sources.get(r.meta.source_id)!);
      // The record's own pieces, cut independently of hsa: the text around the two sections.
      const a = src.indexOf(role);
      const b = src.indexOf(policy, a + role.length);
      const outer = [src.slice(0, a), src.slice(a + role.length, b), src.slice(b + policy.length)];
      const got = systemOf(r);
      expect(got.startsWith(outer[0]!)).toBe(true);
      expect(got.endsWith(outer[2]!)).toBe(true);
      const middle = got.slice(outer[0]!.length, got.length - outer[2]!.length);
      // Between the sections: the wrapper's closing and opening tags exactly once; blank space as it was.
      if (outer[1]!.trim() !== '') expect(middle.split(outer[1]!).length, r.id).toBe(2);
      else expect(middle).toContain(outer[1]);
      if (got !== src) changed++;
    }
    expect(changed).toBeGreaterThan(0);
  });

  it("a tool that the record's own prompt text names keeps its name in every variant; the others are renamed", async () => {
    const { manifest, sft, rejects } = await augment('mentions', ['--harness', HELPDESK, '-t', log('outer-mentions'), '--system-prompt', 'locate']);
    const sources = byId(log('outer-mentions'));
    // Before, a variant that renamed it was rejected (check_record_prompt_text): a third of them.
    expect(rejects).toEqual([]);
    expect(manifest.totals.variants_written).toBe(sources.size * 8);
    let renamedOthers = 0;
    for (const r of sft) {
      const names = r.tools.map((t: Json) => t.function.name);
      expect(names).toContain('reset_password');
      const renames = (r.meta.transforms as Json[]).find((t) => t.id === 'tools.rename')?.params?.renamed ?? {};
      expect(Object.keys(renames)).not.toContain('reset_password');
      renamedOthers += Object.keys(renames).length;
    }
    expect(renamedOthers).toBeGreaterThan(0);
    expect(leaks(sources, sft)).toEqual([]);
  });

  it('records with their own tools (OpenAI and MCP shapes, one name with two schemas): one run', async () => {
    const { manifest, sft, rejects } = await augment('inline', ['-t', INLINE]);
    const sources = byId(INLINE);
    expect(rejects).toEqual([]);
    expect(manifest.totals.variants_written).toBe(sources.size * 8);
    expect(checkCalls(sft)).toEqual([]);
    expect(leaks(sources, sft)).toEqual([]);
    // Records sharing (tools, system) share a harness; others do not.
    const versions = new Set(sft.map((r) => r.meta.harness.version));
    expect(versions.size).toBeGreaterThan(1);
    expect(versions.size).toBeLessThan(sources.size);
    // A renamed tool's mentions in the record's own system message are renamed with it.
    const renamed = sft.filter((r) => systemOf(r).includes('Look the booking up with') && !r.tools.some((t: Json) => t.function.name === 'get_booking'));
    expect(renamed.length).toBeGreaterThan(0);
  });
});
