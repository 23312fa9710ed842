import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'yaml';
import { UsageError } from '../errors.js';
import { loadHarness } from '../harness/load.js';
import { renderSystemPrompt, renderTools } from '../harness/render.js';
import { hasSlots } from '../harness/template.js';
import { cmp, hasErrors, ProblemSummary, type Problem, type ProblemKindCount } from '../problems.js';
import { checkTrajectory, toolListDifference } from '../trajectory/check.js';
import { readTrajectories } from '../trajectory/read.js';
import { textOf, type Trajectory } from '../trajectory/types.js';
import { jsonEqual } from '../util/json-equal.js';
import { expandInputs } from '../util/inputs.js';
import { splitPrompt } from './prompt-split.js';
import { inferSkills } from './init-skills.js';
import { inferTools } from './init-tools.js';
import type { Loc, Seen } from './init-types.js';

export interface InitOptions {
  trajectories: string[];
  out: string;
  name?: string;
  version?: string;
  force?: boolean;
}

/** What `hsa init` found and wrote; `problems` are notes (warnings) and refusals (errors). */
export interface InitReport {
  out: string;
  records: number;
  /** Lines that are not trajectories (reported by `hsa validate` too). */
  unreadable: number;
  prompt: {
    /** Records whose system message is the one the harness renders. */
    matching: number;
    /** Records with another system message: they need `--system-prompt locate` (or their own harness). */
    other: number;
    otherDistinct: number;
    none: number;
    sections: string[];
    separator: string;
  };
  tools: { written: string[]; conflicts: string[]; inferredFromCalls: string[] };
  skills: { loader: { tool: string; argument: string } | null; written: string[]; note?: string };
  /** `hsa validate` on the written harness, in match mode, over the records whose system message matches. */
  check: {
    valid: number;
    invalid: number;
    /** Records that list tools other than the harness's: they validate, but augment re-renders the harness's tools. */
    toolsDiffer: number;
    kinds: ProblemKindCount[];
  };
  files: string[];
  problems: Problem[];
}

/**
 * Infer a harness folder from trajectories: tools from the records' `tools` (and, for a tool
 * that is called but never listed, a schema from its calls), prompt sections split from the most
 * common system message, and skills with their loader when a loader tool and a skill catalog
 * appear. The folder is loaded back with the real loader and the records checked against it
 * (what `hsa validate DIR -t …` does); the report says how many pass. Deterministic: the same
 * records give the same bytes.
 */
export async function initHarness(opts: InitOptions): Promise<InitReport> {
  const files = await expandInputs(opts.trajectories, '--trajectories');
  await prepareOut(opts.out, opts.force === true);
  const problems: Problem[] = [];
  const note = (p: Omit<Problem, 'severity'>, severity: Problem['severity'] = 'warning') => problems.push({ ...p, severity });
  const records: Seen[] = [];
  let unreadable = 0;
  for (const file of files) {
    for await (const item of readTrajectories(file)) {
      if (item.ok) records.push({ rec: item.record, at: { file, line: item.line } });
      else unreadable++;
    }
  }
  if (records.length === 0)
    throw new UsageError(
      `--trajectories: no trajectory record in ${files.join(', ')}${unreadable ? ` (${unreadable} unreadable lines: run hsa validate to see why)` : ''}`,
    );

  // The system prompt: the most common first system message (ties: the first seen).
  const prompts = new Map<string, { n: number; first: number }>();
  let none = 0;
  records.forEach(({ rec }, i) => {
    const s = systemText(rec);
    if (s === undefined) none++;
    else {
      const e = prompts.get(s);
      if (e) e.n++;
      else prompts.set(s, { n: 1, first: i });
    }
  });
  let system: string | undefined;
  let best = { n: 0, first: Infinity };
  for (const [s, e] of prompts) if (e.n > best.n || (e.n === best.n && e.first < best.first)) [system, best] = [s, e];

  const tools = inferTools(records, note);
  const skills = inferSkills(records, tools.list, system);
  const split = system === undefined ? { sections: [], separator: '\n\n' } : splitPrompt(system);

  // The catalog section, when skills are written, is generated: it replaces the text section it equals.
  const sections = split.sections.map((s) => ({ ...s }));
  let catalogId: string | null = null;
  if (skills.written.length > 0 && skills.catalogText !== undefined) {
    const i = sections.findIndex((s) => s.text === skills.catalogText);
    catalogId = sections.some((s, j) => j !== i && s.id === 'skills') ? 'skill_catalog' : 'skills';
    sections[i] = { id: catalogId, text: '' };
  } else for (const s of sections) if (s.id === 'skills') s.id = 'skills_text';

  // Records made under a named harness keep its name and version (the most common pair), so
  // validate does not warn that they were made under another harness.
  const named = new Map<string, { n: number; name: string; version: string }>();
  for (const { rec } of records) {
    if (!rec.harness) continue;
    const k = JSON.stringify([rec.harness.name, String(rec.harness.version)]);
    const e = named.get(k) ?? { n: 0, name: rec.harness.name, version: String(rec.harness.version) };
    e.n++;
    named.set(k, e);
  }
  const usual = [...named.values()].reduce<{ n: number; name: string; version: string } | undefined>((a, b) => (!a || b.n > a.n ? b : a), undefined);
  const name = opts.name ?? usual?.name ?? harnessName(opts.out);
  const yamlDoc: Record<string, unknown> = { name, version: opts.version ?? (usual && usual.name === name ? usual.version : '0.1.0') };
  if (system !== undefined || catalogId) {
    const prompt: Record<string, unknown> = { order: sections.map((s) => s.id) };
    if (split.separator !== '\n\n') prompt.separator = split.separator;
    if (catalogId) prompt.catalog = { id: catalogId, title: skills.title, ...(skills.intro !== undefined ? { intro: skills.intro } : {}) };
    yamlDoc.prompt = prompt;
  }
  if (skills.written.length > 0) yamlDoc.skills = { naming: skills.naming, loader: skills.loader };

  const written: string[] = [];
  const put = async (rel: string, text: string) => {
    const abs = path.join(opts.out, rel);
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, text);
    written.push(rel);
  };
  await put(
    'harness.yaml',
    `# Inferred by hsa init from ${files.length} file${files.length === 1 ? '' : 's'} (${records.length} records). Edit freely.\n${stringify(yamlDoc, { lineWidth: 0 })}`,
  );
  if (tools.list.length > 0) await put('tools/tools.json', `${JSON.stringify(tools.list, null, 2)}\n`);
  for (const id of skills.written) {
    const sk = skills.items.get(id)!;
    const front = stringify({ name: id, description: sk.description }, { lineWidth: 0 });
    await put(`skills/${id}/SKILL.md`, `---\n${front}---\n\n${sk.body}\n`);
  }

  // Prompt files end with a newline, as files do; should the renderer keep a file's last newline,
  // the files are written exactly instead. Whichever renders the logged message byte for byte (the
  // real loader and renderer decide) is kept; if neither does, the first is kept and the reasons said.
  const writePrompt = async (exact: boolean) => {
    for (const s of sections) if (s.id !== catalogId) await writeFile(path.join(opts.out, 'prompt', `${s.id}.md`), exact ? s.text : `${s.text}\n`);
    const l = await loadHarness(opts.out);
    // Blank space around the rendered prompt (a logged final newline) is the record's own text,
    // which every --system-prompt mode accepts and keeps: such a message is rendered exactly too.
    const rendered = l.harness !== undefined && !hasErrors(l.problems) ? renderSystemPrompt(l.harness, {}) : undefined;
    const renders = system === undefined || (rendered !== undefined && (rendered === system || (rendered !== '' && system.trim() === rendered)));
    return { loaded: l, renders };
  };
  if (sections.some((s) => s.id !== catalogId)) {
    await mkdir(path.join(opts.out, 'prompt'), { recursive: true });
    for (const s of sections) if (s.id !== catalogId) written.push(`prompt/${s.id}.md`);
  }
  let attempt = await writePrompt(false);
  if (!attempt.renders) {
    const exact = await writePrompt(true);
    attempt = exact.renders ? exact : await writePrompt(false);
  }
  const loaded = attempt.loaded;
  if (!attempt.renders && system !== undefined) checkRenderable(system, note, records[best.first]!.at);
  written.sort(cmp);

  // Check the records whose system message the folder renders (or that have none).
  const kinds = new ProblemSummary();
  let valid = 0;
  let invalid = 0;
  let other = 0;
  let toolsDiffer = 0;
  let toolsDifferAt: Loc | undefined;
  if (!loaded.harness || hasErrors(loaded.problems)) {
    for (const p of loaded.problems) if (p.severity === 'error') problems.push(p);
  } else {
    const h = loaded.harness;
    if (!attempt.renders) {
      note(
        {
          file: path.join(opts.out, 'harness.yaml'),
          path: 'prompt',
          message: 'the harness does not render the most common system message byte for byte (see the notes above); its records need --system-prompt locate',
        },
        'error',
      );
    }
    for (const { rec, at } of records) {
      const s = systemText(rec);
      if (s !== undefined && s !== system) {
        other++;
        continue;
      }
      // Like a record with another prompt, a record with other tools is counted, not checked: under
      // this folder it is invalid (every variant carries the folder's tools).
      if (rec.tools && !jsonEqual(rec.tools, renderTools(h)) && toolListDifference(rec.tools, h) !== null) {
        toolsDiffer++;
        toolsDifferAt ??= at;
        continue;
      }
      const found = checkTrajectory(rec, h, at).filter((p) => p.severity === 'error');
      if (found.length === 0) valid++;
      else {
        invalid++;
        found.forEach((p) => kinds.add(p));
      }
    }
  }
  if (other > 0) {
    note({
      file: files[0]!,
      path: 'messages.0.content',
      message: `${other} record${other === 1 ? ' has' : 's have'} another system message (${prompts.size - 1} distinct): they need --system-prompt locate, or a harness of their own`,
    });
  }
  if (toolsDifferAt) {
    note({
      file: toolsDifferAt.file,
      line: toolsDifferAt.line,
      path: 'tools',
      message: `${toolsDiffer} record${toolsDiffer === 1 ? ' lists' : 's list'} tools that differ from the harness's (first here): under this folder they are invalid, as every variant carries the folder's tools; records that carry their own tools are augmented without --harness (each record's tools and system message are its harness)`,
    });
  }
  // Hooks are not inferred; feedback messages in the records would name hooks the folder lacks.
  const hookIds = new Set<string>();
  let hookAt: Loc | undefined;
  for (const { rec, at } of records) {
    for (const m of rec.messages) {
      if ((m.role === 'user' || m.role === 'system') && m.name?.startsWith('hook:')) {
        hookIds.add(m.name.slice('hook:'.length));
        hookAt ??= at;
      }
    }
  }
  if (hookAt) {
    const ids = [...hookIds].sort(cmp);
    note({
      file: hookAt.file,
      line: hookAt.line,
      path: 'hooks',
      message: `records carry feedback of hook${ids.length === 1 ? '' : 's'} ${ids.join(', ')} (messages named "hook:<id>"); hsa init writes no hooks: add them to hooks.yaml`,
    });
  }
  if (skills.note) note({ file: files[0]!, path: 'skills', message: skills.note });
  return {
    out: opts.out,
    records: records.length,
    unreadable,
    prompt: { matching: best.n, other, otherDistinct: Math.max(0, prompts.size - 1), none, sections: sections.map((s) => s.id), separator: split.separator },
    tools: { written: tools.list.map((t) => t.function.name), conflicts: tools.conflicts, inferredFromCalls: tools.inferred },
    skills: { loader: skills.written.length > 0 ? skills.loader : null, written: skills.written, ...(skills.note ? { note: skills.note } : {}) },
    check: { valid, invalid, toolsDiffer, kinds: kinds.rows() },
    files: written,
    problems,
  };
}

function systemText(rec: Trajectory): string | undefined {
  const m = rec.messages[0];
  return m && m.role === 'system' ? textOf(m.content) : undefined;
}

/** A non-empty out folder is refused without --force; with it, what init writes is removed first. */
async function prepareOut(out: string, force: boolean): Promise<void> {
  let entries: string[] = [];
  try {
    entries = await readdir(out);
  } catch {
    return;
  }
  if (entries.length === 0) return;
  if (!force) throw new UsageError(`${out}: folder is not empty (use --force to replace what hsa init writes there)`);
  for (const e of ['harness.yaml', 'hooks.yaml', 'prompt', 'skills', 'tools']) await rm(path.join(out, e), { recursive: true, force: true });
}

function harnessName(out: string): string {
  const base = path
    .basename(path.resolve(out))
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return base === '' ? 'inferred' : base;
}

/** Why the renderer may not give the message back byte for byte (said only when it does not). */
function checkRenderable(system: string, note: (p: Omit<Problem, 'severity'>, s?: Problem['severity']) => void, at: Loc): void {
  const where = { file: at.file, line: at.line, path: 'messages.0.content' };
  if (system !== system.trim())
    note({ ...where, message: 'the most common system message starts or ends with blank space, which rendered sections (trimmed) may not reproduce' }, 'error');
  if (system.includes('\r\n'))
    note({ ...where, message: 'the most common system message has CRLF line ends; prompt files are read with \\n line ends' }, 'error');
  if (hasSlotsSafe(system))
    note({ ...where, message: 'the most common system message has {{…}} text, which a prompt section reads as a template slot' }, 'error');
}

function hasSlotsSafe(text: string): boolean {
  try {
    return hasSlots(text);
  } catch {
    return true;
  }
}
