import { createRequire } from 'node:module';
import type { Document, LineCounter } from 'yaml';
import { quickLineOf, quickNumberSource, quickYaml } from './yaml-quick.js';

// The YAML parser (a CommonJS package, ~0.1 s to load) is loaded on the first parse, not with this
// module: a worker thread, and a run whose word packs are all compiled, never parse YAML here.
// `require` gives the very module `import 'yaml'` gives (Node loads a CommonJS package once).
let yamlModule: typeof import('yaml') | undefined;
/** The yaml package, loaded on first use (for a module that writes YAML too). */
export const yaml = (): typeof import('yaml') => (yamlModule ??= createRequire(import.meta.url)('yaml') as typeof import('yaml'));

/**
 * A parsed YAML or JSON file that can tell the line of any key path, so a problem found after
 * parsing (by zod or a cross-reference rule) still names its line.
 */
export interface LocatedDoc {
  file: string;
  value: unknown;
  /** 1-based line of the node at `path`, or of its nearest existing ancestor. */
  lineOf(path: readonly (string | number)[]): number | undefined;
  /** The text as written of a number at `path` (`1.10`, which the value reads as 1.1), if a number is there. */
  numberSource(path: readonly (string | number)[]): string | undefined;
}

export interface ParseFailure {
  file: string;
  line?: number;
  message: string;
}

/**
 * Parse YAML (JSON is YAML too) keeping positions; syntax errors come back, never thrown. The hand
 * reader (yaml-quick.ts) answers the common case without loading the yaml package; whatever it is
 * not sure of, the yaml package reads.
 */
export function parseLocated(file: string, text: string): LocatedDoc | ParseFailure {
  const bare = stripBom(text);
  const quick = quickYaml(bare);
  if (quick) {
    const { value, root } = quick;
    return { file, value, lineOf: (path) => quickLineOf(root, path), numberSource: (path) => quickNumberSource(root, path) };
  }
  return parseExactly(file, bare);
}

/** parseLocated by the yaml package alone (the spec the hand reader is held to). */
export function parseExactly(file: string, text: string): LocatedDoc | ParseFailure {
  const { LineCounter, parseDocument } = yaml();
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const first = doc.errors[0];
  if (first) {
    const pos = first.pos[0];
    return { file, line: lineCounter.linePos(pos).line, message: firstLine(first.message) };
  }
  return {
    file,
    value: doc.toJS({ maxAliasCount: 1000 }),
    lineOf: (path) => lineOfPath(doc, lineCounter, path),
    numberSource: (path) => {
      const node = doc.getIn(path, true);
      return yaml().isScalar(node) && typeof node.value === 'number' && node.source ? node.source : undefined;
    },
  };
}

export function isParseFailure(x: LocatedDoc | ParseFailure): x is ParseFailure {
  return !('lineOf' in x);
}

function lineOfPath(doc: Document, lc: LineCounter, path: readonly (string | number)[]): number | undefined {
  const { isMap, isSeq } = yaml();
  let node: unknown = doc.contents;
  let best: number | undefined = rangeLine(node, lc);
  for (const key of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => {
        const k = p.key as { value?: unknown } | null;
        return k !== null && typeof k === 'object' && String(k.value) === String(key);
      });
      if (!pair) break;
      best = rangeLine(pair.key, lc) ?? best;
      node = pair.value;
    } else if (isSeq(node) && typeof key === 'number') {
      node = node.items[key];
      if (node === undefined) break;
      best = rangeLine(node, lc) ?? best;
    } else {
      break;
    }
  }
  return best;
}

function rangeLine(node: unknown, lc: LineCounter): number | undefined {
  const range = (node as { range?: [number, number, number] } | null)?.range;
  return range ? lc.linePos(range[0]).line : undefined;
}

export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function firstLine(s: string): string {
  return s.split('\n')[0] ?? s;
}
