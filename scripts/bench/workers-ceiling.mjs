// The workers' ceiling for scripts/bench.mjs (issue #26, deliverable 3): what two cores give work
// that shares nothing. The input is cut into two halves (by lines, at the middle record), and two
// independent pass-through processes (passthrough.mjs) run side by side, one per half, started
// together; the ceiling is their combined records/s (records ÷ the slower one's loop time) over one
// pass-through's records/s on the whole input, measured in the same run. `hsa augment --workers 2`
// ÷ `--workers 1` is then held to ≥ 0.9× that ceiling.
// Standalone: node scripts/bench/workers-ceiling.mjs <input.jsonl> [--runs N]
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const PASSTHROUGH = path.join(ROOT, 'scripts/bench/passthrough.mjs');
export const CEILING_SHARE = 0.9;

/** Writes the first and the second half of `input`'s lines to `a` and `b` (streamed; the input may exceed a string). */
export function splitHalves(input, a, b) {
  const count = (() => {
    const fd = openSync(input, 'r');
    const buf = Buffer.allocUnsafe(1 << 22);
    let n = 0;
    for (let got; (got = readSync(fd, buf, 0, buf.length, null)) > 0;) for (let i = buf.indexOf(10, 0); i !== -1 && i < got; i = buf.indexOf(10, i + 1)) n++;
    closeSync(fd);
    return n;
  })();
  const half = Math.ceil(count / 2);
  const fin = openSync(input, 'r');
  const outs = [openSync(a, 'w'), openSync(b, 'w')];
  const buf = Buffer.allocUnsafe(1 << 22);
  let line = 0;
  for (let got; (got = readSync(fin, buf, 0, buf.length, null)) > 0;) {
    let start = 0;
    while (start < got) {
      const target = line < half ? 0 : 1;
      let end = got;
      if (target === 0) {
        // bytes up to the newline that ends line `half`
        let i = start;
        for (; i < got; i++) if (buf[i] === 10 && ++line === half) break;
        end = i < got ? i + 1 : got;
      }
      writeSync(outs[target], buf, start, end - start);
      start = end;
    }
  }
  closeSync(fin);
  for (const fd of outs) closeSync(fd);
  return { records: count, half };
}

function passThroughAsync(input, output) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [PASSTHROUGH, input, output], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => {
      rmSync(output, { force: true });
      if (code !== 0) reject(new Error(`pass-through failed: ${err.slice(-300)}`));
      else resolve(JSON.parse(out.trim().split('\n').pop()));
    });
  });
}

/**
 * The ceiling on `input` (best of `runs` pairs, each pair next to a single pass-through on the
 * whole input): `{ ceiling, single, pair }`, the ceiling as a speed-up factor.
 */
export async function workersCeiling(input, { dir, runs = 2, log = () => {} }) {
  const a = path.join(dir, 'half-a.jsonl');
  const b = path.join(dir, 'half-b.jsonl');
  splitHalves(input, a, b);
  let best = null;
  for (let i = 0; i < runs; i++) {
    log(`workers ceiling: one pass-through, then two side by side (run ${i + 1}/${runs}) …`);
    const single = spawnSync(process.execPath, [PASSTHROUGH, input, path.join(dir, 'pt-whole.jsonl')], { cwd: ROOT, encoding: 'utf8' });
    rmSync(path.join(dir, 'pt-whole.jsonl'), { force: true });
    if (single.status !== 0) throw new Error(`pass-through failed: ${single.stderr.slice(-300)}`);
    const s = JSON.parse(single.stdout.trim().split('\n').pop());
    const [pa, pb] = await Promise.all([passThroughAsync(a, path.join(dir, 'pt-a.jsonl')), passThroughAsync(b, path.join(dir, 'pt-b.jsonl'))]);
    const pairRate = (pa.records + pb.records) / Math.max(pa.seconds, pb.seconds);
    const ceiling = pairRate / (s.records / s.seconds);
    if (!best || ceiling > best.ceiling) best = { ceiling, single: s, pair: [pa, pb] };
  }
  rmSync(a, { force: true });
  rmSync(b, { force: true });
  return best;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const argv = process.argv.slice(2);
  const runs = argv.includes('--runs') ? Number(argv[argv.indexOf('--runs') + 1]) : 2;
  const r = await workersCeiling(argv[0], { dir: path.dirname(path.resolve(argv[0])), runs, log: (l) => process.stderr.write(`${l}\n`) });
  process.stdout.write(`${JSON.stringify({ ceiling: r.ceiling, single_seconds: r.single.seconds, pair_seconds: r.pair.map((p) => p.seconds) })}\n`);
}
