// The floor of a fixture-shaped variant (scripts/bench/fixture-shape.mjs): what any rewrite-mode
// augment must do per record at least, and nothing else — read and JSON.parse the input line,
// write an SFT line of the output's shape ({id, messages, tools, meta}: the parsed messages
// re-stringified, the tool list and meta.transforms spliced in as bytes encoded once, as hsa does),
// sha256 the output bytes and write them. Measured like passthrough.mjs (main thread, CPU from
// inside the process), so `records / cpu_seconds` compares directly with the pass-through's.
// Usage: node scripts/bench/fixture-floor.mjs <input.jsonl> <out.jsonl> <sample-sft-line.jsonl> [variants]
import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';

const [input, output, sample, variantsArg] = process.argv.slice(2);
const variants = Number(variantsArg ?? 1);
// A real output line gives the shared parts their real size.
const model = JSON.parse(readFileSync(sample, 'utf8').split('\n')[0]);
const toolBytes = Buffer.from(JSON.stringify(model.tools), 'utf8');
const transformBytes = Buffer.from(JSON.stringify(model.meta.transforms), 'utf8');
const harnessJson = JSON.stringify(model.meta.harness);
const IN_CHUNK = 4 << 20;
const OUT_CHUNK = 8 << 20;

const t0 = process.hrtime.bigint();
const c0 = process.cpuUsage();
const fin = openSync(input, 'r');
const fout = openSync(output, 'w');
const hash = createHash('sha256');
let inBuf = Buffer.allocUnsafe(IN_CHUNK);
let end = 0;
const outBuf = Buffer.allocUnsafe(OUT_CHUNK);
let outPos = 0;
let records = 0;
let outputs = 0;
let bytesIn = 0;
let bytesOut = 0;

function flush() {
  if (outPos === 0) return;
  const view = outBuf.subarray(0, outPos);
  hash.update(view);
  let off = 0;
  while (off < outPos) off += writeSync(fout, view, off, outPos - off);
  bytesOut += outPos;
  outPos = 0;
}

function put(s) {
  if (outPos + s.length * 3 > outBuf.length) flush();
  outPos += outBuf.write(s, outPos, 'utf8');
}

function putBytes(b) {
  if (outPos + b.length > outBuf.length) flush();
  b.copy(outBuf, outPos);
  outPos += b.length;
}

function handle(line) {
  const rec = JSON.parse(line);
  for (let k = 0; k < variants; k++) {
    put(`{"id":${JSON.stringify(`${rec.id}~v${k}`)},"messages":${JSON.stringify(rec.messages)},"tools":`);
    putBytes(toolBytes);
    put(`,"meta":{"source_id":${JSON.stringify(rec.id)},"source_file":${JSON.stringify(input)},"source_line":${records + 1},"variant":${k},"transforms":`);
    putBytes(transformBytes);
    put(`,"harness":${harnessJson},"seed":"0"}}\n`);
    outputs++;
  }
  records++;
}

for (;;) {
  if (end === inBuf.length) {
    const bigger = Buffer.allocUnsafe(inBuf.length * 2);
    inBuf.copy(bigger, 0, 0, end);
    inBuf = bigger;
  }
  const n = readSync(fin, inBuf, end, inBuf.length - end, null);
  if (n === 0) break;
  bytesIn += n;
  end += n;
  const view = inBuf.subarray(0, end);
  let start = 0;
  let nl;
  while ((nl = view.indexOf(10, start)) !== -1) {
    if (nl > start) handle(view.toString('utf8', start, nl));
    start = nl + 1;
  }
  if (start > 0) {
    inBuf.copy(inBuf, 0, start, end);
    end -= start;
  }
}
if (end > 0) handle(inBuf.toString('utf8', 0, end));
flush();
closeSync(fin);
closeSync(fout);
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
const c1 = process.cpuUsage(c0);
const cpu_seconds = (c1.user + c1.system) / 1e6;
process.stdout.write(`${JSON.stringify({ records, outputs, bytes_in: bytesIn, bytes_out: bytesOut, seconds, cpu_seconds })}\n`);
