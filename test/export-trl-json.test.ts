import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { pyJson } from '../src/export/formats/llamafactory.js';
import { PYTHON } from './consumers/consumer.js';

/**
 * LLaMA-Factory (formatter.py:108, tool_utils.py:597-605), ms-swift (hermes.py:74-93) and TRL's
 * tokenizer (transformers' `tojson`) write tools and call arguments with Python's
 * `json.dumps(ensure_ascii=False)` after `json.loads` of the JSON text we wrote; hsa writes the same
 * text (`pyJson`) so that its counts and the `--to trl` arguments are what they render.
 */
const VALUES: unknown[] = [
  { a: 1, b: [1.5, 2, -3], c: { d: null, e: true, f: 'x' } },
  [0.00001, 1e-7, 0.0001, 1e-4 * 3, 0.1 + 0.2, 1e15, 1e16, 1.5e16, 1e21, 123456789012345680000, -0, -2.5e-8, 5e-324, 1.7976931348623157e308],
  ['Δ-7 «quote»', 'line\nbreak\ttab', '\u001b esc \u007f del', '\u2028 sep', 'emoji 😀', 'back\\slash "q"', ''],
  { 'key with "quotes"': { ünï: [{}, []] } },
];

describe("Python's json.dumps of what JavaScript wrote", () => {
  it('is what pyJson writes, for numbers, strings and nesting', () => {
    const script = 'import json,sys\nfor line in sys.stdin:\n    print(json.dumps(json.loads(line), ensure_ascii=False))';
    const r = spawnSync(PYTHON, ['-c', script], { input: VALUES.map((v) => JSON.stringify(v)).join('\n') + '\n', encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(VALUES.map(pyJson)).toEqual(r.stdout.trimEnd().split('\n'));
  });
});
