// The pass-through baseline of scripts/bench.mjs: read JSONL in large chunks, split on '\n' by
// hand, decode each line on its own, JSON.parse + JSON.stringify it, write the result into a reused
// buffer that is flushed to `out`, and sha256 the output bytes. Main thread only (one core).
// Usage: node scripts/bench/passthrough.mjs <input.jsonl> <out.jsonl>  → one JSON line on stdout.
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync, writeSync } from 'node:fs';

const [input, output] = process.argv.slice(2);
const IN_CHUNK = 4 << 20;
const OUT_CHUNK = 8 << 20;

const t0 = process.hrtime.bigint();
const c0 = process.cpuUsage();
const fin = openSync(input, 'r');
const fout = openSync(output, 'w');
const hash = createHash('sha256');
let inBuf = Buffer.allocUnsafe(IN_CHUNK);
let end = 0; // bytes of inBuf holding data
let outBuf = Buffer.allocUnsafe(OUT_CHUNK);
let outPos = 0;
let records = 0;
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

function handle(line) {
  const s = JSON.stringify(JSON.parse(line));
  const need = s.length * 3 + 1; // worst case UTF-8 size of a UTF-16 string
  if (outPos + need > outBuf.length) {
    flush();
    if (need > outBuf.length) outBuf = Buffer.allocUnsafe(need);
  }
  outPos += outBuf.write(s, outPos, 'utf8');
  outBuf[outPos++] = 10;
  records++;
}

for (;;) {
  if (end === inBuf.length) {
    // one line longer than the buffer: grow it
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
process.stdout.write(`${JSON.stringify({ records, bytes_in: bytesIn, bytes_out: bytesOut, seconds, cpu_seconds, sha256: hash.digest('hex') })}\n`);
