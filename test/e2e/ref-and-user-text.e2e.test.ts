// Issue #23, items 1 and 4, tried as a new user would: `hsa augment -k 8`, then `hsa verify
// --harness … --sources …` and the independent checker (scripts/audit/check-output.mjs), on
// - fixtures/pydantic-airline: tools as pydantic's model_json_schema() writes them (shared models
//   under $defs, pydantic v1's definitions, arrays of referenced models, Optional models in anyOf,
//   a model in a model, a recursive model), in match, locate and inline form, with call keys their
//   schema does not declare;
// - fixtures/coding-agent: a SWE-agent-style log whose first user turn carries the tool
//   instructions (SWE-agent/SWE-agent@3ea751c, config/sweagent_0_7/07.yaml:32-60: the
//   instance_template puts "run the command: find_file …" and the other tips after the issue text),
//   declared with prompt.user_sections.
// What the written JSONL says is read here with plain JSON walks, never the engine's.
import { createHash } from 'node:crypto';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, runHsaAsync } from '../helpers/hsa.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

afterAll(removeTempDirs);

type Json = Record<string, unknown>;
interface Rec {
  id: string;
  messages: { role: string; content: string | null; tool_calls?: { function: { name: string; arguments: unknown } }[] }[];
  tools: { function: { name: string; parameters: Json } }[];
  meta: { source_id: string; transforms: { id: string; params: Json }[] };
}

const readJsonl = <T>(file: string): T[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as T);
const renamed = (r: Rec, id: string) => (r.meta.transforms.find((t) => t.id === id)?.params.renamed ?? {}) as Record<string, string>;
const argsOf = (a: unknown): unknown => (typeof a === 'string' ? JSON.parse(a) : a);

/** Every object key anywhere in a JSON value. */
function keysIn(v: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(v)) v.forEach((x) => keysIn(x, out));
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) (out.add(k), keysIn(x, out));
  return out;
}

/** Property names a schema declares anywhere (properties maps at any depth, $defs models included). */
function declared(schema: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) schema.forEach((s) => declared(s, out));
  else if (schema !== null && typeof schema === 'object') {
    for (const [k, v] of Object.entries(schema)) {
      if (k === 'properties' && v && typeof v === 'object') for (const [name, sub] of Object.entries(v)) (out.add(name), declared(sub, out));
      else if (k !== 'enum' && k !== 'const' && k !== 'default' && k !== 'examples') declared(v, out);
    }
  }
  return out;
}

async function augmentAndProve(name: string, harness: string | undefined, sources: string, extra: string[] = []): Promise<Rec[]> {
  const out = path.join(tempDir(`hsa-ref-${name}-`), 'out');
  const run = await runHsaAsync(['augment', ...(harness ? ['--harness', harness] : []), '-t', sources, '-o', out, '-k', '8', '--no-gzip', ...extra]);
  expect(run.code, run.stderr).toBe(0);
  const verify = await runHsaAsync(['verify', out, ...(harness ? ['--harness', harness] : []), '--sources', sources]);
  expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  expect(verify.stderr).toMatch(/^sound: .*round trip to the sources/m);
  const audit = await runHsaNode(['scripts/audit/check-output.mjs', '--out', out, '--sources', sources, ...(harness ? ['--harness', harness] : []), '--json']);
  const report = JSON.parse(audit.stdout) as { failures: Record<string, unknown>; checked: { records: number } };
  expect(report.failures, audit.stdout).toEqual({});
  const records = readJsonl<Rec>(path.join(out, 'sft', 'part-00000.jsonl'));
  expect(records.length).toBe(report.checked.records);
  return records;
}

/** A repository script run with node (the checker is not part of the CLI). */
async function runHsaNode(args: string[]): Promise<{ code: number | null; stdout: string }> {
  const { spawn } = await import('node:child_process');
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, args, { cwd: REPO });
    let stdout = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, stdout }));
  });
}

const AIR = path.join(REPO, 'fixtures/pydantic-airline');

describe('pydantic-style $defs schemas: renames reach every model, one verdict', () => {
  it.concurrent.each([
    ['match', path.join(AIR, 'harness'), path.join(AIR, 'trajectories.jsonl'), []],
    ['locate', path.join(AIR, 'harness'), path.join(AIR, 'located.jsonl'), ['--system-prompt', 'locate', '--state-pool', '0']],
    ['inline', undefined, path.join(AIR, 'inline.jsonl'), []],
  ] as const)(
    '%s: augment -k 8 is sound for verify and the checker, and no renamed-away name is left in tools or calls',
    async (name, harness, sources, extra) => {
      const records = await augmentAndProve(name, harness, sources, [...extra]);
      const sourceTools = JSON.parse(readFileSync(path.join(AIR, 'harness/tools/tools.json'), 'utf8')) as Rec['tools'];
      // Per source record, call by call: the keys its call carries that its tool's schema does not declare.
      const carried = new Map(
        readJsonl<Rec>(sources).map((s) => {
          const tools = s.tools ?? sourceTools;
          const calls = s.messages.flatMap((m) => m.tool_calls ?? []);
          return [
            s.id,
            calls.map((c) => {
              const own = declared(tools.find((t) => t.function.name === c.function.name)!.function.parameters);
              return new Set([...keysIn(argsOf(c.function.arguments))].filter((k) => !own.has(k)));
            }),
          ];
        }),
      );
      let modelRenames = 0;
      for (const r of records) {
        const params = renamed(r, 'tools.param-rename');
        const gone = Object.keys(params).filter((k) => !Object.values(params).includes(k));
        const inTools = declared(r.tools.map((t) => t.function.parameters));
        const calls = r.messages.flatMap((m) => m.tool_calls ?? []);
        for (const old of gone) expect(inTools.has(old), `${r.id}: tool list still declares "${old}"`).toBe(false);
        // A call keeps an old name as a key only where the source's call carried it undeclared (user_id
        // of get_reservation_details, fare_class inside a FlightInfo): the source's data, as written.
        calls.forEach((c, k) => {
          for (const key of keysIn(argsOf(c.function.arguments)))
            if (gone.includes(key)) expect(carried.get(r.meta.source_id)![k]!.has(key), `${r.id}: call ${k} (${c.function.name}) keeps "${key}"`).toBe(true);
        });
        if (params.flight_number || params.payment_id || params.first_name) modelRenames++;
        // A model shared by two parameters stays one shared definition; the recursive model keeps its names.
        for (const t of r.tools) {
          const text = JSON.stringify(t.function.parameters);
          if (text.includes('"FlightInfo"') && text.includes('standby'))
            expect(text.match(/#\/\$defs\/FlightInfo/g)?.length, `${r.id}: ${t.function.name}`).toBe(2);
          if (text.includes('"Stop"'))
            expect(Object.keys(((t.function.parameters.$defs as Json).Stop as Json).properties as Json).sort()).toEqual(['airport_code', 'nights', 'onward']);
        }
      }
      // Renames inside referenced models were drawn (the check above is not of untouched records).
      expect(modelRenames).toBeGreaterThan(4);
    },
    120_000,
  );
});

const CODE = path.join(REPO, 'fixtures/coding-agent');

describe('harness text inside a user turn (prompt.user_sections)', () => {
  const sources = readJsonl<Rec>(path.join(CODE, 'trajectories.jsonl'));
  const instructions = readFileSync(path.join(CODE, 'harness/prompt/instructions.md'), 'utf8').trim();
  const [issueOf, shellOf] = [(text: string) => text.slice(0, text.indexOf('INSTRUCTIONS:')), (text: string) => text.slice(text.indexOf('\n\n(Open file:'))];

  it('renames follow the tool instructions of the first user turn; the issue text around them stays as written; verify and the checker agree', async () => {
    const records = await augmentAndProve('coding', path.join(CODE, 'harness'), path.join(CODE, 'trajectories.jsonl'));
    let followed = 0;
    for (const r of records) {
      const src = sources.find((s) => s.id === r.meta.source_id)!;
      const turn = r.messages[1]!.content!;
      const was = src.messages[1]!.content!;
      expect(issueOf(turn), r.id).toBe(issueOf(was));
      expect(shellOf(turn), r.id).toBe(shellOf(was));
      const names = { ...renamed(r, 'tools.rename'), ...renamed(r, 'tools.param-rename') };
      const harnessPart = turn.slice(issueOf(turn).length, turn.length - shellOf(turn).length);
      for (const [old, now] of Object.entries(names)) {
        if (old === now || !/_/.test(old) || !instructions.includes(old)) continue;
        expect(harnessPart, `${r.id}: "${old}" left in the instructions`).not.toMatch(new RegExp(`(?<![A-Za-z0-9_])${old}(?![A-Za-z0-9_])`));
        expect(harnessPart, `${r.id}: "${now}" not in the instructions`).toContain(now);
        followed++;
      }
    }
    expect(followed).toBeGreaterThan(10);
    // The issue of ca-1 names find_file itself: the user's words, kept even where find_file is renamed.
    expect(
      records.filter((r) => r.meta.source_id === 'ca-1').every((r) => r.messages[1]!.content!.includes('Our old bot used find_file to locate dates.py')),
    ).toBe(true);
  }, 120_000);

  it('without prompt.user_sections the user turn is data: left byte for byte as the log has it', async () => {
    const dir = tempDir('hsa-user-default-');
    cpSync(path.join(CODE, 'harness'), path.join(dir, 'harness'), { recursive: true });
    const yaml = path.join(dir, 'harness', 'harness.yaml');
    writeFileSync(
      yaml,
      readFileSync(yaml, 'utf8')
        .split('\n')
        .filter((l) => !/user_sections|# The task message/.test(l))
        .join('\n'),
    );
    expect(readFileSync(yaml, 'utf8')).not.toContain('user_sections');
    // The instructions file is then an ordinary section: the system prompt is the setting and it, in the logs' order.
    writeFileSync(yaml, readFileSync(yaml, 'utf8').replace('order: [setting]', 'order: [setting]\n  pinned: [setting]'));
    const logs = path.join(dir, 'logs.jsonl');
    const system = (await runHsaAsync(['inspect', path.join(dir, 'harness'), '--render'])).stdout;
    writeFileSync(
      logs,
      sources.map((s) => JSON.stringify({ ...s, messages: [{ role: 'system', content: system }, ...s.messages.slice(1)] })).join('\n') + '\n',
    );
    const records = await augmentAndProve('coding-default', path.join(dir, 'harness'), logs);
    // (A transform may place a prompt section before it, as a preamble turn of its own.)
    const task = (x: Rec) => x.messages.find((m) => m.role === 'user' && (m as { name?: string }).name === undefined)!.content;
    for (const r of records) expect(task(r), r.id).toBe(task(sources.find((s) => s.id === r.meta.source_id)!));
  }, 120_000);

  it('a log whose first user turn lacks the declared text is refused, naming the record, the field and the section', async () => {
    const dir = tempDir('hsa-user-missing-');
    const logs = path.join(dir, 'logs.jsonl');
    const bad = { ...sources[0]!, messages: sources[0]!.messages.map((m, i) => (i === 1 ? { ...m, content: 'Fix the date parser, please.' } : m)) };
    writeFileSync(logs, JSON.stringify(bad) + '\n');
    const r = await runHsaAsync(['validate', path.join(CODE, 'harness'), '-t', logs]);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toMatch(
      /logs\.jsonl:1: ca-1: messages\.1\.content: first user turn: section "instructions" of prompt\.user_sections is not in it/,
    );
  });
});

const UNIONS = path.join(REPO, 'fixtures/pydantic-unions');

// Issue #23 audit: three places an old name survived in the tool list of pydantic/FastMCP-made
// schemas: a tagged union's discriminator (pydantic/pydantic@2151025 pydantic/json_schema.py:1410-1419,
// over tau2-bench@a2c0247's airline payment models, src/tau2/domains/airline/data_model.py:48-76);
// a model-typed field's default and a model's examples; FastMCP's "<tool>Arguments" title
// (modelcontextprotocol/python-sdk@57394b0 src/mcp/server/mcpserver/utilities/func_metadata.py:326-327).
describe('pydantic unions, schema values and FastMCP titles follow the renames', () => {
  it('augment -k 8: discriminator, default/examples/enum keys and <tool>Arguments titles carry no old name; verify and the checker agree', async () => {
    const records = await augmentAndProve('unions', path.join(UNIONS, 'harness'), path.join(UNIONS, 'trajectories.jsonl'));
    const seen = { discriminator: 0, values: 0, titles: 0 };
    /** Every schema object, never the values one carries. */
    const nodes = (s: unknown, out: Json[] = []): Json[] => {
      if (Array.isArray(s)) s.forEach((x) => nodes(x, out));
      else if (s !== null && typeof s === 'object') {
        out.push(s as Json);
        for (const [k, v] of Object.entries(s)) {
          if (k === 'default' || k === 'examples' || k === 'enum' || k === 'const') continue;
          nodes(k === 'properties' || k === '$defs' ? Object.values(v as Json) : v, out);
        }
      }
      return out;
    };
    for (const r of records) {
      const params = renamed(r, 'tools.param-rename');
      const tools = renamed(r, 'tools.rename');
      const gone = Object.keys(params).filter((k) => !Object.values(params).includes(k));
      for (const t of r.tools) {
        const schema = t.function.parameters;
        const names = declared(schema);
        for (const n of nodes(schema)) {
          const d = n.discriminator as { propertyName: string } | undefined;
          if (d) {
            // The discriminator names a property every model of its union declares.
            expect(names.has(d.propertyName), `${r.id}: discriminator "${d.propertyName}"`).toBe(true);
            if (params.source) (expect(d.propertyName).toBe(params.source), seen.discriminator++);
          }
          for (const k of ['default', 'examples', 'enum'] as const) {
            if (!(k in n)) continue;
            const keys = keysIn(n[k]);
            for (const old of gone) expect(keys.has(old), `${r.id}: ${t.function.name} ${k} keeps "${old}"`).toBe(false);
            if (keys.size > 0 && gone.some((g) => ['seat_type', 'extra_legroom', 'flight_number', 'date'].includes(g))) seen.values++;
          }
          if (typeof n.title === 'string' && n.title.endsWith('Arguments')) {
            for (const [old, now] of Object.entries(tools)) if (old !== now) expect(n.title, r.id).not.toBe(`${old}Arguments`);
            const own = Object.entries(tools).find(([, now]) => now === t.function.name);
            if (own) (expect(n.title).toBe(`${t.function.name}Arguments`), seen.titles++);
          }
        }
        // Pydantic's spaced field titles are plain words for people: kept as written beside a renamed field (docs/harness-format.md).
        if (params.flight_number && t.function.name === (tools.set_default_seat ?? 'set_default_seat'))
          expect(JSON.stringify(schema)).toContain('"title":"Flight Number"');
      }
    }
    expect(seen.discriminator).toBeGreaterThan(0);
    expect(seen.values).toBeGreaterThan(0);
    expect(seen.titles).toBeGreaterThan(0);
  }, 120_000);

  it('an old name put back in any of the three places is flagged by verify and by the checker, naming the record', async () => {
    const [harness, sources] = [path.join(UNIONS, 'harness'), path.join(UNIONS, 'trajectories.jsonl')];
    const out = path.join(tempDir('hsa-ref-unions-mut-'), 'out');
    expect((await runHsaAsync(['augment', '--harness', harness, '-t', sources, '-o', out, '-k', '8', '--no-gzip'])).code).toBe(0);
    const file = path.join(out, 'sft', 'part-00000.jsonl');
    const lines = readFileSync(file, 'utf8').split('\n');
    const index = lines.findIndex((l) => {
      if (l === '') return false;
      const r = JSON.parse(l) as Rec;
      const [p, t] = [renamed(r, 'tools.param-rename'), renamed(r, 'tools.rename')];
      return p.source !== undefined && p.seat_type !== undefined && t.name_shrimp !== undefined && t.name_shrimp !== 'name_shrimp';
    });
    expect(index).toBeGreaterThanOrEqual(0);
    const rec = JSON.parse(lines[index]!) as Rec;
    const [p, t] = [renamed(rec, 'tools.param-rename'), renamed(rec, 'tools.rename')];
    const mutated = lines[index]!.replace(`"propertyName":"${p.source}"`, '"propertyName":"source"')
      .replace(`"default":{"${p.seat_type}"`, '"default":{"seat_type"')
      .replace(`"title":"${t.name_shrimp}Arguments"`, '"title":"name_shrimpArguments"');
    lines[index] = mutated;
    const text = lines.join('\n');
    writeFileSync(file, text);
    // The manifest made to match the part, so only the record checks can tell.
    const manifestFile = path.join(out, 'manifest.json');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as {
      stages: Record<string, { bytes: number; files: { file: string; bytes: number; sha256: string }[] }>;
    };
    for (const stage of Object.values(manifest.stages)) {
      for (const f of stage.files) {
        if (f.file !== 'sft/part-00000.jsonl') continue;
        stage.bytes += Buffer.byteLength(text) - f.bytes;
        f.bytes = Buffer.byteLength(text);
        f.sha256 = createHash('sha256').update(text).digest('hex');
      }
    }
    writeFileSync(manifestFile, JSON.stringify(manifest, null, 2) + '\n');
    const verify = await runHsaAsync(['verify', out, '--harness', harness, '--sources', sources]);
    expect(verify.code).toBe(1);
    const said = verify.stdout + verify.stderr;
    expect(said).toContain(`${rec.id}: tools.add_payment_method: discriminator names old parameter "source"`);
    expect(said).toMatch(new RegExp(`${rec.id}: tools\\.[^:]+: default value keeps old parameter "seat_type"`));
    expect(said).toContain(`${rec.id}: tools.${t.name_shrimp}: title "name_shrimpArguments" spells old tool name "name_shrimp"`);
    const audit = await runHsaNode(['scripts/audit/check-output.mjs', '--out', out, '--sources', sources, '--harness', harness, '--json']);
    expect(audit.code).toBe(1);
    const leaks = JSON.stringify((JSON.parse(audit.stdout) as { failures: Record<string, unknown> }).failures.b_leak);
    for (const what of [
      'discriminator names old parameter \\"source\\"',
      'default value still has key \\"seat_type\\"',
      'spells old tool name \\"name_shrimp\\"',
    ])
      expect(leaks).toContain(what);
  }, 120_000);
});
