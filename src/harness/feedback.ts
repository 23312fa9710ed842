import { fillTemplate } from './template.js';

/**
 * Hook feedback templates: rendering with variables, and reading the variables back out of a
 * feedback message written from the same template (so a transform can re-render it in new words).
 */
export function renderFeedback(template: string, vars: Record<string, unknown>): string {
  const depths = slotDepths(template);
  if (depths === null) return fillTemplate(template, vars);
  // A value inside a JSON string is written JSON-escaped, once per string it stands in (a reason
  // quoting "RF-3310" stays one string; inside a JSON text held in a JSON string, escaped twice).
  const escaped: Record<string, unknown> = { ...vars };
  for (const [k, d] of depths) if (typeof vars[k] === 'string') escaped[k] = escapeTimes(vars[k], d);
  return fillTemplate(template, escaped);
}

const SLOT = /\{\{\s*([A-Za-z_][\w.]*)\s*\}\}/g;
const depthCache = new Map<string, ReadonlyMap<string, number> | null>();

/**
 * How many JSON strings each slot of a template stands in (`{"message":"{{reason}}"}`: 1), for the
 * slots that stand in one; null when none does (nearly every template: no escaping at all).
 */
function slotDepths(template: string): ReadonlyMap<string, number> | null {
  let out = depthCache.get(template);
  if (out !== undefined) return out;
  out = null;
  if (/[{[][\s\S]*["][\s\S]*[}\]]/.test(template.replace(SLOT, ''))) {
    const depths = new Map<string, number>();
    for (const name of new Set([...template.matchAll(SLOT)].map((m) => m[1]!))) {
      const probe = template.replace(SLOT, (_, n: string) => (n === name ? PROBE : 'x'));
      const d = jsonDepth(probe);
      if (d > 0) depths.set(name, d);
    }
    if (depths.size > 0) out = depths;
  }
  if (depthCache.size >= 5000) depthCache.clear();
  depthCache.set(template, out);
  return out;
}

const PROBE = 'hsaSlotProbe7f3';

/** The number of nested JSON strings the probe stands in within `text` (0: in none). */
function jsonDepth(text: string): number {
  const at = text.indexOf(PROBE);
  if (at < 0) return 0;
  for (let i = 0; i < at; i++) {
    if (text[i] !== '{' && text[i] !== '[') continue;
    for (let j = text.length; j > at; j--) {
      const c = text[j - 1];
      if (c !== '}' && c !== ']') continue;
      let value: unknown;
      try {
        value = JSON.parse(text.slice(i, j));
      } catch {
        continue;
      }
      const inner = stringWith(value);
      return inner === undefined ? 0 : 1 + jsonDepth(inner);
    }
  }
  return 0;
}

/** The string inside a parsed JSON value that holds the probe. */
function stringWith(v: unknown): string | undefined {
  if (typeof v === 'string') return v.includes(PROBE) ? v : undefined;
  if (v === null || typeof v !== 'object') return undefined;
  for (const [k, x] of Object.entries(v)) {
    if (k.includes(PROBE)) return k;
    const s = stringWith(x);
    if (s !== undefined) return s;
  }
  return undefined;
}

function escapeTimes(s: string, times: number): string {
  let out = s;
  for (let i = 0; i < times; i++) out = JSON.stringify(out).slice(1, -1);
  return out;
}

function unescapeTimes(s: string, times: number): string | null {
  let out = s;
  for (let i = 0; i < times; i++) {
    try {
      out = JSON.parse(`"${out}"`) as string;
    } catch {
      return null;
    }
  }
  return out;
}

const cache = new Map<string, { re: RegExp; names: string[]; head: string; tail: string }>();

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
    // The literal text before the first slot and after the last: a text that does not start and end
    // with them cannot match (most tool results are no feedback), so the regex is not run on it.
    const first = names.length === 0 ? template.length : template.search(/\{\{\s*[A-Za-z_][\w.]*\s*\}\}/);
    entry = { re: new RegExp(`^${src}$`), names, head: template.slice(0, first), tail: names.length === 0 ? '' : template.slice(last) };
    // Transforms make new templates per variant: keep the cache bounded.
    if (cache.size >= 5000) cache.clear();
    cache.set(template, entry);
  }
  if (text.length < entry.head.length + entry.tail.length || !text.startsWith(entry.head) || !text.endsWith(entry.tail)) return null;
  const m = entry.re.exec(text);
  if (!m) return null;
  const out: Record<string, string> = {};
  const depths = slotDepths(template);
  for (const n of entry.names) {
    const raw = m.groups?.[n.replace(/\./g, '_')] ?? '';
    const d = depths?.get(n) ?? 0;
    const v = d === 0 ? raw : unescapeTimes(raw, d);
    // Not a JSON string body where the template has one: this text was not written from it.
    if (v === null) return null;
    out[n] = v;
  }
  return out;
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
