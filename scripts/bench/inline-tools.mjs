// Per-record tools for scripts/bench.mjs: every record carries its own tool list (3–20 tools, no two
// records alike) and its own system message, so `hsa augment` without --harness derives a harness
// (and samples its states) for every record. Measures it against the pass-through on the same input.
// Standalone: node scripts/bench/inline-tools.mjs [--records N] [--seed S]   (default 10,000 records)
//
// How fair the ratio is: the pass-through's rate is taken inside its process (records ÷ the time of
// its read-parse-write loop), hsa's from outside (output records ÷ the wall time of the whole
// process: start, module loading, word packs, the manifest), so every fixed cost counts against
// hsa. At 2,000 records (~10 MB, the earlier default) the pass-through's loop takes a fifth of a
// second, and hsa's start alone (~0.3 s of CPU) would be a large share of its budget; public
// function-calling sets are 10^4–10^5 records, so the default is 10,000 (~47 MB), where start-up is
// what it is for a user's run. The ratio is computed as before; hsa's `--version` start (CPU) is
// reported on its own row so the fixed cost stays visible. The floor row (inline-floor.mjs) is what
// writing outputs of this shape costs with no hsa work at all, without and with a state identity.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import seedrandom from 'seedrandom';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const WORDS = ['order', 'invoice', 'ticket', 'flight', 'seat', 'parcel', 'refund', 'account', 'device', 'room', 'claim', 'shift', 'meter', 'route', 'quote'];
const VERBS = ['get', 'list', 'create', 'update', 'cancel', 'check', 'send', 'find', 'book', 'close'];
const PARAMS = ['id', 'email', 'reason', 'count', 'date', 'amount', 'note', 'priority', 'channel', 'city'];

/** A deterministic input of `records` lines, each with its own tools; returns its path and byte size. */
export function writeInlineInput(file, records, seed) {
  const rng = seedrandom(`${seed}/inline-tools`);
  const int = (lo, hi) => lo + Math.floor(rng() * (hi - lo + 1));
  const pick = (a) => a[int(0, a.length - 1)];
  const lines = [];
  for (let i = 0; i < records; i++) {
    const names = new Set();
    const n = int(3, 20);
    while (names.size < n) names.add(`${pick(VERBS)}_${pick(WORDS)}${rng() < 0.5 ? `_${int(2, 99)}` : ''}`);
    const tools = [...names].map((name) => {
      const props = {};
      const keys = [...new Set(Array.from({ length: int(1, 5) }, () => pick(PARAMS)))];
      for (const k of keys) props[k] = k === 'count' || k === 'priority' ? { type: 'integer', minimum: 0 } : { type: 'string', description: `The ${k}.` };
      return { type: 'function', function: { name, description: `${name.replace(/_/g, ' ')} for the caller.`, parameters: { type: 'object', properties: props, required: keys.slice(0, 1) } } };
    });
    const messages = [{ role: 'system', content: `You are assistant #${i}. Use the tools listed; call ${tools[0].function.name} before anything else.\n\n- Be brief.\n- Confirm changes.` }];
    for (let t = 0; t < int(1, 3); t++) {
      messages.push({ role: 'user', content: `Request ${t} of customer ${int(1000, 9999)}: please help with my ${pick(WORDS)}.` });
      const calls = Array.from({ length: int(1, 3) }, (_, k) => {
        const tool = pick(tools).function;
        const args = {};
        for (const [k2, s] of Object.entries(tool.parameters.properties)) args[k2] = s.type === 'integer' ? int(0, 9) : `v-${int(1, 999)}`;
        return { id: `call_${i}_${t}_${k}`, type: 'function', function: { name: tool.name, arguments: JSON.stringify(args) } };
      });
      messages.push({ role: 'assistant', content: '', tool_calls: calls });
      for (const c of calls) messages.push({ role: 'tool', tool_call_id: c.id, content: JSON.stringify({ ok: true, ref: `R-${int(1, 99999)}` }) });
      messages.push({ role: 'assistant', content: `Done with ${calls[0].function.name}: your request is handled.` });
    }
    lines.push(JSON.stringify({ id: `r${i}`, tools, messages }));
  }
  const text = `${lines.join('\n')}\n`;
  writeFileSync(file, text);
  return { file, bytes: Buffer.byteLength(text), records };
}

/** Run `node --import rss-preload bin/hsa …`: wall time, and CPU time from the preload's file. */
function run(args, cpuFile) {
  rmSync(cpuFile, { force: true });
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, ['--import', path.join(ROOT, 'scripts/bench/rss-preload.mjs'), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HSA_BENCH_RSS_FILE: cpuFile } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err = (err + d).slice(-4000)));
    child.on('close', (code) => {
      let cpu = null;
      try {
        const u = JSON.parse(readFileSync(cpuFile, 'utf8'));
        cpu = (u.user_us + u.system_us) / 1e6;
      } catch {
        /* reported without the CPU ratio */
      }
      resolve({ code, out, err, cpu, wall: Number(process.hrtime.bigint() - t0) / 1e9 });
    });
  });
}

/** The default size of the input (see the header). */
export const DEFAULT_RECORDS = 10000;

/** Rows `[measurement, result, target, status]` for the report of scripts/bench.mjs. */
export async function inlineToolsRows({ data, seed = 'hsa-bench-v1', records = DEFAULT_RECORDS, log = () => {} }) {
  mkdirSync(data, { recursive: true });
  const input = writeInlineInput(path.join(data, 'input-inline-tools.jsonl'), records, seed);
  log(`per-record tools: ${records} records, ${(input.bytes / 2 ** 20).toFixed(1)} MB …`);
  const ptOut = path.join(data, 'passthrough-inline.jsonl');
  const pt = spawnSync(process.execPath, [path.join(ROOT, 'scripts/bench/passthrough.mjs'), input.file, ptOut], { encoding: 'utf8' });
  rmSync(ptOut, { force: true });
  if (pt.status !== 0) return [['per-record tools', `pass-through FAILED: ${pt.stderr.slice(-300)}`, '', 'MISSED']];
  const p = JSON.parse(pt.stdout.trim().split('\n').pop());
  const out = path.join(data, 'out-inline-tools');
  const r = await run([path.join(ROOT, 'bin/hsa'), 'augment', '-t', input.file, '-o', out, '--force', '--stages', 'sft', '-q'], path.join(data, '.cpu-inline-tools.json'));
  if (r.code !== 0) return [['per-record tools', `augment FAILED: ${r.err.slice(-300)}`, '', 'MISSED']];
  const start = await run([path.join(ROOT, 'bin/hsa'), '--version'], path.join(data, '.cpu-inline-start.json'));
  const manifest = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8'));
  const written = manifest.totals.variants_written;
  const ratio = written / r.wall / (p.records / p.seconds);
  // The floor (inline-floor.mjs): parse + output-shaped SFT lines with each variant's own tool
  // list, then the same with a canonical-JSON + sha256 state identity per variant.
  const floor = (hash) => {
    const f = spawnSync(process.execPath, [path.join(ROOT, 'scripts/bench/inline-floor.mjs'), input.file, path.join(data, 'floor-inline.jsonl'), path.join(out, 'sft', 'part-00000.jsonl'), String(manifest.config.variants), hash ? 'hash' : 'plain'], { encoding: 'utf8' });
    rmSync(path.join(data, 'floor-inline.jsonl'), { force: true });
    return f.status === 0 ? JSON.parse(f.stdout.trim().split('\n').pop()) : null;
  };
  const [f0, fh] = [floor(false), floor(true)];
  const floorCell = (f) => (f ? `${(f.outputs / f.seconds / (p.records / p.seconds)).toFixed(2)}× (per CPU-second ${(f.outputs / f.cpu_seconds / (p.records / p.cpu_seconds)).toFixed(2)}×)` : 'FAILED');
  return [
    [`(per-record tools) pass-through, ${records} records with their own 3–20 tools`, `${Math.round(p.records / p.seconds)} records/s (CPU ${p.cpu_seconds.toFixed(3)} s)`, '', ''],
    ['(per-record tools) augment, inline harnesses, defaults', `${Math.round(written / r.wall)} output records/s (${written} written, ${manifest.totals.variants_rejected} rejected; wall ${r.wall.toFixed(2)} s${r.cpu ? `, CPU ${r.cpu.toFixed(2)} s` : ''})`, '', ''],
    ['(per-record tools) hsa start-up (`hsa --version`), counted in the wall above', `${start.wall.toFixed(2)} s wall${start.cpu ? `, ${start.cpu.toFixed(2)} s CPU` : ''}`, '', ''],
    ['(per-record tools) floor: parse + output-shaped SFT lines, each variant its own tools, ÷ pass-through', `${floorCell(f0)}; with a canonical-JSON + sha256 state identity per variant ${floorCell(fh)}`, '', ''],
    ['(per-record tools) augment ÷ pass-through (records/s)', `${ratio.toFixed(3)}${r.cpu ? ` (per CPU-second: ${(written / r.cpu / (p.records / p.cpu_seconds)).toFixed(3)})` : ''}`, '≥ 0.3', ratio >= 0.3 ? 'ok' : 'MISSED'],
  ];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const argv = process.argv.slice(2);
  const opt = (n, d) => (argv.includes(n) ? argv[argv.indexOf(n) + 1] : d);
  const rows = await inlineToolsRows({ data: path.join(ROOT, 'bench-data'), seed: opt('--seed', 'hsa-bench-v1'), records: Number(opt('--records', DEFAULT_RECORDS)), log: (l) => process.stderr.write(`${l}\n`) });
  for (const row of rows) process.stdout.write(`| ${row.join(' | ')} |\n`);
}
