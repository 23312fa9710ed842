import type { Problem } from '../problems.js';
import { compileSchema } from '../util/json-schema.js';
import { plainSchemaCompiles } from '../util/plain-schema.js';
import type { HarnessOrigins } from './origins.js';
import { templateSlots } from './template.js';
import { unknownTypes } from './schema-spellings.js';
import { isObjectParameters } from './root-object.js';
import { SKILL_NAME_MAX, SKILL_NAME_PATTERNS, type Harness } from './types.js';

/**
 * Cross-reference rules over an assembled harness: every name a part mentions exists, every tool
 * schema compiles, skill names follow the declared convention, regexes compile. Returns all problems.
 */
export function validateHarness(h: Harness, origins: HarnessOrigins): Problem[] {
  const problems: Problem[] = [];
  const main = origins.harnessFile;
  const doc = origins.harnessDoc;
  const at = (file: string, path: string, message: string, line?: number) =>
    problems.push({ file, ...(line !== undefined ? { line } : {}), path, message, severity: 'error' });
  const toolNames = new Set(h.tools.map((t) => t.name));
  const sectionIds = new Set(h.sections.map((s) => s.id));

  for (const t of h.tools) {
    const o = origins.tools[t.name];
    const file = o?.file ?? main;
    const p = t.parameters as { type?: unknown };
    if (!isObjectParameters(p)) at(file, `${t.name}.parameters.type`, 'tool parameters must be a JSON Schema of type "object"', o?.line);
    // A type name hsa does not read is named as such (ajv would answer with a list of schema paths).
    const unknown = unknownTypes(t.parameters, [t.name, 'parameters']);
    for (const u of unknown) at(file, u.path.join('.'), u.message, o?.line);
    if (unknown.length > 0) continue;
    // A plain draft-07 schema is shown to compile without ajv (~55 ms to load and compile); any
    // other, and every schema that may not compile, goes to ajv, whose message is reported.
    if (plainSchemaCompiles(t.parameters)) continue;
    const compiled = compileSchema(t.parameters);
    if ('error' in compiled) at(file, `${t.name}.parameters`, `JSON Schema does not compile: ${compiled.error}`, o?.line);
  }

  const pattern = SKILL_NAME_PATTERNS[h.skillNaming];
  for (const s of h.skills) {
    const o = origins.skills[s.id];
    const file = o?.file ?? main;
    const kp = o?.keyPath ? `${o.keyPath}.` : '';
    if (!pattern.test(s.id) || s.id.length > SKILL_NAME_MAX) {
      at(file, `${kp}name`, `"${s.id}" does not follow skills.naming "${h.skillNaming}" (${pattern.source}, at most ${SKILL_NAME_MAX} characters)`, o?.line);
    }
    s.tools.forEach((t, i) => {
      if (!toolNames.has(t)) at(file, `${kp}tools.${i}`, `skill "${s.id}" names tool "${t}", which does not exist`, o?.toolLines?.[i] ?? o?.line);
    });
  }

  if (h.skillLoader) {
    const line = doc?.lineOf(['skills', 'loader', 'tool']);
    const loader = h.tools.find((t) => t.name === h.skillLoader!.tool);
    if (!loader) at(main, 'skills.loader.tool', `loader tool "${h.skillLoader.tool}" does not exist`, line);
    else {
      const props = (loader.parameters as { properties?: Record<string, unknown> }).properties ?? {};
      if (!(h.skillLoader.argument in props)) {
        at(
          main,
          'skills.loader.argument',
          `loader tool "${loader.name}" has no parameter "${h.skillLoader.argument}"`,
          doc?.lineOf(['skills', 'loader', 'argument']),
        );
      }
    }
  } else if (h.skills.length > 0) {
    problems.push({
      file: main,
      path: 'skills.loader',
      message: 'skills exist but no loader is declared; skill loads cannot be recognised in trajectories',
      severity: 'warning',
    });
  }

  for (const [key, list] of [
    ['pinned', h.pinned],
    ['unordered', h.unordered],
  ] as const) {
    list.forEach((id, i) => {
      if (!sectionIds.has(id)) at(main, `prompt.${key}.${i}`, `no section "${id}"`, doc?.lineOf(['prompt', key, i]));
    });
  }

  for (const hook of h.hooks) {
    const o = origins.hooks[hook.id];
    const file = o?.file ?? main;
    const base = o ? o.path.join('.') : `hooks.${hook.id}`;
    const line = (rest: (string | number)[]) => o?.doc?.lineOf([...(o?.path ?? []), ...rest]) ?? o?.line;
    (hook.matcher ?? []).forEach((t, i) => {
      if (!toolNames.has(t))
        at(
          file,
          `${base}.matcher${hook.matcher!.length > 1 ? `.${i}` : ''}`,
          `hook "${hook.id}" names tool "${t}", which does not exist`,
          line(['matcher', i]),
        );
    });
    if (hook.matcher && (hook.event === 'stop' || hook.event === 'pre_inference')) {
      at(file, `${base}.matcher`, `a matcher only applies to pre_tool_use and post_tool_use hooks (this one is ${hook.event})`, line(['matcher']));
    }
    hook.checks.forEach((c, i) => {
      const cp = `${base}.checks.${i}`;
      const cl = line(['checks', i]);
      if (c.type === 'require_tool') {
        c.tools.forEach((t, j) => {
          if (!toolNames.has(t))
            at(
              file,
              `${cp}.require_tool.tools.${j}`,
              `hook "${hook.id}" names tool "${t}", which does not exist`,
              line(['checks', i, 'require_tool', 'tools', j]),
            );
        });
        if (c.whenReplyMatches !== undefined) checkRegex(c.whenReplyMatches, ['require_tool', 'when_reply_matches']);
        if (hook.event !== 'stop') at(file, `${cp}.require_tool`, 'require_tool applies to stop hooks only', cl);
      }
      if (c.type === 'forbid') {
        c.regex.forEach((r, j) => checkRegex(r, ['forbid', 'regex', j]));
        if (c.phrases.length === 0 && c.regex.length === 0) at(file, `${cp}.forbid`, 'forbid needs phrases or regex', cl);
      }
      if (c.type === 'max_chars' && hook.event !== 'stop') at(file, `${cp}.max_chars`, 'max_chars applies to stop hooks only', cl);
      if (c.type === 'schema_valid' && hook.event !== 'pre_tool_use' && hook.event !== 'post_tool_use') {
        at(file, `${cp}.schema_valid`, 'schema_valid applies to tool hooks only', cl);
      }
      function checkRegex(r: string, rest: (string | number)[]) {
        try {
          new RegExp(r, 'u');
        } catch (e) {
          at(file, `${cp}.${rest.join('.')}`, `invalid regular expression: ${(e as Error).message}`, line(['checks', i, ...rest]));
        }
      }
    });
    try {
      templateSlots(hook.feedback);
    } catch (e) {
      at(file, `${base}.feedback`, (e as Error).message, line(['feedback']));
    }
  }

  for (const s of h.sections) {
    if (s.kind !== 'text') continue;
    try {
      templateSlots(s.text);
    } catch (e) {
      at(origins.sections[s.id]?.file ?? main, `sections.${s.id}`, (e as Error).message);
    }
  }
  return problems;
}
