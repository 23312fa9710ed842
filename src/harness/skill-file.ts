import type { Problem } from '../problems.js';
import { isParseFailure, parseLocated, stripBom } from '../util/located.js';
import { normaliseNewlines } from './read-files.js';
import { describeIssue, skillFrontMatterKnown, skillFrontMatterSchema } from './schema.js';
import { quickSkillFrontMatter, type SkillFrontMatter } from './parts-quick.js';
import type { Skill } from './types.js';

/** Lines of a parsed SKILL.md's `name` and `tools` items, for cross-reference problems. */
export interface SkillLines {
  line?: number;
  toolLines?: (number | undefined)[];
}

/** Front-matter keys of the Agent Skills specification that hsa keeps without interpreting them. */
const AGENT_SKILLS_KEYS: ReadonlySet<string> = new Set(['license', 'compatibility', 'metadata', 'allowed-tools']);

/** Parse `SKILL.md`: YAML front matter between `---` lines, then the markdown body. */
export function parseSkillFile(file: string, folderName: string, raw: string, problems: Problem[], where?: SkillLines): Skill | undefined {
  const text = normaliseNewlines(stripBom(raw));
  const m = /^---\n([\s\S]*?)\n---[ \t]*(?:\n|$)/.exec(text);
  if (!m) {
    problems.push({ file, line: 1, path: 'front-matter', message: 'SKILL.md must start with YAML front matter between --- lines', severity: 'error' });
    return undefined;
  }
  const fmText = m[1] ?? '';
  const doc = parseLocated(file, fmText);
  if (isParseFailure(doc)) {
    problems.push({ file, line: (doc.line ?? 0) + 1, path: 'front-matter', message: `YAML syntax: ${doc.message}`, severity: 'error' });
    return undefined;
  }
  const lineOf = (p: (string | number)[]) => {
    const l = doc.lineOf(p);
    return l === undefined ? 2 : l + 1;
  };
  let fm: SkillFrontMatter | null = quickSkillFrontMatter(doc.value ?? {});
  if (fm === null) {
    const r = skillFrontMatterSchema().safeParse(doc.value ?? {}, { reportInput: true });
    if (!r.success) {
      for (const issue of r.error.issues) {
        const d = describeIssue(issue);
        problems.push({ file, line: lineOf(d.path), path: d.path.join('.') || 'front-matter', message: d.message, severity: 'error' });
      }
      return undefined;
    }
    fm = r.data;
  }
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fm)) {
    if ((skillFrontMatterKnown as readonly string[]).includes(k)) continue;
    extra[k] = v;
    // Keys the Agent Skills specification defines are kept silently; only unknown keys warn.
    if (AGENT_SKILLS_KEYS.has(k)) continue;
    problems.push({ file, line: lineOf([k]), path: k, message: 'front-matter key is not used by hsa (kept as written)', severity: 'warning' });
  }
  if (fm.description.length > SKILL_DESCRIPTION_LIMIT) {
    problems.push({ file, line: lineOf(['description']), path: 'description', message: longDescription(fm.description), severity: 'warning' });
  }
  if (where) {
    where.line = lineOf(['name']);
    where.toolLines = (fm.tools ?? []).map((_, i) => lineOf(['tools', i]));
  }
  if (fm.name !== folderName) {
    problems.push({ file, line: lineOf(['name']), path: 'name', message: `"${fm.name}" must equal the folder name "${folderName}"`, severity: 'error' });
  }
  return {
    id: fm.name,
    description: fm.description,
    kind: fm.kind ?? 'reply',
    tools: fm.tools ?? [],
    body: text.slice(m[0].length).trim(),
    extra,
  };
}

/** The Agent Skills specification's description limit; published skills (Anthropic's own) exceed it. */
export const SKILL_DESCRIPTION_LIMIT = 1024;

export function longDescription(d: string): string {
  return `${d.length} characters, more than the Agent Skills limit of ${SKILL_DESCRIPTION_LIMIT} (kept as written)`;
}
