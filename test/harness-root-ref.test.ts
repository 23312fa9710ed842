import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isObjectParameters } from '../src/harness/root-object.js';
import { REPO, runHsaAsync } from './helpers/hsa.js';
import { removeTempDirs, tempDir } from './helpers/tmp.js';

// Tool parameters written as a reference to a model (pydantic's schema of a model that is itself
// referenced: `{"$ref": "#/$defs/Args", "$defs": {...}}`) are an object schema. A harness folder
// refused them ("must be a JSON Schema of type object") while the same tools inline were read,
// augmented and verified: one verdict now.

afterAll(() => removeTempDirs());

describe('isObjectParameters', () => {
  const args = { type: 'object', properties: { party: { type: 'integer' } } };
  it('takes type object, and a local reference (chains too) that leads to one', () => {
    expect(isObjectParameters(args)).toBe(true);
    expect(isObjectParameters({ $ref: '#/$defs/Args', $defs: { Args: args } })).toBe(true);
    expect(isObjectParameters({ $ref: '#/definitions/Args', definitions: { Args: args } })).toBe(true);
    expect(isObjectParameters({ $ref: '#/$defs/A', $defs: { A: { $ref: '#/$defs/B' }, B: args } })).toBe(true);
    expect(isObjectParameters({ $ref: '#/$defs/a~1b%20c', $defs: { 'a/b c': args } })).toBe(true);
  });
  it('refuses anything else: another type, a missing or foreign target, a cycle, a $ref beside a type', () => {
    expect(isObjectParameters({ type: 'string' })).toBe(false);
    expect(isObjectParameters({})).toBe(false);
    expect(isObjectParameters(null)).toBe(false);
    expect(isObjectParameters({ $ref: '#/$defs/Missing', $defs: {} })).toBe(false);
    expect(isObjectParameters({ $ref: 'https://example.com/args.json' })).toBe(false);
    expect(isObjectParameters({ $ref: '#/$defs/A', $defs: { A: { $ref: '#/$defs/A' } } })).toBe(false);
    expect(isObjectParameters({ $ref: '#/$defs/S', $defs: { S: { type: 'string' } } })).toBe(false);
    expect(isObjectParameters({ type: 'array', $ref: '#/$defs/Args', $defs: { Args: args } })).toBe(false);
  });
});

describe('a harness folder whose tool parameters are a root $ref', () => {
  it('validates, augments (parameter renames through the reference) and verifies sound', async () => {
    const dir = tempDir('hsa-root-ref-');
    const harness = path.join(dir, 'harness');
    cpSync(path.join(REPO, 'fixtures/pydantic-unions/harness'), harness, { recursive: true });
    const file = path.join(harness, 'tools/airline.json');
    const tools = JSON.parse(readFileSync(file, 'utf8')) as { function: { name: string; parameters: Record<string, unknown> } }[];
    const tool = tools.find((t) => t.function.name === 'add_payment_method')!;
    const { $defs, ...own } = tool.function.parameters as { $defs: Record<string, unknown> };
    tool.function.parameters = { $ref: '#/$defs/AddPaymentMethodArgs', $defs: { ...$defs, AddPaymentMethodArgs: own } };
    writeFileSync(file, JSON.stringify(tools, null, 1));
    const traj = path.join(REPO, 'fixtures/pydantic-unions/trajectories.jsonl');

    const v = await runHsaAsync(['validate', harness, '-t', traj]);
    expect(v.code, v.stdout + v.stderr).toBe(0);
    const out = path.join(dir, 'out');
    const a = await runHsaAsync([
      'augment',
      '--harness',
      harness,
      '-t',
      traj,
      '-o',
      out,
      '-k',
      '8',
      '--transforms',
      'tools.param-rename',
      '--stages',
      'sft',
      '--no-gzip',
      '-q',
    ]);
    expect(a.code, a.stderr).toBe(0);
    const sft = readFileSync(path.join(out, 'sft/part-00000.jsonl'), 'utf8').trim().split('\n');
    // Variants renamed parameters of the referenced model: the calls' keys differ between variants.
    type Rec = { messages: { tool_calls?: { function: { name: string; arguments: unknown } }[] }[] };
    const keys = new Set<string>();
    for (const l of sft)
      for (const m of (JSON.parse(l) as Rec).messages)
        for (const c of m.tool_calls ?? []) if (c.function.name === 'add_payment_method') keys.add(Object.keys(c.function.arguments as object).join(','));
    expect(keys.size).toBeGreaterThan(1);
    const r = await runHsaAsync(['verify', out, '--harness', harness, '--sources', traj]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stderr).toContain('round trip to the sources');
  }, 90_000);
});
