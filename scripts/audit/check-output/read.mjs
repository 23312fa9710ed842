// The checker's own readers: arguments, JSONL files, part files (plain or gzip), the harness folder.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import YAML from 'yaml';

export function parseArgs(argv) {
  const o = { sources: [], json: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--out') o.out = argv[++i];
    else if (a === '--harness') o.harness = argv[++i];
    else if (a === '--json') o.json = true;
    else if (a === '--sources') {
      while (argv[i + 1] && !argv[i + 1].startsWith('--')) o.sources.push(argv[++i]);
    } else throw new Error(`unknown argument ${a}`);
  }
  if (!o.out || o.sources.length === 0) throw new Error('usage: check-output.mjs --out OUT --sources traj.jsonl... [--harness DIR] [--json]');
  return o;
}

export function readJsonl(file) {
  let buf = readFileSync(file);
  if (file.endsWith('.gz')) buf = gunzipSync(buf);
  return buf
    .toString('utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}

export function partFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => /\.jsonl(\.gz)?$/.test(f))
    .sort()
    .map((f) => join(dir, f));
}

// ---- harness folder (only what the checks need: tools, loader, unordered sections) ----
export function readHarness(dir) {
  const doc = YAML.parse(readFileSync(join(dir, 'harness.yaml'), 'utf8')) ?? {};
  const tools = [];
  const sources =
    doc.tools?.sources ??
    (existsSync(join(dir, 'tools'))
      ? readdirSync(join(dir, 'tools'))
          .sort()
          .map((f) => `tools/${f}`)
      : []);
  for (const s of sources) {
    const text = readFileSync(join(dir, s), 'utf8');
    let v = s.endsWith('.json') ? JSON.parse(text) : YAML.parse(text);
    if (v?.result?.tools) v = v.result.tools;
    else if (v?.tools) v = v.tools;
    for (const t of Array.isArray(v) ? v : [v]) tools.push(t.function ? t.function.name : t.name);
  }
  return { tools, loader: doc.skills?.loader ?? null, unordered: doc.prompt?.unordered ?? [], unorderedSkills: doc.skills?.unordered_lists ?? [] };
}
