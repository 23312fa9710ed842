import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isParseFailure, parseExactly, parseLocated, type LocatedDoc } from '../src/util/located.js';
import { quickYaml } from '../src/util/yaml-quick.js';
import { REPO } from './helpers/hsa.js';
import { sameOrdered } from './helpers/quick-twin.js';
import { document, jsonDocument, rng } from './helpers/yaml-gen.js';

/**
 * The hand YAML reader (src/util/yaml-quick.ts) against the yaml package (parseExactly): wherever
 * the hand reader answers, yaml must read the text without errors and give the same value (key
 * order included), the same lineOf for every path and the same numberSource.
 */
type Path = (string | number)[];

/** Every path of the value, each also spelt the other way (a map key as a number, an index as text), and paths that miss. */
function paths(v: unknown, at: Path = [], out: Path[] = []): Path[] {
  out.push(at, [...at, 'missing'], [...at, 7], [...at, -1], [...at, 0.5], [...at, '']);
  if (Array.isArray(v)) {
    v.forEach((x, i) => {
      out.push([...at, String(i)], [...at, ` ${i}`], [...at, -0]);
      paths(x, [...at, i], out);
    });
  } else if (v !== null && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (k !== '' && !Number.isNaN(Number(k))) out.push([...at, Number(k)]);
      paths(x, [...at, k], out);
    }
  }
  return out;
}

/** Differences between the hand reading of text and yaml's, or null when the hand reader gives up. */
function differences(text: string, label: string): string[] | null {
  if (quickYaml(text) === undefined) return null;
  const quick = parseLocated(label, text) as LocatedDoc;
  const exact = parseExactly(label, text);
  if (isParseFailure(exact)) return [`${label}: the hand reader answered where yaml reports "${exact.message}"\n${text}`];
  const out: string[] = [];
  const d = sameOrdered(quick.value, exact.value);
  if (d) out.push(`${label}: value ${d}`);
  for (const p of paths(exact.value)) {
    const [lq, le] = [quick.lineOf(p), exact.lineOf(p)];
    if (lq !== le) out.push(`${label}: lineOf ${JSON.stringify(p)} ${lq} vs ${le}`);
    const [nq, ne] = [quick.numberSource(p), exact.numberSource(p)];
    if (nq !== ne) out.push(`${label}: numberSource ${JSON.stringify(p)} ${nq} vs ${ne}`);
  }
  if (out.length > 0) out.push(text);
  return out;
}

/** YAML texts of the repository: .yaml/.yml/.json files, SKILL.md front matter and the docs' ```yaml blocks. */
function repoTexts(): [string, string][] {
  const out: [string, string][] = [];
  for (const top of ['fixtures', 'words', 'integrations', 'test/fixtures', 'docs']) {
    for (const rel of readdirSync(path.join(REPO, top), { recursive: true }) as string[]) {
      const file = path.join(top, rel);
      if (/\.(ya?ml|json)$/.test(rel)) out.push([file, readFileSync(path.join(REPO, file), 'utf8')]);
      else if (rel.endsWith('SKILL.md')) {
        const m = /^---\n([\s\S]*?)\n---/.exec(readFileSync(path.join(REPO, file), 'utf8'));
        if (m) out.push([`${file} front matter`, m[1] as string]);
      } else if (rel.endsWith('.md')) {
        const blocks = readFileSync(path.join(REPO, file), 'utf8').matchAll(/^```ya?ml\n([\s\S]*?)^```/gm);
        for (const [i, b] of [...blocks].entries()) out.push([`${file} yaml block ${i + 1}`, b[1] as string]);
      }
    }
  }
  return out;
}

describe('the hand YAML reader', () => {
  const texts = repoTexts();

  it('reads every YAML text of the repository as yaml does, wherever it answers', () => {
    expect(texts.length).toBeGreaterThan(100);
    const failures = texts.flatMap(([label, text]) => differences(text, label) ?? []);
    expect(failures.slice(0, 10)).toEqual([]);
  });

  it('answers on the harness, tools, hooks and plan files of the fixtures (the fast path is taken)', () => {
    const common = texts.filter(([label]) =>
      /^fixtures\/(?!bad\/|warnings\/).*(harness\.ya?ml|tools\/.*\.(ya?ml|json)|hooks\.(ya?ml|json)|plan\.ya?ml)$/.test(label),
    );
    expect(common.length).toBeGreaterThan(30);
    expect(common.filter(([, text]) => quickYaml(text) === undefined).map(([label]) => label)).toEqual([]);
    const answered = texts.filter(([, text]) => quickYaml(text) !== undefined).length;
    expect(answered / texts.length).toBeGreaterThan(0.8);
  });

  it('reads generated documents as yaml does, wherever it answers', () => {
    const r = rng('yaml-quick');
    const failures: string[] = [];
    let answered = 0;
    const n = 6000;
    for (let i = 0; i < n; i++) {
      const d = differences(document(r), `generated #${i}`);
      if (d) {
        answered++;
        failures.push(...d);
      }
    }
    expect(failures.slice(0, 6)).toEqual([]);
    // The generator must exercise the fast path (and its giving up).
    expect(answered).toBeGreaterThan(n * 0.25);
    expect(answered).toBeLessThan(n * 0.9);
  });

  it('reads generated JSON documents (over several lines) as yaml does, wherever it answers', () => {
    const r = rng('yaml-quick json');
    const failures: string[] = [];
    let answered = 0;
    const n = 3000;
    for (let i = 0; i < n; i++) {
      const d = differences(jsonDocument(r), `generated JSON #${i}`);
      if (d) {
        answered++;
        failures.push(...d);
      }
    }
    expect(failures.slice(0, 6)).toEqual([]);
    expect(answered).toBeGreaterThan(n * 0.5);
  });

  it('reads the core-schema scalars and their near-misses as yaml does', () => {
    const cases = [
      ...['null', 'Null', 'NULL', '~', '', 'true', 'False', 'TRUE', 'Yes', 'on', '0', '-1', '+1', '007', '1_000', '0x1F', '0o17', '0o8', '.5', '+.5'],
      ...['5.', '1.10', '-0', '1e3', '1E-3', '.5e3', '1.5e', '.inf', '-.Inf', '.NaN', 'nan', '12345678901234567890', '"1"', "'true'", '"\\x41\\u00e9"'],
    ];
    const failures: string[] = [];
    for (const c of cases) {
      for (const text of [`v: ${c}\n`, `- ${c}\n`, `v: [${c || 'x'}, 1]\n`, `v: {k: ${c || 'x'}}\n`]) {
        const d = differences(text, JSON.stringify(text));
        if (d === null) failures.push(`gave up on ${JSON.stringify(text)}`);
        else failures.push(...d);
      }
    }
    expect(failures).toEqual([]);
  });

  it('reads the edge cases of block scalars, indentation and keys as yaml does, or gives up', () => {
    const edges = [
      ...['a: |+\n  x\n\n  ', 'a: |+\n  x', 'a: >+\n  x\n\n', 'a: |-\n  x\n\n\nb: 1\n', 'a: >\n\n  x\n  y\n\n  z\n', 'a: |\n  x\n   \n  y\n'],
      ...['- |\n  x\n # c\n- y\n', 'a: >\n  x\n    y\n', '- a: |\n  x\n', 'a: |\n  # c\n', '{a:[x]}', '[a:[x]]', '{"a":b}', 'a:\n- x\nb: 1\n', '- a:\n  - x\n'],
      ...['"a" : 1\n', 'k: "\\U0001F600\\x41"\n', '1: a\n2: b\n', 'null: a\n', '~: a\n"": b\n', '.nan: a\n.nan: b\n', '0: a\n-0: b\n', 'a: 1\n  # c\nb: 2\n'],
    ];
    expect(edges.flatMap((text) => differences(text, JSON.stringify(text)) ?? [])).toEqual([]);
  });

  it('gives up on what it does not read', () => {
    const odd = ['a: &x 1\nb: *x\n', 'a: !!str 1\n', '? a\n: b\n', '---\na: 1\n', 'a: 1\n...\n', '%YAML 1.2\n---\na: 1\n', 'a:\n\t- x\n'];
    const more = ['a: [x,\n  y]\n', 'a: b\n  c\n', 'a: "x\n  y"\n', 'a: 1\na: 2\n', '1: x\n"1": y\n', '[a]: x\n', 'a: |2\n   x\n', 'a: 1\r\n'];
    for (const text of [...odd, ...more]) expect(quickYaml(text), JSON.stringify(text)).toBeUndefined();
  });
});
