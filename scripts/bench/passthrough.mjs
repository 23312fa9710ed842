// The pass-through baseline of scripts/bench.mjs: read JSONL in large chunks, split on '\n' by
// hand, decode each line on its own, JSON.parse + JSON.stringify it, write the result into a reused
// buffer that is flushed to `out`, and sha256 the output bytes. Main thread only (one core).
// Usage: node scripts/bench/passthrough.mjs <input.jsonl> <out.jsonl>  → one JSON line on stdout.
import { forEachLine, OutputSink } from './bench-io.mjs';

const [input, output] = process.argv.slice(2);

const t0 = process.hrtime.bigint();
const c0 = process.cpuUsage();
const sink = new OutputSink(output);
let records = 0;

function handle(line) {
  const s = JSON.stringify(JSON.parse(line));
  sink.reserve(s.length * 3 + 1); // worst case UTF-8 size of a UTF-16 string, and the newline
  sink.text(s);
  sink.newline();
  records++;
}

const bytesIn = forEachLine(input, handle);
const sha256 = sink.close();
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
const c1 = process.cpuUsage(c0);
const cpu_seconds = (c1.user + c1.system) / 1e6;
process.stdout.write(`${JSON.stringify({ records, bytes_in: bytesIn, bytes_out: sink.bytesOut, seconds, cpu_seconds, sha256 })}\n`);
