import { fillTemplate } from './template.js';

/**
 * Hook feedback templates: rendering with variables, and reading the variables back out of a
 * feedback message written from the same template (so a transform can re-render it in new words).
 */
export function renderFeedback(template: string, vars: Record<string, unknown>): string {
  return fillTemplate(template, vars);
}

const cache = new Map<string, { re: RegExp; names: string[] }>();

/** The variables a feedback text was rendered with, or `null` when it does not match the template. */
export function parseFeedback(template: string, text: string): Record<string, string> | null {
  let entry = cache.get(template);
  if (!entry) {
    const names: string[] = [];
    let src = '';
    let last = 0;
    for (const m of template.matchAll(/\{\{\s*([A-Za-z_][\w.]*)\s*\}\}/g)) {
      src += escape(template.slice(last, m.index));
      const name = m[1]!;
      if (names.includes(name)) src += `\\k<${name.replace(/\./g, '_')}>`;
      else {
        names.push(name);
        src += `(?<${name.replace(/\./g, '_')}>[\\s\\S]*?)`;
      }
      last = m.index + m[0].length;
    }
    src += escape(template.slice(last));
    entry = { re: new RegExp(`^${src}$`), names };
    // Transforms make new templates per variant: keep the cache bounded.
    if (cache.size >= 5000) cache.clear();
    cache.set(template, entry);
  }
  const m = entry.re.exec(text);
  if (!m) return null;
  const out: Record<string, string> = {};
  for (const n of entry.names) out[n] = m.groups?.[n.replace(/\./g, '_')] ?? '';
  return out;
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
