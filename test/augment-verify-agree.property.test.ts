// One verdict (issue #23, DESIGN §5.9): the checks that decide what `augment` writes are the checks
// `verify` re-runs on the same final bytes. Over random harnesses and records — pydantic-style
// schemas (models under `$defs` or pydantic v1's `definitions`, arrays of referenced models,
// Optional models in `anyOf`, a model shared by two parameters, a model inside a model, recursive
// models), calls carrying keys their schema does not declare, `--system-prompt locate`, folder and
// inline harnesses, pooled and per-record states — every folder `augment` writes is one
// `hsa verify --harness … --sources …` finds sound; and one record's final bytes mutated so that
// preservation breaks is rejected both by augment's own checks (checkVariant, on that record) and
// by `verify`.
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadHarness } from '../src/harness/load.js';
import { promptLayout, renderPrompt, setPromptLayout } from '../src/harness/render.js';
import { readManifest } from '../src/review/folder.js';
import { SourceIndex, StateRebuilder } from '../src/review/rebuild.js';
import { asTrajectory } from '../src/review/record-checks.js';
import { checkTrajectory } from '../src/trajectory/check.js';
import { checkVariant, reportFailures } from '../src/trajectory/invariants.js';
import { createRng, type Rng } from '../src/transform/rng.js';
import { runHsaAsync } from './helpers/hsa.js';
import { removeTempDirs, tempDir } from './helpers/tmp.js';

afterAll(removeTempDirs);

type Json = Record<string, unknown>;
const PARAMS = [
  'city',
  'date',
  'flight_number',
  'user_id',
  'amount',
  'payment_id',
  'seat',
  'query',
  'limit',
  'note',
  'code',
  'email',
  'first_name',
  'tags',
  'item_id',
  'zone',
  'count',
  'label',
  'reason',
];
const TOOLS = ['find_trip', 'book_room', 'get_status', 'list_orders', 'send_note', 'check_stock', 'plan_route', 'add_item', 'cancel_order'];
const MODELS = ['Leg', 'Payer', 'Contact', 'Bag', 'Slot'];

/** A scalar property as pydantic writes one (title, type; an Optional one as anyOf with null). */
function scalar(rng: Rng, name: string): Json {
  const title = name
    .split('_')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join(' ');
  const kind = rng.int(6);
  if (kind === 0) return { title, type: 'integer' };
  if (kind === 1) return { title, type: 'number' };
  if (kind === 2) return { title, type: 'boolean' };
  if (kind === 3) return { enum: ['low', 'mid', 'high'], title, type: 'string' };
  if (kind === 4) return { anyOf: [{ type: 'string' }, { type: 'null' }], default: null, title };
  return { description: `The ${name.replace(/_/g, ' ')}.`, title, type: 'string' };
}

/** An object schema of scalar properties (names drawn from PARAMS, distinct within the object). */
function objectOf(rng: Rng, n: number, title: string): { properties: Json; required: string[]; title: string; type: 'object' } {
  const properties: Json = {};
  for (const name of rng.sample(PARAMS, n)) properties[name] = scalar(rng, name);
  return { properties, required: rng.sample(Object.keys(properties), rng.int(n + 1)).sort(), title, type: 'object' };
}

/** A tool's parameters as pydantic's model_json_schema() writes them. */
function pydanticSchema(rng: Rng, name: string): Json {
  const defsKey = rng.chance(0.3) ? 'definitions' : '$defs';
  const ref = (m: string) => ({ $ref: `#/${defsKey}/${m}` });
  const root = objectOf(rng, 1 + rng.int(3), `${name}_args`);
  const defs: Json = {};
  const models = rng.shuffle(MODELS);
  if (rng.chance(0.7)) {
    const m = models[0]!;
    const model = objectOf(rng, 2 + rng.int(2), m);
    if (rng.chance(0.4)) {
      // A model inside the model, Optional.
      const inner = models[1]!;
      defs[inner] = objectOf(rng, 1 + rng.int(2), inner);
      model.properties.detail = { anyOf: [ref(inner), { type: 'null' }], default: null };
    }
    defs[m] = model;
    const uses = [() => ref(m), () => ({ items: ref(m), title: 'Items', type: 'array' }), () => ({ anyOf: [ref(m), { type: 'null' }], default: null })];
    // One parameter fills the model; sometimes a second one shares it.
    for (const slot of rng.chance(0.4) ? ['primary', 'backup'] : ['entries']) root.properties[slot] = rng.pick(uses)();
  }
  if (rng.chance(0.3)) {
    // A recursive model: a node holding more nodes.
    defs.Node = {
      properties: { label: { title: 'Label', type: 'string' }, children: { items: ref('Node'), title: 'Children', type: 'array' } },
      required: ['label'],
      title: 'Node',
      type: 'object',
    };
    root.properties.tree = ref('Node');
  }
  if (rng.chance(0.2)) {
    // Any JSON value, as FastMCP-style servers write one: a recursive union through additionalProperties.
    defs.JsonValue = {
      anyOf: [
        { type: 'string' },
        { type: 'number' },
        { type: 'null' },
        { items: ref('JsonValue'), type: 'array' },
        { additionalProperties: ref('JsonValue'), type: 'object' },
      ],
    };
    root.properties.payload = ref('JsonValue');
  }
  // The whole parameter object as a referenced model (a root `$ref`, with the root's type beside
  // it: a harness folder refuses parameters without `type: object` at the root).
  if (rng.chance(0.15)) return { [defsKey]: { ...defs, Args: root }, $ref: `#/${defsKey}/Args`, type: 'object' };
  return Object.keys(defs).length > 0 ? { [defsKey]: defs, ...root } : root;
}

/** The object schema a tool's parameters stand for (through a root `$ref`). */
const argsObject = (schema: Json): Json => (typeof schema.$ref === 'string' ? resolve(schema, schema.$ref) : schema);

function resolve(root: Json, ref: string): Json {
  let t: unknown = root;
  for (const seg of ref.slice(2).split('/')) t = (t as Json)[seg];
  return t as Json;
}

/** Arguments that validate against `schema` (recursion ends by depth). */
function valueOf(rng: Rng, schema: Json, root: Json, depth: number): unknown {
  if (typeof schema.$ref === 'string') return valueOf(rng, resolve(root, schema.$ref), root, depth + 1);
  if (Array.isArray(schema.anyOf)) {
    const branches = schema.anyOf as Json[];
    const nonNull = branches.filter((b) => b.type !== 'null');
    if (!branches.some((b) => b.type === 'null')) return valueOf(rng, depth > 2 ? nonNull[0]! : rng.pick(nonNull), root, depth + 1);
    return depth > 3 || rng.chance(0.3) ? null : valueOf(rng, rng.pick(nonNull), root, depth);
  }
  if (Array.isArray(schema.enum)) return rng.pick(schema.enum as unknown[]);
  switch (schema.type) {
    case 'integer':
      return rng.int(100);
    case 'number':
      return rng.int(1000) / 10;
    case 'boolean':
      return rng.chance(0.5);
    case 'string':
      return rng.pick(['LIS', 'Ana Lima', '2026-05-20', 'window', 'K7QX2M', 'note about user_id']);
    case 'array':
      return Array.from({ length: depth > 2 ? 0 : 1 + rng.int(2) }, () => valueOf(rng, schema.items as Json, root, depth + 1));
    default: {
      const out: Json = {};
      // A map of values (additionalProperties): data keys, some spelled like parameters.
      if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
        if (depth < 3) out[rng.pick(PARAMS)] = valueOf(rng, schema.additionalProperties as Json, root, depth + 1);
        return out;
      }
      const required = new Set((schema.required as string[] | undefined) ?? []);
      for (const [k, sub] of Object.entries((schema.properties as Json | undefined) ?? {}))
        if (required.has(k) || (depth < 4 && rng.chance(0.6))) out[k] = valueOf(rng, sub as Json, root, depth + 1);
      return out;
    }
  }
}

interface RandomTool {
  type: 'function';
  function: { name: string; description: string; parameters: Json };
}

function randomTools(rng: Rng): RandomTool[] {
  return rng
    .sample(TOOLS, 2 + rng.int(3))
    .map((name) => ({ type: 'function', function: { name, description: `Runs ${name.replace(/_/g, ' ')}.`, parameters: pydanticSchema(rng, name) } }));
}

/** A call of a random tool; sometimes with a key its schema does not declare (one another tool may declare). */
function randomCall(rng: Rng, tools: RandomTool[], id: string): { id: string; type: 'function'; function: { name: string; arguments: string } } {
  const t = rng.pick(tools);
  const schema = t.function.parameters;
  const args = valueOf(rng, schema, schema, 0) as Json;
  if (rng.chance(0.35)) {
    const declared = Object.keys(argsObject(schema).properties as Json);
    const undeclared = PARAMS.filter((p) => !declared.includes(p));
    args[rng.pick(undeclared)] = 'carried by the log';
  }
  return { id, type: 'function', function: { name: t.function.name, arguments: JSON.stringify(args) } };
}

function randomMessages(rng: Rng, tools: RandomTool[], system: string): Json[] {
  const messages: Json[] = [{ role: 'system', content: system }];
  const rounds = 1 + rng.int(3);
  for (let r = 0; r < rounds; r++) {
    messages.push({ role: 'user', content: rng.pick(['Please book it.', 'What is my flight_number?', 'Check the status for user_id 42.', 'Go on.']) });
    const call = randomCall(rng, tools, `c${r}`);
    messages.push({ role: 'assistant', content: rng.chance(0.5) ? `I will call \`${call.function.name}\`.` : '', tool_calls: [call] });
    messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify({ ok: true, ref: `R-${rng.int(999)}` }) });
  }
  messages.push({ role: 'assistant', content: `Done with \`${(messages[messages.length - 2] as { tool_call_id: string }).tool_call_id}\`.` });
  return messages;
}

interface Case {
  name: string;
  dir: string;
  harness?: string;
  sources: string;
  args: string[];
}

/** A harness folder with random tools, and its records (matched or located system messages). */
async function folderCase(rng: Rng, name: string, locate: boolean, extra: string[]): Promise<Case> {
  const dir = tempDir(`hsa-verdict-${name}-`);
  const h = path.join(dir, 'harness');
  const tools = randomTools(rng);
  const [t0, t1] = [tools[0]!.function.name, tools[1]!.function.name];
  const param = Object.keys(argsObject(tools[0]!.function.parameters).properties as Json)[0]!;
  mkdirSync(path.join(h, 'prompt'), { recursive: true });
  mkdirSync(path.join(h, 'tools'), { recursive: true });
  writeFileSync(path.join(h, 'harness.yaml'), `name: verdict-${name}\nversion: "1.0.0"\nprompt:\n  dir: prompt\n  order: [role, rules]\n`);
  writeFileSync(path.join(h, 'prompt', 'role.md'), `# Role\n\nYou run the desk. Start with \`${t0}\` when a request needs it.\n`);
  writeFileSync(
    path.join(h, 'prompt', 'rules.md'),
    `# Rules\n\n1. Pass \`${param}\` exactly as the user gives it.\n2. Call \`${t1}\` before you reply about an order.\n`,
  );
  writeFileSync(path.join(h, 'tools', 'tools.json'), JSON.stringify(tools, null, 2));
  const loaded = await loadHarness(h);
  expect(loaded.harness, JSON.stringify(loaded.problems)).toBeTruthy();
  const system = renderPrompt(loaded.harness!, {}).system;
  const records = Array.from({ length: 3 + rng.int(2) }, (_, k) => {
    // A logged prompt with the deployment's own text around and between the harness's sections.
    const logged = locate ? `Desk ${k} of ${name}.\n\n${system.replace('\n\n# Rules', `\n\n(Shift note ${k}.)\n\n# Rules`)}\n\nEnd of instructions.` : system;
    return { id: `${name}-${k}`, messages: randomMessages(rng, tools, logged) };
  });
  const sources = path.join(dir, 'trajectories.jsonl');
  writeFileSync(sources, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return { name, dir, harness: h, sources, args: [...(locate ? ['--system-prompt', 'locate'] : []), ...extra] };
}

/** Records that carry their own tools and system message (no harness folder); two of them share a tool list. */
function inlineCase(rng: Rng, name: string, extra: string[]): Case {
  const dir = tempDir(`hsa-verdict-${name}-`);
  const shared = randomTools(rng);
  const records = Array.from({ length: 5 }, (_, k) => {
    const tools = k < 2 ? shared : randomTools(rng);
    const system = `You are desk agent ${k}. Use \`${tools[0]!.function.name}\` first; pass arguments as their schema says.`;
    return { id: `${name}-${k}`, tools, messages: randomMessages(rng, tools, system) };
  });
  const sources = path.join(dir, 'trajectories.jsonl');
  writeFileSync(sources, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return { name, dir, sources, args: extra };
}

function verifyArgs(c: Case, out: string): string[] {
  return ['verify', out, ...(c.harness ? ['--harness', c.harness] : []), '--sources', c.sources];
}

interface SftRecord {
  id: string;
  messages: { role: string; content: string | null; tool_calls?: { id: string; function: { name: string; arguments: unknown } }[] }[];
  meta: { source_id: string; variant: number | string; transforms: { id: string; params: Json }[] };
}

type Mutation = (rec: SftRecord, rng: Rng) => string | null;
type Call = { function: { name: string; arguments: unknown } };

/** A call's arguments (an output record may write them as a JSON string or as the object), and back in the same form. */
const argsOf = (c: Call): unknown => (typeof c.function.arguments === 'string' ? JSON.parse(c.function.arguments) : c.function.arguments);
const setArgs = (c: Call, v: unknown): void => void (c.function.arguments = typeof c.function.arguments === 'string' ? JSON.stringify(v) : v);

const renamedBy = (rec: SftRecord, id: string) => (rec.meta.transforms.find((t) => t.id === id)?.params.renamed ?? {}) as Record<string, string>;

/** Ways to break preservation in a record's final bytes; each says what it did, or null when the record offers no place for it. */
const MUTATIONS: Record<string, Mutation> = {
  'argument value changed': (rec) => {
    for (const m of rec.messages) {
      for (const c of m.tool_calls ?? []) {
        const args = argsOf(c) as Json;
        const key = Object.keys(args).find((k) => typeof args[k] === 'string' || typeof args[k] === 'number');
        if (key === undefined) continue;
        args[key] = typeof args[key] === 'string' ? `${args[key]}!` : (args[key] as number) + 1;
        setArgs(c, args);
        return `${c.function.name}.${key}`;
      }
    }
    return null;
  },
  'old parameter name put back': (rec) => {
    const back = Object.fromEntries(Object.entries(renamedBy(rec, 'tools.param-rename')).map(([a, b]) => [b, a]));
    const undo = (v: unknown): [unknown, string | null] => {
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          const [x, hit] = undo(v[i]);
          if (hit) return [v.map((y, j) => (j === i ? x : y)), hit];
        }
      } else if (v !== null && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) {
          if (back[k] !== undefined) return [Object.fromEntries(Object.entries(v).map(([a, y]) => [a === k ? back[k]! : a, y])), k];
          const [y, hit] = undo(x);
          if (hit) return [{ ...(v as Json), [k]: y }, hit];
        }
      }
      return [v, null];
    };
    for (const m of rec.messages) {
      for (const c of m.tool_calls ?? []) {
        const [args, hit] = undo(argsOf(c));
        if (hit) {
          setArgs(c, args);
          return `${c.function.name}: ${hit} -> ${back[hit]!}`;
        }
      }
    }
    return null;
  },
  'old tool name put back': (rec) => {
    const back = Object.fromEntries(Object.entries(renamedBy(rec, 'tools.rename')).map(([a, b]) => [b, a]));
    for (const m of rec.messages)
      for (const c of m.tool_calls ?? []) if (back[c.function.name]) return `${c.function.name} -> ${(c.function.name = back[c.function.name]!)}`;
    return null;
  },
  'user turn edited': (rec) => {
    const m = rec.messages.find((x) => x.role === 'user');
    if (!m) return null;
    m.content = `${m.content ?? ''} (edited)`;
    return 'user turn';
  },
  'last turn dropped': (rec) => (rec.messages.length > 2 ? (rec.messages.pop(), 'last message') : null),
};

/**
 * Augment's own checks (checkVariant, as produce.ts runs them) on one output record: the source
 * read and checked as augment read it, the record's state and plan rebuilt from the run.
 */
async function augmentChecks(c: Case, out: string, line: string): Promise<string[]> {
  const manifest = await readManifest(out);
  const rebuilder = c.harness ? await StateRebuilder.create(manifest, c.harness) : await StateRebuilder.createInline(manifest);
  const v = JSON.parse(line) as Json & SftRecord;
  const source = (await (await (sourceIndexes[c.sources] ??= SourceIndex.create([c.sources]))).get(v.meta.source_id))!;
  const harness = rebuilder.harnessOf(source.record)!;
  checkTrajectory(source.record, harness, { file: source.file, line: source.line, systemPrompt: rebuilder.systemPrompt });
  const rec = asTrajectory('sft', v)!;
  const layout = promptLayout(source.record.messages[0]);
  if (layout && rec.messages[0]?.role === 'system') setPromptLayout(rec.messages[0], layout);
  const variant = rebuilder.variantFor(v.meta, source.record)!;
  expect(variant, `${v.id}: state rebuilt`).toBeTruthy();
  return reportFailures(checkVariant(source.record, rec, variant.plan, harness, variant.state, { roundTrip: true, rules: true }));
}

const sourceIndexes: Record<string, Promise<SourceIndex>> = {};

/** The part with one line replaced, and the manifest's sha256 and bytes of it made to match, so only the record checks can tell. */
function replaceLine(out: string, file: string, index: number, line: string): void {
  const abs = path.join(out, file);
  const lines = readFileSync(abs, 'utf8').split('\n');
  lines[index] = line;
  const text = lines.join('\n');
  writeFileSync(abs, text);
  const manifestFile = path.join(out, 'manifest.json');
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as {
    stages: Record<string, { bytes: number; files: { file: string; bytes: number; sha256: string }[] }>;
  };
  for (const stage of Object.values(manifest.stages)) {
    for (const f of stage.files) {
      if (f.file !== file) continue;
      stage.bytes += Buffer.byteLength(text) - f.bytes;
      f.bytes = Buffer.byteLength(text);
      f.sha256 = createHash('sha256').update(text).digest('hex');
    }
  }
  writeFileSync(manifestFile, JSON.stringify(manifest, null, 2) + '\n');
}

/** One case: augment, verify sound, then one record mutated and rejected by both; returns the mutation tried. */
async function runCase(c: Case, seed: string): Promise<string> {
  const rng = createRng('one-verdict', 'mutate', seed, c.name);
  const out = path.join(c.dir, 'out');
  const run = await runHsaAsync([
    'augment',
    ...(c.harness ? ['--harness', c.harness] : []),
    '-t',
    c.sources,
    '-o',
    out,
    '-k',
    '3',
    '--seed',
    seed,
    '--no-gzip',
    ...c.args,
  ]);
  expect(run.code, `${c.name}: ${run.stderr}`).toBe(0);
  const manifest = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8')) as { totals: { variants_written: number; variants_rejected: number } };
  // The generator's records are all augmentable: a variant rejected here is a disagreement in itself.
  expect(manifest.totals.variants_rejected, `${c.name}: ${readFileSync(path.join(out, 'rejects', 'part-00000.jsonl'), 'utf8').slice(0, 600)}`).toBe(0);
  expect(manifest.totals.variants_written).toBeGreaterThan(0);
  const verdict = await runHsaAsync(verifyArgs(c, out));
  expect(verdict.code, `${c.name}: ${verdict.stdout}${verdict.stderr}`).toBe(0);
  expect(verdict.stderr).toMatch(/^sound: .*round trip to the sources/m);

  // One record's final bytes mutated: augment's checks and verify both reject it.
  const file = 'sft/part-00000.jsonl';
  const lines = readFileSync(path.join(out, file), 'utf8').split('\n');
  const candidates = lines.map((l, i) => [l, i] as const).filter(([l]) => l !== '' && !(JSON.parse(l) as SftRecord).id.endsWith('~src'));
  for (const [line, index] of rng.shuffle(candidates)) {
    for (const name of rng.shuffle(Object.keys(MUTATIONS))) {
      const rec = JSON.parse(line) as SftRecord;
      const what = MUTATIONS[name]!(rec, rng);
      if (what === null) continue;
      // The written record passes augment's checks as they run here (the harness of the test is augment's).
      expect(await augmentChecks(c, out, line), `${c.name}: written ${rec.id}`).toEqual([]);
      const mutated = JSON.stringify(rec);
      const copy = path.join(c.dir, 'mutated');
      cpSync(out, copy, { recursive: true });
      replaceLine(copy, file, index, mutated);
      const failures = await augmentChecks(c, copy, mutated);
      expect(failures.length, `${c.name}: ${name} (${what}) in ${rec.id}: augment's checks accept it`).toBeGreaterThan(0);
      const r = await runHsaAsync(verifyArgs(c, copy));
      expect(r.code, `${c.name}: ${name} (${what}) in ${rec.id}: verify says ${r.stdout}${r.stderr}`).toBe(1);
      expect(r.stdout + r.stderr).toContain(`${path.join(copy, file)}:${index + 1}: ${rec.id}: `);
      return name;
    }
  }
  throw new Error(`${c.name}: no record to mutate`);
}

describe('one verdict: what augment writes, verify accepts; what breaks preservation, both reject', () => {
  const seeds = ['1', '2'];
  const cases = async (seed: string): Promise<Case[]> => {
    const rng = createRng('one-verdict', seed);
    return [
      await folderCase(rng, `match${seed}`, false, []),
      await folderCase(rng, `locate${seed}`, true, seed === '1' ? ['--state-pool', '0'] : []),
      inlineCase(rng, `inline${seed}`, seed === '2' ? ['--state-pool', '0'] : []),
    ];
  };

  it.concurrent.each(seeds)(
    'seed %s: folder (match, locate) and inline harnesses with $ref schemas',
    async (seed) => {
      const tried = await Promise.all((await cases(seed)).map((c) => runCase(c, seed)));
      expect(new Set(tried).size).toBeGreaterThan(0);
    },
    120_000,
  );
});
