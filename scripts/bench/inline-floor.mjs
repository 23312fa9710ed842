// The floor of a per-record-tools variant (scripts/bench/inline-tools.mjs): what any rewrite-mode
// augment must do per output at least, and nothing else — read and JSON.parse the input line, and
// for each of the record's variants write an SFT line of the output's shape ({id, messages, tools,
// meta}): the parsed messages and the record's own tools re-stringified (every variant of an inline
// record has its own tool list, so nothing is shared between variants), meta.transforms spliced in
// as the bytes of a real output line. With `hash`, each variant also gets a state identity as hsa
// defines it: sha256 of the canonical JSON (src/util/canonical-json.ts, sorted keys) of the state's
// tools and system text — less than hsa's state holds, so still a lower bound. Measured like
// passthrough.mjs (main thread, CPU from inside the process).
// Usage: node scripts/bench/inline-floor.mjs <input.jsonl> <out.jsonl> <sample-sft-line.jsonl> [variants] [hash]
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { firstLines, timedLoop } from './bench-io.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const [input, output, sample, variantsArg, hashArg] = process.argv.slice(2);
const variants = Number(variantsArg ?? 4);
const withHash = hashArg === 'hash';
const { canonicalJson } = await import(pathToFileURL(path.join(ROOT, 'dist/src/util/canonical-json.js')).href);
const transformBytes = Buffer.from(JSON.stringify(JSON.parse(firstLines(sample, 1)[0]).meta.transforms), 'utf8');

let records = 0;
let outputs = 0;

function handle(line, sink) {
  const rec = JSON.parse(line);
  const system = rec.messages[0]?.role === 'system' ? rec.messages[0].content : '';
  for (let k = 0; k < variants; k++) {
    const tools = JSON.stringify(rec.tools);
    const hash = withHash
      ? createHash('sha256')
          .update(canonicalJson({ tools: rec.tools, system }))
          .digest('hex')
      : '';
    sink.text(
      `{"id":${JSON.stringify(`${rec.id}~v${k}`)},"messages":${JSON.stringify(rec.messages)},"tools":${tools},"meta":{"source_id":${JSON.stringify(rec.id)},"source_file":${JSON.stringify(input)},"source_line":${records + 1},"variant":${k},"transforms":`,
    );
    sink.bytes(transformBytes);
    sink.text(`,"harness":{"name":"inline","version":"0","state_hash":"${hash}"},"seed":"0"}}`);
    sink.newline();
    outputs++;
  }
  records++;
}

const m = timedLoop(input, output, handle);
process.stdout.write(`${JSON.stringify({ records, outputs, ...m })}\n`);
