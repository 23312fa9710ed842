/**
 * An independent reader of final output bytes for the fidelity tests: it shares no code with the
 * engine's checks (no TextRewriter, no markdown model), so a blind spot of the engine is not a
 * blind spot of the test.
 */

const WORD = /[A-Za-z0-9_]+(?:-[A-Za-z0-9_]+)*/g;

/** A name that is recognisable in prose: has `_`, `-`, a digit or an inner capital. */
export function distinctive(name: string): boolean {
  return /[_\-0-9]/.test(name) || /[a-z][A-Z]/.test(name);
}

/** Lower-case words of an identifier or a tag, whatever its case style. */
export function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== '')
    .map((w) => w.toLowerCase());
}

/** True when `name` stands in `text` as a whole token (not inside a longer identifier). */
export function hasToken(text: string, name: string): boolean {
  const esc = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![A-Za-z0-9_-])${esc}(?![A-Za-z0-9_-])`).test(text);
}

/** Words inside `code spans` and JSON keys (`"name":`) of a text. */
export function codeWords(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/`([^`\n]+)`/g)) for (const w of m[1]!.matchAll(WORD)) out.push(w[0]);
  for (const m of text.matchAll(/"([A-Za-z_][A-Za-z0-9_-]*)"\s*:/g)) out.push(m[1]!);
  return out;
}

/** Tag names of XML-style markup (`<a_b>`, `</a_b>`), the markup a prompt restyle generates. */
export function tagNames(text: string): string[] {
  return [...text.matchAll(/<\/?([\p{L}_][\p{L}\p{N}_.-]*)[\s>]/gu)].map((m) => m[1]!);
}

/** True when a generated tag spells `name`: its words contain the name's words in a row. */
export function tagSpells(tag: string, name: string): boolean {
  const t = wordsOf(tag);
  const n = wordsOf(name);
  if (n.length === 0) return false;
  if (n.length === 1) return t.length === 1 && t[0] === n[0];
  for (let i = 0; i + n.length <= t.length; i++) if (n.every((w, k) => t[i + k] === w)) return true;
  return false;
}

/**
 * Old names a text carries under the plain-word rule: a distinctive name anywhere as a token, a
 * plain one in code; and any name a generated tag spells (unless the tag is a `current` name).
 */
export function leaksInText(text: string, old: readonly string[], current: ReadonlySet<string> = new Set()): string[] {
  const code = new Set(codeWords(text));
  // A tag that is a current name (a hook's new id in its feedback tag) is that name, not a leak.
  const now = new Set([...current].map((n) => wordsOf(n).join('_')));
  const tags = tagNames(text).filter((t) => !now.has(wordsOf(t).join('_')));
  const out: string[] = [];
  for (const n of old) {
    if (distinctive(n) ? hasToken(text, n) : code.has(n)) out.push(n);
    else if (tags.some((t) => tagSpells(t, n))) out.push(`${n} (in tag)`);
  }
  return out;
}

/** Paragraphs of a text (blank-line separated chunks; a fenced block with its blank lines stays one). */
export function paragraphs(text: string): string[] {
  return [...new Set(paragraphOfLines(text))].filter((p) => p !== '');
}

/** For each line of a text, the paragraph it belongs to ('' for a blank line between paragraphs). */
export function paragraphOfLines(text: string): string[] {
  const lines = text.split('\n');
  const groups: number[] = [];
  let g = 0;
  let fenced = false;
  lines.forEach((line) => {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (!fenced && line.trim() === '') {
      groups.push(-1);
      g++;
    } else groups.push(g);
  });
  const texts = new Map<number, string[]>();
  lines.forEach((line, i) => {
    if (groups[i] !== -1) texts.set(groups[i]!, [...(texts.get(groups[i]!) ?? []), line]);
  });
  // Each paragraph is its own string object, so equal paragraphs stay apart in paragraphs().
  const joined = new Map([...texts].map(([k, v]) => [k, v.join('\n')]));
  return groups.map((k) => (k === -1 ? '' : joined.get(k)!));
}

/**
 * Old names a skill body (as loaded) still refers to: a distinctive name anywhere; a plain
 * parameter in code in a paragraph that names one of its tools (`owners`: any spelling), except a
 * JSON key whose value is a tool name; a plain tool/skill/hook name as a whole code span.
 */
export function leaksInBody(body: string, old: readonly string[], owners: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const out = new Set<string>();
  for (const n of old) if (distinctive(n) && hasToken(body, n)) out.add(n);
  for (const para of paragraphs(body)) {
    const words = new Set([...para.matchAll(WORD)].map((m) => m[0]));
    for (const n of old) {
      if (distinctive(n)) continue;
      const own = owners.get(n);
      if (own) {
        if (![...own].some((t) => words.has(t))) continue;
        const spans = [...para.matchAll(/`([^`\n]+)`/g)].some((m) => [...m[1]!.matchAll(WORD)].some((w) => w[0] === n));
        const keys = [...para.matchAll(new RegExp(`"${n}"\\s*:\\s*("([^"\\n]*)")?`, 'g'))].some((m) => !(m[2] !== undefined && own.has(m[2])));
        if (spans || keys) out.add(n);
      } else if (para.includes(`\`${n}\``) || para.includes(`\`${n}(`)) out.add(n);
    }
  }
  return [...out].sort();
}

/** A body's lines with layout taken out (heading levels, bullet markers), for comparing wording. */
export function layoutFree(body: string): string[] {
  let fenced = false;
  return body.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return line;
    }
    if (fenced) return line;
    if (/^\s{0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/.test(line)) return line;
    return line.replace(/^#{1,6}(?=[ \t]|$)/, '#').replace(/^(\s*)[-*+](?=[ \t]+\S)/, '$1-');
  });
}

/** Identifier-like tokens and everything between them, in order. */
export function tokens(line: string): string[] {
  return line.split(/([A-Za-z0-9_]+(?:-[A-Za-z0-9_]+)*)/);
}

/** True when every item text of `order` that occurs in `text` occurs in this order. */
export function inOrder(text: string, order: readonly string[]): boolean {
  let last = -1;
  for (const item of order) {
    const at = text.indexOf(item);
    if (at === -1) return false;
    if (at < last) return false;
    last = at;
  }
  return true;
}
