import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Template } from '@huggingface/jinja';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { REPO, runHsaAsync } from '../helpers/hsa.js';
import { readJsonl } from '../helpers/tree.js';

afterAll(removeTempDirs);

// A real model chat template (Qwen3, the compact student family), kept outside the project.
const TEMPLATE = path.resolve(REPO, '..', 'shared', 'templates', 'qwen3.jinja');
const present = existsSync(TEMPLATE);
if (!present) console.log(`skipping chat-template tests: ${TEMPLATE} is absent`);

describe.skipIf(!present)('records render through the Qwen3 chat template', () => {
  it('renders every SFT and OPD record of the whole demo output', async () => {
    const out = tempDir('hsa-demo-');
    const r = await runHsaAsync(['augment', '--config', 'fixtures/live-commerce/hsa.yaml', '--out', out, '-q']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const template = new Template(readFileSync(TEMPLATE, 'utf8'));
    let sft = 0;
    for (const f of readdirSync(path.join(out, 'sft')).sort()) {
      for (const rec of readJsonl(path.join(out, 'sft', f)) as { id: string; messages: { role: string; tool_calls?: { function: { name: string } }[] }[]; tools: unknown[] }[]) {
        const text = template.render({ messages: rec.messages, tools: rec.tools, add_generation_prompt: false });
        // The rendered text carries every tool call under its (possibly renamed) name.
        for (const m of rec.messages) for (const c of m.tool_calls ?? []) expect(text, rec.id).toContain(`{"name": "${c.function.name}"`);
        expect(text.startsWith('<|im_start|>system\n')).toBe(true);
        sft++;
      }
    }
    let opd = 0;
    for (const f of readdirSync(path.join(out, 'opd')).sort()) {
      for (const rec of readJsonl(path.join(out, 'opd', f)) as { messages: unknown[]; tools: unknown[] }[]) {
        const text = template.render({ messages: rec.messages, tools: rec.tools, add_generation_prompt: true });
        expect(text.endsWith('<|im_start|>assistant\n')).toBe(true);
        opd++;
      }
    }
    const manifest = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8'));
    expect(sft).toBe(manifest.stages.sft.records);
    expect(opd).toBe(manifest.stages.opd.records);
    expect(sft).toBeGreaterThan(700);
  });

  it('would fail on the OpenAI null-content shape (the trap the writer avoids)', () => {
    const template = new Template(readFileSync(TEMPLATE, 'utf8'));
    const messages = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: null, tool_calls: [{ type: 'function', function: { name: 'f', arguments: {} } }] },
    ];
    expect(() => template.render({ messages, tools: [] })).toThrow();
  });
});
