import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runHsaAsync } from '../helpers/hsa.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

/**
 * Skill shapes met in real public data (single-turn function-calling sets, MCP tool lists, Hermes-style
 * prompts that embed the tool list, published Agent Skills), reproduced by records written for this
 * project. The real binary validates and augments them; the written bytes are then read by the
 * independent checker `scripts/audit/check-output.mjs` (its own ajv, name scan and task mapping).
 */

import { call, checker, fn, readJsonl, type Json } from '../helpers/public-shapes.js';

afterAll(() => removeTempDirs());

describe('a harness of published-style Agent Skills (code spans, JSON examples, long descriptions)', () => {
  const dir = tempDir('hsa-skills-');
  const h = path.join(dir, 'harness');
  for (const d of ['prompt', 'tools', 'skills/report-writer', 'skills/api-notes']) mkdirSync(path.join(h, d), { recursive: true });
  writeFileSync(
    path.join(h, 'harness.yaml'),
    'name: skills-desk\nversion: "1.0.0"\nprompt:\n  dir: prompt\n  order: [role, skills]\n  catalog:\n    id: skills\n    title: Skills\n    intro: Call `load_skill` with the skill\'s `name` first.\nskills:\n  dir: skills\n  naming: agent-skills\n  loader:\n    tool: load_skill\n    argument: name\ntools:\n  sources: [tools/tools.json]\n',
  );
  writeFileSync(path.join(h, 'prompt/role.md'), '# Role\n\nYou write reports in a sandbox.\n');
  writeFileSync(
    path.join(h, 'tools/tools.json'),
    JSON.stringify([
      fn('load_skill', { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }, 'Load a skill by name.'),
      fn('run_command', { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] }, 'Run a shell command.'),
    ]),
  );
  // A description longer than the Agent Skills limit (published skills have them): a warning.
  const long = `Write reports from data. ${'Use it for summaries, tables and charts of any data set. '.repeat(20)}`.trim();
  writeFileSync(
    path.join(h, 'skills/report-writer/SKILL.md'),
    `---\nname: report-writer\ndescription: ${long}\nlicense: Apache-2.0\n---\n# Report writer\n\nEach result row has the fields \`text\`, \`score\` and \`name\`; keep \`text\` verbatim.\n\n1. Load the data.\n2. Then write the summary.\n3. Finally check the \`text\` of every row.\n\n\`\`\`json\n{"name": "summary", "text": "…"}\n\`\`\`\n`,
  );
  writeFileSync(
    path.join(h, 'skills/api-notes/SKILL.md'),
    '---\nname: api-notes\ndescription: Notes on the partner API.\n---\nSend `{"text": "hi", "lang": "en"}`; the reply has a `text` field.\n',
  );
  const file = path.join(dir, 't.jsonl');
  const cfg = path.join(dir, 'hsa.yaml');

  it('loads with a warning for the long description, validates, and augments with 0 unexplained body changes', async () => {
    const v0 = await runHsaAsync(['validate', h]);
    expect(v0.code, v0.stderr).toBe(0);
    expect(v0.stdout + v0.stderr).toContain('more than the Agent Skills limit of 1024');
    const inspect = await runHsaAsync(['inspect', h, '--render']);
    expect(inspect.code, inspect.stderr).toBe(0);
    const body = (id: string) =>
      readFileSync(path.join(h, `skills/${id}/SKILL.md`), 'utf8')
        .replace(/^---\n[\s\S]*?\n---\n/, '')
        .trim();
    const recs = ['report-writer', 'api-notes'].flatMap((id, i) =>
      [0, 1].map((k) => ({
        id: `${id}-${k}`,
        messages: [
          { role: 'system', content: inspect.stdout },
          { role: 'user', content: `Use ${id} please (${k}).` },
          { role: 'assistant', content: '', tool_calls: [call('c0', 'load_skill', { name: id })] },
          { role: 'tool', tool_call_id: 'c0', content: body(id) },
          { role: 'assistant', content: '', tool_calls: [call(`c${i + 1}`, 'run_command', { command: `ls ${id}` })] },
        ],
      })),
    );
    writeFileSync(file, recs.map((r) => JSON.stringify(r)).join('\n') + '\n');
    // A distractor tool whose parameter is the plain word `text`, and renames of every tool and
    // parameter: the skill bodies' unrelated `text` code spans stay (the false reject this caused on
    // published skills is reproduced in test/transforms/distractor-param-owners.test.ts).
    writeFileSync(
      cfg,
      `harness: harness\ntrajectories: [t.jsonl]\nwords:\n  mode: {distractor_tools: replace}\n  distractor_tools:\n    - name: translate_snippet\n      description: Translate a short snippet.\n      parameters: {type: object, properties: {text: {type: string}, lang: {type: string}}, required: [text]}\ntransforms:\n  tools.distractors: { p: 1, max: 1 }\n  tools.param-rename: { p: 1, intensity: 1 }\n  skills.body-layout: true\n  skills.rename: true\n  tools.rename: true\n`,
    );
    const v = await runHsaAsync(['validate', h, '-t', file]);
    expect(v.code, v.stderr).toBe(0);
    for (const seed of ['1', '2']) {
      const out = path.join(dir, `out-${seed}`);
      const a = await runHsaAsync(['augment', '--no-gzip', '--config', cfg, '-o', out, '-k', '8', '--seed', seed, '--stages', 'sft', '-q', '--json']);
      expect(a.code, a.stderr).toBe(0);
      expect((JSON.parse(a.stdout) as { totals: Json; reject_reasons?: Json }).totals).toMatchObject({ variants_written: 32, variants_rejected: 0 });
      const c = checker(out, file, h);
      expect(c.report.failures).toEqual({});
      // The unrelated `text` spans are kept byte for byte in every body.
      for (const r of readJsonl(path.join(out, 'sft/part-00000.jsonl')) as { messages: { role: string; content: string }[] }[]) {
        const loaded = r.messages.find((m) => m.role === 'tool')!.content;
        expect(loaded).toContain('`text`');
      }
    }
  }, 60_000);
});

describe('skill loads logged as the file reads (blank line after the front matter, final newline)', () => {
  // A loader that returns SKILL.md after its front matter gives the body with the blank line that
  // followed the front matter and the file's final newline: the same body, and the same text kept.
  const dir = tempDir('hsa-skill-space-');
  const h = path.join(dir, 'harness');
  for (const d of ['prompt', 'tools', 'skills/seed-saving', 'skills/compost-guide', 'skills/mulch']) mkdirSync(path.join(h, d), { recursive: true });
  writeFileSync(path.join(h, 'harness.yaml'), 'name: garden-desk\nversion: "2"\nskills:\n  loader:\n    tool: open_skill\n    argument: skill\n');
  writeFileSync(path.join(h, 'prompt/role.md'), '# Role\n\nYou help allotment holders. Open a skill before you follow it.\n');
  writeFileSync(
    path.join(h, 'tools/tools.json'),
    JSON.stringify([
      fn('open_skill', { type: 'object', properties: { skill: { type: 'string' } }, required: ['skill'] }, 'Open a skill.'),
      fn(
        'log_task',
        { type: 'object', properties: { plot_id: { type: 'string' }, task: { type: 'string' } }, required: ['plot_id', 'task'] },
        'Log a task on a plot.',
      ),
    ]),
  );
  const files: Record<string, string> = {
    'seed-saving':
      '---\nname: seed-saving\ndescription: Save seed from open-pollinated crops.\nlicense: CC-BY-4.0\n---\n\n# Seed saving\n\n1. Pick the best plants and let them go to seed.\n2. Dry seed for two weeks, then call `log_task` with the `plot_id`.\n\n```python\nlabel = f"{crop}-{year}"\n```\n',
    'compost-guide':
      '---\nname: compost-guide\ndescription: Balance a compost heap.\n---\n\nMix greens and browns about 1:2. Turn weekly; log it with `log_task`.\n\n\n',
    // A one-word name: a plain word, which body rules leave alone, except in the front matter.
    mulch: '---\nname: mulch\ndescription: Mulch beds before winter.\n---\n\nSpread 5 cm of leaf mould, then call `log_task`.\n',
  };
  for (const [id, text] of Object.entries(files)) writeFileSync(path.join(h, `skills/${id}/SKILL.md`), text);
  const file = path.join(dir, 't.jsonl');
  const records: Json[] = [];
  for (let i = 0; i < 6; i++) {
    const id = i % 2 ? 'compost-guide' : 'seed-saving';
    const logged = files[id]!.slice(files[id]!.indexOf('\n---\n') + 5);
    records.push({
      id: `g-${i}`,
      messages: [
        { role: 'user', content: `Help with plot P${i}.` },
        { role: 'assistant', content: '', tool_calls: [call('a', 'open_skill', { skill: id })] },
        { role: 'tool', tool_call_id: 'a', content: logged },
        { role: 'assistant', content: 'Logging it.', tool_calls: [call('b', 'log_task', { plot_id: `P${i}`, task: id })] },
        { role: 'tool', tool_call_id: 'b', content: 'ok' },
        { role: 'assistant', content: 'Logged.' },
      ],
    });
  }
  // Loaders that return the whole file, front matter and all.
  for (let i = 0; i < 2; i++) {
    records.push({
      id: `m-${i}`,
      messages: [
        { role: 'user', content: `Mulch plot M${i}.` },
        { role: 'assistant', content: '', tool_calls: [call('a', 'open_skill', { skill: 'mulch' })] },
        { role: 'tool', tool_call_id: 'a', content: files.mulch },
        { role: 'assistant', content: 'Logging it.', tool_calls: [call('b', 'log_task', { plot_id: `M${i}`, task: 'mulch' })] },
        { role: 'tool', tool_call_id: 'b', content: 'ok' },
        { role: 'assistant', content: 'Logged.' },
      ],
    });
  }
  writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');

  it('a whole SKILL.md loaded: its front matter names the renamed skill by its new name', async () => {
    const cfg = path.join(dir, 'rename.yaml');
    writeFileSync(cfg, 'harness: harness\ntrajectories: [t.jsonl]\ntransforms:\n  skills.rename: { p: 1, intensity: 1 }\n');
    const out = path.join(dir, 'out-fm');
    const a = await runHsaAsync(['augment', '--no-gzip', '--config', cfg, '-o', out, '-k', '4', '--stages', 'sft', '-q', '--json']);
    expect(a.code, a.stderr).toBe(0);
    expect((JSON.parse(a.stdout) as { totals: Json }).totals).toMatchObject({ variants_written: 32, variants_rejected: 0 });
    expect(checker(out, file, h).report.failures).toEqual({});
    let seen = 0;
    for (const r of readJsonl(path.join(out, 'sft/part-00000.jsonl')) as {
      id: string;
      messages: { content: string }[];
      meta: { transforms: { id: string; params: { renamed?: Record<string, string> } }[] };
    }[]) {
      if (!r.id.startsWith('m-')) continue;
      const to = r.meta.transforms.find((t) => t.id === 'skills.rename')!.params.renamed!.mulch!;
      expect(r.messages[2]!.content).toMatch(new RegExp(`^---\nname: ${to}\n`));
      seen++;
    }
    expect(seen).toBe(8);
  }, 60_000);

  it('validates, augments every variant with the logged blank space kept, and the checker finds nothing', async () => {
    const v = await runHsaAsync(['validate', h, '-t', file]);
    expect(v.code, v.stdout + v.stderr).toBe(0);
    const out = path.join(dir, 'out');
    const a = await runHsaAsync(['augment', '--no-gzip', '--harness', h, '-t', file, '-o', out, '-k', '8', '--stages', 'sft', '-q', '--json']);
    expect(a.code, a.stderr).toBe(0);
    expect((JSON.parse(a.stdout) as { totals: Json }).totals).toMatchObject({ variants_written: 64, variants_rejected: 0 });
    const c = checker(out, file, h);
    expect(c.report.failures).toEqual({});
    for (const r of readJsonl(path.join(out, 'sft/part-00000.jsonl')) as { id: string; messages: { role: string; content: string }[] }[]) {
      if (r.id.startsWith('m-')) continue;
      const body = r.messages[2]!.content;
      expect(body.startsWith('\n')).toBe(true);
      expect(body.endsWith(r.id.startsWith('g-1') || r.id.startsWith('g-3') || r.id.startsWith('g-5') ? '\n\n\n' : '```\n')).toBe(true);
    }
  }, 60_000);
});
