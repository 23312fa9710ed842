// A record's own OpenAI tools become its harness's tools without a second zod parse, and its calls
// are checked with the quick schema test built when the harness is derived. Both must stand in
// exactly for what they replace: the same tools as normaliseTool makes, the same problems for
// tools it refuses, and every bad call still reported (a quick "valid" is never wrong, whatever
// the format meaning; anything else goes to the full validator).
import { afterEach, describe, expect, it } from 'vitest';
import { normaliseTool } from '../src/harness/tools.js';
import { deriveInlineHarness, InlineHarnesses } from '../src/ingest/inline-harness.js';
import { checkTrajectory } from '../src/trajectory/check.js';
import { parseTrajectoryLine } from '../src/trajectory/read.js';
import type { Trajectory } from '../src/trajectory/types.js';
import { setFormatMode } from '../src/util/json-schema.js';

const fn = (name: string, f: Record<string, unknown> = {}) => ({ type: 'function', function: { name, ...f } });

const TOOLS: unknown[] = [
  fn('plain', { description: 'd', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } }),
  fn('no_description', { parameters: { type: 'object', properties: {} } }),
  fn('no_parameters', { description: 'nothing to pass' }),
  fn('strict_one', { description: 'x', parameters: { type: 'object', properties: { n: { type: 'integer' } } }, strict: true }),
  fn('strict_null', { description: 'x', parameters: { type: 'object', properties: {} }, strict: null }),
  fn('aliased_types', { parameters: { type: 'dict', properties: { a: { type: 'float' }, b: { type: ['int', 'null'] }, c: { type: 'any' } } } }),
  fn('math.factorial', { description: 'a dotted name', parameters: { type: 'object', properties: {} } }),
  fn('with-dash_09', { parameters: { type: 'object', properties: { e: { type: 'string', format: 'email' } } } }),
  { name: 'mcp_tool', description: 'an MCP tool', inputSchema: { type: 'object', properties: { x: { type: 'number' } } } },
];

const record = (tools: unknown[], messages: unknown[] = [{ role: 'user', content: 'hi' }]) => ({ id: 'r', tools, messages });

function read(rec: unknown): Trajectory {
  const r = parseTrajectoryLine('x.jsonl', 1, JSON.stringify(rec));
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.record;
}

describe('inline harness tools', () => {
  it('are the tools normaliseTool makes, one for one', () => {
    const rec = read(record(TOOLS));
    const h = deriveInlineHarness(rec, { file: 'x.jsonl', line: 1 }).harness!;
    // (read.ts turns MCP tools into OpenAI ones first; normaliseTool reads either shape alike.)
    expect(h.tools).toEqual(rec.tools!.map((t) => {
      const n = normaliseTool(t);
      if (!('tool' in n)) throw new Error('expected a tool');
      return n.tool;
    }));
  });

  it('refused tools give the problems they gave before, naming the field', () => {
    const bad: unknown[] = [fn('ok'), fn('bad name!'), fn('x', { parameters: { type: 'object', properties: { a: { type: 'no-such-type' } } } }), fn('ok')];
    const rec = { id: 'r', messages: [{ role: 'user', content: 'hi' }], tools: bad } as unknown as Trajectory;
    const problems = deriveInlineHarness(rec, { file: 'x.jsonl', line: 4 }).problems.map((p) => `${p.path}: ${p.message}`);
    expect(problems[0]).toMatch(/^tools\.1\.function\.name: "bad name!" is not a usable tool name/);
    expect(problems[1]).toMatch(/^tools\.2\.function\.parameters: not a valid JSON Schema/);
    expect(problems[2]).toBe('tools.3.function.name: duplicate tool "ok" (also tools.0)');
    expect(problems).toHaveLength(3);
  });
});

describe('the record check with quick schema tests', () => {
  afterEach(() => setFormatMode('annotation'));

  const calls = (args: Record<string, unknown>[], tool = 'plain') => [
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: null, tool_calls: args.map((a, i) => ({ id: `c${i}`, type: 'function', function: { name: tool, arguments: JSON.stringify(a) } })) },
    ...args.map((_, i) => ({ role: 'tool', tool_call_id: `c${i}`, content: 'ok' })),
    { role: 'assistant', content: 'done' },
  ];

  function check(tools: unknown[], messages: unknown[]): string[] {
    const rec = read(record(tools, messages));
    const { inline } = new InlineHarnesses(() => undefined).for(rec, { file: 'x.jsonl', line: 1 });
    return checkTrajectory(rec, inline.harness!, { file: 'x.jsonl', line: 1 }).filter((p) => p.severity === 'error').map((p) => `${p.path}: ${p.message}`);
  }

  it('accepts valid calls and reports every invalid one', () => {
    expect(check(TOOLS, calls([{ q: 'a' }, { q: 'b' }]))).toEqual([]);
    const problems = check(TOOLS, calls([{ q: 'a' }, {}, { q: 3 }]));
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^messages\.1\.tool_calls\.1\.function\.arguments/);
    expect(problems[1]).toMatch(/^messages\.1\.tool_calls\.2\.function\.arguments\.q/);
  });

  it('a schema outside the quick subset is still checked', () => {
    const tools = [fn('refs', { parameters: { type: 'object', $defs: { n: { type: 'integer' } }, properties: { n: { $ref: '#/$defs/n' } }, required: ['n'] } })];
    expect(check(tools, calls([{ n: 1 }], 'refs'))).toEqual([]);
    expect(check(tools, calls([{ n: 'one' }], 'refs'))).toHaveLength(1);
  });

  it('format is an annotation unless asked to assert it, also for a quick-testable schema', () => {
    const bad = calls([{ e: 'not an email' }], 'with-dash_09');
    expect(check(TOOLS, bad)).toEqual([]);
    setFormatMode('assertion');
    const problems = check(TOOLS, bad);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/arguments\.e/);
  });
});
