import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, runHsaAsync } from '../helpers/hsa.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

/**
 * A parameter named `__proto__` (JSON.parse makes it an own key, and so does a spread) is a name
 * like any other through the whole run: renamed or kept, reordered, wrapped, mapped back by the
 * round trip. Assigning it to a plain object sets the prototype instead: the key vanishes from
 * the copy, and the round trip rejected three variants of eight before the renames and schema
 * copies wrote keys with put(). The independent checker had the same fault in its tables.
 */

afterAll(() => removeTempDirs());

// (A string, not an object literal: a literal's `__proto__:` would set the prototype, not make a key.)
const LINE = String.raw`{"id":"p1","tools":[{"type":"function","function":{"name":"set_value","description":"Set a value.","parameters":{"type":"object","properties":{"__proto__":{"type":"string","description":"The key."},"value":{"type":"string","description":"The value."}},"required":["__proto__","value"]}}}],"messages":[{"role":"user","content":"Set colour to red."},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"set_value","arguments":"{\"__proto__\":\"colour\",\"value\":\"red\"}"}}]},{"role":"tool","tool_call_id":"c1","content":"ok"},{"role":"assistant","content":"Done."}]}`;

describe('a parameter named __proto__', () => {
  it('every variant is written (defaults, 8 variants), verify and the independent checker pass', async () => {
    const dir = tempDir('hsa-proto-');
    const src = path.join(dir, 'proto.jsonl');
    writeFileSync(src, `${LINE}\n`);
    expect((JSON.parse(LINE) as { tools: { function: { parameters: { properties: object } } }[] }).tools[0]!.function.parameters.properties).toHaveProperty([
      '__proto__',
    ]);
    const out = path.join(dir, 'out');
    const r = await runHsaAsync(['augment', '-t', src, '-o', out, '--variants', '8', '--stages', 'sft', '--no-gzip']);
    expect(r.code).toBe(0);
    const sft = readdirSync(path.join(out, 'sft')).flatMap((f) =>
      readFileSync(path.join(out, 'sft', f), 'utf8')
        .trim()
        .split('\n'),
    );
    expect(sft).toHaveLength(8);
    for (const l of sft) {
      const rec = JSON.parse(l) as {
        tools: { function: { name: string; parameters: { properties?: object } } }[];
        messages: { tool_calls?: { function: { name: string; arguments: string | object } }[] }[];
      };
      const call = rec.messages.flatMap((m) => m.tool_calls ?? [])[0]!.function;
      const tool = rec.tools.find((t) => t.function.name === call.name)!;
      // The call's keys are the variant's own parameters (a wrapped call has one key, its wrapper).
      expect(Object.keys(tool.function.parameters.properties ?? {})).toEqual(
        expect.arrayContaining(Object.keys(typeof call.arguments === 'string' ? (JSON.parse(call.arguments) as object) : call.arguments)),
      );
    }
    const v = await runHsaAsync(['verify', out, '--sources', src]);
    expect(v.stdout + v.stderr).toMatch(/^sound:/m);
    expect(v.code).toBe(0);
    const c = spawnSync(process.execPath, [path.join(REPO, 'scripts/audit/check-output.mjs'), '--out', out, '--sources', src], { encoding: 'utf8' });
    expect(c.stdout + c.stderr).toContain('all checks passed');
    expect(c.status).toBe(0);
  });

  it('in a harness folder (additionalProperties: false): validate accepts the calls, every variant is written, verify passes', async () => {
    const dir = tempDir('hsa-proto-');
    const harness = path.join(dir, 'harness');
    cpSync(path.join(REPO, 'fixtures/live-commerce/harness'), harness, { recursive: true });
    const faqFile = path.join(harness, 'tools/faq.json');
    const faq = JSON.parse(readFileSync(faqFile, 'utf8')) as { function: { parameters: { properties: object; additionalProperties?: unknown } } };
    expect(faq.function.parameters.additionalProperties).toBe(false);
    // (defineProperty: assigning __proto__ would set the prototype.)
    Object.defineProperty(faq.function.parameters.properties, '__proto__', {
      value: { type: 'string', description: 'The language of the answer.' },
      enumerable: true,
      writable: true,
      configurable: true,
    });
    writeFileSync(faqFile, JSON.stringify(faq));
    // The fixture's records that ask the FAQ, each call given a __proto__ argument.
    const lines = readFileSync(path.join(REPO, 'fixtures/live-commerce/trajectories.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('"name":"lookup_faq"'))
      .map((l) => l.replaceAll('"arguments":"{\\"question\\":', '"arguments":"{\\"__proto__\\":\\"en\\",\\"question\\":'));
    expect(lines.length).toBeGreaterThan(5);
    expect(lines.every((l) => l.includes('__proto__'))).toBe(true);
    const src = path.join(dir, 't.jsonl');
    writeFileSync(src, `${lines.join('\n')}\n`);
    const val = await runHsaAsync(['validate', harness, '-t', src]);
    expect(val.stdout + val.stderr).toMatch(/^valid: .* 0 errors/m);
    const out = path.join(dir, 'out');
    const r = await runHsaAsync(['augment', '--harness', harness, '-t', src, '-o', out, '--stages', 'sft', '--no-gzip']);
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).toMatch(new RegExp(`${lines.length * 4} of ${lines.length * 4} variants written \\(0 rejected\\)`));
    const v = await runHsaAsync(['verify', out, '--sources', src]);
    expect(v.stdout + v.stderr).toMatch(/^sound:/m);
  });
});
