// Tool names in text: distinctive names, whole-token and phrase matches, the rename tables a record's meta states.

// ---- names ----
// A name written with spaces or other characters no identifier has (`Get Weather`) counts in prose
// too, unless it is only lower-case words (`get weather`: plain words, looked for in code only).
export const DISTINCTIVE = { test: (n) => /[_\-0-9.:/]|[a-z][A-Z]/.test(n) || (/[^A-Za-z0-9_-]/.test(n) && /[^a-z ]/.test(n)) };
export const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// A name as a whole token: not inside a longer identifier (`core-x` does not hold `x`... but it is not `x`).
// A namespaced name (`plants.find`) is not found at the start of a longer one (`plants.find.v2`).
export const tokenRe = (name) =>
  new RegExp(`(?<![A-Za-z0-9_])(?<![A-Za-z0-9_]-)${esc(name)}(?![A-Za-z0-9_]|-[A-Za-z0-9]${/[.:/]/.test(name) ? '|[.:/][A-Za-z0-9_-]' : ''})`, 'g');

// A name of several words written for people (`Get Weather`) is a whole phrase: not the start of a
// longer capitalised one (`Get Weather Forecast`), nor inside a longer name the source's tools spell
// (`Get Prices (v2)` beside `Get Prices`).
export function phraseHits(name, text, spelled) {
  const longer = spelled.filter((s) => s.length > name.length && s.includes(name));
  const out = [];
  for (const m of text.matchAll(tokenRe(name))) {
    const at = m.index;
    if (name.includes(' ') && /^[ \t]+[A-Z]/.test(text.slice(at + name.length))) continue;
    if (
      longer.some((l) => {
        const i = l.indexOf(name);
        return text.startsWith(l, at - i);
      })
    )
      continue;
    out.push(at);
  }
  return out;
}
export const phraseLeak = (name, text, spelled) => (name.includes(' ') ? phraseHits(name, text, spelled).length > 0 : tokenRe(name).test(text));
// A source text with the spellings (`Get Weather`) of renamed tools written as their new names, so
// that it compares token by token with a variant's (which has one token where the source has two).
export function respell(text, spelled, forward) {
  let out = text;
  for (const s of [...spelled].sort((a, b) => b.length - a.length)) {
    const to = forward.get(safeName(s));
    if (to === undefined || safeName(s) === s) continue;
    for (const at of phraseHits(s, out, spelled).reverse()) out = out.slice(0, at) + to + out.slice(at + s.length);
  }
  return out;
}

// A tool name OpenAI does not allow is written with `_` for each other character (docs/harness-format.md, Tools).
export const safeName = (n) => (/^[a-zA-Z0-9_-]{1,64}$/.test(n) ? n : n.replace(/[^a-zA-Z0-9_-]/g, '_'));

export function renameTables(meta) {
  // Tables without a prototype: a name such as `__proto__` is a key like any other (Object.assign
  // onto a plain object would set the prototype instead, and lookups would find Object.prototype).
  const table = () => Object.create(null);
  const t = { tools: table(), params: table(), skills: table(), hooks: table(), wrap: table(), flatten: table() };
  for (const tr of meta?.transforms ?? []) {
    const r = tr.params?.renamed;
    if (tr.id === 'tools.rename' && r) Object.assign(t.tools, r);
    if (tr.id === 'tools.param-rename' && r) Object.assign(t.params, r);
    if (tr.id === 'skills.rename' && r) Object.assign(t.skills, r);
    if (tr.id === 'hooks.rename' && r) Object.assign(t.hooks, r);
    if (tr.id === 'tools.schema-style' && tr.params?.restyled) {
      for (const [tool, how] of Object.entries(tr.params.restyled)) {
        if (/^wrap:/.test(how)) t.wrap[tool] = how.slice(5);
        if (/^flatten:/.test(how)) t.flatten[tool] = how.slice(8);
      }
    }
  }
  return t;
}
