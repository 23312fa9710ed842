// The import-graph check of issue #25: no circles between files, no folder importing a folder
// above it in ARCHITECTURE.md's layering, no source file of 450 lines or more, and every path
// ARCHITECTURE.md names exists.
//
// Hand-rolled on purpose: madge and dependency-cruiser parse TypeScript through the TypeScript
// JS API, which TS 7 (the native compiler this repo builds with) does not ship, or need a newer
// Node than the Node 20 we run on. Imports here are ESM with explicit relative specifiers, so a
// regex over the source finds every edge that matters.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const MAX_LINES = 450;

/** Relative specifiers a module reads: `import … from`, `import '…'`, `export … from`, `import('…')`. */
function relativeImports(source: string): string[] {
  const code = stripComments(source);
  const found: string[] = [];
  const patterns = [/^\s*(?:import|export)\s[^;'"]*?\bfrom\s*['"]([^'"]+)['"]/gm, /^\s*import\s*['"]([^'"]+)['"]/gm, /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g];
  for (const pattern of patterns) {
    for (const match of code.matchAll(pattern)) {
      const spec = match[1]!;
      if (spec.startsWith('./') || spec.startsWith('../')) found.push(spec);
    }
  }
  return found;
}

// Comments only: string contents are kept, so an import inside a template string would count —
// none exists, and a false edge fails loudly rather than hiding a real one.
function stripComments(source: string): string {
  return source.replace(/^\s*\/\*[\s\S]*?\*\//gm, '').replace(/^\s*\/\/.*$/gm, '');
}

/** Every file → the files it imports (repo-relative, `/`-separated, `.js` specifiers mapped to `.ts`). */
function buildGraph(files: Map<string, string>): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const [file, source] of files) {
    const targets = relativeImports(source).map((spec) => {
      const joined = join(dirname(file), spec).split(sep).join('/');
      const asTs = joined.replace(/\.js$/, '.ts');
      return files.has(asTs) ? asTs : joined;
    });
    graph.set(file, [...new Set(targets)].sort());
  }
  return graph;
}

/** Each import circle once, as the file path around it (first file repeated at the end). */
function findCycles(graph: Map<string, string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      const seen = state.get(next);
      if (seen === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (seen === undefined) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

/** The layer unit of a file: `transforms`, a folder under src/ (`harness`), or a src/ root file (`errors.ts`). */
function unitOf(file: string): string | undefined {
  const parts = file.split('/');
  if (parts[0] === 'transforms') return 'transforms';
  if (parts[0] !== 'src' || parts.length < 2) return undefined;
  return parts[1];
}

/** The layering from ARCHITECTURE.md's ```layers block: unit → rank (0 is the top). */
function parseLayers(markdown: string): Map<string, number> {
  const block = /```layers\n([\s\S]*?)```/.exec(markdown);
  if (!block) throw new Error('ARCHITECTURE.md has no ```layers block');
  const ranks = new Map<string, number>();
  block[1]!
    .split('\n')
    .filter((line) => line.trim() !== '')
    .forEach((line, rank) => {
      const head = line.split('—')[0]!;
      for (const unit of head.split(',')) ranks.set(unit.trim().replace(/\/$/, ''), rank);
    });
  return ranks;
}

/** Edges that go up the layering (or touch a unit the layering does not place). */
function upwardEdges(graph: Map<string, string[]>, ranks: Map<string, number>): string[] {
  const wrong: string[] = [];
  for (const [from, targets] of graph) {
    const fromUnit = unitOf(from);
    if (fromUnit === undefined) continue;
    for (const to of targets) {
      const toUnit = unitOf(to);
      if (toUnit === undefined || toUnit === fromUnit) continue;
      const a = ranks.get(fromUnit);
      const b = ranks.get(toUnit);
      if (a === undefined || b === undefined) wrong.push(`${from} → ${to} (unplaced: ${a === undefined ? fromUnit : toUnit})`);
      else if (b < a) wrong.push(`${from} → ${to} (${fromUnit} imports ${toUnit}, above it)`);
    }
  }
  return wrong.sort();
}

/** Backticked repo paths in a markdown text (`src/x.ts`, `docs/`, `README.md`). */
function namedPaths(markdown: string): string[] {
  const paths = new Set<string>();
  for (const match of markdown.replace(/```[\s\S]*?```/g, '').matchAll(/`([^`\s]+)`/g)) {
    const token = match[1]!;
    if (/[*<>{}()]|^https?:/.test(token)) continue;
    if (token.includes('/') || /\.(ts|md|mjs|py)$/.test(token)) paths.add(token.replace(/\/$/, ''));
  }
  return [...paths].sort();
}

function walk(dir: string, keep: (path: string) => boolean, out: string[] = []): string[] {
  if (!existsSync(join(ROOT, dir))) return out;
  for (const name of readdirSync(join(ROOT, dir)).sort()) {
    const path = `${dir}/${name}`;
    if (name === 'node_modules' || name === 'fixtures' || name === '__snapshots__') continue;
    if (statSync(join(ROOT, path)).isDirectory()) walk(path, keep, out);
    else if (keep(path)) out.push(path);
  }
  return out;
}

function lineCount(text: string): number {
  const newlines = text.split('\n').length - 1;
  return text.endsWith('\n') || text === '' ? newlines : newlines + 1;
}

describe('the import-graph check itself', () => {
  const fixture = new Map<string, string>([
    ['src/util/a.ts', "import { b } from './b.js';\nexport const a = b;\n"],
    ['src/util/b.ts', "import type { A } from './a.js';\nexport const b = 1;\n"],
    ['src/harness/load.ts', "export * from '../util/a.js';\nconst m = await import('../cli/main.js');\n"],
    ['src/cli/main.ts', "// import { x } from '../harness/nowhere.js';\nimport '../harness/load.js';\n"],
  ]);
  const layers = parseLayers('```layers\ncli, index.ts — commands\nharness — harness\nutil — floor\n```\n');

  it('finds static, type-only, re-export, side-effect and dynamic imports, not commented ones', () => {
    const graph = buildGraph(fixture);
    expect(graph.get('src/harness/load.ts')).toEqual(['src/cli/main.ts', 'src/util/a.ts']);
    expect(graph.get('src/cli/main.ts')).toEqual(['src/harness/load.ts']);
    expect(graph.get('src/util/b.ts')).toEqual(['src/util/a.ts']);
  });

  it('reports a circle and an upward edge', () => {
    const graph = buildGraph(fixture);
    const cycles = findCycles(graph).map((cycle) => cycle.join(' → '));
    expect(cycles).toContain('src/util/a.ts → src/util/b.ts → src/util/a.ts');
    expect(cycles).toContain('src/cli/main.ts → src/harness/load.ts → src/cli/main.ts');
    expect(upwardEdges(graph, layers)).toEqual(['src/harness/load.ts → src/cli/main.ts (harness imports cli, above it)']);
  });

  it('reads the layers block and the named paths', () => {
    expect(layers.get('index.ts')).toBe(0);
    expect(layers.get('util')).toBe(2);
    expect(namedPaths('see `src/a.ts`, `docs/`, `README.md`, `npm test`, `--flag`\n```\n`x/y`\n```')).toEqual(['README.md', 'docs', 'src/a.ts']);
  });
});

describe('the repository import graph', () => {
  const sources = [...walk('src', (p) => p.endsWith('.ts')), ...walk('transforms', (p) => p.endsWith('.ts'))];
  const files = new Map(sources.map((file) => [file, readFileSync(join(ROOT, file), 'utf8')]));
  const graph = buildGraph(files);
  const architecture = readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8');

  it('has no import circle between files', () => {
    expect(findCycles(graph).map((cycle) => cycle.join(' → '))).toEqual([]);
  });

  it('has no folder importing a folder above it in ARCHITECTURE.md', () => {
    expect(upwardEdges(graph, parseLayers(architecture))).toEqual([]);
  });

  it('has every relative import resolve to a file', () => {
    const missing = [...graph].flatMap(([from, targets]) => targets.filter((to) => !existsSync(join(ROOT, to))).map((to) => `${from} → ${to}`));
    expect(missing).toEqual([]);
  });

  it(`has no source file of ${MAX_LINES} lines or more`, () => {
    const code = /\.(ts|mts|cts|js|mjs|cjs|py|sh)$|^bin\//;
    const long = ['src', 'transforms', 'bin', 'integrations', 'test', 'scripts']
      .flatMap((dir) => walk(dir, (p) => code.test(p)))
      .map((file) => ({ file, lines: lineCount(readFileSync(join(ROOT, file), 'utf8')) }))
      .filter(({ lines }) => lines >= MAX_LINES)
      .map(({ file, lines }) => `${file}: ${lines}`);
    expect(long).toEqual([]);
  });

  it('names only paths that exist in ARCHITECTURE.md', () => {
    const missing = namedPaths(architecture).filter((path) => !existsSync(join(ROOT, path)));
    expect(missing).toEqual([]);
  });

  it('places every src/ folder and root file in the layering', () => {
    const ranks = parseLayers(architecture);
    const units = new Set(sources.map(unitOf).filter((unit): unit is string => unit !== undefined));
    expect([...units].filter((unit) => !ranks.has(unit)).sort()).toEqual([]);
  });
});
