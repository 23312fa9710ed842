/**
 * Split a system prompt into sections that render back to it: the harness renders each section
 * trimmed and joins them with one separator, so the prompt is cut only where the blank space
 * between two parts is the same everywhere. Cuts go before markdown headings (`#`..`####`; only
 * the shallowest level that gives two sections, with every shallower heading) and around
 * top-level XML-like blocks (`<tag …>` at a line start, closed by `</tag>` at a line end later).
 * Nothing inside a code fence or an XML block is a cut.
 */
export interface SplitPrompt {
  sections: { id: string; text: string }[];
  separator: string;
}

interface Cut {
  at: number;
  level: number; // 0 for XML blocks (and the text right after one), 1..4 for headings
  id: string;
}

export function splitPrompt(text: string): SplitPrompt {
  const cuts = findCuts(text);
  const headingLevels = cuts.filter((c) => c.level > 0).map((c) => c.level);
  const blocks = cuts.filter((c) => c.level === 0).length;
  let limit = 4;
  for (let l = 1; l <= 4; l++) {
    if (headingLevels.filter((x) => x <= l).length + blocks >= 2) {
      limit = l;
      break;
    }
  }
  const chosen = cuts.filter((c) => c.at > 0 && c.level <= limit);
  const gaps = new Map<string, number>();
  for (const c of chosen) {
    const g = gapBefore(text, c.at);
    if (g !== '') gaps.set(g, (gaps.get(g) ?? 0) + 1);
  }
  let separator = '\n\n';
  let best = -1;
  for (const [g, n] of gaps) if (n > best || (n === best && g === '\n\n')) [separator, best] = [g, n];
  const kept = chosen.filter((c) => gapBefore(text, c.at) === separator);
  const sections: { id: string; text: string }[] = [];
  let start = 0;
  let startId = cuts.find((c) => c.at === 0)?.id ?? 'intro';
  for (const c of kept) {
    sections.push({ id: startId, text: text.slice(start, c.at - separator.length) });
    start = c.at;
    startId = c.id;
  }
  sections.push({ id: startId, text: text.slice(start) });
  const seen = new Map<string, number>();
  for (const s of sections) {
    const n = (seen.get(s.id) ?? 0) + 1;
    seen.set(s.id, n);
    if (n > 1) s.id = `${s.id}_${n}`;
  }
  // A split must join back to the text; anything else (it cannot happen for a trimmed text) is one section.
  if (sections.map((s) => s.text).join(separator) !== text) return { sections: [{ id: 'prompt', text }], separator: '\n\n' };
  return { sections, separator };
}

function gapBefore(text: string, at: number): string {
  let i = at;
  while (i > 0 && /\s/.test(text[i - 1]!)) i--;
  return text.slice(i, at);
}

const FENCE = /^ {0,3}(```|~~~)/;
const HEADING = /^(#{1,4})[ \t]+(\S.*)$/;
const OPEN_TAG = /^<([A-Za-z][\w.-]*)(?:\s[^>]*)?>/;

function findCuts(text: string): Cut[] {
  const cuts: Cut[] = [];
  let fence: string | null = null;
  let closeAt = -1; // end of the open XML block
  let pos = 0;
  let afterBlock = false;
  for (const line of text.split('\n')) {
    const start = pos;
    pos += line.length + 1;
    if (start < closeAt) continue;
    const f = FENCE.exec(line);
    if (fence !== null) {
      if (f && f[1] === fence) fence = null;
      continue;
    }
    if (afterBlock && line.trim() !== '') {
      afterBlock = false;
      if (!/^\s/.test(line)) cuts.push({ at: start, level: 0, id: 'text' });
    }
    if (f) {
      fence = f[1]!;
      continue;
    }
    const h = HEADING.exec(line);
    if (h) {
      const last = cuts[cuts.length - 1];
      if (last && last.at === start) cuts.pop();
      cuts.push({ at: start, level: h[1]!.length, id: slug(h[2]!) });
      continue;
    }
    const t = OPEN_TAG.exec(line);
    if (t) {
      const close = `</${t[1]}>`;
      const end = text.indexOf(close, start + t[0].length);
      if (end < 0) continue;
      const lineEnd = text.indexOf('\n', end);
      if (lineEnd >= 0 && text.slice(end + close.length, lineEnd).trim() !== '') continue;
      const last = cuts[cuts.length - 1];
      if (last && last.at === start) cuts.pop();
      cuts.push({ at: start, level: 0, id: slug(t[1]!) });
      closeAt = lineEnd < 0 ? text.length + 1 : lineEnd + 1;
      afterBlock = true;
    }
  }
  return cuts;
}

/** A section id from a heading or tag: lower case, `_` for anything not a letter or digit. */
export function slug(s: string): string {
  const out = s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 40)
    .replace(/_+$/, '');
  return out === '' ? 'section' : out;
}
