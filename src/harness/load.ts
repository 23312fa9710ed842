import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import { UnreadableInputError } from '../errors.js';
import { cmp, type Problem } from '../problems.js';
import { globFiles } from '../util/inputs.js';
import { isParseFailure, parseLocated, stripBom, type LocatedDoc } from '../util/located.js';
import { claudeHooksBlock, describeKind, HOOKS_SHAPES, readClaudeHooks } from './claude-hooks.js';
import { normaliseHook } from './hook-input.js';
import type { HarnessOrigins } from './origins.js';
import { isDir, isFile, isPlainObject, jsonSyntaxError, listDir, normaliseNewlines, readText } from './read-files.js';
import { describeIssue, harnessFileSchema, hookSchema, type HarnessFile } from './schema.js';
import { quickHarnessFile } from './harness-file-quick.js';
import { quickHook } from './parts-quick.js';
import { longDescription, parseSkillFile, SKILL_DESCRIPTION_LIMIT, type SkillLines } from './skill-file.js';
import { normaliseToolFile } from './tools.js';
import { suspectSchemaKeys } from './schema-spellings.js';
import type { Harness, Hook, Section, Skill, Tool } from './types.js';
import { validateHarness } from './validate.js';

export interface LoadResult {
  /** Present when the snapshot could be assembled (it may still have problems). */
  harness?: Harness;
  problems: Problem[];
  /** Every file read, relative to the snapshot root, with its bytes: for manifests. */
  files: { file: string; text: string }[];
}

/**
 * Load a harness snapshot: a folder holding `harness.yaml` (folder form) or a YAML file (single-file
 * form). Every problem is collected and returned; nothing is thrown except for an input that cannot
 * be read at all (UnreadableInputError).
 */
export async function loadHarness(input: string): Promise<LoadResult> {
  let info;
  try {
    info = await stat(input);
  } catch {
    throw new UnreadableInputError(`${input}: no such file or folder`);
  }
  const folderForm = info.isDirectory();
  const root = folderForm ? input : path.dirname(input);
  const harnessFile = folderForm ? path.join(input, 'harness.yaml') : input;
  const display = (rel: string) => path.join(root, rel);
  const problems: Problem[] = [];
  const files: { file: string; text: string }[] = [];
  const err = (file: string, p: string, message: string, line?: number) =>
    problems.push({ file, ...(line !== undefined ? { line } : {}), path: p, message, severity: 'error' });
  const warn = (file: string, p: string, message: string, line?: number) =>
    problems.push({ file, ...(line !== undefined ? { line } : {}), path: p, message, severity: 'warning' });

  const mainText = await readText(harnessFile);
  files.push({ file: path.relative(root, harnessFile) || path.basename(harnessFile), text: mainText });
  const mainDoc = parseLocated(harnessFile, mainText);
  if (isParseFailure(mainDoc)) {
    err(harnessFile, '', `YAML syntax: ${mainDoc.message}`, mainDoc.line);
    return { problems, files };
  }
  // (A file the hand reading takes is one the schema takes, read the same; any other, the schema reads and explains.)
  let cfg: HarnessFile | null = quickHarnessFile(mainDoc.value ?? {});
  if (cfg === null) {
    const parsed = harnessFileSchema().safeParse(mainDoc.value ?? {}, { reportInput: true });
    if (!parsed.success) {
      pushZod(problems, harnessFile, mainDoc, parsed.error.issues, []);
      return { problems, files };
    }
    cfg = parsed.data;
  }
  // A YAML number version is kept as written (`1.10` stays "1.10", not "1.1").
  const writtenVersion = mainDoc.numberSource(['version']);
  if (writtenVersion !== undefined) cfg.version = writtenVersion;
  const origins: HarnessOrigins = { harnessFile, harnessDoc: mainDoc, skills: {}, tools: {}, hooks: {}, sections: {} };

  // Prompt sections: files of the prompt folder (folder form or explicit dir), then inline ones.
  const sectionTexts = new Map<string, string>();
  const promptDir = cfg.prompt?.dir ?? (folderForm ? 'prompt' : undefined);
  if (promptDir !== undefined) {
    const names = await listDir(path.join(root, promptDir), cfg.prompt?.dir !== undefined);
    if (names === null) err(harnessFile, 'prompt.dir', `folder ${display(promptDir)} does not exist`, mainDoc.lineOf(['prompt', 'dir']));
    for (const name of (names ?? []).filter((n) => n.endsWith('.md') && !n.startsWith('.'))) {
      const rel = path.join(promptDir, name);
      const text = await readText(path.join(root, rel));
      files.push({ file: rel, text });
      const id = name.slice(0, -'.md'.length);
      sectionTexts.set(id, normaliseNewlines(stripBom(text)).trim());
      origins.sections[id] = { file: display(rel) };
    }
  }
  (cfg.prompt?.sections ?? []).forEach((s, i) => {
    if (sectionTexts.has(s.id)) {
      err(harnessFile, `prompt.sections.${i}.id`, `duplicate section id "${s.id}"`, mainDoc.lineOf(['prompt', 'sections', i, 'id']));
      return;
    }
    sectionTexts.set(s.id, normaliseNewlines(s.text).trim());
    origins.sections[s.id] = { file: harnessFile };
  });

  // Skills.
  const skills: Skill[] = [];
  const skillsDir = cfg.skills?.dir ?? (folderForm ? 'skills' : undefined);
  if (skillsDir !== undefined) {
    const names = await listDir(path.join(root, skillsDir), cfg.skills?.dir !== undefined);
    if (names === null) err(harnessFile, 'skills.dir', `folder ${display(skillsDir)} does not exist`, mainDoc.lineOf(['skills', 'dir']));
    for (const name of (names ?? []).filter((n) => !n.startsWith('.'))) {
      const dir = path.join(root, skillsDir, name);
      if (!(await isDir(dir))) continue;
      const rel = path.join(skillsDir, name, 'SKILL.md');
      let text: string;
      try {
        text = await readFile(path.join(root, rel), 'utf8');
      } catch {
        err(display(path.join(skillsDir, name)), '', 'skill folder has no SKILL.md');
        continue;
      }
      files.push({ file: rel, text });
      const where: SkillLines = {};
      const skill = parseSkillFile(display(rel), name, text, problems, where);
      if (skill) {
        skills.push(skill);
        origins.skills[skill.id] = { file: display(rel), line: where.line ?? 2, toolLines: where.toolLines ?? [] };
      }
    }
  }
  (cfg.skills?.items ?? []).forEach((s, i) => {
    const skill: Skill = {
      id: s.name,
      description: s.description,
      kind: s.kind ?? 'reply',
      tools: s.tools ?? [],
      body: normaliseNewlines(s.body).trim(),
      extra: {},
    };
    const line = mainDoc.lineOf(['skills', 'items', i]);
    if (s.description.length < 1) {
      err(harnessFile, `skills.items.${i}.description`, 'must not be empty', mainDoc.lineOf(['skills', 'items', i, 'description']));
    } else if (s.description.length > SKILL_DESCRIPTION_LIMIT) {
      warn(harnessFile, `skills.items.${i}.description`, longDescription(s.description), mainDoc.lineOf(['skills', 'items', i, 'description']));
    }
    if (origins.skills[skill.id]) {
      err(harnessFile, `skills.items.${i}.name`, `duplicate skill "${skill.id}" (also ${origins.skills[skill.id]!.file})`, line);
      return;
    }
    skills.push(skill);
    const toolLines = skill.tools.map((_, j) => mainDoc.lineOf(['skills', 'items', i, 'tools', j]));
    origins.skills[skill.id] = { file: harnessFile, ...(line !== undefined ? { line } : {}), toolLines, keyPath: `skills.items.${i}` };
  });
  skills.sort((a, b) => cmp(a.id, b.id));
  // Skills whose bullet lists are free to reorder (the default keeps every list in order).
  (cfg.skills?.unordered_lists ?? []).forEach((id, i) => {
    const skill = skills.find((s) => s.id === id);
    if (skill) skill.unorderedLists = true;
    else err(harnessFile, `skills.unordered_lists.${i}`, `no skill "${id}"`, mainDoc.lineOf(['skills', 'unordered_lists', i]));
  });

  // Tools.
  const tools: Tool[] = [];
  const addTools = (value: unknown, file: string, doc: LocatedDoc | undefined, prefix: (string | number)[]) => {
    const { tools: found, issues } = normaliseToolFile(value);
    for (const issue of issues) {
      const full = [...prefix, ...issue.path];
      err(file, full.join('.'), issue.message, doc?.lineOf(full));
    }
    for (const { tool, path: p } of found) {
      const full = [...prefix, ...p];
      const line = doc?.lineOf(full);
      const prior = origins.tools[tool.name];
      if (prior) {
        const namePath = [...full, ...(tool.sourceFormat === 'openai' ? ['function', 'name'] : ['name'])];
        err(file, namePath.join('.'), `duplicate tool "${tool.name}" (also ${prior.file}${prior.line ? `:${prior.line}` : ''})`, doc?.lineOf(namePath) ?? line);
        continue;
      }
      tools.push(tool);
      origins.tools[tool.name] = { file, ...(line !== undefined ? { line } : {}) };
      const schemaAt = [...full, ...(tool.sourceFormat === 'openai' ? ['function', 'parameters'] : ['inputSchema'])];
      for (const s of suspectSchemaKeys(tool.parameters, schemaAt)) warn(file, s.path.join('.'), s.message, doc?.lineOf(s.path) ?? line);
    }
  };
  const toolSources = cfg.tools?.sources ?? (folderForm ? ['tools/*.json', 'tools/*.yaml', 'tools/*.yml'] : []);
  const toolFiles = (await globFiles(toolSources, root)).sort(cmp);
  if (cfg.tools?.sources && toolFiles.length === 0) {
    err(harnessFile, 'tools.sources', `no file matches ${cfg.tools.sources.join(', ')}`, mainDoc.lineOf(['tools', 'sources']));
  }
  for (const rel of toolFiles) {
    const text = await readText(path.join(root, rel));
    files.push({ file: rel, text });
    const doc = parseLocated(display(rel), text);
    if (isParseFailure(doc)) {
      err(display(rel), '', `${rel.endsWith('.json') ? 'JSON' : 'YAML'} syntax: ${doc.message}`, doc.line);
      continue;
    }
    // YAML accepts more than JSON (trailing commas, comments, single quotes): a .json file must be JSON.
    const jsonError = rel.endsWith('.json') ? jsonSyntaxError(text) : undefined;
    if (jsonError) {
      err(display(rel), '', `JSON syntax: ${jsonError.message}`, jsonError.line);
      continue;
    }
    addTools(doc.value, display(rel), doc, []);
  }
  (cfg.tools?.items ?? []).forEach((item, i) => addTools(item, harnessFile, mainDoc, ['tools', 'items', i]));

  // Hooks: hsa's own list (hooks.yaml, or `hooks:` in harness.yaml) and Claude Code's hooks blocks
  // as they are written (hooks.json, a plugin's hooks/hooks.json, .claude/settings.json, or a
  // `hooks:` mapping), read in that order. A hooks file in the folder that is not read says so.
  const hooks: Hook[] = [];
  const hookLists: { hooks: unknown[]; file: string; doc: LocatedDoc; base: (string | number)[] }[] = [];
  const claudeBlocks: { events: Record<string, unknown>; file: string; doc: LocatedDoc; base: (string | number)[] }[] = [];
  /** One hooks file's parsed value: hsa's shape, Claude Code's, or an error saying which shapes are read. */
  const readHooksFile = (top: unknown, file: string, doc: LocatedDoc, settings: boolean) => {
    if (isPlainObject(top) && Array.isArray(top.hooks)) {
      const extra = Object.keys(top).filter((k) => k !== 'hooks');
      if (extra.length > 0) err(file, '', `unknown key${extra.length > 1 ? 's' : ''}: ${extra.join(', ')}`, doc.lineOf([extra[0]!]));
      hookLists.push({ hooks: top.hooks, file, doc, base: ['hooks'] });
      return;
    }
    const block = claudeHooksBlock(top);
    if (block) {
      const others = block.others.filter((k) => !(k === 'description' && !settings));
      if (others.length > 0) {
        warn(
          file,
          others[0]!,
          settings
            ? `Claude Code settings other than hooks are not read: ${others.join(', ')}`
            : `not a key of a Claude Code hooks file (hooks, description); not read: ${others.join(', ')}`,
          doc.lineOf([others[0]!]),
        );
      }
      claudeBlocks.push({ events: block.events, file, doc, base: block.base });
      return;
    }
    if (settings && isPlainObject(top) && top.hooks === undefined) {
      warn(file, 'hooks', 'Claude Code settings without a `hooks` block: no hooks read from it', 1);
      return;
    }
    const has = isPlainObject(top) && 'hooks' in top;
    err(
      file,
      'hooks',
      `expected ${has ? '`hooks:` to hold ' : 'a mapping with `hooks:`, holding '}${HOOKS_SHAPES}; found ${describeKind(has ? (top as { hooks: unknown }).hooks : top)}`,
      has ? (doc.lineOf(['hooks']) ?? 1) : 1,
    );
  };
  const DEFAULT_HOOK_FILES = ['hooks.yaml', 'hooks.yml', 'hooks.json', 'hooks/hooks.json', '.claude/settings.json'];
  const named = typeof cfg.hooks === 'string' ? cfg.hooks : undefined;
  const present = folderForm
    ? (await Promise.all(DEFAULT_HOOK_FILES.map(async (f) => ((await isFile(path.join(root, f))) ? f : null)))).filter((f): f is string => f !== null)
    : [];
  let hookFiles: string[];
  if (named !== undefined) {
    if (!(await isFile(path.join(root, named)))) err(harnessFile, 'hooks', `file ${display(named)} does not exist`, mainDoc.lineOf(['hooks']));
    hookFiles = [named];
  } else hookFiles = cfg.hooks === undefined ? present : [];
  for (const f of present) {
    if (hookFiles.includes(f) || path.normalize(f) === path.normalize(named ?? '')) continue;
    warn(
      harnessFile,
      'hooks',
      `${f} in the harness folder is not read: \`hooks:\` ${named !== undefined ? `names ${named}` : 'holds the hooks inline'}; name ${f} there instead, or move its hooks into the one read`,
      mainDoc.lineOf(['hooks']),
    );
  }
  for (const rel of hookFiles) {
    const abs = path.join(root, rel);
    if (!(await isFile(abs))) continue;
    const text = await readText(abs);
    files.push({ file: rel, text });
    const jsonError = rel.endsWith('.json') ? jsonSyntaxError(text) : undefined;
    if (jsonError) {
      err(display(rel), '', `JSON syntax: ${jsonError.message}`, jsonError.line);
      continue;
    }
    const doc = parseLocated(display(rel), text);
    if (isParseFailure(doc)) err(display(rel), '', `YAML syntax: ${doc.message}`, doc.line);
    else readHooksFile(doc.value, display(rel), doc, /(^|[\\/])settings(\.local)?\.json$/.test(rel));
  }
  if (Array.isArray(cfg.hooks)) hookLists.push({ hooks: cfg.hooks, file: harnessFile, doc: mainDoc, base: ['hooks'] });
  else if (isPlainObject(cfg.hooks)) {
    const block = claudeHooksBlock(cfg.hooks);
    if (block) claudeBlocks.push({ events: block.events, file: harnessFile, doc: mainDoc, base: ['hooks', ...block.base] });
    else
      err(
        harnessFile,
        'hooks',
        `expected a file name, ${HOOKS_SHAPES}; found a mapping of ${Object.keys(cfg.hooks).slice(0, 3).join(', ') || 'nothing'}`,
        mainDoc.lineOf(['hooks']),
      );
  }
  const addHook = (raw: unknown, file: string, doc: LocatedDoc, p: (string | number)[], idPath: (string | number)[]) => {
    let input = quickHook(raw);
    if (input === null) {
      const r = hookSchema().safeParse(raw, { reportInput: true });
      if (!r.success) {
        pushZod(problems, file, doc, r.error.issues, p);
        return;
      }
      input = r.data;
    }
    const hook = normaliseHook(input);
    const line = doc.lineOf(idPath);
    if (origins.hooks[hook.id]) {
      err(file, `${p.join('.')}.id`, `duplicate hook "${hook.id}"`, line);
      return;
    }
    if (hook.command === undefined && hook.checks.length === 0) {
      err(file, p.join('.'), 'a hook needs `checks` or a `command`', line);
    }
    if (hook.command !== undefined && hook.checks.length > 0) {
      err(file, p.join('.'), 'a hook has either `checks` or a `command`, not both', line);
    }
    hooks.push(hook);
    origins.hooks[hook.id] = { file, ...(line !== undefined ? { line } : {}), doc, path: p };
  };
  for (const { hooks: list, file, doc, base } of hookLists) list.forEach((raw, i) => addHook(raw, file, doc, [...base, i], [...base, i, 'id']));
  for (const { events, file, doc, base } of claudeBlocks) {
    const read = readClaudeHooks(events, base, tools);
    for (const issue of read.issues) (issue.severity === 'error' ? err : warn)(file, issue.path.join('.'), issue.message, doc.lineOf(issue.path));
    for (const { input, path: p } of read.hooks) addHook(input, file, doc, p, p);
  }

  // Prompt order: declared order, else file-name order; the catalog goes last unless placed.
  const catalogId = cfg.prompt?.catalog?.id ?? 'skills';
  if (sectionTexts.has(catalogId)) {
    err(origins.sections[catalogId]!.file, '', `section id "${catalogId}" is reserved for the generated skill catalog (prompt.catalog.id)`);
  }
  // Prompt files the log carries inside its first user turn (prompt.user_sections), not in the system prompt.
  const userTexts: { id: string; text: string }[] = [];
  (cfg.prompt?.user_sections ?? []).forEach((id, i) => {
    const line = mainDoc.lineOf(['prompt', 'user_sections', i]);
    if (cfg.prompt?.order?.includes(id))
      err(
        harnessFile,
        `prompt.user_sections.${i}`,
        `section "${id}" is in prompt.order too: a section is in the system prompt or in the first user turn, not both`,
        line,
      );
    else if (userTexts.some((u) => u.id === id)) err(harnessFile, `prompt.user_sections.${i}`, `section "${id}" is listed twice`, line);
    else if (!sectionTexts.has(id) || sectionTexts.get(id) === '')
      err(harnessFile, `prompt.user_sections.${i}`, `no section "${id}" (no ${promptDir ?? 'prompt'}/${id}.md with text, and no inline section)`, line);
    else {
      userTexts.push({ id, text: sectionTexts.get(id)! });
      sectionTexts.delete(id);
    }
  });
  const order: string[] = [];
  const declared = cfg.prompt?.order;
  if (declared) {
    const seen = new Set<string>();
    declared.forEach((id, i) => {
      const line = mainDoc.lineOf(['prompt', 'order', i]);
      if (seen.has(id)) err(harnessFile, `prompt.order.${i}`, `section "${id}" is listed twice`, line);
      else if (id !== catalogId && !sectionTexts.has(id))
        err(harnessFile, `prompt.order.${i}`, `no section "${id}" (no ${promptDir ?? 'prompt'}/${id}.md and no inline section)`, line);
      else order.push(id);
      seen.add(id);
    });
    for (const id of [...sectionTexts.keys()].sort(cmp)) {
      if (!seen.has(id)) {
        warn(harnessFile, 'prompt.order', `section "${id}" is not listed; it is appended at the end`, mainDoc.lineOf(['prompt', 'order']));
        order.push(id);
      }
    }
  } else {
    order.push(...[...sectionTexts.keys()].sort(cmp));
  }
  if (!order.includes(catalogId) && skills.length > 0) order.push(catalogId);
  const sections: Section[] = order.map((id) =>
    id === catalogId ? { id, kind: 'catalog', text: '', placement: 'system' } : { id, kind: 'text', text: sectionTexts.get(id) ?? '', placement: 'system' },
  );

  const variables: Harness['variables'] = {};
  for (const [k, v] of Object.entries(cfg.variables ?? {})) {
    const entry: { description?: string; default?: unknown } = {};
    if (v?.description !== undefined) entry.description = v.description;
    if (v && 'default' in v && v.default !== undefined) entry.default = v.default;
    variables[k] = entry;
  }
  const catalog: Harness['catalog'] = { id: catalogId, title: cfg.prompt?.catalog?.title ?? 'Skills' };
  if (cfg.prompt?.catalog?.intro !== undefined) catalog.intro = cfg.prompt.catalog.intro.trim();

  const harness: Harness = {
    name: cfg.name,
    version: cfg.version,
    ...(cfg.description !== undefined ? { description: cfg.description } : {}),
    sections,
    ...(userTexts.length > 0 ? { userTexts } : {}),
    pinned: cfg.prompt?.pinned ?? [],
    unordered: cfg.prompt?.unordered ?? [],
    separator: cfg.prompt?.separator ?? '\n\n',
    catalog,
    variables,
    skillNaming: cfg.skills?.naming ?? 'agent-skills',
    skillLoader: cfg.skills?.loader ?? null,
    skills,
    tools,
    hooks,
    hookMessages: { namePrefix: cfg.hook_messages?.name_prefix ?? 'hook:' },
    promptStyle: null,
  };
  problems.push(...validateHarness(harness, origins));
  files.sort((a, b) => cmp(a.file, b.file));
  return { harness, problems, files };
}

function pushZod(problems: Problem[], file: string, doc: LocatedDoc, issues: readonly z.core.$ZodIssue[], prefix: (string | number)[]): void {
  for (const issue of issues) {
    const d = describeIssue(issue);
    const full = [...prefix, ...d.path];
    // An unknown key is located at the key itself.
    const at = issue.code === 'unrecognized_keys' && issue.keys[0] !== undefined ? [...full, issue.keys[0]] : full;
    const line = doc.lineOf(at);
    problems.push({ file, ...(line !== undefined ? { line } : {}), path: full.join('.'), message: d.message, severity: 'error' });
  }
}
