// The floor of a fixture-shaped variant (scripts/bench/fixture-shape.mjs): what any rewrite-mode
// augment must do per record at least, and nothing else — read and JSON.parse the input line,
// write an SFT line of the output's shape ({id, messages, tools, meta}: the parsed messages
// re-stringified, the tool list and meta.transforms spliced in as bytes encoded once, as hsa does),
// sha256 the output bytes and write them. Measured like passthrough.mjs (main thread, CPU from
// inside the process), so `records / cpu_seconds` compares directly with the pass-through's.
// Usage: node scripts/bench/fixture-floor.mjs <input.jsonl> <out.jsonl> <sample-sft-line.jsonl> [variants]
import { firstLines, timedLoop } from './bench-io.mjs';

const [input, output, sample, variantsArg] = process.argv.slice(2);
const variants = Number(variantsArg ?? 1);
// A real output line (the first of an SFT part) gives the shared parts their real size.
const model = JSON.parse(firstLines(sample, 1)[0]);
const toolBytes = Buffer.from(JSON.stringify(model.tools), 'utf8');
const transformBytes = Buffer.from(JSON.stringify(model.meta.transforms), 'utf8');
const harnessJson = JSON.stringify(model.meta.harness);

let records = 0;
let outputs = 0;

function handle(line, sink) {
  const rec = JSON.parse(line);
  for (let k = 0; k < variants; k++) {
    sink.text(`{"id":${JSON.stringify(`${rec.id}~v${k}`)},"messages":${JSON.stringify(rec.messages)},"tools":`);
    sink.bytes(toolBytes);
    sink.text(
      `,"meta":{"source_id":${JSON.stringify(rec.id)},"source_file":${JSON.stringify(input)},"source_line":${records + 1},"variant":${k},"transforms":`,
    );
    sink.bytes(transformBytes);
    sink.text(`,"harness":${harnessJson},"seed":"0"}}\n`);
    outputs++;
  }
  records++;
}

const m = timedLoop(input, output, handle);
process.stdout.write(`${JSON.stringify({ records, outputs, ...m })}\n`);
