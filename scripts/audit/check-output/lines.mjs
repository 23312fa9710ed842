// Skill bodies and prompt lists compared line by line, and which tool messages answer a tool's calls.

// Skill bodies and prompt lists, compared line by line after undoing the renames the plan states
// and normalising what restyles may change (list markers, heading levels, spacing).
export function normaliseLine(l) {
  return l
    .replace(/^\s*(?:[-*+•]|\d+[.)])[ \t]+/, '')
    .replace(/^#{1,6}[ \t]+/, '')
    .replace(/\s+/g, ' ')
    .trim();
}
// A variant line is explained by a source line when both split into the same identifier tokens and
// separators, every token being equal or the plan's rename of the source token.
export const TOKENS = /([A-Za-z0-9_]+(?:-[A-Za-z0-9_]+)*)/;
export function explains(src, variant, forward) {
  if (src === variant) return true;
  const a = src.split(TOKENS);
  const b = variant.split(TOKENS);
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && !(i % 2 === 1 && forward.get(a[i]) === b[i])) return false;
  return true;
}
export function listBlocks(text) {
  // Top-level list blocks (bullets or numbers at the left margin), with their kind.
  const blocks = [];
  let cur = null;
  let fence = false;
  for (const line of text.split('\n')) {
    if (/^\s{0,3}(```|~~~)/.test(line)) fence = !fence;
    const m = !fence && /^((?:[-*+])|\d+[.)])[ \t]+\S/.exec(line);
    if (m) {
      const numbered = /\d/.test(m[1]);
      if (!cur) {
        cur = { numbered, items: [] };
        blocks.push(cur);
      }
      cur.items.push(normaliseLine(line));
    } else if (!(line.trim() === '' || /^\s+\S/.test(line))) cur = null; // blank and indented lines stay in a list
  }
  return blocks.filter((b) => b.items.length >= 2);
}

// Indices of the tool messages that answer calls of `tool`: a result answers the nearest open call
// with its id (ids may be reused across turns).
export function answersOf(messages, tool) {
  const out = new Set();
  const open = [];
  messages.forEach((m, i) => {
    for (const c of m.tool_calls ?? []) open.push({ id: c.id, name: c.function.name });
    if (m.role === 'tool') {
      for (let k = open.length - 1; k >= 0; k--)
        if (open[k].id === m.tool_call_id) {
          if (open[k].name === tool) out.add(i);
          open.splice(k, 1);
          break;
        }
    }
  });
  return out;
}
