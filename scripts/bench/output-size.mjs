// Output size for scripts/bench.mjs (issue #26, item 4): a harness of 128 tools and 200 multi-turn
// conversations (~0.9 MB, 4–8 assistant turns each), augmented at `-k 8` with every stage, once as
// the engine wrote it before OPD prompt selection and default gzip (`opd.prompts: all`, `--no-gzip`:
// every prefix of every variant, each repeating the 128-tool list) and once with the defaults. The
// figure is the defaults' bytes as a share of the old behaviour's, measured side by side in one
// run (target ≤ 15%), plus bytes written per input byte for each (the manifest's summary figure).
//
// The input is generated here (seedrandom, fixed seed; no clock, no Math.random): a minimal harness
// folder (harness.yaml, one prompt file, tools/tools.json) whose rendered system prompt is the
// prompt file, and conversations whose every call names a tool of the set with arguments built
// from its schema. Another domain than live commerce: an IT-operations desk.
//
// Standalone: node scripts/bench/output-size.mjs [--data DIR] [--keep]   (dist/ must be built)
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import seedrandom from 'seedrandom';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const TARGET_SHARE = 0.15;
const TOOLS = 128;
const CONVERSATIONS = 200;
const VARIANTS = 8;

const AREAS = [
  'server',
  'volume',
  'backup',
  'cert',
  'dns_zone',
  'vpn_peer',
  'queue',
  'cluster',
  'bucket',
  'firewall_rule',
  'user_group',
  'pipeline',
  'alert',
  'runbook',
  'license',
  'printer',
];
const VERBS = ['get', 'list', 'restart', 'resize', 'rotate', 'pause'];
const TYPES = ['string', 'integer', 'boolean'];
const FIELDS = ['region', 'reason', 'ticket_ref', 'window_minutes', 'dry_run', 'owner_email', 'priority', 'label', 'target_size_gb', 'notify'];

/** The harness folder and trajectories (written under `dir`); returns their paths and the input's size. */
export function writeOutputSizeInput(dir, seed = 'hsa-output-size-v1', conversations = CONVERSATIONS) {
  const rng = seedrandom(seed);
  const int = (lo, hi) => lo + Math.floor(rng() * (hi - lo + 1));
  const pick = (a) => a[int(0, a.length - 1)];
  const harness = path.join(dir, 'harness');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.join(harness, 'prompt'), { recursive: true });
  mkdirSync(path.join(harness, 'tools'), { recursive: true });
  writeFileSync(path.join(harness, 'harness.yaml'), 'name: ops-desk\nversion: "5.2.0"\n');
  const policy =
    "# Operations desk\n\nYou help engineers operate the company's infrastructure. Look things up with the tools before you answer; never guess a status.\n\n## Rules\n\n- Confirm the target before you change anything.\n- Quote the ticket reference back when you change a resource.\n- Prefer a dry run when the engineer is unsure.";
  writeFileSync(path.join(harness, 'prompt', 'policy.md'), `${policy}\n`);
  const tools = [];
  for (const area of AREAS)
    for (const verb of VERBS.slice(0, TOOLS / AREAS.length)) {
      const name = `${verb}_${area}`;
      const props = {
        [`${area}_id`]: {
          type: 'string',
          description: `Identifier of the ${area.replace(/_/g, ' ')} (as shown in the inventory, e.g. ${area.slice(0, 3)}-0042).`,
        },
      };
      for (const f of [...new Set(Array.from({ length: int(2, 5) }, () => pick(FIELDS)))]) {
        const type =
          f === 'dry_run' || f === 'notify'
            ? 'boolean'
            : f === 'window_minutes' || f === 'target_size_gb' || f === 'priority'
              ? 'integer'
              : pick(TYPES.slice(0, 1));
        props[f] = { type, description: `The ${f.replace(/_/g, ' ')} for this ${verb} request; see the operations handbook, section ${int(1, 40)}.` };
      }
      tools.push({
        type: 'function',
        function: {
          name,
          description: `${verb[0].toUpperCase()}${verb.slice(1)} a ${area.replace(/_/g, ' ')}. Use it when the engineer asks to ${verb} one; it returns the resource's state after the request, with timestamps in UTC.`,
          parameters: { type: 'object', properties: props, required: [`${area}_id`] },
        },
      });
    }
  writeFileSync(path.join(harness, 'tools', 'tools.json'), `${JSON.stringify(tools, null, 2)}\n`);
  const lines = [];
  for (let i = 0; i < conversations; i++) {
    const messages = [{ role: 'system', content: policy }];
    for (let t = 0, turns = int(2, 4); t < turns; t++) {
      messages.push({
        role: 'user',
        content: `Ticket OPS-${int(1000, 9999)}: can you take care of item ${t + 1} on my list, the one we discussed this morning?`,
      });
      for (let c = 0, calls = int(1, 2); c < calls; c++) {
        const fn = pick(tools).function;
        const args = {};
        for (const [k, s] of Object.entries(fn.parameters.properties))
          args[k] = s.type === 'integer' ? int(1, 120) : s.type === 'boolean' ? rng() < 0.5 : `${k.slice(0, 3)}-${int(1, 9999)}`;
        const id = `call_${i}_${t}_${c}`;
        messages.push({ role: 'assistant', content: '', tool_calls: [{ id, type: 'function', function: { name: fn.name, arguments: JSON.stringify(args) } }] });
        messages.push({
          role: 'tool',
          tool_call_id: id,
          content: JSON.stringify({
            ok: true,
            state: pick(['running', 'paused', 'degraded', 'ready']),
            changed_at: `2026-0${int(1, 9)}-1${int(0, 9)}T0${int(0, 9)}:00:00Z`,
            ref: `R-${int(1, 99999)}`,
          }),
        });
      }
      messages.push({ role: 'assistant', content: `Done: the request is applied and the ticket is updated (reference R-${int(1, 99999)}).` });
    }
    lines.push(JSON.stringify({ id: `ops-${String(i).padStart(4, '0')}`, harness: { name: 'ops-desk', version: '5.2.0' }, messages }));
  }
  const trajectories = path.join(dir, 'trajectories.jsonl');
  writeFileSync(trajectories, `${lines.join('\n')}\n`);
  return { harness, trajectories, bytes: statSync(trajectories).size, records: conversations };
}

/** Run `hsa augment` into `out`; its manifest, or an error. */
function augment(input, out, extra) {
  rmSync(out, { recursive: true, force: true });
  const r = spawnSync(
    process.execPath,
    [
      path.join(ROOT, 'bin/hsa'),
      'augment',
      '--harness',
      input.harness,
      '--trajectories',
      input.trajectories,
      '--out',
      out,
      '-k',
      String(VARIANTS),
      '--quiet',
      ...extra,
    ],
    { encoding: 'utf8', maxBuffer: 64 << 20 },
  );
  if (r.status !== 0) return { error: `hsa augment ${extra.join(' ')}: exit ${r.status}\n${r.stderr}` };
  return { manifest: JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8')) };
}

/** Bytes of every part of a run (all stages and rejects), from its manifest. */
function bytesOf(manifest) {
  return Object.values(manifest.stages).reduce((n, s) => n + s.bytes, 0);
}

/** Rows for the bench table: `[measurement, result, target, verdict]`. */
export function outputSizeRows({ data, log = () => undefined, errors = [], keep = false }) {
  const dir = path.join(data, 'output-size');
  const input = writeOutputSizeInput(dir);
  const f2 = (x) => x.toFixed(2);
  log(`output size: augment -k ${VARIANTS} on ${input.records} conversations of a ${TOOLS}-tool harness, old behaviour then defaults …`);
  // The old behaviour: every prefix as an OPD prompt, plain parts.
  const oldConfig = path.join(dir, 'old.yaml');
  writeFileSync(oldConfig, 'opd:\n  prompts: all\ngzip: false\n');
  const before = augment(input, path.join(dir, 'out-old'), ['--config', oldConfig]);
  const after = augment(input, path.join(dir, 'out-defaults'), []);
  if (!keep) {
    rmSync(path.join(dir, 'out-old'), { recursive: true, force: true });
    rmSync(path.join(dir, 'out-defaults'), { recursive: true, force: true });
  }
  for (const r of [before, after]) if (r.error) errors.push(r.error);
  if (before.error || after.error)
    return [['output size (128 tools, -k 8)', 'FAILED (see below)', `≤ ${TARGET_SHARE * 100}% of every-prefix plain bytes`, 'MISSED']];
  const old = bytesOf(before.manifest);
  const now = bytesOf(after.manifest);
  const share = now / old;
  const mb = (b) => `${(b / 2 ** 20).toFixed(1)} MB`;
  const stages = (m) => ['sft', 'opd', 'rl'].map((s) => `${s} ${mb(m.stages[s]?.bytes ?? 0)}`).join(', ');
  return [
    [
      `output size, ${TOOLS}-tool harness, ${input.records} multi-turn conversations (${mb(input.bytes)}), -k ${VARIANTS}, all stages: defaults ÷ every OPD prefix unpacked`,
      `${(100 * share).toFixed(1)}% (${mb(now)} of ${mb(old)})`,
      `≤ ${TARGET_SHARE * 100}%`,
      share <= TARGET_SHARE ? 'ok' : 'MISSED',
    ],
    [
      '(info) output bytes per input byte: every prefix unpacked / defaults (manifest summary)',
      `${f2(before.manifest.summary.bytes_per_input_byte)} / ${f2(after.manifest.summary.bytes_per_input_byte)}`,
      '',
      '',
    ],
    ['(info) by stage: every prefix unpacked / defaults', `${stages(before.manifest)} / ${stages(after.manifest)}`, '', ''],
  ];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const argv = process.argv.slice(2);
  const data = argv.includes('--data') ? argv[argv.indexOf('--data') + 1] : path.join(ROOT, 'bench-data');
  const errors = [];
  const rows = outputSizeRows({ data, log: (l) => process.stderr.write(`${l}\n`), errors, keep: argv.includes('--keep') });
  for (const r of rows) process.stdout.write(`| ${r.join(' | ')} |\n`);
  for (const e of errors) process.stderr.write(`${e}\n`);
  process.exitCode = errors.length ? 1 : 0;
}
