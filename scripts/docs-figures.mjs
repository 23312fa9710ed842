#!/usr/bin/env node
// node scripts/docs-figures.mjs [--check]: the demo figures of docs/export.md, regenerated.
// Runs the demo (hsa augment on fixtures/live-commerce into a temporary folder), exports it to every
// trainer format with the built-in Qwen3 tokenizer, reads each export-manifest.json and writes the
// figures between `<!-- demo-figures:begin -->` and `<!-- demo-figures:end -->` in docs/export.md.
// --check: write nothing, exit 1 when the docs differ from what the current demo gives.
// Needs the built CLI (npx tsc -p tsconfig.json).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const doc = path.join(repo, 'docs', 'export.md');
const BEGIN = '<!-- demo-figures:begin -->';
const END = '<!-- demo-figures:end -->';
const check = process.argv.includes('--check');

const work = mkdtempSync(path.join(tmpdir(), 'hsa-figures-'));
const hsa = (args) => {
  const r = spawnSync(process.execPath, [path.join(repo, 'bin', 'hsa'), ...args], { cwd: repo, encoding: 'utf8' });
  if (r.status !== 0) {
    process.stderr.write(`hsa ${args.join(' ')} exited ${r.status}\n${r.stderr}`);
    process.exit(1);
  }
  return r;
};

try {
  const demo = path.join(work, 'demo');
  hsa(['augment', '--config', 'fixtures/live-commerce/hsa.yaml', '--out', demo, '--force', '-q', '--max-tokens', '1000000']);
  const source = JSON.parse(readFileSync(path.join(demo, 'manifest.json'), 'utf8'));
  const exports = [
    ['verl-sft', []],
    ['verl-rl', []],
    ['llamafactory', []],
    ['llamafactory', ['--merge-turns']],
    ['swift', []],
    ['swift', ['--merge-turns']],
    ['trl', []],
  ];
  const rows = [];
  for (const [format, extra] of exports) {
    const out = path.join(work, `${format}${extra.join('')}`);
    const tokens = format === 'verl-rl' ? [] : ['--tokenizer', 'qwen3'];
    hsa(['export', demo, '--to', format, '--out', out, '-q', ...tokens, ...extra]);
    rows.push({ format, extra, m: JSON.parse(readFileSync(path.join(out, 'export-manifest.json'), 'utf8')) });
  }
  const n = (x) => Number(x).toLocaleString('en-US');
  const range = (t) => (t ? `${n(t.min)}–${n(t.max)} (p50 ${n(t.p50)}, p95 ${n(t.p95)})` : '—');
  const skips = (m) =>
    Object.entries(m.skips ?? {})
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .map(([k, v]) => `${n(v)} ${k}`)
      .join('; ') || '—';
  const lines = [];
  const sft = source.tokens?.stages?.sft;
  lines.push(
    `Demo (\`npm run demo\`, hsa ${source.hsa_version ?? '?'}): ${n(source.stages.sft.records)} SFT records, ${n(source.stages.opd.records)} OPD prompts, ${n(source.stages.rl.records)} RL rows; ` +
      `SFT records as Qwen3's chat template renders them: ${range(sft)} tokens.`,
    '',
    '| export | read | written | skipped, by reason | tokens the trainer encodes: min–max (p50, p95) | notes |',
    '|---|---|---|---|---|---|',
  );
  for (const { format, extra, m } of rows) {
    const notes = [];
    if (m.merged_turns)
      notes.push(
        `${n(m.merged_turns.records)} records joined: ${n(m.merged_turns.user_turns_joined)} user turns joined, ${n(m.merged_turns.system_as_user)} system messages as user turns`,
      );
    if (m.tokens_counted_as) notes.push(`counted as ${m.tokens_counted_as.split(':')[0]}`);
    if (Array.isArray(m.groups)) notes.push(`${n(m.groups.length)} tool group(s)`);
    if (m.nested_parameters !== undefined) notes.push(`${n(m.nested_parameters)} nested parameter(s) warned`);
    const fields = Object.keys(m.dropped_fields ?? {}).sort();
    if (fields.length) notes.push(`fields not carried: ${fields.map((f) => `\`${f}\``).join(', ')}`);
    lines.push(
      `| \`--to ${format}${extra.length ? ` ${extra.join(' ')}` : ''}\` | ${n(m.counts.read)} | ${n(m.counts.written)} | ${skips(m)} | ${range(m.tokens?.[m.stage])} | ${notes.join('; ') || '—'} |`,
    );
  }
  const block = `${BEGIN}\n${lines.join('\n')}\n${END}`;
  const text = readFileSync(doc, 'utf8');
  const at = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (at === -1 || end === -1) {
    process.stderr.write(`${doc}: the markers ${BEGIN} … ${END} are missing\n`);
    process.exit(1);
  }
  const next = text.slice(0, at) + block + text.slice(end + END.length);
  if (check) {
    if (next !== text) {
      process.stderr.write(`${doc}: the demo figures are out of date; run node scripts/docs-figures.mjs\n`);
      process.exit(1);
    }
  } else if (next !== text) writeFileSync(doc, next);
  process.stdout.write(`${block}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
